#!/usr/bin/env bash
# Installs the built joinery into a temporary prefix and builds examples/consumer against the
# installed package (find_package(joinery)), then runs it: the package export works for a user.
#   JOINERY_BUILD_DIR=build bash scripts/check-consumer.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${JOINERY_BUILD_DIR:-$root/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$root/examples/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/consumer" -j "${JOINERY_JOBS:-$(nproc)}" >/dev/null
"$tmp/consumer/consumer"
echo "examples/consumer builds and runs against the installed package"
