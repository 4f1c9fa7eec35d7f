#pragma once
/// @file check.hpp
/// "Is this model well posed?": the report `joinery check` prints, as a library call. The
/// graph analysis (graph.hpp), the dense reference solve at the initial state with its rank
/// diagnosis (forward_dynamics.hpp) and, for an ill-posed model, the missing force balances
/// of massless points (completion.hpp). Used by the command-line program and the Python
/// module alike; the CLI adds its text rendering and exit status.

#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/assembly.hpp"
#include "joinery/core/completion.hpp"
#include "joinery/core/findings.hpp"
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
  Solution solution;      ///< the dense solve at the (assembled) initial state, with the diagnosis
  /// Force balances of the massless directions at the initial state (completion.hpp): the
  /// scene's own record when completion was requested, else computed for an ill-posed model.
  CompletionAnalysis completion;
  bool completionRequested = false;  ///< the scene asked for massless completion
  /// Per-joint results at the initial state (joint_results.hpp), Model::constraints() order:
  /// the force and torque each joint applies to its bodies, tension, effort, uniqueness.
  std::vector<JointResult> joints;
  /// The initial state against the constraints, and its assembly (assembly.hpp).
  AssemblyReport assembly;
  /// True when `solution`, `joints` and the findings are at the assembled state (the given
  /// initial state violates a joint and could be assembled); false: at the given state.
  bool atAssembledState = false;
  /// Inconsistent constraints (at acceleration level, or at velocity / position level when the
  /// assembly fails): the joints that contradict each other, by name (findings.hpp).
  Culprits conflict;
  Culprits redundancy;  ///< redundant rows: the joints that repeat each other
  std::string locked;   ///< "the mechanism is locked by ...; the given velocity ... is removed"
  std::vector<std::string> causes;    ///< plain causes of undetermined motions, what to change
  std::vector<std::string> warnings;  ///< plausibility warnings (checkScene; plausibility.hpp)
  /// The verdict with the assembly: a mechanism that cannot be assembled is Inconsistent.
  Posedness status() const noexcept;
  /// The finding that comes first, cause first; its first line says what to change (empty
  /// for a well-posed, assembled model with no warning).
  std::string headline() const;
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

}  // namespace joinery
