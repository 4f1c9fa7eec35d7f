#pragma once
// Assembly reports of `joinery check` and `joinery solve` on scenes (text and JSON).
#include <nlohmann/json.hpp>
#include <string>

#include "cli.hpp"
#include "joinery/core/completion.hpp"
#include "joinery/core/dense_solver.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/joint_results.hpp"
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
  /// Per-joint results at the initial state (joint_results.hpp), Model::constraints() order.
  std::vector<JointResult> joints;
};

CheckReport makeCheckReport(const Scene& scene);
nlohmann::json checkReportToJson(const CheckReport& r);
/// `withAccelerations`: also print q'' and constraint forces (solve).
std::string checkReportToText(const CheckReport& r, bool withAccelerations);
int exitCodeFor(const Diagnosis& d);
/// The short table of joint results printed by check and solve.
std::string jointResultsText(const std::vector<JointResult>& joints, const std::vector<std::string>& names);

/// The --complete-massless flag of check, solve and simulate.
OptionSpec completeMasslessOption();
/// check (and solve) on a scene file with load options; prints the report, returns the exit code.
int runSceneReport(const std::string& file, bool json, bool withAccelerations, const SceneOptions& options);

}  // namespace joinery::cli
