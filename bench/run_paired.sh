#!/bin/bash
# joinery against Simbody in back-to-back pairs, for a machine whose speed drifts within
# minutes (bench/results/performance-rounds.md, "One evaluation and whole simulations, fourth round"): each
# pair runs the two programs one right after the other, and the ratio of a pair is taken before
# any median, so a slow minute slows both sides of it.
#   bash run_paired.sh fd 1024 7                 one evaluation of the N-link chain, 7 pairs
#   bash run_paired.sh sim 1024 7 2e-4 3e-4      whole simulations: joinery rkm at tol 2e-4
#                                                against Simbody RKM at accuracy 3e-4
# Prints the medians of CPU time (chain_fd's fd_cpu_ns, chain_sim's cpu_s) and of the pairs'
# ratios with their range. Environment: BUILD (default ../build), MIN_S (chain_fd, default 0.3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
MIN_S=${MIN_S:-0.3}
kind=${1:?fd or sim}; N=${2:?N}; R=${3:-7}
field() { sed "s/.*\"$1\": \([0-9.e+-]*\).*/\1/"; }
js=(); ss=()
for _ in $(seq "$R"); do
  if [ "$kind" = fd ]; then
    js+=("$("$BUILD/bench/chain_fd" --N "$N" --min_s "$MIN_S" | field fd_cpu_ns)")
    ss+=("$("$BUILD/bench/chain_fd_simbody" --N "$N" --min_s "$MIN_S" | field fd_cpu_ns)")
  else
    js+=("$("$BUILD/bench/chain_sim" --N "$N" --integrator rkm --tol "${4:?joinery tol}" | field cpu_s)")
    ss+=("$("$BUILD/bench/chain_sim_simbody" --N "$N" --integrator rkm --accuracy "${5:?Simbody accuracy}" 2>/dev/null | field cpu_s)")
  fi
done
python3 - "$kind" "$N" "${js[*]}" "${ss[*]}" <<'PY'
import statistics as st, sys
kind, n = sys.argv[1], sys.argv[2]
j = [float(x) for x in sys.argv[3].split()]
s = [float(x) for x in sys.argv[4].split()]
r = [a / b for a, b in zip(j, s)]
unit, scale = ("us", 1e-3) if kind == "fd" else ("s", 1.0)
print(f"{kind} N={n} pairs={len(r)}: joinery median {st.median(j) * scale:.4g} {unit}, "
      f"Simbody median {st.median(s) * scale:.4g} {unit}, joinery/Simbody median of pairs "
      f"{st.median(r):.3f} (range {min(r):.3f}-{max(r):.3f})")
PY
