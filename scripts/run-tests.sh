#!/usr/bin/env bash
# Quick start, command 2: installs the rest (test framework, peer engines, browser, MPI,
# clang: scripts/install-deps.sh --tests), builds everything (tests, benchmarks, joinery-mpi),
# runs the main job on a bundled scene, then every test (ctest). CI calls this (.ci/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh" --tests
build=${JOINERY_BUILD_DIR:-$root/build}
# the same unity setting as scripts/run-example.sh, so that the second command reuses what
# the first one compiled (JOINERY_UNITY=0: file by file)
export JOINERY_UNITY=${JOINERY_UNITY:-1}
bench=ON
if [ "${JOINERY_BENCH:-1}" = 0 ]; then bench=OFF; fi
bash "$root/scripts/build.sh" -DJOINERY_BUILD_TESTS=ON -DJOINERY_BUILD_BENCH=$bench
JOINERY_EXAMPLE_BUILT=1 bash "$root/scripts/run-example.sh"
cd "$build"
ctest --output-on-failure -j "${JOINERY_JOBS:-$(nproc)}"
