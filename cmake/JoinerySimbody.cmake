# Simbody, the optional peer engine of the benchmarks (bench/peers) and of the differential
# tests (tests/peers): found when Debian's libsimbody-dev is installed, never required.
find_package(Simbody QUIET)
# joinery_use_simbody(target): compiles and links `target` against Simbody. Debian's Simbody is
# built without NDEBUG; its headers change layout with it. Its headers are C++17 (C++20's
# reversed operator== makes some comparisons ambiguous).
function(joinery_use_simbody target)
  target_include_directories(${target} SYSTEM PRIVATE ${Simbody_INCLUDE_DIR})
  target_link_libraries(${target} PRIVATE ${Simbody_LIBRARIES})
  target_compile_options(${target} PRIVATE -UNDEBUG -O2)
  set_target_properties(${target} PROPERTIES CXX_STANDARD 17)
endfunction()
