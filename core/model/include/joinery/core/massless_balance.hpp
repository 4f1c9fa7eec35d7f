#pragma once
/// @file massless_balance.hpp
/// What the completion of massless points finds (completion.hpp computes it, docs/completion.md):
/// the force balance of each indeterminate direction of a model. Plain data of the model
/// layer, so that a Scene can carry the result (Scene::completion) without the scene layer
/// depending on the diagnosis.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

/// "position" or "velocity".
const char* toString(BalanceLevel level) noexcept;

}  // namespace joinery
