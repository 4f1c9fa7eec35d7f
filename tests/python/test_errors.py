"""Errors: joinery.InputError with the file and JSON path of the offending field."""
import json

import pytest

import joinery


def particle(**fields):
    body = {"name": "p", "type": "particle", "dim": 2, "mass": 1}
    body.update(fields)
    return body


def test_exception_hierarchy():
    assert issubclass(joinery.InputError, joinery.Error)
    assert issubclass(joinery.ModelError, joinery.Error)
    assert issubclass(joinery.SimulationError, joinery.Error)


def test_bad_value_names_its_path():
    with pytest.raises(joinery.InputError) as e:
        joinery.load({"joinery": 1, "bodies": [particle(), particle(name="q", mass=-1)]})
    assert e.value.path == "/bodies/1/mass"
    assert e.value.file == "<dict>"
    assert "-1" in e.value.detail


def test_unknown_body_in_a_joint(tmp_path):
    scene = {"joinery": 1, "bodies": [particle()],
             "joints": [{"name": "rod", "type": "distance", "body1": "ground", "point1": [0, 0],
                         "body2": "bobb", "point2": [0, 0], "length": 1}]}
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    with pytest.raises(joinery.InputError) as e:
        joinery.load(path)
    assert e.value.path == "/joints/0/body2"
    assert e.value.file == str(path)
    assert "bobb" in str(e.value)


def test_unknown_type_and_file_errors(tmp_path):
    with pytest.raises(joinery.InputError) as e:
        joinery.load({"joinery": 1, "bodies": [particle(type="partcle")]})
    assert e.value.path == "/bodies/0/type"
    with pytest.raises(joinery.InputError) as e:
        joinery.load(tmp_path / "missing.json")
    assert e.value.file.endswith("missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"joinery": 1, "bodies": [')
    with pytest.raises(joinery.InputError):
        joinery.load(bad)


def test_parameter_overrides(scenes):
    with pytest.raises(joinery.InputError) as e:
        joinery.load(scenes / "pendulum.json", parameters={"length": 2})
    # the overrides of `--set`: an unknown name, with the names the scene declares
    assert "unknown name 'length'" in str(e.value) and "L, m" in str(e.value)
    with pytest.raises(joinery.InputError) as e:
        joinery.load(scenes / "pendulum.json", parameters={"L": -1})
    assert e.value.path.startswith("/")
    model = joinery.load(scenes / "pendulum.json", parameters={"L": "2*m"})
    q0, _ = model.initial_state()
    assert q0.tolist() == [-2.0, 0.0]


def test_invalid_simulation_settings(scenes):
    model = joinery.load(scenes / "pendulum.json")
    with pytest.raises(joinery.InputError) as e:
        model.simulate(t_end=0.1, integrator="euler")
    assert e.value.path == "/simulation/integrator"
    with pytest.raises(joinery.InputError) as e:
        model.simulate(t_end=0.1, output_interval=0)
    assert e.value.path == "/simulation/output_interval"
    with pytest.raises(joinery.InputError) as e:
        model.simulate(t_end=0.1, rtoll=1e-8)  # unknown key: the scene's rule, with a suggestion
    assert e.value.path.startswith("/simulation") and "rtol" in str(e.value)


def test_not_serializable_input():
    with pytest.raises(ValueError, match="cannot put"):
        joinery.load({"joinery": 1, "bodies": [particle(mass=object())]})
