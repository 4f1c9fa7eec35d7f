"""Hostile Python objects: the module must answer every one with a model or a Python exception,
never a dead interpreter. The reproductions first (a dict that contains itself, a list nested
100 000 deep, a NUL in a file name, a pivot off by 0.8 nm), then a seeded random pass over
nested objects and mutated scenes (atheris is not packaged here; the seed makes a failure
repeatable: JOINERY_PY_FUZZ_SEED and JOINERY_PY_FUZZ_CASES override it)."""
import copy
import json
import math
import os
import random
import subprocess
import sys

import pytest

import joinery

# what a hostile value may raise: joinery's own errors, or Python's for a value of the wrong kind
ALLOWED = (joinery.Error, ValueError, TypeError, OverflowError)


def test_a_dict_that_contains_itself_is_a_value_error():
    d = {"joinery": 1, "bodies": []}
    d["self"] = d
    with pytest.raises(ValueError) as e:
        joinery.load(d)
    assert "levels deep" in str(e.value)


def test_a_list_nested_100000_deep_is_a_value_error():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ValueError) as e:
        joinery.load({"joinery": 1, "bodies": [], "description": deep})
    assert "levels deep" in str(e.value)
    # the limit is the one of scene files: 256 levels load (as data an unknown key rejects)
    shallow = []
    for _ in range(200):
        shallow = [shallow]
    with pytest.raises(joinery.InputError):
        joinery.load({"joinery": 1, "bodies": [], "unknown": shallow})


def test_a_nul_in_a_file_name_is_refused_like_open_does(tmp_path):
    scene = tmp_path / "p.json"
    scene.write_text(json.dumps({"joinery": 1, "bodies": [{"name": "p", "type": "particle", "dim": 1, "mass": 1}]}))
    joinery.load(str(scene))  # the name itself loads
    with pytest.raises(ValueError):
        open(str(scene) + "\0junk")  # Python's own rule
    with pytest.raises(ValueError) as e:
        joinery.load(str(scene) + "\0junk")
    assert "null byte" in str(e.value)
    with pytest.raises(ValueError):
        joinery.solve_problem(str(scene) + "\0junk")
    with pytest.raises(ValueError):
        joinery.study(str(scene) + "\0junk")


def confine_layout(tmp_path):
    """A scene in inner/ that includes ../outside.json (a library outside its folder)."""
    inner = tmp_path / "inner"
    inner.mkdir()
    (tmp_path / "outside.json").write_text(json.dumps({"joinery": 1, "components": {}}))
    doc = {"joinery": 1, "include": ["../outside.json"],
           "bodies": [{"name": "p", "type": "particle", "dim": 1, "mass": 1}]}
    scene = inner / "s.json"
    scene.write_text(json.dumps(doc))
    return scene, doc


def test_load_confines_includes_as_the_command_line_does(tmp_path):
    scene, doc = confine_layout(tmp_path)
    joinery.load(scene)  # by default (your own file) any include is read, as the CLI
    joinery.load(scene, confine_includes=False)
    with pytest.raises(joinery.InputError) as e:
        joinery.load(scene, confine_includes=True)  # --confine-includes: the scene's folder
    assert "outside" in str(e.value) and "outside.json" in str(e.value)
    # a folder (str or os.PathLike), as --confine-includes=DIR: the parent holds the library
    joinery.load(scene, confine_includes=tmp_path)
    with pytest.raises(joinery.InputError):
        joinery.load(scene, confine_includes=str(scene.parent))
    with pytest.raises(ValueError):
        joinery.load(scene, confine_includes=tmp_path / "no_such_folder")
    with pytest.raises(TypeError):
        joinery.load(scene, confine_includes=3)
    # a dict is confined to the working directory
    cwd = os.getcwd()
    try:
        os.chdir(scene.parent)
        joinery.load(doc)
        with pytest.raises(joinery.InputError):
            joinery.load(doc, confine_includes=True)
    finally:
        os.chdir(cwd)
    # the shipped libraries are not "outside"
    library = os.path.join(os.environ.get("JOINERY_SOURCE_DIR", "."), "examples", "library", "pendulums.json")
    if os.path.exists(library):
        joinery.load(library, confine_includes=True)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="making a file another user's needs root")
def test_load_confines_a_scene_of_another_user_by_default(tmp_path):
    scene, _ = confine_layout(tmp_path)
    os.chown(scene, 65534, 65534)  # nobody
    with pytest.raises(joinery.InputError) as e:
        joinery.load(scene)
    assert "outside" in str(e.value)
    joinery.load(scene, confine_includes=False)  # as --trust-includes


