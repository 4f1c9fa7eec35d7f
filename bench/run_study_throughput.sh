#!/usr/bin/env bash
# Study throughput (docs/performance.md "Studies"): cases per second of the
# benchmark study with joinery study -j 1, -j 2 and joinery-mpi under mpirun -n 2 and -n 3,
# then the per-case overhead against the simulation time (bench/study_overhead).
#   bench/run_study_throughput.sh [BUILD_DIR]   (a Release build with -DJOINERY_BUILD_BENCH=ON)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
study=$root/bench/study/slider_crank_10ms.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
rate() {  # label, command...: best of 3 wall times -> cases/s
  local label=$1; shift
  local best=1e9
  for _ in 1 2 3; do
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
    best=$(echo "$t1 - $t0" | bc -l | awk -v b="$best" '{print ($1 < b) ? $1 : b}')
  done
  local n
  n=$(($(wc -l < "$out/t.csv") - 1))
  printf '%-28s %4d cases  %7.3f s  %7.1f cases/s\n' "$label" "$n" "$best" "$(echo "$n / $best" | bc -l)"
}
rate "joinery study -j 1" "$build/apps/joinery" study "$study" -o "$out/t.csv" -j 1
rate "joinery study -j 2" "$build/apps/joinery" study "$study" -o "$out/t.csv" -j 2
if [ -x "$build/apps/joinery-mpi" ]; then
  mpi="mpirun --oversubscribe"; [ "$(id -u)" -eq 0 ] && mpi="$mpi --allow-run-as-root"
  rate "mpirun -n 2 joinery-mpi" $mpi -n 2 "$build/apps/joinery-mpi" study "$study" -o "$out/t.csv"
  rate "mpirun -n 3 joinery-mpi" $mpi -n 3 "$build/apps/joinery-mpi" study "$study" -o "$out/t.csv"
fi
"$build/bench/study_overhead" "$study" --jobs 1 --repeat 3
