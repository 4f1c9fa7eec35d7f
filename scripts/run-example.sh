#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run the main job on a bundled
# example: check a scene, then simulate it to CSV (out/pendulum.csv).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build=${JOINERY_BUILD_DIR:-$root/build}
scene=${1:-$root/examples/scenes/pendulum.json}
mkdir -p "$root/out"
out="$root/out/$(basename "${scene%.json}").csv"
echo "== joinery check $scene"
"$build/apps/joinery" check "$scene"
echo "== joinery simulate $scene -o $out"
"$build/apps/joinery" simulate "$scene" -o "$out"
