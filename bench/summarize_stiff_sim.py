#!/usr/bin/env python3
"""Tables of docs/performance.md "Stiff models" from bench/run_stiff_sim.sh's JSON lines.

For each model: every run (integrator, tolerance, error, evaluations of q'', of them in
finite-difference Jacobians, evaluations of Q alone for force linearizations, CPU median),
then equal-accuracy ratios against dopri5: for each radau5 / radau5-fd / CPodes run, the
cheapest dopri5 run whose error is at most as large; the ratio of q'' evaluations (the
RADAU5 convention, NFCN, Jacobians counted apart) and of q'' + Q evaluations.
    bench/summarize_stiff_sim.py bench/results/stiff_sim.jsonl [more.jsonl ...]
"""
import json
import statistics
import sys
from collections import defaultdict


def key(j):
    if j.get("engine") == "simbody" or j.get("model") == "chain":
        return ("chain", j.get("k"))
    if j.get("model") == "beam":
        return ("beam", j.get("ne"))
    return (j.get("model"), None)


def main(paths):
    runs = defaultdict(list)
    simbody = defaultdict(list)
    for p in paths:
        for line in open(p):
            line = line.strip()
            if not line.startswith("{"):
                continue
            j = json.loads(line)
            if j.get("T", 0.5) < 0.5:  # short spans (dopri5's stability-bound rate, scaled by hand)
                continue
            if j.get("engine") == "simbody":
                simbody[(key(j), j["accuracy"])].append(j)
            else:
                runs[key(j)].append(j)
    for (k, acc), js in simbody.items():  # three repeats: one line, median CPU
        j = dict(js[0])
        j["cpu_s"] = statistics.median(x["cpu_s"] for x in js)
        j["integrator"], j["tol"] = "cpodes", acc
        j["jacobian_evaluations"] = None
        j["force_evaluations"] = 0
        runs[k].append(j)
    for k in sorted(runs, key=lambda x: (x[0], x[1] or 0)):
        rs = runs[k]
        print(f"\n### {k[0]} {k[1] if k[1] is not None else ''}\n")
        print("| integrator | tol | error | s error | q'' evals (in Jacobians) | Q evals | steps | CPU s |")
        print("|---|---|---|---|---|---|---|---|")
        for j in rs:
            je = j.get("jacobian_evaluations")
            se = j.get("s_err")
            print(f"| {j['integrator']} | {j['tol']:g} | {j['error']:.1e} | {'' if se is None else f'{se:.1e}'} | "
                  f"{j['evaluations']} ({'' if je is None else je}) | {j.get('force_evaluations', 0)} | "
                  f"{j['steps']} | {j.get('cpu_s', j.get('wall_s', 0)):.3g} |")
        d5 = [j for j in rs if j["integrator"] == "dopri5" and j["outcome"] == "completed"]
        if not d5:
            continue
        print("\nequal accuracy against dopri5 (its cheapest run with error <= the run's):\n")
        print("| run | error | q'' evals | ratio q'' | ratio q'' + Q | dopri5 run | CPU ratio |")
        print("|---|---|---|---|---|---|---|")
        for j in rs:
            if j["integrator"] == "dopri5" or j["outcome"] != "completed":
                continue
            ok = [d for d in d5 if d["error"] <= j["error"]]
            if not ok:
                continue
            d = min(ok, key=lambda d: d["evaluations"])
            tot = j["evaluations"] + (j.get("force_evaluations") or 0)
            print(f"| {j['integrator']} {j['tol']:g} | {j['error']:.1e} | {j['evaluations']} | "
                  f"{d['evaluations'] / j['evaluations']:.1f} | {d['evaluations'] / tot:.1f} | "
                  f"{d['tol']:g}: {d['error']:.1e}, {d['evaluations']} | "
                  f"{d.get('cpu_s', d.get('wall_s')) / max(j.get('cpu_s', j.get('wall_s')), 1e-9):.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
