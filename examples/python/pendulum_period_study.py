#!/usr/bin/env python3
"""Parameter study: the period of the pendulum against its release angle, on all cores.

Each case loads examples/scenes/pendulum.json with another release angle (the scene's
parameters overridden from Python), simulates until the bob first crosses the vertical (a
per-sample callback stops the run there: a quarter period) and compares the period with the
exact one, T = 4 sqrt(L/g) K(sin(theta0/2)) (K the complete elliptic integral of the first
kind). Cases run in a ThreadPoolExecutor: simulate() releases the GIL.

usage: PYTHONPATH=build/python /usr/bin/python3 examples/python/pendulum_period_study.py [-o period.png]
"""
import argparse
import concurrent.futures
import math
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import joinery  # noqa: E402

SCENE = pathlib.Path(__file__).resolve().parents[1] / "scenes" / "pendulum.json"
L, G = 1.0, 9.81


def exact_period(theta0):
    """4 sqrt(L/g) K(k), k = sin(theta0/2), K by the arithmetic-geometric mean."""
    a, b = 1.0, math.sqrt(1.0 - math.sin(theta0 / 2) ** 2)
    while abs(a - b) > 1e-15 * a:
        a, b = (a + b) / 2, math.sqrt(a * b)
    return 4 * math.sqrt(L / G) * math.pi / (2 * a)


def simulated_period(theta0):
    """Released at rest at theta0 (from the downward vertical) on the side x < 0."""
    model = joinery.load(SCENE, parameters={"L": L})
    q = [-L * math.sin(theta0), -L * math.cos(theta0)]
    run = model.simulate(t_end=10.0, q=q, qdot=[0.0, 0.0], output_interval=1e-3,
                         callback=lambda t, q, qdot: q[0] < 0.0)  # stop once x >= 0
    t, x = run.t, run["bob.x"]
    # linear interpolation of the crossing between the last two samples: a quarter period
    t_cross = t[-2] + (t[-1] - t[-2]) * (0.0 - x[-2]) / (x[-1] - x[-2])
    return 4 * t_cross


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="pendulum_period.png")
    args = ap.parse_args()
    angles = np.radians(np.arange(5, 180, 5))
    with concurrent.futures.ThreadPoolExecutor() as pool:
        periods = list(pool.map(simulated_period, angles))
    exact = [exact_period(a) for a in angles]
    worst = max(abs(p - e) / e for p, e in zip(periods, exact))
    print(f"{len(angles)} cases; largest relative error against the exact period: {worst:.1e}")
    for a, p, e in list(zip(angles, periods, exact))[::7]:
        print(f"  theta0 = {math.degrees(a):5.1f} deg: T = {p:.6f} s (exact {e:.6f} s)")

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(np.degrees(angles), exact, "-", label="exact: 4 sqrt(L/g) K(sin(θ0/2))")
    ax.plot(np.degrees(angles), periods, "o", ms=4, label="joinery (quarter period × 4)")
    ax.axhline(2 * math.pi * math.sqrt(L / G), ls=":", color="gray", label="small angles: 2π sqrt(L/g)")
    ax.set_xlabel("release angle θ0 (deg)")
    ax.set_ylabel("period (s)")
    ax.set_title("Pendulum period against amplitude (L = 1 m)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")
    # dopri5 at the scene's rtol 1e-9 and a linear crossing over 1 ms samples: 1e-9 expected
    return 0 if worst < 1e-6 else 1


if __name__ == "__main__":
    raise SystemExit(main())
