#!/usr/bin/env python3
"""A mutation campaign against the joinery program: mutants of the bundled scenes and matrix
problems, each run through `check`, `solve` and a short `simulate`, every outcome classified.

  scripts/mutation_campaign.py JOINERY_EXE [--mutants N] [--seed S] [--timeout SEC] [--keep DIR]

A run passes when it ends by itself, within the time limit, with one of the documented exit
statuses (0 ok, 2 invalid input, 3 ill posed, 4 inconsistent, 5 run failed). It fails when a
signal ends it (a crash), when it passes the time limit (a hang), when it exits 1 (an internal
error: an exception joinery did not expect), or when a message holds an escape character.
Failing inputs are kept in --keep (default: a folder under /tmp). The figures of
docs/fuzzing.md come from this script.

The mutations are JSON-aware (a value replaced by a hostile one: huge, tiny, subnormal, NaN-like
expressions, deep nesting, long strings, control characters, wrong types; keys dropped or
duplicated; arrays emptied or grown) and textual (bytes flipped, cut, repeated), in the
proportions of the `MUTATORS` table. The seed makes the campaign repeatable."""
import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HOSTILE = [0, -1, 1e308, -1e308, 1e-310, 5e-324, 1e200, 1e-200, 2**63, -(2**63), 2**64, 0.8e-9,
           "1e-310", "1e-320*1e300", "x^(2^64)", "1/0", "0/0", "sqrt(-1)", "log(0)", "9^9^9", "2^2^2^2^2^2",
           "sin(" * 600 + "t" + ")" * 600, "t" * 20000, "\u001b]0;title\u0007\u001b[2J", "\u009b2J",
           "", " ", "nan", "inf", "-inf", None, True, False, [], {}, [[]], {"": {}}, "../../../../etc/passwd",
           "/dev/zero", "/proc/self/environ", "joinery:links", "joinery:nope", [1, 1, 5], [0, 0, 0],
           [1e150, 1e150], [1e-100, 1e-100], "ground", "none", "rk4", "dopri5", "radau5", "projection"]


def walk(doc, path=()):
    """Every (path, value) of a JSON document."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from walk(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from walk(v, path + (i,))


def get_parent(doc, path):
    for p in path[:-1]:
        doc = doc[p]
    return doc


def mut_value(rng, doc):
    paths = [p for p, _ in walk(doc) if p]
    if not paths:
        return doc
    p = rng.choice(paths)
    get_parent(doc, p)[p[-1]] = rng.choice(HOSTILE)
    return doc


def mut_scale(rng, doc):
    """Every number multiplied by one power of ten: the scale-free promise."""
    f = 10.0 ** rng.choice([-100, -20, -10, -6, 6, 10, 20, 150])

    def scale(x):
        if isinstance(x, bool):
            return x
        if isinstance(x, (int, float)):
            return x * f
        if isinstance(x, list):
            return [scale(v) for v in x]
        if isinstance(x, dict):
            # the run's settings keep their values: rtol 1e-15 with a 1e-8 output interval is
            # a legitimately huge run (bounded by the limits), not a finding
            return {k: (v if k in ("joinery", "dim", "simulation") else scale(v)) for k, v in x.items()}
        return x
    return scale(doc)


def mut_drop(rng, doc):
    paths = [p for p, v in walk(doc) if p and isinstance(get_parent(doc, p), dict)]
    if paths:
        p = rng.choice(paths)
        del get_parent(doc, p)[p[-1]]
    return doc


def mut_deep(rng, doc):
    paths = [p for p, _ in walk(doc) if p]
    if paths:
        p = rng.choice(paths)
        v = 1
        for _ in range(rng.choice([100, 300, 3000])):
            v = [v]
        get_parent(doc, p)[p[-1]] = v
    return doc


def mut_grow(rng, doc):
    lists = [p for p, v in walk(doc) if isinstance(v, list) and v]
    if lists:
        p = rng.choice(lists)
        target = doc
        for k in p:
            target = target[k]
        target.extend([target[-1]] * rng.choice([1, 10, 200]))
    return doc


def mut_pivot(rng, doc):
    """A position moved by a nanometre (the assembly report's edge)."""
    nums = [p for p, v in walk(doc) if isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool))]
    if nums:
        p = rng.choice(nums)
        get_parent(doc, p)[p[-1]] = get_parent(doc, p)[p[-1]] + rng.choice([8e-10, -8e-10, 1e-7])
    return doc


