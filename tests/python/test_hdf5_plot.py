"""Results files and plots: `joinery simulate -o RUN.h5` and `SimulationResult.to_hdf5` read
back with h5py (a reader nobody here wrote) equal the CSV bit for bit; `joinery plot` writes
SVG and PNG of the asked size with a line per column."""
import json
import math
import re
import struct
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import joinery

h5py = pytest.importorskip("h5py")


def run(cli, *args, check=True):
    p = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"joinery {' '.join(map(str, args))}: exit {p.returncode}\n{p.stderr}")
    return p


def read_csv(path):
    """The CSV as {column: float64 array}, every field read by Python's float (the writer's
    shortest round-trip representation reads back to the same double); empty fields NaN."""
    lines = path.read_text().strip().split("\n")
    names = lines[0].split(",")
    rows = [[float(x) if x else math.nan for x in line.split(",")] for line in lines[1:]]
    data = np.array(rows, dtype=np.float64)
    return names, {n: data[:, k] for k, n in enumerate(names)}


def same_bits(a, b):
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def test_simulate_h5_equals_csv_bit_for_bit(cli, scenes, tmp_path):
    scene = scenes / "slider_crank_outputs.json"  # coordinates, energy, pin reaction, motor effort
    csv, h5 = tmp_path / "run.csv", tmp_path / "run.h5"
    run(cli, "simulate", scene, "-o", csv, "--t-end", "0.3")
    out = run(cli, "simulate", scene, "-o", h5, "--t-end", "0.3").stdout
    assert str(h5) in out
    names, cols = read_csv(csv)
    assert len(cols["t"]) > 10
    with h5py.File(h5, "r") as f:
        assert sorted(f.keys()) == sorted(names)  # one dataset per column (h5py lists them by name)
        assert [c.decode() if isinstance(c, bytes) else c for c in f.attrs["columns"]] == names  # CSV order
        for n in names:
            assert f[n].dtype == np.float64 and f[n].ndim == 1
            assert same_bits(f[n][:], cols[n]), n
        assert f.attrs["joinery_version"] == joinery.__version__
        assert f.attrs["scene"]  # the scene's name (its file stem when it has none)
        assert f.attrs["scene_file"] == str(scene)
        assert int(f.attrs["samples"]) == len(cols["t"])
        assert f.attrs["outcome"] == "completed"


def test_a_failed_run_keeps_its_samples_in_h5(cli, scenes, tmp_path):
    # a channel that turns NaN at t = 0.38 stops the run (exit 5); the samples before it stay
    # in the HDF5 file as in the CSV
    doc = json.loads((scenes / "pendulum.json").read_text())
    doc["outputs"] = [{"name": "bad", "value": "sqrt(0.38 - t)"}]
    scene = tmp_path / "failing.json"
    scene.write_text(json.dumps(doc))
    csv, h5 = tmp_path / "f.csv", tmp_path / "f.h5"
    a = run(cli, "simulate", scene, "-o", csv, check=False)
    b = run(cli, "simulate", scene, "-o", h5, check=False)
    assert a.returncode == b.returncode == 5, b.stderr
    names, cols = read_csv(csv)
    assert 30 <= len(cols["t"]) <= 39
    with h5py.File(h5, "r") as f:
        assert f.attrs["outcome"] == "failed"
        assert sorted(f.keys()) == sorted(names)
        for n in names:
            assert same_bits(f[n][:], cols[n]), n


def test_result_to_hdf5_equals_the_arrays(scenes, tmp_path):
    model = joinery.load(scenes / "pendulum.json")
    result = model.simulate(t_end=0.5)
    path = tmp_path / "py.h5"
    result.to_hdf5(str(path))
    with h5py.File(path, "r") as f:
        assert sorted(f.keys()) == sorted(result.columns)
        assert list(f.attrs["columns"]) == result.columns
        for c in result.columns:
            assert same_bits(f[c][:], result[c]), c
        assert f.attrs["joinery_version"] == joinery.__version__
        assert int(f.attrs["samples"]) == len(result)


