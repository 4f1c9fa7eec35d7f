#pragma once
// Assembly reports of `joinery check` and `joinery solve` on scenes (text and JSON).
#include <nlohmann/json.hpp>
#include <string>

#include "cli.hpp"
#include "joinery/core/completion.hpp"
#include "joinery/core/dense_solver.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/scene.hpp"

namespace joinery::cli {

/// Everything `check` knows about a scene at its initial state.
struct CheckReport {
  const Scene* scene = nullptr;
  GraphAnalysis graph;
  Solution solution;
  /// Force balances of the massless directions at the initial state (completion.hpp): the
  /// scene's own record when completion was requested, else computed for an ill-posed model.
  CompletionAnalysis completion;
};

CheckReport makeCheckReport(const Scene& scene);
nlohmann::json checkReportToJson(const CheckReport& r);
/// `withAccelerations`: also print q'' and constraint forces (solve).
std::string checkReportToText(const CheckReport& r, bool withAccelerations);
int exitCodeFor(const Diagnosis& d);

/// The --complete-massless flag of check, solve and simulate.
OptionSpec completeMasslessOption();
/// check (and solve) on a scene file with load options; prints the report, returns the exit code.
int runSceneReport(const std::string& file, bool json, bool withAccelerations, const SceneOptions& options);

}  // namespace joinery::cli
