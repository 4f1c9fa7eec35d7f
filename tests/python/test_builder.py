"""ModelBuilder: a model from the registries' factories, the same as the scene file's."""
import numpy as np
import pytest

import joinery


def test_builder_pendulum_equals_the_scene(scenes):
    b = joinery.ModelBuilder(name="pendulum", gravity=[0, -9.81, 0], parameters={"L": 1, "m": 1})
    b.add_body("particle", name="bob", dim=2, mass="m", position=np.array(["-L", 0], dtype=object))
    b.add_joint("distance", name="rod", body1="ground", point1=[0, 0], body2="bob", point2=[0, 0], length="L")
    built = b.build()
    loaded = joinery.load(scenes / "pendulum.json")
    assert built.coordinates == loaded.coordinates and built.joints == ["rod"]
    q = np.array([0.6, -0.8])
    v = np.array([1.6, 1.2])
    np.testing.assert_array_equal(built.solve(q, v).qdd, loaded.solve(q, v).qdd)
    for x, y in zip(built.matrices(q, v), loaded.matrices(q, v)):
        np.testing.assert_array_equal(x, y)


def test_builder_errors_point_into_its_dict():
    b = joinery.ModelBuilder()
    b.add_body("particle", name="p", dim=2, mass=1.0)
    b.add_body("rigid2d", name="r", mass=2.0, inertia=-1.0)
    with pytest.raises(joinery.InputError) as e:
        b.build()
    assert e.value.path.startswith("/bodies/1/")
    assert e.value.file == "<ModelBuilder>"
    assert b.to_dict()["bodies"][1]["inertia"] == -1.0


def test_registries_list_every_type_with_an_example():
    bodies, joints, forces = joinery.body_types(), joinery.joint_types(), joinery.force_types()
    assert {"particle", "rigid2d"} <= set(bodies)
    assert {"distance", "revolute2d", "driver"} <= set(joints)
    assert forces
    for kind in (bodies, joints, forces):
        for name, info in kind.items():
            assert info["summary"] and info["example"]["type"] == name


def test_every_registered_body_example_builds():
    for name, info in joinery.body_types().items():
        example = dict(info["example"])
        b = joinery.ModelBuilder()
        b.add_body(example.pop("type"), example.pop("name"), **example)
        model = b.build()
        assert model.n > 0, name
