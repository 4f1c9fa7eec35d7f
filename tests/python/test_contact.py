"""One-sided rows (limits, ropes, contacts) through Python and studies: the same run as `joinery
simulate`, impacts and all. Without the event handling the ball of examples/contact falls
through its floor (height about -10 m at t = 1.5 s); with it the gap stays >= 0 and the table
equals the program's CSV bit for bit (the same code path and the same shortest-round-trip
printing: no tolerance)."""
import csv
import json
import math
import subprocess

import numpy as np

import joinery


def _ball(scenes):
    return scenes.parent / "contact" / "bouncing_ball.json"


def _read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], {n: np.array([float(r[i]) if r[i] != "" else math.nan for r in rows[1:]])
                     for i, n in enumerate(rows[0])}


def test_simulate_keeps_the_ball_above_its_floor_as_the_cli_does(scenes, cli, tmp_path):
    out = tmp_path / "ball.csv"
    proc = subprocess.run([cli, "simulate", str(_ball(scenes)), "-o", str(out), "--t-end", "1.5"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    header, expected = _read_csv(out)
    run = joinery.load(_ball(scenes)).simulate(t_end=1.5)
    assert run.completed and run.columns == header
    assert run["height"].min() >= -1e-6  # the gap tolerance of docs/contact.md is 1e-9
    for column in header:
        np.testing.assert_array_equal(run[column], expected[column], err_msg=column)


def test_a_study_case_runs_with_its_contacts(scenes, tmp_path):
    study = {"joinery": 1, "scene": str(_ball(scenes)),
             "design": {"type": "list", "parameters": {"simulation.t_end": [0.5, 1.5]}},
             "collect": ["height:min", "height:max"]}
    path = tmp_path / "study.json"
    path.write_text(json.dumps(study))
    res = joinery.study(path)
    assert list(res["exit"]) == [0, 0]
    # the first impact is at t0 = sqrt(2 h / g) = 0.4515 s: both cases reach the floor and stay on it
    assert res["height:min"][0] >= -1e-6 and res["height:min"][1] >= -1e-6
    np.testing.assert_allclose(res["height:max"], [1.0, 1.0], rtol=0, atol=1e-12)  # dropped from a 1 m gap


def _lying_chain(n=12, length=0.1, mass=0.1, radius=0.005, e=0.4, height=2e-3):
    """A planar chain of rods lying flat just above a floor, one rod turning: its ends land one
    after the other and rock (the chain of bench/contact_chain_model.hpp)."""
    bodies, joints = [], []

    def contact(name, body, x):
        joints.append({"name": name, "type": "contact", "body1": "ground",
                       "shape1": {"plane": {"point": [0, 0], "normal": [0, 1]}}, "body2": body,
                       "shape2": {"sphere": {"center": [x, 0], "radius": radius}}, "restitution": e})

    for i in range(n):
        link = f"link{i}"
        bodies.append({"name": link, "type": "rigid2d", "mass": mass, "inertia": mass * length ** 2 / 12,
                       "position": [(i + 0.5) * length, radius + height], "velocity": [0, -0.2]})
        if i > 0:
            joints.append({"name": f"hinge{i}", "type": "revolute2d", "body1": f"link{i - 1}",
                           "point1": [0.5 * length, 0], "body2": link, "point2": [-0.5 * length, 0]})
        contact(f"floor{i}", link, -0.5 * length)
    contact("floor_end", f"link{n - 1}", 0.5 * length)
    bodies[3]["angular_velocity"] = 1.5
    return {"joinery": 1, "gravity": [0, -9.81, 0], "bodies": bodies, "joints": joints,
            "simulation": {"t_end": 0.05, "output_interval": 0.001, "rtol": 1e-9, "atol": 1e-9}}


def test_a_second_run_of_one_loaded_model_is_the_first_again():
    # A run leaves its active set, velocity targets and friction modes in the model's one-sided
    # rows; the next run of the same loaded model must not start from them. Before, the second
    # run of this chain had 17 events instead of 1 378 (its first impacts were missing).
    model = joinery.load(_lying_chain())
    first = model.simulate()
    second = model.simulate()
    assert first.completed and second.completed
    assert first.columns == second.columns
    for column in first.columns:
        np.testing.assert_array_equal(second[column], first[column], err_msg=column)
