#pragma once
// joinery modes --at steady (cmd_steady.cpp; docs/analyses.md, "Stability of steady motions").
#include <string>
#include <vector>

#include "cli.hpp"

namespace joinery::cli {

/// `--sweep NAME=a:b:n`: n values of a scene parameter from a to b.
struct Sweep {
  std::string name;
  double from = 0, to = 0;
  int count = 0;
  std::vector<double> values() const;
};
/// @throws UsageError for a malformed sweep (the text and what is expected named).
Sweep parseSweep(const std::string& text);

/// The steady-motion branch of `joinery modes`: the eigenvalues about the scene's initial
/// state taken as a steady motion, and with `--sweep NAME=a:b:n` over a parameter with the
/// stability boundaries refined by root-finding. Returns the exit status.
int runSteadyModes(const std::string& file, const Args& args);

}  // namespace joinery::cli
