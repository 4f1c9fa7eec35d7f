#!/bin/sh
# Forward dynamics of the binary tree of rods and the planar N-four-bar, joinery against Simbody,
# side by side in one session (bench/results/performance-rounds.md, "The tree and the N-four-bar against
# Simbody"). For every size, REPS rounds of joinery then Simbody (separate processes, one at a
# time); the first round also writes every body's accelerations of both engines and checks them
# against each other (bench/compare_fd_acc.py: max relative difference <= ACC_TOL, or the script
# fails). Writes results/models_fd.jsonl and the Markdown tables (results/models_fd.md; medians
# over the rounds).
#   BUILD=../build ./run_models_fd.sh
# Environment: BUILD (default ../build), DEPTHS (tree depths; N = 2^d - 1 bodies), FOURBAR_NS,
# SIMBODY_FOURBAR_NS (Simbody's loop solve is dense in the 2N constraint rows: about 10 s per
# call at N = 1024, and N^3 beyond), FEW_CALLS_NS (four-bar sizes timed with at least 2 calls
# instead of 20, for both engines: at least MIN_S still holds), CRANK_ANGLE (the four-bar's
# start, rad; default 1: gravity turns the cranks, so that the angular accelerations are not all
# zero), REPS (default 3), MIN_S (default 0.3), ACC_TOL (default 1e-9), TIMEOUT (seconds per
# process, default 900; a run over it is recorded as timed out).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
DEPTHS=${DEPTHS:-"4 5 6 7 8 9 10 11 12 13 14"}
FOURBAR_NS=${FOURBAR_NS:-"4 16 64 256 1024 4096"}
SIMBODY_FOURBAR_NS=${SIMBODY_FOURBAR_NS:-"4 16 64 256 1024"}
FEW_CALLS_NS=${FEW_CALLS_NS:-"1024 4096"}
CRANK_ANGLE=${CRANK_ANGLE:-1}
REPS=${REPS:-3}
MIN_S=${MIN_S:-0.3}
ACC_TOL=${ACC_TOL:-1e-9}
TIMEOUT=${TIMEOUT:-900}
INERTIA="0.0001,0.08333333333333333,0.08333333333333333"  # the rods of bench/chain_model.hpp, about the centre
mkdir -p "$here/results"
out="$here/results/models_fd.jsonl"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$out"
# one timed process; on timeout a JSON line saying so
timed() {  # engine model N program args...
  engine=$1 model=$2 n=$3
  shift 3
  if ! timeout "$TIMEOUT" "$@" >> "$out"; then
    echo "{\"engine\": \"$engine\", \"model\": \"$model\", \"N\": $n, \"timeout_s\": $TIMEOUT}" >> "$out"
    return 1
  fi
}
pair() {  # model N simbody(0|1) args...
  model=$1 n=$2 withSimbody=$3
  shift 3
  r=1
  while [ "$r" -le "$REPS" ]; do
    acc=""
    [ "$r" = 1 ] && acc="--acc_out $tmp/joinery.acc"
    timed joinery "$model" "$n" "$BUILD/bench/chain_fd" --model "$model" "$@" --min_s "$MIN_S" $acc || true
    if [ "$withSimbody" = 1 ] && [ -x "$BUILD/bench/chain_fd_simbody" ]; then
      [ "$r" = 1 ] && acc="--acc_out $tmp/simbody.acc"
      if timed simbody "$model" "$n" "$BUILD/bench/chain_fd_simbody" --model "$model" "$@" --min_s "$MIN_S" $acc; then
        if [ "$r" = 1 ]; then
          python3 "$here/compare_fd_acc.py" "$model" "$n" "$tmp/joinery.acc" "$tmp/simbody.acc" --tol "$ACC_TOL" \
            --inertia "$INERTIA" >> "$out"
        fi
      else
        withSimbody=0  # Simbody timed out at this size: no more rounds of it
      fi
    fi
    r=$((r + 1))
  done
}
for d in $DEPTHS; do
  pair tree $(((1 << d) - 1)) 1 --depth "$d"
done
for N in $FOURBAR_NS; do
  s=0
  for S in $SIMBODY_FOURBAR_NS; do [ "$S" = "$N" ] && s=1; done
  calls=20
  for F in $FEW_CALLS_NS; do [ "$F" = "$N" ] && calls=2; done
  pair fourbar "$N" "$s" --N "$N" --crank_angle "$CRANK_ANGLE" --min_calls "$calls"
done
python3 "$here/summarize_models_fd.py" "$out" > "$here/results/models_fd.md"
cat "$here/results/models_fd.md"
