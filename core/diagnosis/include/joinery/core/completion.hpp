#pragma once
/// @file completion.hpp
/// Completing massless points (Udwadia & Phohomsiri 2006, seed 002, Example 3).
///
/// When `[M; A]` is rank deficient, each direction `w` of its null space is a motion with no
/// mass and no constraint. Because `M w = 0` and `A w = 0`, the equation of motion projected
/// on `w` reads `0 = w^T (Q + C)`: the massless motion must be in force balance at every
/// instant, and that balance is exactly the constraint the model lacks. This module writes
/// it as an expression of the scene language from the symbolic forms of the generalized
/// forces (Body::symbolicForces, ForceElement::symbolicForces, symbolic.hpp), as a
/// ready-to-paste `expression` joint: at `position` level when it depends on coordinates
/// only (holonomic, differentiated twice by the joint), at `velocity` level when it depends
/// on velocities (differentiated once). Nothing is guessed: a direction on which some force
/// has no symbolic form, no force acts at all, or a net force acts whatever the state, is
/// reported as not completable, with the reason. See docs/completion.md.

#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/dense_solver.hpp"
#include "joinery/core/model.hpp"

namespace joinery {

/// The level at which a force balance is a constraint.
enum class BalanceLevel {
  Position,  ///< depends on coordinates (and t) only: holonomic phi(q, t) = 0
  Velocity   ///< depends on velocities too: psi(q, q', t) = 0
};

/// One indeterminate direction and the force balance that completes it (when it can).
struct MasslessBalance {
  std::vector<int> coordinates;       ///< global coordinate indices moved by w
  std::vector<std::string> names;     ///< their names "body.coord"
  std::vector<double> coefficients;   ///< w, 1 on its pivot coordinate (rational when close)
  std::vector<std::string> coefficientTexts;  ///< the same as printed in the balance ("1", "-1/2")
  bool completable = false;
  std::string expression;   ///< w^T Q in the scene language (qualified names); empty if unknown
  BalanceLevel level = BalanceLevel::Position;
  double valueAtState = 0;  ///< the balance evaluated at the analysed state (0 when balanced)
  bool satisfiedAtState = true;  ///< |valueAtState| within the force-balance tolerance
  std::string reason;       ///< why it is not completable (empty when completable)
  nlohmann::json joint;     ///< the `expression` joint to add (null when not completable)
};

/// The balances of every indeterminate direction of a model at a state.
struct CompletionAnalysis {
  /// One per direction of the null space of [M; A], in reduced row-echelon form: each has
  /// coefficient 1 on its own (pivot) coordinate and 0 on the pivots of the others.
  std::vector<MasslessBalance> balances;
  /// True when there is at least one direction and every one is completable.
  bool completable() const;
};

/// Force balances along the indeterminate directions of `d` (the diagnosis of
/// solveForwardDynamics() at `s`). Joint names are `balance_<coordinate>` ('.' -> '_'),
/// made unique against the model's joints. Never throws for a model it cannot complete:
/// the reason is in MasslessBalance::reason. Not for hot paths.
CompletionAnalysis analyzeMasslessBalances(const Model& model, const State& s, const Diagnosis& d,
                                           const SolverTolerances& tol = {});

/// The generalized force of coordinate `i` (all bodies' own forces, gravity and force
/// elements) as an expression text in qualified names, or an empty string with `why` set
/// when some contribution has no symbolic form.
std::string symbolicGeneralizedForce(const Model& model, int i, std::string& why);

/// "position" or "velocity".
const char* toString(BalanceLevel level) noexcept;

/// The analysis as JSON (for `check --json`): direction, expression, level, completable,
/// reason, joint.
nlohmann::json completionToJson(const CompletionAnalysis& a);

}  // namespace joinery
