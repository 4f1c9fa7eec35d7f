#!/usr/bin/env python3
"""Overhead of the Python module (docs/performance.md, "Python").

1. A Python loop of N Model.solve(q, qdot) calls on the pendulum against the same loop in C++
   (bench/solve_loop: solveForwardDynamics with one workspace), per call, best of REPEATS.
2. A whole simulation through Python (load + simulate, arrays kept in memory) against
   `joinery simulate` (process wall time: start-up, load, run, CSV), best of REPEATS, and
   the run loop alone (the run's own wall_s, as the CLI prints it) for both.

usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--build build]
       [--calls 10000] [--repeats 5] [--scene examples/scenes/slider_crank.json] [--t-end 20]
Prints JSON.
"""
import argparse
import json
import os
import pathlib
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def best_of(repeats, f):
    """(best wall, mean wall, best CPU time of this process, last result)."""
    times, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = f()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return min(times), sum(times) / len(times), min(cpu), out


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--calls", type=int, default=10000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--scene", default=str(ROOT / "examples" / "scenes" / "slider_crank.json"))
    ap.add_argument("--t-end", type=float, default=20.0)
    args = ap.parse_args()
    build = pathlib.Path(args.build)
    sys.path.insert(0, str(build / "python"))
    import joinery  # noqa: E402

    pendulum = ROOT / "examples" / "scenes" / "pendulum.json"
    report = {"python": sys.version.split()[0], "load_average": os.getloadavg()[0]}

    # 1. solve loop
    model = joinery.load(pendulum)
    q, v = model.initial_state()
    n = args.calls

    def py_loop():
        for _ in range(n):
            model.solve(q, v)

    py_best, py_mean, py_cpu, _ = best_of(args.repeats, py_loop)
    cpp = json.loads(subprocess.run([str(build / "bench" / "solve_loop"), str(pendulum), str(n), str(args.repeats)],
                                    check=True, capture_output=True, text=True).stdout)
    report["solve_loop"] = {
        "calls": n,
        "python_us_per_call": 1e6 * py_best / n,
        "python_mean_us_per_call": 1e6 * py_mean / n,
        "python_cpu_us_per_call": 1e6 * py_cpu / n,
        "cpp_us_per_call": cpp["best_us_per_call"],
        "cpp_mean_us_per_call": cpp["mean_us_per_call"],
        "cpp_cpu_us_per_call": cpp["best_cpu_us_per_call"],
        "overhead_cpu_us_per_call": 1e6 * py_cpu / n - cpp["best_cpu_us_per_call"],
        "ratio_cpu": (1e6 * py_cpu / n) / cpp["best_cpu_us_per_call"],
    }

    # 2. whole simulation
    cli = str(build / "apps" / "joinery")
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "run.csv")

        def cli_run():
            out = subprocess.run([cli, "simulate", args.scene, "-o", csv, "--t-end", str(args.t_end)],
                                 check=True, capture_output=True, text=True).stdout
            return float(re.search(r"samples, ([0-9.eE+-]+) s wall", out).group(1))

        def py_run():
            run = joinery.load(args.scene).simulate(t_end=args.t_end)
            assert run.completed
            return run.stats["wall_s"]

        cli_run()  # warm-up (page cache)
        py_run()
        cli_best, cli_mean, _, _ = best_of(args.repeats, cli_run)
        py_best, py_mean, py_cpu, _ = best_of(args.repeats, py_run)
        cli_cpu = []
        for _ in range(args.repeats):
            c0 = child_cpu()
            cli_run()
            cli_cpu.append(child_cpu() - c0)
        cli_loop = min(cli_run() for _ in range(args.repeats))
        py_loop_s = min(py_run() for _ in range(args.repeats))
    report["simulation"] = {
        "scene": os.path.relpath(args.scene, ROOT), "t_end": args.t_end,
        "cli_process_s": cli_best, "python_load_simulate_s": py_best,
        "ratio_python_to_cli": py_best / cli_best,
        "cli_process_cpu_s": min(cli_cpu), "python_load_simulate_cpu_s": py_cpu,
        "ratio_cpu": py_cpu / min(cli_cpu),
        "cli_run_loop_s": cli_loop, "python_run_loop_s": py_loop_s,
        "ratio_run_loop": py_loop_s / cli_loop,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