def test_h5_to_stdout_and_bad_format_are_refused(cli, scenes, tmp_path):
    p = run(cli, "simulate", scenes / "pendulum.json", "-o", "-", "--format", "hdf5", check=False)
    assert p.returncode == 2 and "standard output" in p.stderr
    p = run(cli, "simulate", scenes / "pendulum.json", "-o", tmp_path / "x", "--format", "h6", check=False)
    assert p.returncode == 2 and "csv, npy or hdf5" in p.stderr


def svg_paths(svg):
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    return root, [e for e in root.iter() if e.tag.endswith("path")]


def test_plot_svg_structure(cli, scenes, tmp_path):
    scene = scenes / "slider_crank_outputs.json"
    h5 = tmp_path / "run.h5"
    run(cli, "simulate", scene, "-o", h5, "--t-end", "0.3")
    svg = tmp_path / "p.svg"
    out = run(cli, "plot", h5, "--y", "pin.fx,pin.tz", "-o", svg, "--size", "640x400").stdout
    assert "2 y axis" in out  # force (N) and torque (N·m) each on their own axis
    root, paths = svg_paths(svg.read_text())
    assert root.get("width").startswith("640") and root.get("height").startswith("400")
    # a stroked path per column, in the first two colours of the palette (cairo writes them in %)
    strokes = [p.get("style", "") + " " + (p.get("stroke") or "") for p in paths]
    blue = [s for s in strokes if "30.588235%" in s or "rgb(30.6" in s]
    orange = [s for s in strokes if "94.901961%" in s or "rgb(94.9" in s]
    assert blue and orange, strokes[:10]
    # the series' line has a vertex per sample: count the segments of the longest path
    with h5py.File(h5, "r") as f:
        n = len(f["t"])
    longest = max(len(re.findall(r"[LM]", p.get("d", ""))) for p in paths)
    assert longest >= n
    # labels are drawn (cairo writes text as glyphs: <use> of glyph symbols)
    uses = [e for e in root.iter() if e.tag.endswith("use")]
    assert len(uses) > 40


def test_plot_three_units_share_an_axis_each_named_with_its_unit(cli, scenes, tmp_path):
    # a length, a force and a torque: more than two units share the left axis, and its label
    # gives each column its own unit (an axis labelled with names alone would mix N and m unseen)
    scene = scenes / "slider_crank_outputs.json"
    csv = tmp_path / "run.csv"
    run(cli, "simulate", scene, "-o", csv, "--t-end", "0.1")
    out = run(cli, "plot", csv, "--y", "pin.fx,pin.tz,crank.rod.x", "-o", tmp_path / "p.svg").stdout
    assert "1 y axis" in out
    left = [l for l in out.splitlines() if "left axis:" in l]
    assert left and "pin.fx (N)" in left[0] and "crank.rod.x (m)" in left[0], out
    assert "pin.tz (N" in left[0], out
    two = run(cli, "plot", csv, "--y", "pin.fx,pin.tz", "-o", tmp_path / "q.svg").stdout
    assert "left axis: pin.fx (N)" in two and "right axis: pin.tz (N" in two, two


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_plot_png_size_and_pixels(cli, tmp_path):
    # a study-like table: a parameter against a collected column, one case without a value
    table = tmp_path / "table.csv"
    table.write_text("omega,L,pin.fx:max,message\n5,0.3,10,\n10,0.3,40,\n20,0.3,,\"dopri5: failed, partial\"\n40,0.3,640,\n")
    png = tmp_path / "p.png"
    out = run(cli, "plot", table, "--x", "omega", "--y", "pin.fx:max", "-o", png, "--size", "500x300").stdout
    assert "3 point(s)" in out  # the empty field is left out
    assert png_size(png) == (500, 300)
    import matplotlib.image as mpimg
    img = mpimg.imread(str(png))
    assert img.shape[:2] == (300, 500)
    # the series colour (0.306, 0.475, 0.655) is drawn
    rgb = img[:, :, :3]
    near = np.abs(rgb - np.array([0.306, 0.475, 0.655])).sum(axis=2) < 0.08
    assert near.sum() > 50


