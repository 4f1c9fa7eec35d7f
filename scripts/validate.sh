#!/usr/bin/env bash
# Runs the whole validation set (examples/validation/cases.json: the IFToMM benchmark
# problems A01-A04 and cross-model checks), prints the table of errors, writes it as
# Markdown to out/validation/table.md and renders the plots of docs/validation.md to
# docs/img/ (SVG, with python3 if the machine has it).
#   bash scripts/validate.sh            # everything (about a minute on 2 cores)
#   bash scripts/validate.sh --quick    # shortened runs, as the test suite does
# Builds first if the joinery program is missing. Exit status: 0 all passed, 6 a check failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${JOINERY_BUILD_DIR:-$root/build}
exe="$build/apps/joinery"
if [ ! -x "$exe" ]; then bash "$root/scripts/build.sh"; fi
out="$root/out/validation"
mkdir -p "$out"
status=0
"$exe" validate "$root/examples/validation/cases.json" -o "$out/table.md" "$@" || status=$?
echo "table written to $out/table.md"
if [ "${1:-}" = "--quick" ]; then exit $status; fi
if ! command -v python3 >/dev/null; then
  echo "python3 not found: plots skipped (apt-get install python3 to render them)"
  exit $status
fi
v="$root/examples/validation"
img="$root/docs/img"
mkdir -p "$img"
"$exe" simulate "$v/a01_pendulum.json" -o "$out/a01.csv" >/dev/null
"$exe" simulate "$v/a02_n_four_bar_40.json" -o "$out/a02_40.csv" >/dev/null
"$exe" simulate "$v/a04_bricard.json" -o "$out/a04.csv" >/dev/null
plot="python3 $root/scripts/plot_svg.py"
$plot "$img/a01_error.svg" --logy --title "A01 pendulum: distance to the exact solution" \
  --ylabel "|position error| (m)" --series "label=dopri5 rtol 1e-12:csv=$out/a01.csv:a01-error"
$plot "$img/a02_energy.svg" --title "A02 N-four-bar, N = 40: energy drift through the singular positions" \
  --ylabel "E - E0 (J)" --series "label=E - E0:csv=$out/a02_40.csv:y=energy:minus-first"
$plot "$img/a04_energy.svg" --title "A04 Bricard mechanism: energy drift and constraint residual" \
  --logy --ylabel "|value|" --series "label=|E - E0| (J):csv=$out/a04.csv:y=energy:minus-first" \
  --series "label=position residual (m):csv=$out/a04.csv:y=position_residual"
echo "plots written to $img"
exit $status
