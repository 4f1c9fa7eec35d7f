#!/usr/bin/env python3
"""Markdown tables of bench/run_chain_sim.sh's results (results/chain_sim.jsonl): per chain
size N, the reference tips and their distance (the error floor), a work-precision table (tip
error at T against wall time, every run), and the wall time each engine needs to reach a
target tip error (log-log interpolation between the bracketing runs of its sweep) with the
ratio joinery / best Simbody integrator, one row per joinery integrator (dopri5, rkm: the
runs' `integrator` field), and the evaluations each integrator of either engine needs to reach
it (machine-independent). Standard library only.

    python3 summarize_chain_sim.py results/chain_sim.jsonl > results/chain_sim.md
"""
import json
import math
import sys

TARGETS = (1e-4, 1e-6, 1e-8)


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    return f"{x:.{digits}g}"


def dist(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def load(path):
    runs = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                runs.append(json.loads(line))
    return runs


def series_name(r):
    return f"{r['engine']} {r['integrator']}"


def time_to_reach(points, target):
    """points: [(tol, err, wall)] of one sweep. Returns (wall, kind) with kind '=' (interpolated
    between the bracketing runs), '<=' (the loosest run already meets the target: an upper
    bound) or None when no run reaches the target."""
    pts = sorted(points, key=lambda p: -p[0])  # loose to tight
    for j, (_, err, wall) in enumerate(pts):
        if err <= target:
            if j == 0:
                return wall, "<="
            _, e0, w0 = pts[j - 1]
            if err <= 0 or e0 <= err:
                return wall, "<="
            f = (math.log(target) - math.log(e0)) / (math.log(err) - math.log(e0))
            return math.exp(math.log(w0) + f * (math.log(wall) - math.log(w0))), "="
    return None, None


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "results/chain_sim.jsonl"
    runs = load(path)
    out = []
    p = out.append
    Ns = sorted({r["N"] for r in runs})
    spins = sorted({r.get("spin", 0) for r in runs})
    p("### Chain: whole simulations at equal accuracy (T = 1 s)")
    p("")
    p(f"Initial velocity: {'at rest (the benchmark case)' if spins == [0] else 'spin ' + ', '.join(map(str, spins))}. "
      "Tip error = |tip(T) − tip_ref| (m), tip_ref = Simbody RKM at the reference accuracy (joinery dopri5 "
      "at the reference tolerance when Simbody's is missing). wall = integration only (model "
      "construction excluded), single process, one run each.")
    p("")
    summary_rows = []
    evals_rows = []
    for N in Ns:
        rs = [r for r in runs if r["N"] == N]
        refs = {r["engine"]: r for r in rs if r.get("label") == "ref" and r.get("outcome") == "completed"}
        ref = refs.get("simbody", refs.get("joinery"))
        p(f"#### N = {N}")
        p("")
        p("| reference | tolerance / accuracy | tip (x, y, z) | wall s | steps | evaluations |")
        p("|---|---:|---|---:|---:|---:|")
        for r in rs:
            if r.get("label") != "ref":
                continue
            if r.get("outcome") != "completed":
                p(f"| {series_name(r)} | {fmt(r.get('tol'))} | {r.get('outcome')} after {fmt(r.get('wall_s'))} s | — | — | — |")
                continue
            t = r["tip"]
            p(f"| {series_name(r)} | {fmt(r['tol'])} | ({t[0]:.12f}, {t[1]:.3g}, {t[2]:.12f}) | "
              f"{fmt(r['wall_s'])} | {r['steps']} | {r['evaluations']} |")
        floor = None
        if "joinery" in refs and "simbody" in refs:
            floor = dist(refs["joinery"]["tip"], refs["simbody"]["tip"])
            p("")
            p(f"Error floor: |tip_joinery − tip_Simbody| at the reference tolerance = **{fmt(floor)}** m "
              "(tip errors near it are not resolved).")
        p("")
        if ref is None:
            p("No reference run completed: no errors.")
            p("")
            continue
        # work-precision table
        p("| engine | integrator | tol / accuracy | tip error | wall s | CPU s | steps | rejected | evaluations | evals/step | E(T) J | joinery: dense start-up s | joinery: wall − dense s |")
        p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        series = {}
        series_nodense = {}
        series_evals = {}
        sweep = [r for r in rs if r.get("label") == "sweep"]
        sweep.sort(key=lambda r: (r["engine"] != "joinery", r["integrator"], -(r.get("tol") or 0)))
        for r in sweep:
            if r.get("outcome") != "completed":
                p(f"| {r['engine']} | {r['integrator']} | {fmt(r.get('tol'))} | {r.get('outcome')} | "
                  f"> {fmt(r.get('wall_s'))} | — | — | — | — | — | — | — | — |")
                continue
            err = dist(r["tip"], ref["tip"])
            rej = r.get("rejected", 0)
            steps = r["steps"]
            evals = r["evaluations"]
            dense = r.get("dense_eval_s")
            nodense = r["wall_s"] - dense if dense is not None else None
            p(f"| {r['engine']} | {r['integrator']} | {fmt(r['tol'])} | {fmt(err)} | {fmt(r['wall_s'])} | {fmt(r.get('cpu_s'))} | {steps} | "
              f"{rej} | {evals} | {fmt(evals / steps if steps else None)} | {fmt(r.get('energy'))} | "
              f"{fmt(dense)} | {fmt(nodense)} |")
            series.setdefault(series_name(r), []).append((r["tol"], err, r["wall_s"]))
            series_evals.setdefault(series_name(r), []).append((r["tol"], err, float(evals)))
            if nodense is not None:
                series_nodense.setdefault(series_name(r), []).append((r["tol"], err, nodense))
        p("")
        for target in TARGETS:
            best = None
            for name, pts in series.items():
                w, kind = time_to_reach(pts, target)
                if not name.startswith("joinery") and w is not None and (best is None or w < best[1]):
                    best = (name.split(" ", 1)[1], w, kind)
            for name, pts in series.items():
                if not name.startswith("joinery"):
                    continue
                row = {"N": N, "target": target, "floor": floor, "integrator": name.split(" ", 1)[1]}
                row["joinery"] = time_to_reach(pts, target)
                row["joinery_nodense"] = time_to_reach(series_nodense.get(name, []), target)
                row["simbody"] = best
                summary_rows.append(row)
            evals_row = {"N": N, "target": target, "floor": floor}
            for name, pts in series_evals.items():
                evals_row[name] = time_to_reach(pts, target)
            evals_rows.append((evals_row, sorted(series_evals)))

    p("### Wall time to reach a tip error (log-log interpolation between the bracketing runs of each sweep)")
    p("")
    p("'≤' = the loosest run of the sweep already meets the target (an upper bound); '—' = no run of the "
      "sweep reached it (or the runs timed out); '*' = a ratio with an upper bound in it (indicative "
      "only: the sweep does not bracket the target). Simbody: the fastest of its integrators at that target. "
      "'joinery w/o dense start-up' subtracts the time of the evaluations that went to joinery's dense "
      "reference solver (see the notes): what the run would cost if those were structured.")
    p("")
    p("| N | target tip error | joinery integrator | joinery s | best Simbody s (integrator) | joinery / Simbody | joinery w/o dense start-up s | ratio w/o dense start-up | error floor |")
    p("|---:|---:|---|---:|---|---:|---:|---:|---:|")

    def cell(v):
        if v is None or v[0] is None:
            return "—"
        return ("≤ " if v[1] == "<=" else "") + fmt(v[0])

    for row in summary_rows:
        j = row.get("joinery")
        jn = row.get("joinery_nodense")
        s = row.get("simbody")
        scell = "—" if s is None else f"{'≤ ' if s[2] == '<=' else ''}{fmt(s[1])} ({s[0]})"
        def ratio(jv):
            if not jv or jv[0] is None or s is None:
                return "—"
            # a ratio with an upper bound in it is only indicative
            return fmt(jv[0] / s[1]) + ("*" if jv[1] == "<=" or s[2] == "<=" else "")

        ratio_j, ratio_nd = ratio(j), ratio(jn)
        note = " (below 10× floor)" if row["floor"] is not None and row["target"] < 10 * row["floor"] else ""
        p(f"| {row['N']} | {fmt(row['target'])}{note} | {row['integrator']} | {cell(j)} | {scell} | {ratio_j} | {cell(jn)} | {ratio_nd} | {fmt(row['floor'])} |")
    p("")
    p("### Evaluations to reach a tip error (log-log interpolation, as above; machine-independent)")
    p("")
    p("Evaluations: joinery's calcAccelerations calls, Simbody's realizations of the Acceleration stage. "
      "'≤' and '—' as above.")
    p("")
    names = sorted({n for _, ns in evals_rows for n in ns}, key=lambda n: (not n.startswith("joinery"), n))
    p("| N | target tip error | " + " | ".join(names) + " |")
    p("|---:|---:|" + "---:|" * len(names))
    for row, _ in evals_rows:
        cells = []
        for n in names:
            v = row.get(n)
            cells.append("—" if v is None or v[0] is None else ("≤ " if v[1] == "<=" else "") + f"{v[0]:.0f}")
        p(f"| {row['N']} | {fmt(row['target'])} | " + " | ".join(cells) + " |")
    p("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
