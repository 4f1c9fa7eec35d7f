#!/bin/sh
# Runs the chain forward-dynamics programs of joinery (structured and dense paths), Simbody and
# DART one after another in one session, and writes results/chain_fd.jsonl and the Markdown
# tables of docs/performance.md (results/chain_fd.md).
#   BUILD=../build-integ ./run_chain_fd.sh
# Environment: BUILD (build directory, default ../build), NS (joinery and Simbody sizes),
# DENSE_NS, DART_NS (DART's model construction grows like N^3.3, see the peers README), MIN_S,
# REPS (rounds of joinery and Simbody, run in turn; the tables give the medians; DART and the
# dense paths run in the first round only).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
NS=${NS:-"4 16 64 256 1024 4096 16384 65536"}
DENSE_NS=${DENSE_NS:-"4 16 64"}
DART_NS=${DART_NS:-"4 16 64 256 1024"}
MIN_S=${MIN_S:-0.3}
REPS=${REPS:-1}
mkdir -p "$here/results"
out="$here/results/chain_fd.jsonl"
: > "$out"
rep=1
while [ "$rep" -le "$REPS" ]; do
for N in $NS; do
  "$BUILD/bench/chain_fd" --N "$N" --path structured --min_s "$MIN_S" >> "$out"
  if [ -x "$BUILD/bench/chain_fd_simbody" ]; then
    "$BUILD/bench/chain_fd_simbody" --N "$N" --min_s "$MIN_S" >> "$out"
  fi
  [ "$rep" = 1 ] || continue
  for D in $DART_NS; do
    if [ "$D" = "$N" ] && [ -x "$BUILD/bench/chain_fd_dart" ]; then
      "$BUILD/bench/chain_fd_dart" --N "$N" --min_s "$MIN_S" >> "$out"
    fi
  done
  for D in $DENSE_NS; do
    if [ "$D" = "$N" ]; then
      "$BUILD/bench/chain_fd" --N "$N" --path dense --min_s "$MIN_S" >> "$out"
      "$BUILD/bench/chain_fd" --N "$N" --path densemetric --min_s "$MIN_S" >> "$out"
    fi
  done
done
rep=$((rep + 1))
done
for N in ${FOURBAR_NS:-10 100 1000 10000}; do
  "$BUILD/bench/chain_fd" --model fourbar --N "$N" --path structured --min_s "$MIN_S" >> "$out"
done
python3 "$here/summarize_chain_fd.py" "$out" > "$here/results/chain_fd.md"
cat "$here/results/chain_fd.md"
