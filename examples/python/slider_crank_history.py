#!/usr/bin/env python3
"""The slider-crank's crank angle and wrist-pin force over time.

Simulates examples/scenes/slider_crank.json, then solves the equations at every sample to get
the constraint forces. The cylinder (a prismatic joint along x) exerts no force along x, so
the generalized constraint force on the piston's x coordinate is exactly the wrist pin's
force along the cylinder axis. Its check: the piston's own equation, m x'' = F_spring + F_pin.
(Per-joint reactions of every joint, with both sides and torques, come with the library's
joint results; this example needs only the generalized forces.)

usage: PYTHONPATH=build/python /usr/bin/python3 examples/python/slider_crank_history.py [-o slider_crank.png]
"""
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import joinery  # noqa: E402

SCENE = pathlib.Path(__file__).resolve().parents[1] / "scenes" / "slider_crank.json"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="slider_crank.png")
    ap.add_argument("--t-end", type=float, default=2.0)
    args = ap.parse_args()

    model = joinery.load(SCENE)
    run = model.simulate(t_end=args.t_end)
    print(run)
    names = model.coordinates
    q = np.column_stack([run[n] for n in names])
    qdot = np.column_stack([run[n + "_dot"] for n in names])
    ix = names.index("piston.block.x")
    pin, spring, qdd = [], [], []
    for t, qi, vi in zip(run.t, q, qdot):
        sol = model.solve(qi, vi, t)
        _, Q, _, _, _ = model.matrices(qi, vi, t)
        pin.append(sol.constraint_force[ix])
        spring.append(Q[ix])  # the return spring is the only applied force along x
        qdd.append(sol.qdd[ix])
    pin, spring, qdd = map(np.array, (pin, spring, qdd))
    mass = 2.0  # the piston's mass in the scene
    residual = np.max(np.abs(mass * qdd - spring - pin))
    print(f"wrist-pin force along x: min {pin.min():.3f} N, max {pin.max():.3f} N; "
          f"piston equation residual {residual:.1e} N")

    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    a1.plot(run.t, np.unwrap(run["crank.rod.theta"]), label="crank angle")
    a1.set_ylabel("angle (rad)")
    a1.legend()
    a2.plot(run.t, pin, label="wrist pin on piston, x")
    a2.plot(run.t, spring, "--", label="return spring on piston, x")
    a2.set_xlabel("t (s)")
    a2.set_ylabel("force (N)")
    a2.legend()
    fig.suptitle("Slider-crank (examples/scenes/slider_crank.json)")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
