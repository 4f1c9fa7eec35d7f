#pragma once
#include <string>
#include <vector>

namespace joinery::cli {
// Each subcommand: takes its arguments (after the subcommand name), returns the exit code.
int runSolve(const std::vector<std::string>& args);
}  // namespace joinery::cli
