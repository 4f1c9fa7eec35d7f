#pragma once
/// @file exit_codes.hpp
/// The exit status of a run, as `joinery simulate` documents it (docs/scene-format.md, the
/// command-line table): what a study writes in its table's `exit` column and what the Python
/// module reports as `exit_code`. The program (apps/joinery) uses the same numbers.
#include "joinery/integrators/simulation.hpp"

namespace joinery::study {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;      ///< a bug: an unexpected exception
inline constexpr int kExitInvalidInput = 2;  ///< bad file, bad option, invalid initial conditions
inline constexpr int kExitIllPosed = 3;
inline constexpr int kExitInconsistent = 4;
inline constexpr int kExitRunFailed = 5;

/// 0, 2, 3, 4, 5 for the ways a run ends.
inline int exitCodeOf(RunOutcome o) noexcept {
  switch (o) {
    case RunOutcome::Completed: return kExitOk;
    case RunOutcome::InvalidInitialConditions: return kExitInvalidInput;
    case RunOutcome::IllPosed: return kExitIllPosed;
    case RunOutcome::Inconsistent: return kExitInconsistent;
    case RunOutcome::Failed: return kExitRunFailed;
    case RunOutcome::Stopped: return kExitOk;  // a recorder asked to stop (not used by the CLI)
  }
  return kExitRunFailed;
}

}  // namespace joinery::study
