#!/usr/bin/env python3
"""Writes the generated validation scenes of examples/validation (A02 with N = 40, A03 in two
models). The scenes are committed; rerun this script only to change them:
    python3 examples/validation/make_scenes.py
Uses only the Python standard library."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, scene):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(scene, f, indent=1)
        f.write("\n")


# ---------------------------------------------------------------------------------------------
# A02 N-four-bar, built from the "bar" component of examples/lib/links.json
def four_bar(n, t_end, out_interval):
    inst, joints = [], []
    for i in range(n + 1):
        inst.append({"name": f"crank{i}", "component": "bar",
                     "parameters": {"x": i, "y": 0.5, "angle": "pi/2", "vx": 0.5, "vy": 0, "w": -1}})
    for i in range(n):
        inst.append({"name": f"coupler{i}", "component": "bar",
                     "parameters": {"x": i + 0.5, "y": 1, "vx": 1}})
    for i in range(n + 1):
        joints.append({"name": f"pivot{i}", "type": "revolute2d", "body1": "ground", "point1": [i, 0],
                       "port2": f"crank{i}.a"})
    for i in range(n):
        joints.append({"name": f"left{i}", "type": "revolute2d", "port1": f"crank{i}.b", "port2": f"coupler{i}.a"})
        joints.append({"name": f"right{i}", "type": "revolute2d", "port1": f"crank{i + 1}.b",
                       "port2": f"coupler{i}.b"})
    return {
        "joinery": 1,
        "name": f"A02 N-four-bar, N = {n} (IFToMM benchmark library): 2N+1 bars of 1 m and 1 kg (the 'bar' "
                "component of examples/lib/links.json); N+1 cranks pinned to ground at x = 0..N, joined at "
                "their tips by N couplers. Starts with the cranks vertical, couplers horizontal, B0 (tip of "
                "crank0) moving at 1 m/s in x. Every pass through the horizontal position makes the "
                "constraints redundant and singular (1 -> N+1 degrees of freedom).",
        "include": ["../lib/links.json"],
        "gravity": [0, -9.81, 0],
        "bodies": [],
        "instances": inst,
        "joints": joints,
        "simulation": {"t_end": t_end, "integrator": "dopri5", "rtol": 1e-10, "atol": 1e-10,
                       "output_interval": out_interval, "stabilization": "projection"},
    }


write("a02_n_four_bar_2.json", four_bar(2, 10, 0.025))
write("a02_n_four_bar_40.json", four_bar(40, 20, 0.05))

# ---------------------------------------------------------------------------------------------
# A03 Andrews' squeezing mechanism (Hairer & Wanner; Mazzia & Magherini IVP test set "andrews")
PARAMS = {
    "m1": .04325, "m2": .00365, "m3": .02373, "m4": .00706, "m5": .07050, "m6": .00706, "m7": .05498,
    "xa": -.06934, "ya": -.00227, "xb": -.03635, "yb": .03273, "xc": .014, "yc": .072, "c0": 4530,
    "i1": 2.194e-6, "i2": 4.410e-7, "i3": 5.255e-6, "i4": 5.667e-7, "i5": 1.169e-5, "i6": 5.667e-7,
    "i7": 1.912e-5, "d": 28e-3, "da": 115e-4, "e": 2e-2, "ea": 1421e-5, "rr": 7e-3, "ra": 92e-5,
    "l0": 7785e-5, "ss": 35e-3, "sa": 1874e-5, "sb": 1043e-5, "sc": 18e-3, "sd": 2e-2, "ta": 2308e-5,
    "tb": 916e-5, "u": 4e-2, "ua": 1228e-5, "ub": 449e-5, "zf": 2e-2, "zt": 4e-2, "fa": 1421e-5,
    "mom": 33e-3,
}
# initial angles (velocities zero), from the test set
Q0 = {
    "beta0": -0.0617138900142764496358948458001, "Theta0": 0.0,
    "gamma0": 0.455279819163070380255912382449, "Phi0": 0.222668390165885884674473185609,
    "delta0": 0.487364979543842550225598953530, "Omega0": -0.222668390165885884674473185609,
    "epsilon0": 1.23054744454982119249735015568,
}
SIM = {"t_end": 0.03, "integrator": "dopri5", "rtol": 1e-12, "atol": 1e-12,
       "output_interval": 0.001, "stabilization": "projection"}
NAME_TAIL = ("Reference at t = 0.03 (IVP test set, rtol = atol = 1e-14): beta 15.81077119629904, "
             "Theta -15.75637105984298, gamma 0.04082224013073101, Phi -0.5347301163226948, "
             "delta 0.5244099658805304, Omega 0.5347301163226948, epsilon 1.048080741042263.")

# (a) one expression body in the seven angles. Mass matrix and force as in the test set's
# Fortran problem (Hairer & Wanner, Solving ODEs II, VII.7): the velocity-product terms are
# dT/dq - M' q' of T = 1/2 q'^T M(q) q', the spring acts on gamma, the torque mom on beta.
M = [["0"] * 7 for _ in range(7)]
M[0][0] = "m1*ra^2 + m2*(rr^2 - 2*da*rr*cos(Theta) + da^2) + i1 + i2"
M[1][0] = M[0][1] = "m2*(da^2 - da*rr*cos(Theta)) + i2"
M[1][1] = "m2*da^2 + i2"
M[2][2] = "m3*(sa^2 + sb^2) + i3"
M[3][3] = "m4*(e - ea)^2 + i4"
M[4][3] = M[3][4] = "m4*((e - ea)^2 + zt*(e - ea)*sin(Phi)) + i4"
M[4][4] = "m4*(zt^2 + 2*zt*(e - ea)*sin(Phi) + (e - ea)^2) + m5*(ta^2 + tb^2) + i4 + i5"
M[5][5] = "m6*(zf - fa)^2 + i6"
M[6][5] = M[5][6] = "m6*((zf - fa)^2 - u*(zf - fa)*sin(Omega)) + i6"
M[6][6] = "m6*((zf - fa)^2 - 2*u*(zf - fa)*sin(Omega) + u^2) + m7*(ua^2 + ub^2) + i6 + i7"
xd = "(sd*cos(gamma) + sc*sin(gamma) + xb)"
yd = "(sd*sin(gamma) - sc*cos(gamma) + yb)"
lang = f"sqrt(({xd} - xc)^2 + ({yd} - yc)^2)"
fs = f"(-c0*({lang} - l0)/{lang})"   # spring force / length
F = [
    "mom - m2*da*rr*Theta_dot*(Theta_dot + 2*beta_dot)*sin(Theta)",
    "m2*da*rr*beta_dot^2*sin(Theta)",
    f"{fs}*({xd} - xc)*(sc*cos(gamma) - sd*sin(gamma)) + {fs}*({yd} - yc)*(sd*cos(gamma) + sc*sin(gamma))",
    "m4*zt*(e - ea)*delta_dot^2*cos(Phi)",
    "-m4*zt*(e - ea)*Phi_dot*(Phi_dot + 2*delta_dot)*cos(Phi)",
    "-m6*u*(zf - fa)*epsilon_dot^2*cos(Omega)",
    "m6*u*(zf - fa)*Omega_dot*(Omega_dot + 2*epsilon_dot)*cos(Omega)",
]
b, th, g, ph, de, om, ep = ("mech." + c for c in ["beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"])
E_x = f"rr*cos({b}) - d*cos({b} + {th})"
E_y = f"rr*sin({b}) - d*sin({b} + {th})"
closure = [
    f"{E_x} - ss*sin({g}) - xb",
    f"{E_y} + ss*cos({g}) - yb",
    f"{E_x} - e*sin({ph} + {de}) - zt*cos({de}) - xa",
    f"{E_y} + e*cos({ph} + {de}) - zt*sin({de}) - ya",
    f"{E_x} - zf*cos({om} + {ep}) - u*sin({ep}) - xa",
    f"{E_y} - zf*sin({om} + {ep}) + u*cos({ep}) - ya",
]
write("a03_andrews_angles.json", {
    "joinery": 1,
    "name": "A03 Andrews' squeezing mechanism, model (a): one expression body in the seven angles "
            "(beta, Theta, gamma, Phi, delta, Omega, epsilon) with the test set's mass matrix and "
            "forces, and the six loop-closure equations as an expression joint. " + NAME_TAIL,
    "parameters": {**PARAMS, **Q0},
    "bodies": [{
        "name": "mech", "type": "expression",
        "coordinates": ["beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"],
        "mass_matrix": M, "force": F,
        "q0": ["beta0", "Theta0", "gamma0", "Phi0", "delta0", "Omega0", "epsilon0"],
    }],
    "joints": [{"name": "closure", "type": "expression", "position": closure}],
    "simulation": SIM,
})

# (b) seven rigid bodies with revolute joints (absolute coordinates). Geometry read off the
# mass matrix and the closure equations: O = origin, A = (xa, ya), B = (xb, yb) fixed pivots;
#   K1 crank about O, angle beta, centre of mass at ra, pin P at rr along its axis;
#   K2 angle beta+Theta, centre of mass at P - da e(beta+Theta), E = P - d e(beta+Theta);
#   K3 about B, angle gamma, E at body point (0, -ss), spring point D at (sd, -sc) from B;
#   K5 about A, angle delta, G at (zt, 0); K4 angle Phi+delta, E at (0, -e) from G, centre of
#   mass at (0, -(e - ea)) from G;
#   K7 about A, angle epsilon, H at (0, -u); K6 angle Omega+epsilon, E at (zf, 0) from H,
#   centre of mass at (zf - fa, 0) from H.
# The centres of mass of K3, K5, K7 (pinned to ground, no gravity) enter the dynamics only
# through the inertia about their pivot, m (sa^2 + sb^2) + i3 etc.; they are placed at body
# points (sa, sb), (ta, tb), (ua, ub) from the pivot.
def rot(ang, px, py):
    return [f"({px})*cos({ang}) - ({py})*sin({ang})", f"({px})*sin({ang}) + ({py})*cos({ang})"]


def add(a, b_):
    return [f"{a[0]} + {b_[0]}", f"{a[1]} + {b_[1]}"]


a1, a2, a3 = "beta0", "(beta0 + Theta0)", "gamma0"
a4, a5, a6, a7 = "(Phi0 + delta0)", "delta0", "(Omega0 + epsilon0)", "epsilon0"
P = rot(a1, "rr", "0")
G = add(["xa", "ya"], rot(a5, "zt", "0"))
H = add(["xa", "ya"], rot(a7, "0", "-u"))
bodies = [
    {"name": "K1", "type": "rigid2d", "mass": "m1", "inertia": "i1", "position": rot(a1, "ra", "0"), "angle": a1},
    {"name": "K2", "type": "rigid2d", "mass": "m2", "inertia": "i2", "position": add(P, rot(a2, "-da", "0")), "angle": a2},
    {"name": "K3", "type": "rigid2d", "mass": "m3", "inertia": "i3", "position": add(["xb", "yb"], rot(a3, "sa", "sb")), "angle": a3},
    {"name": "K4", "type": "rigid2d", "mass": "m4", "inertia": "i4", "position": add(G, rot(a4, "0", "-(e - ea)")), "angle": a4},
    {"name": "K5", "type": "rigid2d", "mass": "m5", "inertia": "i5", "position": add(["xa", "ya"], rot(a5, "ta", "tb")), "angle": a5},
    {"name": "K6", "type": "rigid2d", "mass": "m6", "inertia": "i6", "position": add(H, rot(a6, "zf - fa", "0")), "angle": a6},
    {"name": "K7", "type": "rigid2d", "mass": "m7", "inertia": "i7", "position": add(["xa", "ya"], rot(a7, "ua", "ub")), "angle": a7},
]


def rev(name, b1, p1, b2, p2):
    return {"name": name, "type": "revolute2d", "body1": b1, "point1": p1, "body2": b2, "point2": p2}


joints = [
    rev("O", "ground", [0, 0], "K1", ["-ra", 0]),
    rev("P", "K1", ["rr - ra", 0], "K2", ["da", 0]),
    rev("E23", "K2", ["da - d", 0], "K3", ["-sa", "-ss - sb"]),
    rev("B", "ground", ["xb", "yb"], "K3", ["-sa", "-sb"]),
    rev("E24", "K2", ["da - d", 0], "K4", [0, "-ea"]),
    rev("G", "K4", [0, "e - ea"], "K5", ["zt - ta", "-tb"]),
    rev("A5", "ground", ["xa", "ya"], "K5", ["-ta", "-tb"]),
    rev("E26", "K2", ["da - d", 0], "K6", ["fa", 0]),
    rev("H", "K6", ["-(zf - fa)", 0], "K7", ["-ua", "-u - ub"]),
    rev("A7", "ground", ["xa", "ya"], "K7", ["-ua", "-ub"]),
]
forces = [
    {"name": "spring", "type": "spring", "body1": "ground", "point1": ["xc", "yc"],
     "body2": "K3", "point2": ["sd - sa", "-sc - sb"], "stiffness": "c0", "free_length": "l0"},
    {"name": "drive", "type": "generalized", "coordinate": "K1.theta", "value": "mom"},
]
write("a03_andrews_rigid.json", {
    "joinery": 1,
    "name": "A03 Andrews' squeezing mechanism, model (b): seven rigid2d bodies K1..K7 joined by ten "
            "revolute2d joints, the spring between the fixed point C and body K3, the torque mom on "
            "K1. The angles are beta = K1.theta, Theta = K2.theta - K1.theta, gamma = K3.theta, "
            "Phi = K4.theta - K5.theta, delta = K5.theta, Omega = K6.theta - K7.theta, epsilon = "
            "K7.theta. " + NAME_TAIL,
    "parameters": {**PARAMS, **Q0},
    "bodies": bodies,
    "joints": joints,
    "forces": forces,
    "simulation": SIM,
})
