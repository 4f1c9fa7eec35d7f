"""`effort` on a revolute_driver and a prismatic_driver: the torque about (the force along) the
driven axis, checked against the closed forms of the driven arm of
examples/scenes/spatial_driven_arm.json (an arm turned about the vertical z axis by
theta = 2 pi t + 0.1 sin 4t, a block driven along it by s = 0.3 + 0.1 sin 4t; gravity along
z does no work on either drive):
  actuator force  F   = m_b (s'' - s theta'^2)
  motor torque    tau = d/dt [(I_arm + m_arm d^2 + I_block + m_b s^2) theta']
Tolerance 1e-6 (relative to the largest value): dopri5 at rtol 1e-9; the efforts are exact
functions of the computed state."""
import numpy as np

import joinery


def test_axis_driver_efforts_match_closed_forms(scenes):
    model = joinery.load(scenes / "spatial_driven_arm.json")
    run = model.simulate(t_end=1.0, outputs=[{"name": "m", "effort": "motor"}, {"name": "a", "effort": "actuator"}])
    assert run.completed
    t = run.t
    th_d = 2 * np.pi + 0.4 * np.cos(4 * t)
    th_dd = -1.6 * np.sin(4 * t)
    s = 0.3 + 0.1 * np.sin(4 * t)
    s_d = 0.4 * np.cos(4 * t)
    s_dd = -1.6 * np.sin(4 * t)
    force = 0.5 * (s_dd - s * th_d**2)
    inertia = 0.17 + 2.0 * 0.5**2 + 0.001 + 0.5 * s**2
    torque = inertia * th_dd + 2 * 0.5 * s * s_d * th_d
    assert np.max(np.abs(run["a"] - force)) <= 1e-6 * np.max(np.abs(force))
    assert np.max(np.abs(run["m"] - torque)) <= 1e-6 * np.max(np.abs(torque))
    # the power is the effort times the driven speed
    assert np.max(np.abs(run["a.power"] - force * s_d)) <= 1e-6 * np.max(np.abs(force * s_d))
    assert np.max(np.abs(run["m.power"] - torque * th_d)) <= 1e-6 * np.max(np.abs(torque * th_d))


def test_bodies_may_be_left_out_when_instances_supply_them(tmp_path):
    # examples/library/pendulums.json has "bodies": [] (its parts come from joinery:links);
    # without the key it loads the same model
    import json
    import pathlib
    src = pathlib.Path(__file__).resolve().parents[2] / "examples" / "library" / "pendulums.json"
    doc = json.loads(src.read_text())
    assert doc.pop("bodies") == []
    path = tmp_path / "pendulums.json"
    path.write_text(json.dumps(doc))
    without, with_key = joinery.load(path), joinery.load(src)
    assert without.coordinates == with_key.coordinates and without.bodies == with_key.bodies
    assert len(without.bodies) > 0


def test_a_failed_study_case_collects_over_its_samples(cli, scenes, tmp_path):
    # a channel that turns NaN at t = 0.38 (L = 1) or 0.38 * 2 (L = 2) fails each case after
    # some samples: the row collects over those samples, says it is partial, keeps exit 5
    import csv
    import json
    import subprocess
    doc = json.loads((scenes / "pendulum.json").read_text())
    doc["outputs"] = [{"name": "bad", "value": "sqrt(0.38 * L - t)"}]
    (tmp_path / "scene.json").write_text(json.dumps(doc))
    (tmp_path / "study.json").write_text(json.dumps({
        "joinery": 1, "scene": "scene.json",
        "design": {"type": "grid", "parameters": {"L": [1, 2]}},
        "collect": ["bob.y:min", "bob.x:max", "t"]}))
    table = tmp_path / "table.csv"
    subprocess.run([cli, "study", str(tmp_path / "study.json"), "-o", str(table), "-j", "1"], check=True,
                   capture_output=True)
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 2
    for row in rows:
        L = float(row["L"])
        assert row["exit"] == "5" and row["message"].startswith("partial: collected over the "), row
        # the same run alone, to CSV: the collected minimum is the minimum over its samples
        run_csv = tmp_path / f"run_{row['case']}.csv"
        p = subprocess.run([cli, "simulate", str(tmp_path / "scene.json"), "--set", f"L={L:g}", "-o", str(run_csv)],
                           capture_output=True, text=True)
        assert p.returncode == 5
        lines = run_csv.read_text().strip().split("\n")
        names = lines[0].split(",")
        ys = [float(l.split(",")[names.index("bob.y")]) for l in lines[1:]]
        assert float(row["bob.y:min"]) == min(ys)
        assert f"{len(ys)} sample(s)" in row["message"]
        # "t" is where the run stopped: the end of the first step whose sample is NaN (the
        # channel is real up to 0.38 L; steps here are about 0.01 s and shorter than 0.04 L)
        assert 0.38 * L < float(row["t"]) < 0.42 * L
