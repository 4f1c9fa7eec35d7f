// The exit status of `joinery simulate` for each way a run ends (moved here from the
// integrators' tests with the mapping, which belongs to the program: apps/joinery/exit_status.hpp).
#include <catch2/catch.hpp>

#include "exit_status.hpp"

namespace joinery::cli {
namespace {

TEST_CASE("Exit codes follow the command-line table", "[integrators][settings]") {
  CHECK(exitCode(RunOutcome::Completed) == 0);
  CHECK(exitCode(RunOutcome::InvalidInitialConditions) == 2);
  CHECK(exitCode(RunOutcome::IllPosed) == 3);
  CHECK(exitCode(RunOutcome::Inconsistent) == 4);
  CHECK(exitCode(RunOutcome::Failed) == 5);
  CHECK(exitCode(RunOutcome::Stopped) == 0);
}

}  // namespace
}  // namespace joinery::cli
