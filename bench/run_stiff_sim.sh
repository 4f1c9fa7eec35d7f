#!/usr/bin/env bash
# Work-precision sweeps of bench/stiff_sim (docs/performance.md "Stiff models"):
# radau5 (force-linearization Newton matrix), radau5-fd (finite-difference Jacobian of q'')
# and dopri5 at several tolerances on the stiff chain (k = 1e4 ... 1e9), the FE cantilever
# with a pendulum (10, 20, 50 and 100 elements) and A05; then the stiff chain in Simbody with CPodes
# (BDF) against the same reference, when stiff_chain_simbody was built. One JSON line per run.
#   bench/run_stiff_sim.sh BUILD_DIR > bench/results/stiff_sim.jsonl
# SLOW_DOPRI5=0 leaves dopri5 out where it takes minutes (k >= 1e8, the beam): its evaluation
# counts are machine-independent and do not change with radau5's.
set -euo pipefail
BUILD=${1:-build}
B=$BUILD/bench/stiff_sim
ROOT=$(cd "$(dirname "$0")/.." && pwd)
INTEG=radau5,radau5-fd,dopri5
SLOW=$INTEG
[ "${SLOW_DOPRI5:-1}" = 0 ] && SLOW=radau5,radau5-fd
for k in 1e4 1e6 1e8 1e9; do
  I=$INTEG
  case $k in 1e8|1e9) I=$SLOW ;; esac
  "$B" --model chain --k "$k" --N 4 --T 1 --tols 1e-3,1e-4,1e-5,1e-6,1e-7,1e-8 --ref-tol 1e-11 --integrators "$I"
done
for ne in 10 20; do
  "$B" --model beam --ne "$ne" --T 0.5 --tols 1e-3,1e-4,1e-5,1e-6,1e-7 --ref-tol 1e-10 --integrators "$SLOW"
done
# ne = 50, 100: radau5 only over 0.5 s; dopri5 (hours here) over a short span at its
# stability-bound rate, scaled to 0.5 s by hand (docs/performance.md; checked at ne = 20)
for ne in 50 100; do
  "$B" --model beam --ne "$ne" --T 0.5 --tols 1e-4,1e-5,1e-7 --ref-tol 1e-10 --integrators radau5 --repeat 1
done
if [ "${SLOW_DOPRI5:-1}" != 0 ]; then
  "$B" --model beam --ne 20 --T 0.01 --tols 1e-3 --ref-tol 1e-10 --integrators dopri5 --repeat 1
  "$B" --model beam --ne 50 --T 0.01 --tols 1e-3 --ref-tol 1e-10 --integrators dopri5 --repeat 1
  "$B" --model beam --ne 100 --T 0.0002 --tols 1e-3 --ref-tol 1e-10 --integrators dopri5 --repeat 1
fi
"$B" --model a05 --scene "$ROOT/examples/validation/a05_flyball_governor.json" --T 3 \
  --tols 1e-3,1e-4,1e-5,1e-6,1e-7,1e-8 --ref-tol 1e-11 --integrators "$INTEG"
# Simbody CPodes on the stiff chain: the reference is joinery's radau5 at 1e-11 on the same scene
S=$BUILD/bench/stiff_chain_simbody
if [ -x "$S" ]; then
  TMP=$(mktemp -d)
  for k in 1e4 1e6 1e8 1e9; do
    "$B" --model chain --k "$k" --N 4 --T 1 --write-scene "$TMP/chain.json"
    "$BUILD/apps/joinery" simulate "$TMP/chain.json" -o "$TMP/ref.csv" \
      --set simulation.rtol=1e-11 --set simulation.atol=1e-11 > /dev/null 2>&1
    for acc in 1e-3 1e-4 1e-5 1e-6 1e-7 1e-8; do
      for rep in 1 2 3; do  # three runs: the summary takes the median CPU time
        "$S" --k "$k" --N 4 --T 1 --accuracy "$acc" --ref "$TMP/ref.csv" --integrator cpodes || true
      done
    done
  done
  rm -rf "$TMP"
fi
