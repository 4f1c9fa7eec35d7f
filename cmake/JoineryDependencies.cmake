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

# mimalloc (optional): the joinery programs (not the library, not the Python module) link it
# as their allocator; loading a large scene allocates millions of small JSON nodes, and the
# 65536-link chain loads in about 0.7 of glibc malloc's time with it, 0.63 on the large OS
# pages the programs ask for (apps/joinery/program_allocator.hpp; bench/results/performance-rounds.md, "Large
# models and scene loading, fifth round"). Not with the sanitizers (ASan brings its own
# malloc) or the fuzz build. A program links it through joinery_use_program_allocator().
option(JOINERY_MIMALLOC "Link the joinery programs with mimalloc when found (Debian: libmimalloc-dev)" ON)
set(JOINERY_HAVE_MIMALLOC OFF)
if(JOINERY_MIMALLOC AND NOT JOINERY_SANITIZE AND NOT JOINERY_FUZZ)
  find_package(mimalloc CONFIG QUIET)
  if(TARGET mimalloc)
    set(JOINERY_HAVE_MIMALLOC ON)
    message(STATUS "joinery: the programs link mimalloc ${mimalloc_VERSION}")
  else()
    message(STATUS "joinery: mimalloc not found: the programs use the system malloc (Debian: libmimalloc-dev)")
  endif()
endif()
function(joinery_use_program_allocator tgt)
  if(JOINERY_HAVE_MIMALLOC)
    # the shared library, first on the link line: its malloc/free/new/delete serve the whole
    # process (symbol interposition); JOINERY_WITH_MIMALLOC lets the program report it
    target_link_libraries(${tgt} PRIVATE mimalloc)
    target_compile_definitions(${tgt} PRIVATE JOINERY_WITH_MIMALLOC=1)
  endif()
endfunction()
