#!/usr/bin/env python3
"""Cross-check of the accelerations of two engines on one model (bench/run_models_fd.sh).

    compare_fd_acc.py MODEL N JOINERY_FILE SIMBODY_FILE [--tol 1e-9] [--inertia Ixx,Iyy,Izz]

The files (chain_fd --acc_out, chain_fd_simbody --acc_out) hold one line per body in the same
order: the linear acceleration of the centre of mass (world frame), then the angular one (3 + 3
numbers, angular in the body frame, for the 3-D models; 2 + 1 for the planar four-bar).

What is compared (max_rel_diff, the larger of the two, against the tolerance):
  lin  the largest absolute difference of any linear component over the largest linear
       component of Simbody's (a per-component relative difference would divide round-off by
       accelerations that are exactly 0);
  ang  the same for the angular accelerations times the body's principal inertia (--inertia,
       body frame; default 1,1,1): the torques they take. The rods' axial inertia is 1e-4 against
       1/12 across, so an axial angular acceleration carries the round-off of the torques
       amplified 833 times; weighted by the inertia it is compared at the scale of the forces
       that produce it, like the linear part (whose mass is 1).
The unweighted angular difference is reported too (ang_raw_rel_diff). Prints one JSON line
(engine "check") and exits 1 when max_rel_diff exceeds the tolerance.
"""
import json
import sys


def read(path):
    return [[float(x) for x in line.split()] for line in open(path) if line.strip()]


def option(name, default):
    if name in sys.argv:
        i = sys.argv.index(name)
        value = sys.argv[i + 1]
        del sys.argv[i:i + 2]
        return value
    return default


tol = float(option("--tol", "1e-9"))
inertia = [float(x) for x in option("--inertia", "1,1,1").split(",")]
model, n, fj, fs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
a, b = read(fj), read(fs)
if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b)) or not a:
    print(f"compare_fd_acc: {fj} and {fs} differ in shape", file=sys.stderr)
    sys.exit(1)
width = len(a[0])
nlin = 3 if width == 6 else 2
weights = inertia if width == 6 else inertia[2:]


def rel(cols, w):
    diff = max(abs(x[c] - y[c]) * wc for x, y in zip(a, b) for c, wc in zip(cols, w))
    scale = max(abs(y[c]) * wc for y in b for c, wc in zip(cols, w))
    return diff, scale, (diff / scale if scale > 0 else diff)


out = {"engine": "check", "model": model, "N": n, "bodies": len(a)}
lin = rel(range(nlin), [1.0] * nlin)
ang = rel(range(nlin, width), weights)
raw = rel(range(nlin, width), [1.0] * (width - nlin))
out.update({"lin_max_diff": lin[0], "lin_max_abs": lin[1], "lin_rel_diff": lin[2],
            "ang_weighted_max_diff": ang[0], "ang_weighted_max_abs": ang[1], "ang_rel_diff": ang[2],
            "ang_raw_max_diff": raw[0], "ang_raw_max_abs": raw[1], "ang_raw_rel_diff": raw[2],
            "inertia": inertia})
worst = max(lin[2], ang[2])
out["max_rel_diff"] = worst
out["tol"] = tol
out["ok"] = worst <= tol
print(json.dumps(out))
if worst > tol:
    print(f"compare_fd_acc: {model} N = {n}: accelerations differ by {worst:.3g} relative (> {tol:g})",
          file=sys.stderr)
    sys.exit(1)
