#pragma once
// Exit status of `joinery simulate` for each way a run ends (the command-line table of
// docs/scene-format.md). The library reports a RunOutcome; the mapping belongs to the program.
#include "cli.hpp"
#include "joinery/study/exit_codes.hpp"

namespace joinery::cli {

static_assert(kOk == study::kExitOk && kInternal == study::kExitInternal && kInvalidInput == study::kExitInvalidInput &&
                  kIllPosed == study::kExitIllPosed && kInconsistent == study::kExitInconsistent &&
                  kRunFailed == study::kExitRunFailed,
              "the program's exit codes are the ones a study and the Python module report");

/// 0, 2, 3, 4, 5 as in the command-line table (study::exitCodeOf).
inline int exitCode(RunOutcome o) noexcept { return study::exitCodeOf(o); }

}  // namespace joinery::cli
