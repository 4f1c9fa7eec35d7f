#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, run the main job on a bundled example.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build=${JOINERY_BUILD_DIR:-$root/build}
example=${1:-$root/examples/problems/wheel_on_incline.json}
echo "== joinery solve $example"
"$build/apps/joinery" solve "$example"
