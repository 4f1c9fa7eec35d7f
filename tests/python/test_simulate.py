"""Model.simulate(): the NumPy arrays equal the CSV of `joinery simulate` on the same scene.

The CSV prints every number in the shortest form that reads back to the same double, so for a
scene without expressions equality is exact (NaN where the CSV's energy field is empty).
Scenes with expression joints are compared to 1e-12 relative: GiNaC orders the terms of a
sum in an order that differs between processes, so even two runs of the CLI differ in the
last bits (nh_rolling_disk: 1 ulp).
"""
import csv
import math
import subprocess

import numpy as np
import pytest

import joinery


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    cols = {name: np.array([float(r[i]) if r[i] != "" else math.nan for r in body]) for i, name in enumerate(header)}
    return header, cols


@pytest.mark.parametrize("name,t_end,exact", [("pendulum.json", 0.5, True), ("slider_crank.json", 0.3, True),
                                              ("four_bar.json", 0.2, True), ("nh_rolling_disk.json", 0.2, False)])
def test_arrays_equal_the_cli_csv(cli, scenes, tmp_path, name, t_end, exact):
    out = tmp_path / "run.csv"
    proc = subprocess.run([cli, "simulate", str(scenes / name), "-o", str(out), "--t-end", str(t_end)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    header, expected = read_csv(out)
    run = joinery.load(scenes / name).simulate(t_end=t_end)
    assert run.outcome == "completed" and run.completed and run.exit_code == 0
    assert run.columns == header
    assert len(run) == len(expected["t"]) > 1
    for column in header:
        if exact or column == "t":
            np.testing.assert_array_equal(run[column], expected[column], err_msg=column)
        else:
            scale = max(1.0, np.nanmax(np.abs(expected[column])))  # round-off near zero: absolute
            np.testing.assert_allclose(run[column], expected[column], rtol=0, atol=1e-12 * scale, err_msg=column)
    np.testing.assert_array_equal(run.t, expected["t"])
    assert run.t[-1] == t_end
    assert run.to_array().shape == (len(run), len(header))


def test_settings_override_the_scene(scenes):
    model = joinery.load(scenes / "pendulum.json")
    assert model.simulation_settings["integrator"] == "dopri5"
    run = model.simulate(t_end=0.1, integrator="rk4", step=1e-3, output_interval=0.02)
    np.testing.assert_allclose(run.t, [0.0, 0.02, 0.04, 0.06, 0.08, 0.1], atol=1e-15)
    assert run.stats["steps"] == 100
    # energy conserved by a 4th-order method with h = 1e-3 over 0.1 s
    assert np.ptp(run["energy"]) < 1e-9


def test_callback_sees_every_sample_and_may_stop(scenes):
    model = joinery.load(scenes / "pendulum.json")
    seen = []

    def callback(t, q, qdot):
        seen.append((t, q.copy(), qdot.copy()))
        return t < 0.25

    run = model.simulate(t_end=1.0, output_interval=0.05, callback=callback)
    assert run.outcome == "stopped" and run.exit_code == 0 and not run.completed
    assert "stopped" in run.message
    # the sample that returned False is the last one kept
    assert run.t[-1] == pytest.approx(0.25, abs=1e-12)
    assert len(seen) == len(run)
    np.testing.assert_array_equal([s[0] for s in seen], run.t)
    np.testing.assert_array_equal([s[1][0] for s in seen], run["bob.x"])
    np.testing.assert_array_equal([s[2][1] for s in seen], run["bob.y_dot"])


def test_callback_exception_propagates(scenes):
    model = joinery.load(scenes / "pendulum.json")

    def callback(t, q, qdot):
        if t > 0.1:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        model.simulate(t_end=1.0, callback=callback)


def test_failed_run_is_reported_or_raised(scenes):
    scene = {"joinery": 1, "bodies": [{"name": "p", "type": "particle", "dim": 2, "mass": 1}],
             "joints": [{"name": "d1", "type": "driver", "coordinate": "p.x", "value": "0.5*t^2"},
                        {"name": "d2", "type": "driver", "coordinate": "p.x", "value": "t^2"}]}
    model = joinery.load(scene)
    run = model.simulate(t_end=0.1)
    assert run.outcome == "inconsistent" and run.exit_code == 4 and run.message
    with pytest.raises(joinery.SimulationError):
        model.simulate(t_end=0.1, check=True)


def test_start_from_another_state(scenes):
    model = joinery.load(scenes / "pendulum.json")
    run = model.simulate(t_end=0.01, q=[0.0, -1.0], qdot=[0.0, 0.0])
    # hanging at rest stays at rest
    np.testing.assert_allclose(run["bob.x"], 0.0, atol=1e-12)
    np.testing.assert_allclose(run["bob.y"], -1.0, atol=1e-12)
