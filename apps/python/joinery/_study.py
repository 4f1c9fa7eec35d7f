"""joinery.study: the study runner of ``joinery study`` from Python (docs/studies.md)."""

import csv
import math
import os
import tempfile

import numpy as np

from . import _joinery


class StudyResult:
    """The table of a study, one row per case sorted by ``case``.

    ``result.columns`` are the table's columns (``case``, one per parameter as named in the
    design, one per collected item as written in ``collect``, ``exit``, ``message``);
    ``result[column]`` is a NumPy float array (NaN for an empty field: a failed case's
    collected values, or a parameter given as a word), ``result["message"]`` a list of str and
    ``result.values(column)`` the raw strings. ``total``, ``ran``, ``skipped`` and ``failed``
    count the cases; ``table`` is the CSV file.
    """

    # the attributes, also on the class (type stub; each result sets its own)
    columns = []
    parameters = []
    table = None
    total = ran = skipped = failed = 0

    def __init__(self, info, rows):
        self.columns = list(info["columns"])
        self.parameters = list(info["parameters"])
        self.table = info["table"]
        self.total, self.ran = info["total"], info["ran"]
        self.skipped, self.failed = info["skipped"], info["failed"]
        self._raw = {c: [r.get(c, "") for r in rows] for c in self.columns}

    def values(self, column):
        """The column's fields as written in the CSV (strings)."""
        return list(self._raw[column])

    def __getitem__(self, column):
        if column not in self._raw:
            raise KeyError("no column '%s'; the table has: %s" % (column, ", ".join(self.columns)))
        if column == "message":
            return list(self._raw[column])
        return np.array([_number(v) for v in self._raw[column]], dtype=float)

    def __contains__(self, column):
        return column in self._raw

    def __len__(self):
        return len(self._raw[self.columns[0]]) if self.columns else 0

    def keys(self):
        return list(self.columns)

    def __repr__(self):
        return "<joinery.StudyResult %d cases (%d failed), %d columns: %s>" % (
            len(self), self.failed, len(self.columns), self.table)


def _number(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def study(path, output=None, *, jobs=1, resume=False, time_limit=None):
    """Runs a study file as ``joinery study STUDY.json -o TABLE.csv [-j N] [--resume]``.

    path: the study file (its "scene" is relative to it; docs/studies.md).
    output: the table CSV to write; None writes it to a temporary file that is removed
      after it is read.
    jobs: worker processes (the cases run in forked processes, as the command line's -j).
    resume: keep the rows of an existing ``output`` whose inputs match a case.
    time_limit: per-case limit in seconds (default: the study's "time_limit").

    Returns a StudyResult (the table, one row per case). Raises joinery.InputError for an
    invalid study (what makes ``joinery study`` exit 2); a case that fails is a row with
    its exit status and message, not an exception.
    """
    path = os.fspath(path)
    temporary = output is None
    if temporary:
        fd, table = tempfile.mkstemp(prefix="joinery_study_", suffix=".csv")
        os.close(fd)
        os.unlink(table)  # runStudy creates it (an empty existing file would be "other columns")
    else:
        table = os.fspath(output)
    try:
        info = _joinery._run_study(path, table, jobs, resume, time_limit)
        with open(table, newline="") as f:
            rows = list(csv.DictReader(f))
    finally:
        if temporary and os.path.exists(table):
            os.unlink(table)
    if temporary:
        info["table"] = None
    return StudyResult(info, rows)
