"""Shared fixtures of the Python tests (run by ctest: tests/python/CMakeLists.txt sets
PYTHONPATH to the build-tree package, JOINERY_CLI and JOINERY_SOURCE_DIR)."""
import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("JOINERY_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def scenes():
    return SOURCE_DIR / "examples" / "scenes"


@pytest.fixture
def problems():
    return SOURCE_DIR / "examples" / "problems"


@pytest.fixture
def cli():
    path = os.environ.get("JOINERY_CLI")
    if not path or not os.path.exists(path):
        pytest.fail("JOINERY_CLI must name the joinery program (set by ctest)")
    return path
