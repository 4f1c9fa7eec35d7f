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
