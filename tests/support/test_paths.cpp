#include "test_paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

const char* joinery_test_source_dir() { return JOINERY_SOURCE_DIR_PATH; }

const char* joinery_test_exe() {
#ifdef JOINERY_EXE_PATH
  return JOINERY_EXE_PATH;
#else
  return "";  // built without the joinery program: no test that runs it is built either
#endif
}

namespace {
std::string& tmpDir() {
  static std::string dir;
  return dir;
}
void removeTmpDir() {
  std::error_code ec;
  std::filesystem::remove_all(tmpDir(), ec);
}
}  // namespace

const char* joinery_test_tmp_dir() {
  std::string& dir = tmpDir();
  if (dir.empty()) {
    const auto d = std::filesystem::temp_directory_path() / ("joinery_tests_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    dir = d.string();
    std::atexit(removeTmpDir);
  }
  return dir.c_str();
}
