#pragma once
// Starts the joinery program as a child the test can signal, and the long pendulum run it
// signals (tests/hostile).
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

namespace joinery::test {

/// Forks `args` with stdout and stderr to `log`. `fileSizeLimit` > 0 caps the size of any file
/// the child writes (RLIMIT_FSIZE); `ignoreFileSizeSignal` makes the child ignore SIGXFSZ
/// before the exec (as a careful caller would), false leaves it at its default, so that the
/// program has to ignore it itself.
inline pid_t spawn(const std::vector<std::string>& args, const std::string& log, rlim_t fileSizeLimit = 0,
                   bool ignoreFileSizeSignal = true) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (std::FILE* f = std::freopen(log.c_str(), "w", stderr)) (void)f;
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ::signal(SIGXFSZ, ignoreFileSizeSignal ? SIG_IGN : SIG_DFL);
    if (fileSizeLimit > 0) {
      const rlimit lim{fileSizeLimit, fileSizeLimit};
      ::setrlimit(RLIMIT_FSIZE, &lim);
    }
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

/// A pendulum (the bundled example's model) that runs for `tEnd` seconds of model time, tightly
/// integrated (dopri5, rtol 1e-10): long runs with many samples, for signals and full disks.
inline std::string pendulumScene(double tEnd, double interval) {
  return R"({"joinery": 1, "gravity": [0, -9.81, 0],
    "bodies": [{"name": "bob", "type": "particle", "dim": 2, "mass": 1, "position": [-1, 0]}],
    "joints": [{"name": "rod", "type": "distance", "body1": "ground", "point1": [0, 0],
                "body2": "bob", "point2": [0, 0], "length": 1}],
    "simulation": {"t_end": )" + std::to_string(tEnd) + R"(, "integrator": "dopri5", "rtol": 1e-10,
                   "atol": 1e-12, "output_interval": )" + std::to_string(interval) + "}}";
}

}  // namespace joinery::test
