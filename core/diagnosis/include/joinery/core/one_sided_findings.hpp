#pragma once
/// @file one_sided_findings.hpp
/// What `check` says about a model's one-sided rows (limits, ropes, contacts; docs/contact.md,
/// "Diagnosis") at its initial state: a candidate that starts interpenetrating, and one that
/// can never become active because no motion the other joints allow changes its gap. Both are
/// reported with the bodies and the gap, never corrected.
#include <string>
#include <vector>

#include "joinery/core/model.hpp"
#include "joinery/core/state.hpp"

namespace joinery {

struct OneSidedFinding {
  enum class Kind {
    Interpenetrating,  ///< the gap is below -gapTolerance at the state
    NeverActive        ///< the gap is > 0 and no admissible motion changes it
  };
  Kind kind = Kind::Interpenetrating;
  const Constraint* joint = nullptr;
  std::string candidate;  ///< "floor", or "floor (point 2)"
  double gap = 0;         ///< at the state (m or rad)
  std::string message;    ///< one line naming the joint, the bodies and the gap
};

struct OneSidedFindingOptions {
  double gapTolerance = 1e-9;  ///< as OneSidedOptions::gapTolerance
  /// The configurations visited: a random walk of this many steps over the positions the
  /// bilateral joints allow (a random velocity projected onto them, a step of `step` in the
  /// largest coordinate, the positions projected back), from the state. A gap that changes by
  /// more than `tolerance * max(1, |gap|)` anywhere on the walk can change.
  int steps = 24;
  double step = 0.1;
  double tolerance = 1e-9;
  /// Models with more coordinates are not walked (only the interpenetration is checked).
  int maxCoordinates = 3000;
  unsigned seed = 20261202;  ///< the walk is deterministic
};

/// The findings at `s` (the scene's initial state). The rows' activity is left as it was.
/// The walk is skipped for models with prescribed motions (drivers, rheonomic rows: a gap that
/// changes with time) and when a projection fails (an ill-posed model: the check says why).
std::vector<OneSidedFinding> findOneSidedProblems(const Model& model, const State& s,
                                                  const OneSidedFindingOptions& options = {});

}  // namespace joinery
