#pragma once
// joinery modes --at steady (cmd_steady.cpp; docs/analyses.md, "Stability of steady motions").
#include <string>

#include "cli.hpp"

namespace joinery::cli {

/// The steady-motion branch of `joinery modes`: the eigenvalues about the scene's initial
/// state taken as a steady motion, and with `--sweep NAME=a:b:n` over a parameter with the
/// stability boundaries refined by root-finding. Returns the exit status.
int runSteadyModes(const std::string& file, const Args& args);

}  // namespace joinery::cli
