#!/bin/sh
# Whole simulations of the benchmark chain (T = 1 s) at equal accuracy, joinery against
# Simbody's own integrators: per N, a reference tip from each engine at tolerance /
# accuracy REF_TOL, then work-precision sweeps, one process at a time; writes
# results/chain_sim.jsonl and the Markdown tables results/chain_sim.md.
#   BUILD=../build-integ ./run_chain_sim.sh
# Environment: BUILD (build directory, default ../build), NS (chain sizes), SPIN (0: the
# benchmark case at rest), JOINERY_INTEGRATORS (chain_sim --integrator names swept, default
# "dopri5 rkm"; the reference is dopri5's), JOINERY_TOLS (their rtol = atol), SIMBODY_ACCS (setAccuracy),
# SIMBODY_INTEGRATORS (chain_sim_simbody --integrator names), REF_TOL, TIMEOUT (seconds per
# run: a run that exceeds it is recorded as outcome "timeout" and the tighter tolerances of
# the same engine and integrator at that N are skipped), OUT (path of the results without
# extension, default results/chain_sim: OUT.jsonl, OUT.md, OUT.err).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
NS=${NS:-"16 64 256 1024"}
SPIN=${SPIN:-0}
JOINERY_INTEGRATORS=${JOINERY_INTEGRATORS:-"dopri5 rkm"}
JOINERY_TOLS=${JOINERY_TOLS:-"1e-3 1e-4 1e-5 1e-6 1e-7 1e-8 1e-9 1e-10 1e-11"}
SIMBODY_ACCS=${SIMBODY_ACCS:-"1e-3 1e-4 1e-5 1e-6 1e-7 1e-8 1e-9 1e-10"}
SIMBODY_INTEGRATORS=${SIMBODY_INTEGRATORS:-"rkm rkf rk3 cpodes_adams cpodes"}
REF_TOL=${REF_TOL:-1e-12}
TIMEOUT=${TIMEOUT:-600}
J="$BUILD/bench/chain_sim"
S="$BUILD/bench/chain_sim_simbody"
mkdir -p "$here/results"
OUT=${OUT:-$here/results/chain_sim}
out="$OUT.jsonl"
: > "$out"

# run ENGINE INTEGRATOR TOL N LABEL -- command...: appends the JSON line, or a timeout /
# failure line; returns 1 when the run failed or timed out
run() {
  eng=$1 integ=$2 tol=$3 n=$4 label=$5
  shift 6
  t0=$(date +%s.%N)
  set +e
  line=$(timeout "$TIMEOUT" "$@" 2>>"$OUT.err")
  rc=$?
  set -e
  if [ "$rc" = 0 ]; then
    echo "$line" >> "$out"
    return 0
  fi
  outcome=failed
  [ "$rc" = 124 ] && outcome=timeout
  t1=$(date +%s.%N)
  if [ -n "$line" ] && [ "$rc" != 124 ]; then
    echo "$line" >> "$out"  # the program's own line (outcome "failed")
  else
    printf '{"engine": "%s", "label": "%s", "integrator": "%s", "tol": %s, "N": %s, "spin": %s, "wall_s": %s, "outcome": "%s"}\n' \
      "$eng" "$label" "$integ" "$tol" "$n" "$SPIN" "$(awk "BEGIN { print $t1 - $t0 }")" "$outcome" >> "$out"
  fi
  echo "run_chain_sim: $outcome (exit $rc): $*" >&2
  return 1
}

: > "$OUT.err"
for N in $NS; do
  # references: the tip of each engine at REF_TOL (joinery dopri5, Simbody RKM)
  jref=""; sref=""
  if run joinery dopri5 "$REF_TOL" "$N" ref -- "$J" --N "$N" --spin "$SPIN" --integrator dopri5 --tol "$REF_TOL" --label ref; then
    jref=$(tail -n 1 "$out" | python3 -c 'import json,sys; t=json.load(sys.stdin)["tip"]; print("%.17g,%.17g,%.17g" % tuple(t))')
  fi
  if [ -x "$S" ] && run simbody rkm "$REF_TOL" "$N" ref -- "$S" --N "$N" --spin "$SPIN" --integrator rkm --accuracy "$REF_TOL" --label ref; then
    sref=$(tail -n 1 "$out" | python3 -c 'import json,sys; t=json.load(sys.stdin)["tip"]; print("%.17g,%.17g,%.17g" % tuple(t))')
  fi
  # the sweeps measure against Simbody's reference (joinery's when Simbody's is missing);
  # summarize_chain_sim.py reports the distance between the two as the error floor
  ref=${sref:-$jref}
  refarg=""
  [ -n "$ref" ] && refarg="--ref $ref"
  for integ in $JOINERY_INTEGRATORS; do
    for tol in $JOINERY_TOLS; do
      # shellcheck disable=SC2086
      run joinery "$integ" "$tol" "$N" sweep -- "$J" --N "$N" --spin "$SPIN" --integrator "$integ" --tol "$tol" --label sweep $refarg || break
    done
  done
  if [ -x "$S" ]; then
    for integ in $SIMBODY_INTEGRATORS; do
      for acc in $SIMBODY_ACCS; do
        # shellcheck disable=SC2086
        run simbody "$integ" "$acc" "$N" sweep -- "$S" --N "$N" --spin "$SPIN" --integrator "$integ" --accuracy "$acc" --label sweep $refarg || break
      done
    done
  fi
done
python3 "$here/summarize_chain_sim.py" "$out" > "$OUT.md"
cat "$OUT.md"
