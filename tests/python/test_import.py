"""joinery.load on MJCF and URDF files (docs/import.md): the same model as `joinery import`
writes, and what is not converted as a warning."""
import json
import os
import subprocess
import warnings

import joinery

SOURCE = os.environ.get("JOINERY_SOURCE_DIR", "")
ARM = os.path.join(SOURCE, "tests", "peers", "import", "data", "tree.urdf")


def test_load_urdf_matches_the_imported_scene(cli, tmp_path):
    out = tmp_path / "tree.json"
    r = subprocess.run([cli, "import", ARM, "--no-limits", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    scene = json.loads(out.read_text())
    from_json = joinery.load(scene)
    names = [b["name"] for b in scene["bodies"]]
    assert names[0] == "torso"  # the root first, then its subtrees (urdfdom's order)
    assert sorted(names) == sorted(["torso", "head", "visor", "left_upper", "left_lower", "right_upper", "right_lower"])
    assert from_json.coordinates[:3] == ["torso.x", "torso.y", "torso.z"]
    direct = joinery.load(ARM)  # the URDF itself, its joint ranges as limits
    assert direct.coordinates == from_json.coordinates
    assert direct.check().status == "well_posed"


def test_load_mjcf_directly_warns_about_what_is_not_converted(tmp_path):
    model = tmp_path / "pendulum.xml"
    model.write_text('<mujoco><worldbody><body name="bob" pos="0 0 -1"><joint name="pin" pos="0 0 1" axis="0 1 0" '
                     'damping="0.1" armature="0.05"/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = joinery.load(model)
    assert any("not converted: pin: armature 0.05" in str(w.message) for w in caught)
    # the damping is converted, a joint_spring on the pin: not among the warnings
    assert not any("damping" in str(w.message) for w in caught)
    assert m.coordinates[0] == "bob.x"
    assert m.check().status == "well_posed"
    # it hangs below its pin at rest: no acceleration
    sol = m.solve()
    assert abs(sol.accelerations["bob.z"]) < 1e-9
    assert abs(sol.accelerations["bob.x"]) < 1e-9
