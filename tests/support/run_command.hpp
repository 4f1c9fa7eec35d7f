#pragma once
// Runs a shell command for tests, capturing stdout+stderr and the exit status.
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace joinery::test {
struct CommandResult {
  int exitCode = -1;
  std::string output;  ///< stdout and stderr, interleaved
};

inline CommandResult runCommand(const std::string& cmd) {
  CommandResult r;
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}
}  // namespace joinery::test

/// The joinery program of the build (test_paths.hpp), for the tests that run it.
inline const std::string kExe = joinery_test_exe();
