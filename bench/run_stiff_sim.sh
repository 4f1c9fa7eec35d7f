#!/usr/bin/env bash
# Work-precision sweeps of bench/stiff_sim (issue 18, docs/performance.md "Stiff models"):
# radau5 and dopri5 at several tolerances on the stiff chain (k = 1e4 ... 1e9), the FE
# cantilever with a pendulum (10 and 20 elements) and A05. One JSON line per run.
#   bench/run_stiff_sim.sh BUILD_DIR > bench/results/stiff_sim.jsonl
set -euo pipefail
B=${1:-build}/bench/stiff_sim
ROOT=$(cd "$(dirname "$0")/.." && pwd)
for k in 1e4 1e6 1e8 1e9; do
  "$B" --model chain --k "$k" --N 4 --T 1 --tols 1e-3,1e-4,1e-5,1e-6,1e-7,1e-8 --ref-tol 1e-11
done
for ne in 10 20; do
  "$B" --model beam --ne "$ne" --T 0.5 --tols 1e-3,1e-4,1e-5,1e-6,1e-7 --ref-tol 1e-10
done
"$B" --model a05 --scene "$ROOT/examples/validation/a05_flyball_governor.json" --T 3 \
  --tols 1e-3,1e-4,1e-5,1e-6,1e-7,1e-8 --ref-tol 1e-11
