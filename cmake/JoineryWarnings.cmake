include_guard(GLOBAL)
# joinery_configure_target(<target>): warnings and sanitizers for our own code.
function(joinery_configure_target tgt)
  target_compile_options(${tgt} PRIVATE -Wall -Wextra -Wpedantic)
  # GCC 12 reports a false -Wrestrict inside libstdc++ for `"literal" + std::string`
  # (GCC bug 105329, fixed in GCC 13); silence only that warning, only there.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${tgt} PRIVATE -Wno-restrict)
    # GCC 12 also reports a false -Warray-bounds inside Eigen's aligned loads (_mm_load_pd on
    # a freshly aligned_malloc'ed block, seen in tests/nonideal); a warning there would fail
    # the JOINERY_WERROR builds of CI, so keep it a warning only.
    target_compile_options(${tgt} PRIVATE -Wno-error=array-bounds)
    # With the sanitizers (-O1 -fsanitize=address,undefined), GCC 12 reports a false
    # -Wmaybe-uninitialized inside libstdc++'s std::regex (std::function in _StateT): keep it a
    # warning in the sanitizer build only.
    if(JOINERY_SANITIZE)
      target_compile_options(${tgt} PRIVATE -Wno-error=maybe-uninitialized)
    endif()
  endif()
  # In a unity build GCC sees each combined .cpp as an included file and warns when a class
  # defined in one holds a type from an anonymous namespace (-Wsubobject-linkage, meant for
  # headers); the combined files are still one translation unit, so it is no fault there.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_UNITY_BUILD)
    target_compile_options(${tgt} PRIVATE -Wno-subobject-linkage)
  endif()
  if(JOINERY_WERROR)
    target_compile_options(${tgt} PRIVATE -Werror)
  endif()
endfunction()

if(JOINERY_SANITIZE AND NOT JOINERY_FUZZ)  # JOINERY_FUZZ below adds the same and coverage
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# JOINERY_FUZZ: libFuzzer targets in tests/fuzz (clang). Everything is compiled with the
# sanitizers, and all but the test files with coverage instrumentation (joinery_fuzz_no_coverage);
# the targets add libFuzzer.
# With JOINERY_SANITIZE as well (CI's one sanitizer build), the tests and programs are built
# in the same tree, and the library is compiled once for both.
set(JOINERY_FUZZ_EDGES inline-8bit-counters,pc-table)
if(JOINERY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "JOINERY_FUZZ needs clang (CXX=clang++)")
  endif()
  # libFuzzer's coverage: edge counters everywhere (an increment per edge; the tests built in
  # the same tree run at nearly their sanitizer speed), comparison tracing (a call per
  # comparison, 3-6x slower numerics) only in the parsers the fuzzers feed: joinery_fuzz_parsers
  add_compile_options(-fsanitize=address,undefined -fsanitize-coverage=${JOINERY_FUZZ_EDGES}
                      -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
# joinery_fuzz_parsers(<target>...): comparison tracing for libFuzzer in these targets (the JSON
# reader and the expression parser: CMP hints find keys, keywords and function names)
function(joinery_fuzz_parsers)
  if(JOINERY_FUZZ)
    foreach(tgt IN LISTS ARGN)
      target_compile_options(${tgt} PRIVATE -fsanitize-coverage=trace-cmp)
    endforeach()
  endif()
endfunction()
# joinery_fuzz_no_coverage(<target>...): no edge counters in these targets (the test files:
# the counters serve the library the fuzzers link, and cost a test file 10 % of its compile time)
function(joinery_fuzz_no_coverage)
  if(JOINERY_FUZZ)
    foreach(tgt IN LISTS ARGN)
      target_compile_options(${tgt} PRIVATE -fno-sanitize-coverage=${JOINERY_FUZZ_EDGES})
    endforeach()
  endif()
endfunction()
