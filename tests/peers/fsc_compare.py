#!/usr/bin/python3
"""Compares two runs of the flexible slider-crank (docs/flexible_slider_crank_reference.md).

Each CSV is either
  - a reference table with columns t, x_B, w_mid (tests/peers/fsc_simbody, or
    tests/peers/data/fsc_simbody_N64.csv), or
  - a `joinery simulate` table of examples/flexible/hencky_slider_crank_N.json, with the point
    channels A.x A.y P.x P.y B.x B.y, from which x_B and
    w_mid = cross_z(B - A, P - A) / |B - A| are computed.
The second run is resampled (linearly) on the times of the first that both cover; prints the
largest differences of w_mid and x_B and their ratio to max|w_mid| of the first run.

Usage: fsc_compare.py RUN1.csv RUN2.csv [--tol REL]   (exit 1 when max|dw| > REL max|w_mid|)
       fsc_compare.py --convert JOINERY.csv OUT.csv  (writes t,theta_c,x_B,w_mid)
"""
import sys

import numpy as np


def load(path):
    data = np.genfromtxt(path, delimiter=",", names=True, deletechars="")
    names = data.dtype.names
    t = data["t"]
    if "w_mid" in names:
        return t, data["x_B"], data["w_mid"], data["theta_c"] if "theta_c" in names else None
    ax, ay, px, py, bx, by = (data[c] for c in ("A.x", "A.y", "P.x", "P.y", "B.x", "B.y"))
    cx, cy, dx, dy = bx - ax, by - ay, px - ax, py - ay
    w = (cx * dy - cy * dx) / np.hypot(cx, cy)
    return t, bx, w, data["theta_c"] if "theta_c" in names else None


def main(argv):
    if len(argv) >= 3 and argv[0] == "--convert":
        t, x, w, th = load(argv[1])
        np.savetxt(argv[2], np.column_stack([t, th, x, w]), delimiter=",",
                   header="t,theta_c,x_B,w_mid", comments="", fmt="%.17g")
        return 0
    if len(argv) < 2:
        print(__doc__)
        return 2
    tol = None
    if "--tol" in argv:
        i = argv.index("--tol")
        tol = float(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    t1, x1, w1, _ = load(argv[0])
    t2, x2, w2, _ = load(argv[1])
    keep = (t1 >= t2[0] - 1e-12) & (t1 <= t2[-1] + 1e-12)
    t = t1[keep]
    dw = np.abs(w1[keep] - np.interp(t, t2, w2))
    dx = np.abs(x1[keep] - np.interp(t, t2, x2))
    wmax = np.max(np.abs(w1[keep]))
    i = int(np.argmax(dw))
    print(f"{len(t)} common samples on [{t[0]:g}, {t[-1]:g}] s")
    print(f"max|w_mid| (run 1) = {wmax:.6e} m, (run 2) = {np.max(np.abs(w2)):.6e} m")
    print(f"max|d w_mid| = {dw[i]:.3e} m at t = {t[i]:.4f} s; relative to max|w_mid|: {dw[i] / wmax:.3e}")
    print(f"max|d x_B|   = {dx.max():.3e} m; relative to max|w_mid|: {dx.max() / wmax:.3e}")
    print(f"w_mid(t = {t[-1]:g}): {w1[keep][-1]:.10e} vs {np.interp(t[-1], t2, w2):.10e}")
    if tol is not None and dw[i] > tol * wmax:
        print(f"FAIL: max|d w_mid| / max|w_mid| = {dw[i] / wmax:.3e} > {tol:g}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
