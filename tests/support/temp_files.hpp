// Files a test writes and reads back, in the process's own temporary folder
// (joinery_test_tmp_dir(), test_paths.hpp). Shared so that the test files of one executable,
// compiled in one unity batch, do not each define their own.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace joinery::test {

/// The folder `name` in the test process's temporary folder, created with its parents.
inline std::filesystem::path tempFolder(const std::string& name) {
  const std::filesystem::path d = std::filesystem::path(joinery_test_tmp_dir()) / name;
  std::filesystem::create_directories(d);
  return d;
}

/// Writes `text` to `path` byte for byte (binary: no newline translation); returns the path.
inline std::string writeText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

/// The whole content of `path` (empty when it cannot be read).
inline std::string readText(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace joinery::test
