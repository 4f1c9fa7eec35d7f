#!/bin/bash
# What two cores could do for one evaluation of a large chain (lead "two cores";
# bench/results/performance-rounds.md, "Large models and scene loading, fifth round"): the N-link chain split
# into two halves of N/2 links, each half evaluated on its own core at the same time, bounds a
# two-way parallel evaluation from below (no synchronisation, no separator). For each half size
# H, REPS times: chain_fd --N H alone, two chain_fd --N H at once (both wall times), and
# chain_fd --N 2H alone. Prints wall time per evaluation (fd_ns, ns) and the ratio of the slower
# concurrent half to the whole chain, then the medians.
#   bash run_two_halves.sh            halves 2048 8192 32768, 3 repetitions
# Environment: BUILD (default ../build), HALVES, REPS, MIN_S (default 1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
HALVES=${HALVES:-"2048 8192 32768"}
REPS=${REPS:-3}
MIN_S=${MIN_S:-1}
B="$BUILD/bench/chain_fd"
f() { sed 's/.*"fd_ns": \([0-9.e+-]*\).*/\1/'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for H in $HALVES; do
  ratios=()
  for _ in $(seq "$REPS"); do
    alone=$("$B" --N "$H" --min_s "$MIN_S" | f)
    "$B" --N "$H" --min_s "$MIN_S" | f > "$tmp/a" &
    "$B" --N "$H" --min_s "$MIN_S" | f > "$tmp/b"
    wait
    full=$("$B" --N $((2 * H)) --min_s "$MIN_S" | f)
    r=$(python3 -c "print(f'{max($(cat "$tmp/a"), $(cat "$tmp/b")) / $full:.3f}')")
    ratios+=("$r")
    echo "half $H: alone $alone, at once $(cat "$tmp/a") and $(cat "$tmp/b"), whole chain of $((2 * H)): $full; slower half / whole $r"
  done
  python3 -c "import statistics as s; r=[float(x) for x in '${ratios[*]}'.split()]; print(f'half $H: median slower-half / whole {s.median(r):.3f} (range {min(r):.3f}-{max(r):.3f})')"
done
