// Included into every test file (-include, tests/CMakeLists.txt): JOINERY_SOURCE_DIR and
// JOINERY_EXE call these. The paths themselves are compiled into test_paths.cpp only, so that
// no other test file's compile command holds a path of its checkout and ccache can reuse test
// objects between clones (CI builds a fresh clone).
#pragma once

/// The source folder (the checkout the tests were configured from).
const char* joinery_test_source_dir();
/// The joinery program of the build.
const char* joinery_test_exe();
/// A temporary folder of this test process alone (`joinery_tests_PID` in the system's
/// temporary folder, created on first use, removed at exit): test files written there cannot
/// collide with another test executable or another checkout's tests running at the same time.
const char* joinery_test_tmp_dir();
