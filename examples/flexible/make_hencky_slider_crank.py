#!/usr/bin/env python3
"""Writes hencky_slider_crank_N.json: the flexible slider-crank as a Hencky chain in joinery.

The model of tests/peers/fsc_simbody.cpp (docs/flexible_slider_crank_reference.md), built from rigid2d
bodies: planar, no gravity; a rigid crank r = 0.15 m about the origin, its angle prescribed by
a coordinate driver theta_c(t) = w/2 (s - T/pi sin(pi s/T)) + w (t - s), s = min(t, T),
w = 150 rad/s, T = 0.1 s; a steel rod L = 0.3 m (E = 2.1e11 Pa, rho = 7850 kg/m^3, 8 mm square
section) as N rigid segments s1..sN (length l = L/N, mass rho A l, centroidal inertia
rho A l^3/12) joined by revolute2d pins, each with a torsion2d spring k = E I / l (rest angle
0, no damping); s1 pinned to the crank tip A; the free end B of sN kept on the x axis by an
`expression` position constraint sN.y + l/2 sin(sN.theta) = 0 (a massless slider: one exact
row, no slider body). Starts at rest, rod straight along +x from (0.15, 0) to (0.45, 0).

Output channels: the points A (crank tip), P_mid (joint between s(N/2) and s(N/2+1)) and B;
w_mid = cross_z(B - A, P_mid - A) / |B - A| is computed from them by
tests/peers/fsc_compare.py.

Usage: make_hencky_slider_crank.py N [OUT.json]   (N even; default OUT beside this script)
"""
import json
import os
import sys


def scene(n):
    if n < 2 or n % 2:
        raise SystemExit("N must be even and >= 2")
    bodies = [{"name": "crank", "type": "rigid2d", "mass": 1, "inertia": 1e-3,
               "position": ["r/2", 0], "angle": 0}]
    for i in range(1, n + 1):
        bodies.append({"name": f"s{i}", "type": "rigid2d", "mass": "m", "inertia": "Jc",
                       "position": [f"r + {i - 0.5}*l", 0], "angle": 0})
    joints = [
        {"name": "O", "type": "revolute2d", "body1": "ground", "point1": [0, 0],
         "body2": "crank", "point2": ["-r/2", 0]},
        {"name": "crank_angle", "type": "driver", "coordinate": "crank.theta",
         "value": "w/2*(min(t, T) - T/pi*sin(pi*min(t, T)/T)) + w*(t - min(t, T))"},
        {"name": "A", "type": "revolute2d", "body1": "crank", "point1": ["r/2", 0],
         "body2": "s1", "point2": ["-l/2", 0]},
    ]
    for i in range(1, n):
        joints.append({"name": f"j{i}", "type": "revolute2d", "body1": f"s{i}", "point1": ["l/2", 0],
                       "body2": f"s{i + 1}", "point2": ["-l/2", 0]})
    joints.append({"name": "slider", "type": "expression",
                   "position": [f"s{n}.y + l/2*sin(s{n}.theta)"]})
    forces = [{"name": f"k{i}", "type": "torsion2d", "body1": f"s{i}", "body2": f"s{i + 1}",
               "stiffness": "k"} for i in range(1, n)]
    return {
        "joinery": 1,
        "name": f"Flexible slider-crank, Hencky chain of {n} segments (the model of "
                "tests/peers/fsc_simbody.cpp; written by examples/flexible/make_hencky_slider_crank.py)",
        "parameters": {"N": n, "r": 0.15, "L": 0.3, "E": 2.1e11, "rho": 7850, "b": 0.008,
                       "Ar": "b^2", "Iz": "b^4/12", "l": "L/N", "m": "rho*Ar*l",
                       "Jc": "m*l^2/12", "k": "E*Iz/l", "w": 150, "T": 0.1},
        "gravity": [0, 0, 0],
        "bodies": bodies,
        "joints": joints,
        "forces": forces,
        "outputs": [
            {"name": "A", "point": {"body": "s1", "point": ["-l/2", 0]}},
            {"name": "P", "point": {"body": f"s{n // 2}", "point": ["l/2", 0]}},
            {"name": "B", "point": {"body": f"s{n}", "point": ["l/2", 0]}},
            {"name": "theta_c", "value": "crank.theta"},
        ],
        "simulation": {"t_end": 0.25, "integrator": "dopri5", "rtol": 1e-10, "atol": 1e-12,
                       "step": 1e-6, "output_interval": 1e-4, "stabilization": "projection"},
    }


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    n = int(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), f"hencky_slider_crank_{n}.json")
    with open(out, "w") as f:
        json.dump(scene(n), f, indent=1)
        f.write("\n")
    print(out)


if __name__ == "__main__":
    main()
