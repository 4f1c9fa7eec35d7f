#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, run the main job, then every test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/run-example.sh"
build=${JOINERY_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j "${JOINERY_JOBS:-$(nproc)}"
