#!/usr/bin/env python3
"""Markdown tables from bench/results/models_fd.jsonl (bench/run_models_fd.sh): medians over the
rounds of the CPU time and the wall time per forward-dynamics evaluation, joinery against
Simbody, and the cross-check of their accelerations."""
import json
import math
import statistics
import sys

from fit_tools import fit, fmt


rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
timed = {}
runs = {}
checks = {}
timeouts = {}
for r in rows:
    key = (r["model"], r["N"])
    if r["engine"] == "check":
        checks[key] = r
    elif "timeout_s" in r:
        timeouts[(r["engine"],) + key] = r["timeout_s"]
    else:
        timed.setdefault((r["engine"],) + key, []).append(r)


def med(engine, key, field):
    rs = timed.get((engine,) + key)
    return statistics.median(r[field] for r in rs) if rs else None


titles = {"tree": "Binary tree of rods (spherical joints; N = 2^depth - 1 bodies)",
          "fourbar": "Planar N-four-bar (N loops, 2N + 1 bodies)"}
for model in ("tree", "fourbar"):
    keys = sorted({k[1:] for k in timed if k[1] == model}, key=lambda k: k[1])
    if not keys:
        continue
    print(f"{titles[model]}: CPU time per evaluation, medians of "
          f"{max(len(v) for k, v in timed.items() if k[1] == model)} runs")
    print()
    print("| N | bodies | joinery n / m | Simbody n / m | joinery µs CPU | ns/body | Simbody µs CPU | ns/body "
          "| **joinery/Simbody (CPU)** | joinery/Simbody (wall) | max rel. acc. diff |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    jpts, spts = [], []
    for key in keys:
        N = key[1]
        bodies = N if model == "tree" else 2 * N + 1
        jc, sc = med("joinery", key, "fd_cpu_ns"), med("simbody", key, "fd_cpu_ns")
        jw, sw = med("joinery", key, "fd_ns"), med("simbody", key, "fd_ns")
        j0 = (timed.get(("joinery",) + key) or [None])[0]
        s0 = (timed.get(("simbody",) + key) or [None])[0]
        if jc:
            jpts.append((bodies, jc))
        if sc:
            spts.append((bodies, sc))
        c = checks.get(key)
        label = f"{N} (d = {int(round(math.log2(N + 1)))})" if model == "tree" else str(N)
        simb = f"{s0['n']} / {s0['m']}" if s0 else "—"
        jn = f"{j0['n']} / {j0['m']}" if j0 else "—"
        diff = "—" if c is None else f"{c['max_rel_diff']:.1e}"
        scell = fmt(sc, 1e3)
        if sc is None and ("simbody",) + key in timeouts:
            scell = f"> {timeouts[('simbody',) + key]} s per run"
        print(f"| {label} | {bodies} | {jn} | {simb} | {fmt(jc, 1e3)} | "
              f"{fmt(jc / bodies if jc else None)} | {scell} | {fmt(sc / bodies if sc else None)} | "
              f"**{fmt(jc / sc if jc and sc else None)}** | {fmt(jw / sw if jw and sw else None)} | "
              f"{diff} |")
    print()
    print(f"Fitted exponent of CPU time against bodies: joinery {fit(jpts):.2f}, Simbody {fit(spts):.2f}.")
    print()
bad = [c for c in checks.values() if not c["ok"]]
print(f"Acceleration cross-checks: {len(checks)} (every body's linear and angular accelerations), "
      f"largest relative difference {max((c['max_rel_diff'] for c in checks.values()), default=float('nan')):.1e}"
      f"{'' if not bad else f', {len(bad)} OVER THE TOLERANCE'}.")
