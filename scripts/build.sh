#!/usr/bin/env bash
# Configures and builds joinery into build/ (or $JOINERY_BUILD_DIR).
# Extra arguments are passed to the CMake configure step.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${JOINERY_BUILD_DIR:-$root/build}
jobs=${JOINERY_JOBS:-$(nproc)}
# ccache, when installed (install-deps.sh installs it), with paths inside the checkout made
# relative: a clone elsewhere reuses what another checkout compiled (JOINERY_CCACHE=0: off)
launcher=()
if [ "${JOINERY_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$root"
fi
# JOINERY_UNITY=1: a unity build (CMake combines a target's files in batches), as CI's release
# pass does to fit its time when nothing is in ccache; the default build compiles file by file
unity=(-DCMAKE_UNITY_BUILD=OFF)
if [ "${JOINERY_UNITY:-0}" = 1 ]; then
  unity=(-DCMAKE_UNITY_BUILD=ON)
fi
# JOINERY_BENCH=0: without the benchmark programs of bench/ (CI's release pass: they are not
# tests, and with nothing in ccache they cost 1.6 of its minutes; docs/testing.md)
bench=()
if [ "${JOINERY_BENCH:-1}" = 0 ]; then
  bench=(-DJOINERY_BUILD_BENCH=OFF)
fi
# warnings are errors in every scripted and CI build (JOINERY_WERROR=OFF after it to override)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${JOINERY_BUILD_TYPE:-Release} -DJOINERY_WERROR=ON "${launcher[@]}" "${unity[@]}" "${bench[@]}" "$@" >/dev/null
# JOINERY_TARGETS="a b": only these targets (and what they need), not everything
targets=()
for t in ${JOINERY_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$jobs" "${targets[@]}"
