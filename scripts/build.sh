#!/usr/bin/env bash
# Configures and builds joinery into build/ (or $JOINERY_BUILD_DIR).
# Extra arguments are passed to the CMake configure step.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${JOINERY_BUILD_DIR:-$root/build}
jobs=${JOINERY_JOBS:-$(nproc)}
# warnings are errors in every scripted and CI build (JOINERY_WERROR=OFF after it to override)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${JOINERY_BUILD_TYPE:-Release} -DJOINERY_WERROR=ON "$@" >/dev/null
cmake --build "$build" -j "$jobs"
