#!/usr/bin/env python3
"""Plots columns of joinery CSV output to an SVG line chart, with the standard library only.

Usage:
  scripts/plot_svg.py OUT.svg --title "A01 energy error" \
      --series "label=energy - E0:csv=out/a01.csv:y=energy:minus-first" \
      [--series ...] [--logy] [--abs]

A series is `key=value` pairs joined by ':'. Keys:
  label=TEXT       legend text
  csv=FILE         a CSV written by `joinery simulate` (header row, then numbers)
  x=COLUMN         x column (default t)
  y=COLUMN         y column
  minus-first      subtract the first y value (drift)
  a01-error        y is |(x,y) - exact| of the A01 pendulum (columns bob.x, bob.y), from the
                   closed form with Jacobi elliptic functions (docs/benchmarks.md, A01)
The chart is written as plain SVG (no matplotlib needed on the machine).
"""
import argparse
import csv
import math
import sys


def jacobi_sn_cn_dn(u, m):
    """Jacobi elliptic functions sn, cn, dn of u with parameter m (0 <= m < 1), by the
    arithmetic-geometric mean (Abramowitz & Stegun 16.4)."""
    a = [1.0]
    c = [math.sqrt(m)]
    b = math.sqrt(1.0 - m)
    n = 0
    while abs(c[n]) > 4e-16 and n < 60:
        a_next = 0.5 * (a[n] + b)
        c.append(0.5 * (a[n] - b))
        b = math.sqrt(a[n] * b)
        a.append(a_next)
        n += 1
    phi = (2 ** n) * a[n] * u
    for k in range(n, 0, -1):
        phi = 0.5 * (phi + math.asin(c[k] / a[k] * math.sin(phi)))
    sn, cn = math.sin(phi), math.cos(phi)
    dn = math.sqrt(1.0 - m * sn * sn)
    return sn, cn, dn


def complete_k(m):
    """Complete elliptic integral of the first kind K(m) by the AGM."""
    a, b = 1.0, math.sqrt(1.0 - m)
    for _ in range(60):
        if abs(a - b) <= 4e-16 * a:
            break
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return math.pi / (2.0 * a)


def a01_exact(t, g=9.81, L=1.0):
    """A01: released at rest from theta0 = -pi/2 (mass at x = -1); returns (x, y)."""
    m = 0.5
    k = math.sqrt(m)
    u = complete_k(m) - math.sqrt(g / L) * t
    sn, _, dn = jacobi_sn_cn_dn(u, m)
    return -2.0 * k * sn * dn * L, -(1.0 - 2.0 * m * sn * sn) * L


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        sys.exit(f"{path}: empty CSV")
    head = rows[0]
    cols = {h: [] for h in head}
    for r in rows[1:]:
        for h, v in zip(head, r):
            cols[h].append(float(v) if v != "" else float("nan"))
    return cols


def parse_series(text):
    s = {"x": "t", "minus_first": False, "a01": False}
    for part in text.split(":"):
        if part == "minus-first":
            s["minus_first"] = True
        elif part == "a01-error":
            s["a01"] = True
        elif "=" in part:
            k, v = part.split("=", 1)
            s[k] = v
        else:
            sys.exit(f"series part '{part}': expected key=value, minus-first or a01-error")
    if "csv" not in s:
        sys.exit(f"series '{text}': csv=FILE is required")
    return s


def series_points(s):
    cols = read_csv(s["csv"])
    xs = cols[s["x"]]
    if s["a01"]:
        ys = []
        for t, x, y in zip(cols["t"], cols["bob.x"], cols["bob.y"]):
            ex, ey = a01_exact(t)
            ys.append(math.hypot(x - ex, y - ey))
    else:
        if s.get("y") not in cols:
            sys.exit(f"{s['csv']}: no column '{s.get('y')}' (columns: {', '.join(cols)})")
        ys = list(cols[s["y"]])
        if s["minus_first"]:
            y0 = ys[0]
            ys = [y - y0 for y in ys]
    return xs, ys


def svg(path, title, xlabel, ylabel, series, logy, absval):
    W, H, L, R, T, B = 760, 420, 80, 20, 40, 50
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"]
    data = []
    for s in series:
        xs, ys = series_points(s)
        if absval or logy:
            ys = [abs(y) for y in ys]
        pts = [(x, y) for x, y in zip(xs, ys) if math.isfinite(x) and math.isfinite(y)]
        if logy:
            pts = [(x, math.log10(max(y, 1e-300))) for x, y in pts]
        data.append((s.get("label", s.get("y", "")), pts))
    allp = [p for _, pts in data for p in pts]
    if not allp:
        sys.exit("nothing to plot")
    x0, x1 = min(p[0] for p in allp), max(p[0] for p in allp)
    y0, y1 = min(p[1] for p in allp), max(p[1] for p in allp)
    if logy:
        y0, y1 = math.floor(max(y0, y1 - 16)), math.ceil(y1)
    if x1 == x0:
        x1 = x0 + 1
    if y1 == y0:
        y1 = y0 + 1
    sx = lambda x: L + (x - x0) / (x1 - x0) * (W - L - R)
    sy = lambda y: T + (y1 - min(max(y, y0), y1)) / (y1 - y0) * (H - T - B)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W/2}" y="20" text-anchor="middle" font-size="15">{title}</text>',
           f'<rect x="{L}" y="{T}" width="{W-L-R}" height="{H-T-B}" fill="none" stroke="black"/>']
    for i in range(6):
        xv = x0 + (x1 - x0) * i / 5
        out.append(f'<text x="{sx(xv):.1f}" y="{H-B+16}" text-anchor="middle">{xv:.4g}</text>')
    if logy:
        step = max(1, math.ceil((y1 - y0) / 8))
        yticks = [float(v) for v in range(int(y0), int(y1) + 1, step)]
    else:
        yticks = [y0 + (y1 - y0) * i / 5 for i in range(6)]
    for yv in yticks:
        lab = f"1e{int(yv)}" if logy else f"{yv:.3g}"
        out.append(f'<text x="{L-6}" y="{sy(yv)+4:.1f}" text-anchor="end">{lab}</text>')
        out.append(f'<line x1="{L}" x2="{W-R}" y1="{sy(yv):.1f}" y2="{sy(yv):.1f}" stroke="#ddd"/>')
    out.append(f'<text x="{W/2}" y="{H-10}" text-anchor="middle">{xlabel}</text>')
    out.append(f'<text x="16" y="{H/2}" text-anchor="middle" transform="rotate(-90 16 {H/2})">{ylabel}</text>')
    for i, (label, pts) in enumerate(data):
        c = colors[i % len(colors)]
        step = max(1, len(pts) // 4000)
        d = " ".join(f"{sx(x):.2f},{sy(y):.2f}" for x, y in pts[::step])
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="1.2" points="{d}"/>')
        out.append(f'<text x="{L+10}" y="{T+16+14*i}" fill="{c}">{label}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--title", default="")
    ap.add_argument("--xlabel", default="t (s)")
    ap.add_argument("--ylabel", default="")
    ap.add_argument("--series", action="append", required=True)
    ap.add_argument("--logy", action="store_true", help="log10 of |y|")
    ap.add_argument("--abs", action="store_true", help="plot |y|")
    a = ap.parse_args()
    svg(a.out, a.title, a.xlabel, a.ylabel, [parse_series(s) for s in a.series], a.logy, a.abs)


if __name__ == "__main__":
    main()
