#!/usr/bin/env bash
# Configures and builds joinery into build/ (or $JOINERY_BUILD_DIR).
# Extra arguments are passed to the CMake configure step.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${JOINERY_BUILD_DIR:-$root/build}
jobs=${JOINERY_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${JOINERY_BUILD_TYPE:-Release} "$@" >/dev/null
cmake --build "$build" -j "$jobs"
