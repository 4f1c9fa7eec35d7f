#!/usr/bin/env bash
# What an event costs (docs/performance.md "Contacts"): bench/contact_chain on the swinging
# 100-rod chain (its contacts against the same chain without them, side by side in one
# process) and on the 1000-rod chain falling flat (1001 contacts closing at once), REPEAT
# times each, one JSON line per case and run.
#   bench/run_contact_chain.sh BUILD_DIR > bench/results/contact_chain.jsonl
set -euo pipefail
BUILD=${1:-build}
B=$BUILD/bench/contact_chain
REPEAT=${REPEAT:-3}
for r in $(seq "$REPEAT"); do
  "$B" --N 100 --case swing --T "${T_SWING:-2}" --tol 1e-8
  "$B" --N 1000 --case lying --T 0.04 --tol 1e-8
done