def test_check_of_a_pivot_off_by_a_nanometre_is_a_report():
    scene = {"joinery": 1,
             "bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1,
                         "position": [0.5000000008, 8e-10]}],
             "joints": [{"name": "pivot", "type": "revolute2d", "body1": "ground", "point1": [0, 0],
                         "body2": "rod", "point2": [-0.5, 0]}]}
    # in a child interpreter: today's crash would kill this one
    code = ("import joinery, json, sys; m = joinery.load(json.loads(sys.argv[1])); r = m.check(); "
            "print(r.to_dict()['status'] if 'status' in r.to_dict() else 'ok')")
    p = subprocess.run([sys.executable, "-c", code, json.dumps(scene)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


# ---- the seeded random pass ----

SEED = int(os.environ.get("JOINERY_PY_FUZZ_SEED", "20261201"))
CASES = int(os.environ.get("JOINERY_PY_FUZZ_CASES", "1500"))

ATOMS = [None, True, False, 0, 1, -1, 2**63, -(2**63) - 1, 2**200, 0.5, -0.0, 1e308, 5e-324, math.inf, -math.inf,
         math.nan, "", "x", "\0", "\x1b[2J", "joinery", "ground", "p", "1/0", "sqrt(-1)", "x^(2^64)", "1e-310",
         "a" * 5000, "\ud800", b"bytes", 1j, object(), range(3), {1, 2}, frozenset(), bytearray(b"a")]
KEYS = ["joinery", "bodies", "joints", "forces", "name", "type", "mass", "dim", "position", "velocity",
        "inertia", "parameters", "include", "components", "instances", "simulation", "t_end", "body1",
        "body2", "point1", "point2", "length", "gravity", "outputs", "x", "\0", "", "a.b"]
TYPES = ["particle", "rigid2d", "rigid3d", "distance", "revolute2d", "weld", "spring", "expression", "nope"]


def random_value(rng, depth=0):
    r = rng.random()
    if depth > 6 or r < 0.45:
        if rng.random() < 0.3:
            return rng.choice(TYPES)
        return rng.choice(ATOMS)
    if r < 0.7:
        return {rng.choice(KEYS) if rng.random() < 0.9 else rng.choice(ATOMS[:12]): random_value(rng, depth + 1)
                for _ in range(rng.randint(0, 5))}
    if r < 0.9:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return tuple(random_value(rng, depth + 1) for _ in range(rng.randint(0, 3)))


def seed_scenes():
    root = os.environ.get("JOINERY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    out = []
    folder = os.path.join(root, "examples", "scenes")
    for name in sorted(os.listdir(folder))[:40]:
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                doc = json.load(f)
            if "include" not in doc:
                out.append(doc)
    return out


def paths_of(doc, path=(), seen=None):
    """The paths of `doc`, each container visited once (a mutated document may contain itself)."""
    seen = set() if seen is None else seen
    yield path
    if isinstance(doc, (dict, list)) and id(doc) not in seen and len(path) < 40:
        seen.add(id(doc))
        items = doc.items() if isinstance(doc, dict) else enumerate(doc)
        for k, v in list(items):
            yield from paths_of(v, path + (k,), seen)


def mutate(rng, seed):
    """A copy of `seed` with one to three point mutations: a value replaced by a random one, a
    key dropped, a container made to contain itself, a value nested thousands deep."""
    doc = copy.deepcopy(seed)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in paths_of(doc) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        r = rng.random()
        if r < 0.7:
            parent[path[-1]] = random_value(rng)
        elif r < 0.85 and isinstance(parent, dict):
            del parent[path[-1]]
        elif r < 0.92:
            parent[path[-1]] = parent  # contains itself
        else:
            deep = parent[path[-1]]
            for _ in range(rng.choice([300, 5000])):
                deep = [deep]
            parent[path[-1]] = deep
    return doc


def exercise(model):
    """What a user does next with a model: check it, and a very short run."""
    report = model.check()
    report.to_dict()
    try:
        model.simulate(t_end=1e-3)
    except ALLOWED:
        pass


def test_seeded_random_objects_never_crash():
    rng = random.Random(SEED)
    scenes = seed_scenes()
    assert scenes, "no seed scenes found"
    outcomes = {"loaded": 0, "refused": 0}
    for case in range(CASES):
        doc = mutate(rng, rng.choice(scenes)) if rng.random() < 0.7 else random_value(rng)
        try:
            model = joinery.load(doc) if isinstance(doc, dict) else joinery.load({"joinery": 1, "bodies": doc})
        except ALLOWED:
            outcomes["refused"] += 1
            continue
        except Exception as e:  # anything else is a finding
            pytest.fail(f"seed {SEED}, case {case}: {type(e).__name__}: {e}")
        outcomes["loaded"] += 1
        try:
            exercise(model)
        except ALLOWED:
            pass
    # the pass must reach the model as well as the refusals: both kinds of outcome occur
    assert outcomes["loaded"] > 20 and outcomes["refused"] > 100, outcomes
