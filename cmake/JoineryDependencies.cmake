# Finds every third-party dependency and fails early, naming the Debian package
# that provides a missing one.  scripts/install-deps.sh installs them all.
include_guard(GLOBAL)

macro(joinery_require pkg debian)
  find_package(${pkg} ${ARGN} QUIET)
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR
      "joinery: dependency '${pkg}' not found. Install the Debian package '${debian}' "
      "(or run: bash scripts/install-deps.sh).")
  endif()
endmacro()

joinery_require(Eigen3 libeigen3-dev 3.4 NO_MODULE)
joinery_require(Boost libboost-graph-dev 1.74)
if(NOT EXISTS "${Boost_INCLUDE_DIRS}/boost/graph/adjacency_list.hpp")
  message(FATAL_ERROR "joinery: Boost.Graph headers not found. Install the Debian package 'libboost-graph-dev'.")
endif()
joinery_require(spdlog libspdlog-dev)
joinery_require(nlohmann_json nlohmann-json3-dev 3.10)
if(JOINERY_BUILD_TESTS)
  joinery_require(Catch2 catch2 2.13)
endif()
if(JOINERY_BUILD_BENCH)
  joinery_require(benchmark libbenchmark-dev)
endif()

# GiNaC (symbolic expressions, exact derivatives) through pkg-config.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(GINAC QUIET IMPORTED_TARGET ginac)
endif()
if(NOT GINAC_FOUND)
  message(FATAL_ERROR "joinery: dependency 'ginac' not found. Install the Debian package 'libginac-dev' "
                      "(and 'pkgconf') or run: bash scripts/install-deps.sh")
endif()
