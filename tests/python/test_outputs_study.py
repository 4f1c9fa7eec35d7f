"""Output channels, run summaries, overrides and studies from Python (over the
channels library): the same ChannelRecorder / SummaryRecorder / overrides / study runner
as the command line, so the tests compare with closed forms and with the CLI's own files."""
import csv
import json
import math
import subprocess

import numpy as np
import pytest

import joinery

G = 9.81


def test_reaction_channels_give_the_rod_tension(scenes):
    # pendulum: particle (m = 1) on a distance rod (L = 1) from the ground, released horizontally.
    # The rod's pull on the bob is T = m (g cos(theta) + v^2 / L) along the rod, towards the
    # pivot; in the rod's own frame (x from the pivot to the bob) it is (-T, 0). Relative
    # tolerance 1e-6: the samples are interpolated states within the run's tolerances (rtol
    # 1e-9), the reaction is that of the sample's own state.
    model = joinery.load(scenes / "pendulum.json", parameters={"simulation.t_end": 1.0})
    run = model.simulate(outputs=[{"name": "pull", "reaction": "rod"},
                                  {"name": "own", "reaction": "rod", "frame": "joint"}],
                         accelerations=True)
    assert run.outcome == "completed"
    assert run.columns[:3] == ["t", "bob.x", "bob.y"]
    assert "bob.x_ddot" in run.columns and run.columns[-6:] == [
        "own.fx", "own.fy", "own.fz", "own.tx", "own.ty", "own.tz"]
    x, y, vx, vy = run["bob.x"], run["bob.y"], run["bob.x_dot"], run["bob.y_dot"]
    L = np.hypot(x, y)
    tension = G * (-y / L) + (vx ** 2 + vy ** 2) / L
    np.testing.assert_allclose(-run["own.fx"], tension, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(run["own.fy"], 0.0, atol=1e-7 * tension.max())
    np.testing.assert_allclose(np.hypot(run["pull.fx"], run["pull.fy"]), tension, rtol=1e-6, atol=1e-9)
    # the world force points from the bob to the pivot
    np.testing.assert_allclose(run["pull.fx"], -tension * x / L, rtol=1e-6, atol=1e-8)
    # the force on the bob is its mass times its acceleration minus gravity (m = 1)
    np.testing.assert_allclose(run["pull.fy"], run["bob.y_ddot"] + G, rtol=1e-9, atol=1e-9)


def test_summary_matches_the_arrays(scenes):
    model = joinery.load(scenes / "slider_crank_outputs.json")
    run = model.simulate()
    s = run.summary
    assert s["outcome"] == "completed" and s["samples"] == len(run) == len(run.t)
    assert set(s["channels"]) == set(run.columns) - {"t"}
    for col in ("pin.fx", "motor", "motor.power", "piston.block.x"):
        v, st = run[col], s["channels"][col]
        assert st["min"] == v.min() and st["max"] == v.max() and st["final"] == v[-1]
        assert st["t_min"] == run.t[np.argmin(v)] and st["t_max"] == run.t[np.argmax(v)]
        assert st["rms"] == pytest.approx(math.sqrt(np.mean(v ** 2)), rel=1e-12)
    # the energy figures are those of the samples: initial after the consistent start
    e = run["energy"]
    assert s["energy"]["initial"] == e[0] and s["energy"]["final"] == e[-1]
    assert s["energy"]["max_abs_drift"] == pytest.approx(np.max(np.abs(e - e[0])), rel=1e-12)
    # outer dead centre at t = pi/8: the pin pulls the piston with m r w^2 (1 + r/l)
    assert run["pin.fx"].min() == pytest.approx(-2 * 0.5 * 16 * (1 + 0.5 / 1.5), rel=2e-3)


def test_summary_equals_the_cli_summary(scenes, cli, tmp_path):
    scene = scenes / "slider_crank_outputs.json"
    subprocess.run([cli, "simulate", str(scene), "-o", str(tmp_path / "run.csv"), "--summary",
                    str(tmp_path / "s.json")], check=True, capture_output=True)
    cli_summary = json.loads((tmp_path / "s.json").read_text())
    py_summary = joinery.load(scene).simulate().summary
    assert cli_summary["steps"] == py_summary["steps"]
    assert cli_summary["channels"] == py_summary["channels"]
    assert cli_summary["energy"] == py_summary["energy"]


def test_callback_stops_a_run_with_channels(scenes):
    # the callback's stop goes through ChannelRecorder and TeeRecorder to the run loop
    model = joinery.load(scenes / "slider_crank_outputs.json")
    seen = []

    def cb(t, q, qdot):
        seen.append(t)
        return len(seen) < 5

    run = model.simulate(callback=cb)
    assert run.outcome == "stopped"
    assert len(run) == 5 and len(run["pin.fx"]) == 5 and len(seen) == 5
    assert run.summary["outcome"] == "stopped"


def test_bad_channels_are_input_errors(scenes):
    model = joinery.load(scenes / "pendulum.json")
    with pytest.raises(joinery.InputError) as e:
        model.simulate(outputs=[{"name": "p", "point": {"body": "bbo", "point": [0, 0]}}])
    assert e.value.path == "/outputs/0/point/body" and "did you mean 'bob'" in str(e.value)
    with pytest.raises(joinery.InputError) as e:
        model.simulate(outputs=[{"name": "v", "value": "bob.x", "frame": "joint"}])
    assert e.value.path == "/outputs/0/frame"
    # a channel that turns NaN stops the run (exit 5) and keeps the samples before it
    run = model.simulate(t_end=1.0, outputs=[{"name": "bad", "value": "sqrt(0.5 + bob.y)"}])
    assert run.outcome == "failed" and run.exit_code == 5
    assert "output channel 'bad'" in run.message and len(run) > 10


def test_load_parameters_are_overrides(scenes):
    model = joinery.load(scenes / "slider_crank_outputs.json",
                         parameters={"w1": -8, "simulation.t_end": 0.25, "piston.m": 3})
    assert model.resolved["overrides"] == {"w1": -8, "simulation.t_end": 0.25, "piston.m": 3}
    run = model.simulate()
    assert run.t[-1] == pytest.approx(0.25)
    sol = model.solve()
    assert sol.joints["motor"]["effort"] != joinery.load(scenes / "slider_crank_outputs.json").solve().joints["motor"]["effort"]
    with pytest.raises(joinery.InputError) as e:
        joinery.load(scenes / "slider_crank_outputs.json", parameters={"ww1": 2})
    assert "did you mean 'w1'" in str(e.value)


def _study_file(tmp_path, scenes):
    study = {"joinery": 1, "scene": str(scenes.parent / "studies" / "slider_crank_motor.json"),
             "design": {"type": "list", "parameters": {"omega": [5, 10, 20], "simulation.t_end": [0.3, 0.3, 0.3]}},
             "collect": ["pin.fx:max", "motor:max", "steps"]}
    path = tmp_path / "study.json"
    path.write_text(json.dumps(study))
    return path


def test_study_table_equals_the_cli_table(scenes, cli, tmp_path):
    path = _study_file(tmp_path, scenes)
    res = joinery.study(path, tmp_path / "py.csv", jobs=2)
    subprocess.run([cli, "study", str(path), "-o", str(tmp_path / "cli.csv"), "-j", "1"], check=True,
                   capture_output=True)
    assert (tmp_path / "py.csv").read_text() == (tmp_path / "cli.csv").read_text()
    assert res.columns == ["case", "omega", "simulation.t_end", "pin.fx:max", "motor:max", "steps", "exit", "message"]
    assert res.total == 3 and res.failed == 0 and len(res) == 3
    np.testing.assert_array_equal(res["case"], [0, 1, 2])
    np.testing.assert_array_equal(res["omega"], [5, 10, 20])
    # each row is the run of that case: the same figure as a simulation with those overrides
    one = joinery.load(scenes.parent / "studies" / "slider_crank_motor.json",
                       parameters={"omega": 10, "simulation.t_end": 0.3}).simulate()
    assert res["pin.fx:max"][1] == one["pin.fx"].max()
    assert res["steps"][1] == one.stats["steps"]


def test_study_without_output_and_invalid_study(scenes, tmp_path):
    res = joinery.study(_study_file(tmp_path, scenes))
    assert res.table is None and len(res) == 3 and list(res["exit"]) == [0, 0, 0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"joinery": 1, "scene": str(scenes / "pendulum.json"),
                               "design": {"type": "grid", "parameters": {"LL": [1, 2]}}, "collect": ["bob.x:max"]}))
    with pytest.raises(joinery.InputError):
        joinery.study(bad)
