#pragma once
// Exit status of `joinery simulate` for each way a run ends (the command-line table of
// docs/scene-format.md). The library reports a RunOutcome; the mapping belongs to the program.
#include "cli.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery::cli {

/// 0, 2, 3, 4, 5 as in the command-line table.
inline int exitCode(RunOutcome o) noexcept {
  switch (o) {
    case RunOutcome::Completed: return kOk;
    case RunOutcome::InvalidInitialConditions: return kInvalidInput;
    case RunOutcome::IllPosed: return kIllPosed;
    case RunOutcome::Inconsistent: return kInconsistent;
    case RunOutcome::Failed: return kRunFailed;
    case RunOutcome::Stopped: return kOk;  // a recorder asked to stop (not used by the CLI)
  }
  return kRunFailed;
}

}  // namespace joinery::cli
