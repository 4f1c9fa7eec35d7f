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
  if(JOINERY_WERROR)
    target_compile_options(${tgt} PRIVATE -Werror)
  endif()
endfunction()

if(JOINERY_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# JOINERY_FUZZ: libFuzzer targets in tests/fuzz (clang). The library is compiled with
# coverage instrumentation (fuzzer-no-link) and the sanitizers; the targets add libFuzzer.
if(JOINERY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "JOINERY_FUZZ needs clang (CXX=clang++)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