MUTATORS = [(mut_value, 40), (mut_scale, 10), (mut_drop, 15), (mut_deep, 5), (mut_grow, 10), (mut_pivot, 10)]


def mutate_text(rng, text):
    b = bytearray(text.encode())
    kind = rng.random()
    if kind < 0.4 and b:
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind < 0.7 and b:
        b = b[:rng.randrange(len(b))]
    else:
        i = rng.randrange(len(b) + 1)
        j = min(len(b), i + rng.randint(1, 200))
        b[i:i] = b[i:j] * rng.randint(2, 50)
    return bytes(b)


def seeds():
    out = []
    for sub in ("examples/scenes", "examples/problems", "examples/library"):
        folder = os.path.join(ROOT, sub)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json") and os.path.getsize(os.path.join(folder, name)) < 60000:
                out.append(os.path.join(folder, name))
    return out


def run(cmd, timeout):
    start = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr, time.time() - start
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stdout or b"") + (e.stderr or b""), time.time() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--mutants", type=int, default=300)
    ap.add_argument("--seed", type=int, default=43)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    keep = a.keep or tempfile.mkdtemp(prefix="joinery_campaign_")
    os.makedirs(keep, exist_ok=True)
    work = tempfile.mkdtemp(prefix="joinery_campaign_work_")
    files = seeds()
    counts = collections.Counter()
    failing = []
    runs = 0
    t0 = time.time()
    for m in range(a.mutants):
        src = rng.choice(files)
        text = open(src).read()
        folder = os.path.dirname(src)  # the mutant sits beside its seed's includes (a copy of the folder's name)
        if rng.random() < 0.8:
            doc = json.loads(text)
            fn = rng.choices([f for f, _ in MUTATORS], [w for _, w in MUTATORS])[0]
            try:
                doc = fn(rng, doc)
            except (KeyError, IndexError, TypeError):
                pass
            try:
                data = json.dumps(doc, allow_nan=True).encode()
            except RecursionError:  # nested past Python's encoder: write the nesting as text
                data = (json.dumps(json.loads(text))[:-1] + ', "deep": ' + "[" * 3000 + "]" * 3000 + "}").encode()
        else:
            data = mutate_text(rng, text)
        path = os.path.join(folder, f".campaign_{os.getpid()}_{m}.json")
        with open(path, "wb") as f:
            f.write(data)
        bad_here = False
        try:
            cmds = [[a.exe, "check", path], [a.exe, "solve", path],
                    [a.exe, "simulate", path, "--t-end", "0.05", "-o", os.path.join(work, "out.csv"),
                     "--summary", os.path.join(work, "s.json")]]
            for cmd in cmds:
                runs += 1
                status, out, _ = run(cmd, a.timeout)
                if status == "timeout":
                    kind = "hang"
                elif isinstance(status, int) and status < 0:
                    kind = f"signal {-status}"
                elif status == 1:
                    kind = "internal error"
                elif status not in (0, 2, 3, 4, 5):
                    kind = f"exit {status}"
                elif b"\x1b" in out or b"\xc2\x9b" in out:
                    kind = "escape in output"
                else:
                    kind = "ok"
                counts[kind] += 1
                if kind != "ok":
                    bad_here = True
                    failing.append((kind, cmd[1], os.path.basename(src), out[-300:].decode(errors="replace")))
        finally:
            if bad_here:
                with open(os.path.join(keep, f"mutant_{m}_{os.path.basename(src)}"), "wb") as f:
                    f.write(data)
            os.remove(path)
    inputs_failing = len({(k, s) for k, _, s, _ in failing})
    print(json.dumps({"seed": a.seed, "mutants": a.mutants, "runs": runs, "outcomes": counts,
                      "failing_runs": len(failing), "wall_seconds": round(time.time() - t0, 1), "kept": keep},
                     indent=1))
    for kind, cmd, src, tail in failing[:40]:
        print(f"-- {kind}: {cmd} of a mutant of {src}\n{tail}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
