#!/usr/bin/env bash
# Times `joinery modes --at steady --sweep` on the benchmark bicycle (docs/analyses.md,
# "Stability of steady motions"): a sweep of N speeds (default 100) from 0 to 10 m/s with the
# stability boundaries refined, wall and CPU time of the whole command, three runs.
# usage: bench/run_steady_sweep.sh [BUILD_DIR] [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
n=${2:-100}
exe=$build/apps/joinery
scene=$root/examples/validation/benchmark_bicycle.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "joinery modes --at steady --sweep v=0:10:$n on $(basename "$scene") ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
for run in 1 2 3; do
  /usr/bin/time -f "run $run: wall %e s, user %U s, system %S s, max RSS %M kB" \
    "$exe" modes "$scene" --at steady --sweep "v=0:10:$n" -o "$out/sweep.csv" > "$out/stdout.txt"
done
grep -E "boundaries|v = " "$out/stdout.txt"
