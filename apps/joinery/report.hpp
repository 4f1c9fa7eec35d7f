#pragma once
// Scene loading of the scene commands, and the assembly reports of `joinery check` and
// `joinery solve` on scenes (text; the JSON form is the library's toJson(CheckReport)).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli.hpp"
#include "joinery/core/check.hpp"
#include "joinery/core/dense_solver.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/settings.hpp"

namespace joinery::cli {

/// A scene as every scene command loads it: the file read, the massless completion applied
/// when requested (completeMasslessPoints) and the `simulation` settings validated
/// (parseSimulationSettings), so that bad settings are invalid input (exit 2) before
/// anything runs.
struct LoadedScene {
  Scene scene;
  SimulationSettings settings;
};
LoadedScene loadSceneForCommand(const std::string& file, const SceneOptions& options = {});

/// `withAccelerations`: also print q'' and constraint forces (solve).
std::string checkReportToText(const CheckReport& r, bool withAccelerations);
int exitCodeFor(const Diagnosis& d);
/// The exit status of check / solve on a scene: with the assembly (a mechanism that cannot be
/// assembled is 4, inconsistent).
int exitCodeFor(const CheckReport& r);
/// True when the report is well posed but has something to say (its headline): a warning.
bool isWarning(const CheckReport& r);
/// "error" or "warning", the prefix of the headline.
const char* severityOf(const CheckReport& r);
/// The short table of joint results printed by check and solve.
std::string jointResultsText(const std::vector<JointResult>& joints, const std::vector<std::string>& names);

/// --strict of check and solve: warnings (unassembled initial state, plausibility) are errors.
OptionSpec strictOption();
/// The --complete-massless flag of check, solve and simulate.
OptionSpec completeMasslessOption();
/// check (and solve) on a scene file with load options; prints the report, returns the exit code.
/// `strict`: a warning (unassembled initial state, plausibility) is an error, exit 2.
int runSceneReport(const std::string& file, bool json, bool withAccelerations, const SceneOptions& options,
                   bool strict = false);

/// simulate: check's report before the run on a small model (up to 60 coordinates, where the
/// check and its kinematic sweep cost milliseconds), or nothing (larger, or the check throws:
/// the run then says what is wrong in its own words).
std::optional<CheckReport> verdictBeforeRun(const Scene& scene);
/// simulate after a failed run: prints check's verdict (its headline, cause first) on standard
/// error and returns its exit status when it is not well posed, else `runCode`.
int verdictAfterFailedRun(const Scene& scene, const std::optional<CheckReport>& before, int runCode);

}  // namespace joinery::cli
