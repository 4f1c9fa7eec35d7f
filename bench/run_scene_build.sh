#!/bin/sh
# Model construction from a scene file (bench/results/performance-rounds.md, "Model construction
# from a scene"): writes the benchmark chain's scene for each N, then loads it with
# bench/scene_build, one process per load (peak RSS of that load alone), REPS times. With OLD
# (the scene_build program of an earlier build) both programs load the same files, turn about,
# in the same session. When bench/scene_build_cli is built (the same program linked as `joinery`
# is, with mimalloc), it loads the same files too, after each scene_build run.
# Writes results/scene_build.jsonl and prints the medians (Markdown).
#   OLD=/tmp/scene_build_before ./run_scene_build.sh
# Environment: BUILD (build directory, default ../build), OLD, NS, REPS (default 3), DIR
# (where the scene files go, default a temporary folder, removed at the end).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
NS=${NS:-"1024 4096 16384 65536"}
REPS=${REPS:-3}
OLD=${OLD:-}
NEW="$BUILD/bench/scene_build"
CLI="$BUILD/bench/scene_build_cli"  # linked as the joinery program is (mimalloc), when built
cleanup=
if [ -z "${DIR:-}" ]; then
  DIR=$(mktemp -d)
  cleanup=1
fi
mkdir -p "$here/results"
out="$here/results/scene_build.jsonl"
: > "$out"
for N in $NS; do
  file="$DIR/chain$N.json"
  [ -f "$file" ] || "$NEW" --write "$file" --N "$N"
  r=0
  while [ "$r" -lt "$REPS" ]; do
    if [ -n "$OLD" ]; then
      printf '{"build": "before", "N": %s, ' "$N" >> "$out"
      "$OLD" "$file" | sed 's/^{//' >> "$out"
    fi
    printf '{"build": "after", "N": %s, ' "$N" >> "$out"
    "$NEW" "$file" | sed 's/^{//' >> "$out"
    if [ -x "$CLI" ]; then
      printf '{"build": "cli", "N": %s, ' "$N" >> "$out"
      "$CLI" "$file" | sed 's/^{//' >> "$out"
    fi
    r=$((r + 1))
  done
done
[ -n "$cleanup" ] && rm -rf "$DIR"
python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def med(build, n, key):
    v = [r[key] for r in rows if r["build"] == build and r["N"] == n]
    return statistics.median(v) if v else None
ns = sorted({r["N"] for r in rows})
old = any(r["build"] == "before" for r in rows)
cli = any(r["build"] == "cli" for r in rows)
print("| N | file MB | " + ("before: wall / CPU s, peak MB | " if old else "") +
      "after: wall / CPU s, peak MB | after: parse / load / free s" + (" | ratio wall / CPU / peak" if old else "") +
      (" | as the joinery program (mimalloc): wall / CPU s, peak MB | its parse / load / free s" if cli else "") + " |")
print("| --- " * (4 + (2 if old else 0) + (2 if cli else 0)) + "|")
for n in ns:
    mb = next(r["bytes"] for r in rows if r["N"] == n) / 1e6
    cells = [str(n), f"{mb:.1f}"]
    a = [med("after", n, k) for k in ("wall_s", "cpu_s", "peak_rss_mb")]
    if old:
        b = [med("before", n, k) for k in ("wall_s", "cpu_s", "peak_rss_mb")]
        cells.append(f"{b[0]:.3f} / {b[1]:.3f}, {b[2]:.0f}")
    cells.append(f"{a[0]:.3f} / {a[1]:.3f}, {a[2]:.0f}")
    cells.append(" / ".join(f"{med('after', n, k):.3f}" for k in ("parse_s", "load_s", "free_s")))
    if old:
        cells.append(" / ".join(f"{x / y:.2f}" for x, y in zip(a, b)))
    if cli:
        c = [med("cli", n, k) for k in ("wall_s", "cpu_s", "peak_rss_mb")]
        cells.append(f"{c[0]:.3f} / {c[1]:.3f}, {c[2]:.0f}")
        cells.append(" / ".join(f"{med('cli', n, k):.3f}" for k in ("parse_s", "load_s", "free_s")))
    print("| " + " | ".join(cells) + " |")
PY
