#!/usr/bin/env python3
"""Writes examples/validation/a05_flyball_governor.json, the stiff flyball governor (IFToMM
benchmark A05, docs/validation.md). The scene is committed; rerun only to change it:
    python3 examples/validation/make_a05.py
Uses only the Python standard library.

Model: shaft (box 1 x 0.01 x 0.01 m, long axis = body z) on a revolute3d to the ground about z
at the origin; two rods (boxes, long axis = body x) on revolute3d hinges about y at the shaft
top (+-0.05, 0, 1); a 5 kg particle on a spherical joint at each rod's free end; the slider
(0.1 m cube) on a prismatic3d joint along the shaft axis (it slides along the shaft and turns
with it; earlier versions wrote the same joint as five couplings on quaternion parts); two
spring-dampers K = 8e5 N/m, C = 4e4 N s/m, rest length 0.5 m from the slider's side points to
the rod midpoints. Density 3000 kg/m^3. Starts with the rods 30 degrees below the horizontal
and everything spinning at 2 pi rad/s about z. s = slider.z."""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
W = 2 * math.pi
a = math.radians(30)


def box_inertia(m, lx, ly, lz):
    return [m * (ly * ly + lz * lz) / 12, m * (lx * lx + lz * lz) / 12, m * (lx * lx + ly * ly) / 12]


def about_y(angle):
    return [math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0]


bodies = [
    {"name": "shaft", "type": "rigid3d", "mass": 0.3, "inertia": box_inertia(0.3, 0.01, 0.01, 1.0),
     "position": [0, 0, 0.5], "angular_velocity": [0, 0, W]},
    {"name": "slider", "type": "rigid3d", "mass": 3.0, "inertia": box_inertia(3.0, 0.1, 0.1, 0.1),
     "position": [0, 0, 0.5], "angular_velocity": [0, 0, W]},
]
joints = [
    {"name": "bearing", "type": "revolute3d", "body1": "ground", "point1": [0, 0, 0], "axis1": [0, 0, 1],
     "body2": "shaft", "point2": [0, 0, -0.5], "axis2": [0, 0, 1]},
]
forces = []
for side, sign, angle in (("right", 1, a), ("left", -1, math.pi - a)):
    hinge = [sign * 0.05, 0, 1.0]
    d = [math.cos(angle), 0, -math.sin(angle)]  # the rod's body x axis in the world
    com = [hinge[i] + 0.5 * d[i] for i in range(3)]
    tip = [hinge[i] + 1.0 * d[i] for i in range(3)]
    bodies.append({"name": f"rod_{side}", "type": "rigid3d", "mass": 0.3, "inertia": box_inertia(0.3, 1.0, 0.01, 0.01),
                   "position": com, "orientation": about_y(angle), "velocity": [0, W * com[0], 0],
                   "angular_velocity": [0, 0, W]})
    bodies.append({"name": f"ball_{side}", "type": "particle", "dim": 3, "mass": 5.0, "position": tip,
                   "velocity": [0, W * tip[0], 0]})
    joints.append({"name": f"hinge_{side}", "type": "revolute3d", "body1": "shaft", "point1": [sign * 0.05, 0, 0.5],
                   "axis1": [0, 1, 0], "body2": f"rod_{side}", "point2": [-0.5, 0, 0], "axis2": [0, 1, 0]})
    joints.append({"name": f"mass_{side}", "type": "spherical", "body1": f"rod_{side}", "point1": [0.5, 0, 0],
                   "body2": f"ball_{side}", "point2": [0, 0, 0]})
    forces.append({"name": f"spring_{side}", "type": "spring", "body1": "slider", "point1": [sign * 0.05, 0, 0],
                   "body2": f"rod_{side}", "point2": [0, 0, 0], "stiffness": 8e5, "damping": 4e4,
                   "free_length": 0.5})
# the sleeve slides along the shaft and turns with it: a prismatic joint (5 rows: two keep the
# slider centre on the shaft axis, three hold the relative orientation of the initial state)
joints.append({"name": "sleeve", "type": "prismatic3d", "body1": "shaft", "point1": [0, 0, 0], "axis1": [0, 0, 1],
               "body2": "slider", "point2": [0, 0, 0]})

scene = {
    "joinery": 1,
    "name": "A05 stiff flyball governor (IFToMM benchmark library): free shaft, two rods with 5 kg end "
            "masses, a slider on the shaft, spring-dampers K = 8e5 N/m, C = 4e4 N s/m in place of the "
            "coupler rods; s = slider.z. Stiff: use the implicit integrator.",
    "gravity": [0, 0, -9.81],
    "bodies": bodies,
    "joints": joints,
    "forces": forces,
    "simulation": {"t_end": 3, "integrator": "implicit", "rtol": 1e-6, "atol": 1e-8,
                   "output_interval": 0.01, "stabilization": "projection"},
}
with open(os.path.join(HERE, "a05_flyball_governor.json"), "w") as f:
    json.dump(scene, f, indent=1)
    f.write("\n")