def test_plot_bad_input(cli, scenes, tmp_path):
    csv = tmp_path / "run.csv"
    run(cli, "simulate", scenes / "pendulum.json", "-o", csv, "--t-end", "0.1")
    p = run(cli, "plot", csv, "--y", "nope", "-o", tmp_path / "x.svg", check=False)
    assert p.returncode == 2 and "no column 'nope'" in p.stderr and str(csv) in p.stderr
    p = run(cli, "plot", csv, "--y", "t", "-o", tmp_path / "x.pdf", check=False)
    assert p.returncode == 2 and ".svg or .png" in p.stderr
    assert not (tmp_path / "x.svg").exists()


def test_simulate_units_scene_writes_the_scenes_units_named_in_each_column(cli, scenes, tmp_path):
    # a crank-rocker written in mm, g and deg: --units scene gives the file's own numbers back
    # (the crank's centre at r/2 = 15 mm, turned at 360 deg/s, the rocker at 90 deg at t = 0)
    scene = scenes / "crank_rocker_mm.json"
    si, mm = tmp_path / "si.csv", tmp_path / "mm.csv"
    run(cli, "simulate", scene, "-o", si, "--t-end", "0.2", "--summary", tmp_path / "si.json")
    out = run(cli, "simulate", scene, "-o", mm, "--t-end", "0.2", "--units", "scene",
              "--summary", tmp_path / "mm.json").stdout
    names_si, a = read_csv(si)
    names, b = read_csv(mm)
    assert len(names) == len(names_si)
    for want in ("t [s]", "crank.x [mm]", "crank.theta [deg]", "crank.theta_dot [deg/s]",
                 "energy [g·mm²/s²]", "torque.power [g·mm²/s³]"):
        assert want in names, names
    assert "torque" in names and "position_residual" in names  # unit not said by the name: SI, unlabelled
    assert b["crank.x [mm]"][0] == pytest.approx(15, abs=1e-9)
    assert b["crank.theta_dot [deg/s]"][0] == pytest.approx(360, rel=1e-9)
    assert b["rocker.theta [deg]"][0] == pytest.approx(90, abs=1e-7)
    assert same_bits(b["t [s]"], a["t"])
    assert np.allclose(b["crank.x [mm]"], a["crank.x"] * 1e3, rtol=1e-14, atol=0)
    assert np.allclose(b["coupler.y_dot [mm/s]"], a["coupler.y_dot"] * 1e3, rtol=1e-14, atol=0)
    assert np.allclose(b["crank.theta [deg]"], np.degrees(a["crank.theta"]), rtol=1e-14, atol=0)
    assert np.allclose(b["energy [g·mm²/s²]"], a["energy"] * 1e9, rtol=1e-14, atol=0)  # J = 1e3 g * 1e6 mm²/s²
    assert same_bits(b["torque"], a["torque"])
    assert "energy: initial" in out and "g·mm²/s²" in out
    summary = json.loads((tmp_path / "mm.json").read_text())
    assert summary["units"] == {"length": "mm", "mass": "g", "angle": "deg", "time": "s", "energy": "g·mm²/s²"}
    assert summary["channels"]["crank.x [mm]"]["max"] == pytest.approx(b["crank.x [mm]"].max(), rel=1e-15)
    assert json.loads((tmp_path / "si.json").read_text())["units"]["length"] == "m"
    # the same columns in HDF5, bit for bit: datasets by the bare name (a link name cannot hold
    # the '/' of mm/s), the unit as their attribute; plot finds a column by its bare name
    h5 = tmp_path / "mm.h5"
    run(cli, "simulate", scene, "-o", h5, "--t-end", "0.2", "--units", "scene")
    with h5py.File(h5, "r") as f:
        assert same_bits(f["crank.x"][:], b["crank.x [mm]"])
        assert f["crank.x"].attrs["unit"] == "mm" and f["crank.x_dot"].attrs["unit"] == "mm/s"
        assert "unit" not in f["torque"].attrs
        assert [c.decode() if isinstance(c, bytes) else c for c in f.attrs["columns"]][:2] == ["t", "crank.x"]
    for table in (mm, h5):
        plotted = run(cli, "plot", table, "--y", "crank.x,crank.theta", "-o", tmp_path / "p.svg").stdout
        assert "crank.x (mm)" in plotted and "crank.theta (deg)" in plotted, plotted
    bad = run(cli, "simulate", scene, "-o", tmp_path / "x.csv", "--units", "imperial", check=False)
    assert bad.returncode == 2 and "expected si or scene" in bad.stderr
