#!/usr/bin/env bash
# Installs, with apt-get, the Debian packages joinery needs that are not installed yet.
# Idempotent: when everything is present it does nothing (and needs no network).
#   install-deps.sh          what the joinery program, its viewer and the Python module need
#                            to build and run (the README's first command, scripts/run-example.sh)
#   install-deps.sh --tests  that and everything the tests and benchmarks need: test framework,
#                            peer engines, browser, MPI, clang for the fuzzers (scripts/run-tests.sh)
# Every package below is installed by both, except those named in test_only further down.
set -euo pipefail
with_tests=0
case "${1:-}" in
  --tests) with_tests=1 ;;
  "") ;;
  *) echo "usage: install-deps.sh [--tests]" >&2; exit 2 ;;
esac

packages=(
  build-essential cmake          # compiler and build system
  ccache                         # compiler cache: rebuilds and clones reuse compiled objects (scripts/build.sh)
  libeigen3-dev                  # Eigen 3.4: dense and sparse linear algebra
  libboost-graph-dev             # Boost.Graph: the body-joint graph
  libspdlog-dev                  # logging
  nlohmann-json3-dev             # JSON scenes and output
  libginac-dev                   # symbolic expressions and exact derivatives
  catch2                         # tests (v2.13 on Debian)
  libbenchmark-dev               # bench/ (Google Benchmark)
  libmimalloc-dev                # the joinery programs' allocator (optional; faster scene loading)
  pkgconf                        # finds GiNaC
  graphviz                       # renders `joinery graph` output in tests
  libsimbody-dev                 # peer engine of tests/peers (random mechanisms, A06) and bench/peers
  libdart-dev                    # second peer of tests/peers for trees (random mechanisms; not in the sanitizer build)
  clang libclang-rt-14-dev       # libFuzzer targets (scripts/fuzz.sh)
  chromium                       # joinery view: test_viewer drives it headless (puppeteer-core)
  libopenmpi-dev openmpi-bin     # joinery-mpi: studies across machines
  libtinyxml2-dev                # joinery import: reads MJCF (MuJoCo XML) files (docs/import.md)
  liburdfdom-dev                 # joinery import: reads URDF files (urdfdom, the ROS parser)
  # tests and benchmarks of the importers only, never linked into the library or the program:
  libmujoco-dev libmujoco-samples  # MuJoCo 2.2.2 and its sample models (humanoid, humanoid100, tendon_arm)
  libdart-utils-urdf-dev         # DART 6.12's DartLoader reads the same URDFs (tests/peers/import)
  # the Python module (apps/python, docs/python.md), its tests and examples
  pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib
  libhdf5-dev                    # simulate -o RUN.h5 and joinery plot RUN.h5 (HDF5's C++ API; optional at build time)
  libcairo2-dev                  # joinery plot: one drawing code for its SVG and PNG surfaces (optional at build time)
)
# joinery view: node and npm bundle the web viewer at build time (apps/viewer/web). A node
# that is already on PATH with its npm (e.g. from NodeSource, which conflicts with Debian's
# npm package) is used as it is.
if ! { command -v node >/dev/null && command -v npm >/dev/null; }; then
  packages+=(nodejs npm)
fi

# Only the tests and benchmarks need these (about three quarters of the download: chromium,
# clang, Simbody, DART and Open MPI are the big ones); without --tests they are left out.
test_only=(
  catch2 libbenchmark-dev graphviz
  libsimbody-dev libdart-dev
  clang libclang-rt-14-dev
  chromium
  libopenmpi-dev openmpi-bin
  python3-pytest python3-matplotlib
  python3-h5py                   # the tests read `simulate -o RUN.h5` back with h5py
  libmujoco-dev libmujoco-samples libdart-utils-urdf-dev  # the importers' peers (tests/peers/import)
)
if [ "$with_tests" = 0 ]; then
  kept=()
  for p in "${packages[@]}"; do
    [[ " ${test_only[*]} " == *" $p "* ]] || kept+=("$p")
  done
  packages=("${kept[@]}")
else
  for p in "${test_only[@]}"; do
    [[ " ${packages[*]} " == *" $p "* ]] || packages+=("$p")
  done
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
