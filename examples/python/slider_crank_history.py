#!/usr/bin/env python3
"""The slider-crank's crank angle and joint forces over time.

Simulates examples/scenes/slider_crank.json, then solves the equations at every sample for
the joint results (Solution.joints, the "joints" of `joinery solve --json`): the force the
wrist pin applies to the piston and the force the cylinder applies to it. Two checks on the
way: the cylinder (a prismatic joint along x) pushes only across its axis (its x force is
zero), and the piston's equation holds, m a = F_pin + F_cylinder + F_spring + m g. The same
forces come straight out of the run as output channels (simulate(outputs=...): the cylinder's
in its own frame, where y is its normal force) and must equal the per-sample solves.

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
    run = model.simulate(t_end=args.t_end, outputs=[
        {"name": "pin", "reaction": "wrist_pin"},
        {"name": "guide", "reaction": "cylinder", "frame": "joint"}])
    print(run)
    names = model.coordinates
    q = np.column_stack([run[n] for n in names])
    qdot = np.column_stack([run[n + "_dot"] for n in names])
    ix, iy = names.index("piston.block.x"), names.index("piston.block.y")
    pin, cyl, residual = [], [], 0.0
    for t, qi, vi in zip(run.t, q, qdot):
        sol = model.solve(qi, vi, t)
        joints = sol.joints
        f_pin = np.array(joints["wrist_pin"]["force2"][:2])   # on the piston (body2)
        f_cyl = np.array(joints["cylinder"]["force2"][:2])    # on the piston (body2)
        _, Q, _, _, _ = model.matrices(qi, vi, t)             # spring and gravity on the piston
        m_a = 2.0 * sol.qdd[[ix, iy]]                          # the piston's mass: 2 kg
        residual = max(residual, np.max(np.abs(m_a - (f_pin + f_cyl + Q[[ix, iy]]))))
        pin.append(f_pin)
        cyl.append(f_cyl)
    pin, cyl = np.array(pin), np.array(cyl)
    # the channels of the run: the same forces, without a solve per sample in Python
    channel_diff = max(np.max(np.abs(run["pin.fx"] - pin[:, 0])), np.max(np.abs(run["pin.fy"] - pin[:, 1])),
                       np.max(np.abs(run["guide.fy"] - cyl[:, 1])))
    print(f"channels against the solves: {channel_diff:.1e} N; largest cylinder normal force "
          f"{run.summary['channels']['guide.fy']['max']:.3f} N at t = {run.summary['channels']['guide.fy']['t_max']}")
    print(f"wrist pin on the piston: |F| up to {np.max(np.hypot(pin[:, 0], pin[:, 1])):.3f} N; "
          f"cylinder: |Fx| up to {np.max(np.abs(cyl[:, 0])):.1e} N, Fy from {cyl[:, 1].min():.3f} "
          f"to {cyl[:, 1].max():.3f} N; piston equation residual {residual:.1e} N")

    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    a1.plot(run.t, np.unwrap(run["crank.rod.theta"]), label="crank angle")
    a1.set_ylabel("angle (rad)")
    a1.legend()
    a2.plot(run.t, pin[:, 0], label="wrist pin on piston, x")
    a2.plot(run.t, pin[:, 1], label="wrist pin on piston, y")
    a2.plot(run.t, cyl[:, 1], "--", label="cylinder on piston, y")
    a2.set_xlabel("t (s)")
    a2.set_ylabel("force (N)")
    a2.legend(fontsize=8)
    fig.suptitle("Slider-crank (examples/scenes/slider_crank.json)")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")
    # the cylinder has no force along its axis; the piston's equation holds to round-off
    # (the channels: the same states, another solver path: 1e-8 N)
    return 0 if np.max(np.abs(cyl[:, 0])) < 1e-9 and residual < 1e-9 and channel_diff < 1e-8 else 1


if __name__ == "__main__":
    raise SystemExit(main())
