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

#include "joinery/core/assembly.hpp"
#include "joinery/core/completion.hpp"
#include "joinery/core/findings.hpp"
#include "joinery/core/dense_solver.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/scene.hpp"

namespace joinery {

/// How the well-posedness of a checked model was decided.
enum class CheckPath {
  Dense,      ///< the dense reference solver: the full rank diagnosis (small or failing models)
  Structured  ///< the block elimination over the body-joint graph (large well-posed models)
};

/// Options of checkModel().
struct CheckOptions {
  /// Models with at least this many coordinates are checked through the structured path first
  /// (O(n) time and memory on chains and trees); the dense diagnosis (O((n + m) n^2) time,
  /// O((n + m) n) memory) decides only when that path cannot show the model well posed.
  int structuredFrom = 300;
  /// A dense diagnosis estimated to need more memory than this is refused with a ModelError
  /// giving the estimate (instead of running out of memory).
  double maxDenseBytes = 4e9;
};

/// The verdict on a checked model: one decision, with a fixed precedence, that every output
/// prints (check text and --json, Python's CheckReport, the viewer's header, solve, simulate).
/// Precedence: (1) a direction of zero mass that nothing holds (rank [M; A] < n) is ill posed,
/// whatever else fails; (2) a mechanism that cannot be assembled; (3) constraints that
/// contradict each other; (4) well posed: locked, redundant, or plainly well posed.
struct Verdict {
  Posedness status = Posedness::WellPosed;  ///< the class (and exit status) of the verdict
  /// "well_posed", "redundant", "locked", "ill_posed", "cannot_be_assembled", "inconsistent"
  std::string kind = "well_posed";
  std::string text;      ///< "ILL POSED: accelerations are not unique", ...
  std::string headline;  ///< the first finding, cause first (empty: nothing to say)
};

/// Everything `check` knows about a model at its initial state. `model` points to the
/// checked model (and the graph into it): keep the model alive as long as the report.
struct CheckReport {
  const Model* model = nullptr;
  std::string sceneName;  ///< the scene's `name` (empty for a bare model)
  std::string file;       ///< the scene file (empty for a bare model)
  GraphAnalysis graph;
  Solution solution;      ///< the solve at the (assembled) initial state, with the diagnosis
  /// Structured: a well-posed model with no redundant row (the diagnosis has rank A = m,
  /// rank [M; A] = n and no messages). Dense: the full rank diagnosis.
  CheckPath path = CheckPath::Dense;
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
  /// A driven mechanism of mobility 0 swept over its driver's range (kinematics.hpp): the
  /// configurations where it cannot follow, each in words (checkScene; empty: none or not run).
  std::vector<std::string> kinematics;
  nlohmann::json sweep;  ///< that sweep (sweepToJson), null when not run
  /// The verdict (one decision, fixed precedence): status(), headline() and every output use it.
  Verdict verdict() const;
  /// The verdict with the assembly: a mechanism that cannot be assembled is Inconsistent.
  Posedness status() const noexcept;
  /// The finding that comes first, cause first; its first line says what to change (empty
  /// for a well-posed, assembled model with no warning).
  std::string headline() const;
  /// True when the model already holds the balances of `completion` (they were added).
  bool completionAdded() const noexcept { return completionRequested && completion.completable(); }
};

/// Checks a model at its initial state. @throws ModelError when the model is too large for
/// the dense diagnosis it needs (CheckOptions::maxDenseBytes).
CheckReport checkModel(const Model& model, const CheckOptions& options = {});
/// Checks a loaded (and, when requested, completed: completeMasslessPoints) scene.
CheckReport checkScene(const Scene& scene, const CheckOptions& options = {});

/// The report as JSON (the output of `joinery check --json`): the solution and diagnosis
/// (solutionToJson), scene, file, diagnosis_path ("dense" or "structured"), bodies, joints (name -> results and description,
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
