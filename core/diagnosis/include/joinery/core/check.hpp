#pragma once
/// @file check.hpp
/// "Is this model well posed?": the report `joinery check` prints, as a library call. The
/// graph analysis (graph.hpp), the dense reference solve at the initial state with its rank
/// diagnosis (forward_dynamics.hpp) and, for an ill-posed model, the missing force balances
/// of massless points (completion.hpp). Used by the command-line program and the Python
/// module alike; the CLI adds its text rendering and exit status.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/completion.hpp"
#include "joinery/core/dense_solver.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/scene.hpp"

namespace joinery {

/// Everything `check` knows about a model at its initial state. `model` points to the
/// checked model (and the graph into it): keep the model alive as long as the report.
struct CheckReport {
  const Model* model = nullptr;
  std::string sceneName;  ///< the scene's `name` (empty for a bare model)
  std::string file;       ///< the scene file (empty for a bare model)
  GraphAnalysis graph;
  Solution solution;      ///< the dense solve at the initial state, with the diagnosis
  /// Force balances of the massless directions at the initial state (completion.hpp): the
  /// scene's own record when completion was requested, else computed for an ill-posed model.
  CompletionAnalysis completion;
  bool completionRequested = false;  ///< the scene asked for massless completion
  /// Per-joint results at the initial state (joint_results.hpp), Model::constraints() order:
  /// the force and torque each joint applies to its bodies, tension, effort, uniqueness.
  std::vector<JointResult> joints;
  /// True when the model already holds the balances of `completion` (they were added).
  bool completionAdded() const noexcept { return completionRequested && completion.completable(); }
};

/// Checks a model at its initial state.
CheckReport checkModel(const Model& model);
/// Checks a loaded (and, when requested, completed: completeMasslessPoints) scene.
CheckReport checkScene(const Scene& scene);

/// The report as JSON (the output of `joinery check --json`): the solution and diagnosis
/// (solutionToJson), scene, file, bodies, joints (name -> results and description,
/// docs/results.md), forces, mobility, components, loops,
/// loose bodies, indeterminate bodies and the completion.
nlohmann::json toJson(const CheckReport& report);

/// The names of the bodies that own the coordinates `coords`, each once, in the order of first
/// appearance (the indeterminate bodies of a diagnosis).
std::vector<std::string> bodiesOfCoordinates(const Model& model, const std::vector<int>& coords);

/// The names of the elements (bodies, joints) in `v`, in order.
template <class T>
std::vector<std::string> namesOf(const std::vector<const T*>& v) {
  std::vector<std::string> out;
  out.reserve(v.size());
  for (const T* x : v) out.push_back(x->name());
  return out;
}

}  // namespace joinery
