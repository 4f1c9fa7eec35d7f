#!/usr/bin/env python3
"""Markdown tables from bench/results/chain_fd.jsonl (bench/run_chain_fd.sh)."""
import json
import math
import statistics
import sys

from fit_tools import fit, fmt


allrows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in allrows if r.get("model", "chain") == "chain"]
fourbar = [r for r in allrows if r.get("model") == "fourbar"]
t = {}
cpu = {}
heap = {}
tips = {}
# several rounds (run_chain_fd.sh REPS): the median of each engine's times at each N
for r in rows:
    key = r["engine"] if r["engine"] != "joinery" else "joinery-" + r["path"]
    t.setdefault((key, r["N"]), []).append(r["fd_ns"])
    if "fd_cpu_ns" in r:
        cpu.setdefault((key, r["N"]), []).append(r["fd_cpu_ns"])
    tips[(key, r["N"])] = r.get("tip_acc")
    if "heap_bytes_per_body" in r:
        heap[(key, r["N"])] = r["heap_bytes_per_body"]
t = {k: statistics.median(v) for k, v in t.items()}
cpu = {k: statistics.median(v) for k, v in cpu.items()}
rounds = max((len([r for r in rows if r["engine"] == "simbody" and r["N"] == N]) for N in {r["N"] for r in rows}), default=1)
Ns = sorted({r["N"] for r in rows})
if rounds > 1:
    print(f"Medians of {rounds} rounds (joinery and Simbody run in turn).")
    print()
print("| N | joinery structured µs | ns/body | heap B/body | joinery dense µs | dense metric µs "
      "| Simbody µs | DART µs | joinery/Simbody | joinery/Simbody (CPU time) | joinery/DART | max tip-acc diff vs Simbody |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for N in Ns:
    js = t.get(("joinery-structured", N))
    sb = t.get(("simbody", N))
    da = t.get(("dart", N))
    diff = None
    if tips.get(("joinery-structured", N)) and tips.get(("simbody", N)):
        a, b = tips[("joinery-structured", N)], tips[("simbody", N)]
        diff = max(abs(x - y) for x, y in zip(a, b))
    print(f"| {N} | {fmt(js, 1e3)} | {fmt(js / N if js else None)} | "
          f"{fmt(heap.get(('joinery-structured', N)))} | {fmt(t.get(('joinery-dense', N)), 1e3)} | "
          f"{fmt(t.get(('joinery-densemetric', N)), 1e3)} | {fmt(sb, 1e3)} | {fmt(da, 1e3)} | "
          f"{fmt(js / sb if js and sb else None)} | "
          f"{fmt(cpu[('joinery-structured', N)] / cpu[('simbody', N)] if ('joinery-structured', N) in cpu and ('simbody', N) in cpu else None)} | "
          f"{fmt(js / da if js and da else None)} | "
          f"{'—' if diff is None else f'{diff:.1e}'} |")
print()
print("Fitted exponent p of t ∝ N^p (least squares on log-log):")
print()
print("| engine / path | all N | N ≥ 64 |")
print("|---|---:|---:|")
for key in ["joinery-structured", "simbody", "dart", "joinery-dense", "joinery-densemetric"]:
    pts = sorted((N, v) for (k, N), v in t.items() if k == key)
    if not pts:
        continue
    big = [(N, v) for N, v in pts if N >= 64]
    print(f"| {key} | {fit(pts):.2f} | {fit(big):.2f} |")

if fourbar:
    print()
    print("Planar N-four-bar (A02), structured path:")
    print()
    print("| N | coordinates | rows | µs per evaluation | ns per body |")
    print("|---:|---:|---:|---:|---:|")
    for r in sorted(fourbar, key=lambda r: r["N"]):
        bodies = 2 * r["N"] + 1
        print(f"| {r['N']} | {r['n']} | {r['m']} | {r['fd_ns'] / 1e3:.3g} | {r['fd_ns'] / bodies:.3g} |")
    pts = [(2 * r["N"] + 1, r["fd_ns"]) for r in fourbar]
    print()
    print(f"Fitted exponent over all N: {fit(sorted(pts)):.2f}")
