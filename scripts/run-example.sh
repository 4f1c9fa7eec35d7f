#!/usr/bin/env bash
# Quick start, command 1: the main job only. Installs what the program, its viewer and the
# Python module need (scripts/install-deps.sh, without the test packages), builds the joinery
# program and the Python module (no tests, no benchmarks: scripts/run-tests.sh builds those),
# then checks a bundled scene and simulates it to CSV (out/pendulum.csv).
# The figures, cold and warm, are in docs/testing.md ("The first command").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
build=${JOINERY_BUILD_DIR:-$root/build}
# JOINERY_EXAMPLE_BUILT=1 (scripts/run-tests.sh): the build is there, only run the example
if [ "${JOINERY_EXAMPLE_BUILT:-0}" != 1 ]; then
bash "$root/scripts/install-deps.sh"
# the library and the program in unity batches (JOINERY_UNITY=0: file by file): on a fresh
# machine nothing is in the compiler cache, and the batches roughly halve that cold build
export JOINERY_UNITY=${JOINERY_UNITY:-1}
JOINERY_TARGETS=joinery bash "$root/scripts/build.sh" -DJOINERY_BUILD_TESTS=OFF -DJOINERY_BUILD_BENCH=OFF
# the Python module, when its dependencies were found (apps/python/CMakeLists.txt)
if cmake --build "$build" --target help | grep -q joinery_python; then
  cmake --build "$build" -j "${JOINERY_JOBS:-$(nproc)}" --target joinery_python
fi
fi
scene=${1:-$root/examples/scenes/pendulum.json}
mkdir -p "$root/out"
out="$root/out/$(basename "${scene%.json}").csv"
echo "== joinery check $scene"
"$build/apps/joinery" check "$scene"
echo "== joinery simulate $scene -o $out"
"$build/apps/joinery" simulate "$scene" -o "$out"
echo "== done in $(( $(date +%s) - start )) s: $build/apps/joinery (--help), the Python module in $build/python"
