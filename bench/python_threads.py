#!/usr/bin/env python3
"""Threaded sweeps from Python: 1 thread against 2 (docs/performance.md, "Python").

A sweep of CASES pendulum simulations (the models loaded first, with the GIL; then only
Model.simulate, which releases the GIL) run by a concurrent.futures.ThreadPoolExecutor with
1 and with 2 workers, alternately, REPEATS times each, in one process. Prints one JSON
object: per worker count the median wall time and the median CPU time of the process (all
threads), the speed-up (wall 1 thread / wall 2 threads), and the load average before and
after (the machine may be shared: with other work on the cores the wall time says what the
threads got, the CPU time what they cost).

Also joinery.study() of bench/study/slider_crank_10ms.json with jobs=1 and jobs=2 (worker
processes, as `joinery study -j`): median wall time and the CPU time of the workers
(RUSAGE_CHILDREN) plus this process.

usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_threads.py [--cases 8]
       [--t-end 20] [--repeats 3] [--no-study]
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import resource
import statistics
import time

import joinery

ROOT = pathlib.Path(__file__).resolve().parents[1]


def sweep(models, workers, t_end):
    t0, c0 = time.perf_counter(), time.process_time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        finals = list(pool.map(lambda m: m.simulate(t_end=t_end)["bob.x"][-1], models))
    return time.perf_counter() - t0, time.process_time() - c0, finals


def study_run(jobs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, c0 = time.perf_counter(), time.process_time()
    table = joinery.study(ROOT / "bench" / "study" / "slider_crank_10ms.json", jobs=jobs)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - c0 + (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert table.failed == 0
    return wall, cpu, len(table)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=8)
    ap.add_argument("--t-end", type=float, default=20.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-study", action="store_true")
    a = ap.parse_args()
    scene = ROOT / "examples" / "scenes" / "pendulum.json"
    models = [joinery.load(scene, parameters={"L": 0.5 + 0.1 * k}) for k in range(a.cases)]
    load_before = os.getloadavg()[0]
    res = {1: ([], []), 2: ([], [])}
    reference = None
    for _ in range(a.repeats):
        for w in (1, 2):
            wall, cpu, finals = sweep(models, w, a.t_end)
            if reference is None:
                reference = finals
            assert finals == reference, "threads changed the results"
            res[w][0].append(wall)
            res[w][1].append(cpu)
    out = {"cases": a.cases, "t_end": a.t_end, "repeats": a.repeats, "cpus": os.cpu_count(),
           "load_before": load_before, "load_after": os.getloadavg()[0]}
    for w in (1, 2):
        out["threads_%d" % w] = {"wall_s": statistics.median(res[w][0]), "cpu_s": statistics.median(res[w][1]),
                                 "walls": res[w][0]}
    out["speedup_wall"] = out["threads_1"]["wall_s"] / out["threads_2"]["wall_s"]
    out["cpu_ratio"] = out["threads_2"]["cpu_s"] / out["threads_1"]["cpu_s"]
    if not a.no_study:
        st = {1: ([], []), 2: ([], [])}
        for _ in range(a.repeats):
            for j in (1, 2):
                wall, cpu, n = study_run(j)
                st[j][0].append(wall)
                st[j][1].append(cpu)
        for j in (1, 2):
            out["study_jobs_%d" % j] = {"cases": n, "wall_s": statistics.median(st[j][0]),
                                        "cpu_s": statistics.median(st[j][1])}
        out["study_speedup_wall"] = out["study_jobs_1"]["wall_s"] / out["study_jobs_2"]["wall_s"]
        out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
