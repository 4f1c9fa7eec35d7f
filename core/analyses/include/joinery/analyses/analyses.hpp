#pragma once
/// @file analyses.hpp
/// Static equilibrium and linearised vibration modes of a Model (docs/analyses.md).
///
/// Both work on the model's own equations, M q'' = Q(q, q', t) + A^T lambda with the
/// constraint rows A q'' = b, at a fixed time:
///  - equilibrium: Newton on Q(q, 0) + A^T lambda = 0, phi(q) = 0 (KKT system solved by a
///    complete orthogonal decomposition, so redundant rows and massless coordinates need no
///    special case), with a backtracking line search and Levenberg–Marquardt steps; from far
///    starts a dynamic-relaxation fallback (pseudo-transient continuation) when Newton stalls
///    or reaches an unstable equilibrium from a start that was not one;
///  - modes: linearisation on the constraint manifold (orthonormal basis N of the null space
///    of A), tangent stiffness K = -d(Q + A^T lambda)/dq with lambda held (the geometric
///    stiffness of the constraint forces), damping D = -dQ/dq', mass M; massless directions of
///    N^T M N are condensed statically; frequencies from K x = w^2 M x.

#include <string>
#include <utility>
#include <vector>

#include "joinery/core/joint_results.hpp"
#include "joinery/core/model.hpp"

namespace joinery {

struct EquilibriumOptions {
  int maxIterations = 60;
  /// Converged when max |Q + A^T lambda| <= forceTolerance * F (F: the largest generalized
  /// force at the start, or 1) and max |phi| <= positionTolerance * max(1, |q|).
  double forceTolerance = 1e-9;
  double positionTolerance = 1e-10;
  /// When Newton with line search and Levenberg–Marquardt stalls, dynamic relaxation
  /// (pseudo-transient continuation: implicit-Euler steps of the overdamped motion, the
  /// pseudo time step growing as the residual falls) from the start, then Newton again.
  bool fallback = true;
  /// A search that did not start at an equilibrium and reached an unstable one leaves it
  /// (pushed along its unstable direction by escapeAmplitude * max(1, |q|), then relaxed):
  /// a mechanism released at rest does not come to rest at an unstable equilibrium. A start
  /// that already is an equilibrium is reported as it is, stable or not.
  bool seekStable = true;
  double escapeAmplitude = 1e-3;
  int relaxationIterations = 400;
  /// First pseudo time step (in units of length / (force / F), F the force scale).
  double relaxationInitialStep = 1e-2;
  /// Longest relaxation step (max |dq|), relative to max(1, |q|): longer ones are shortened.
  double relaxationMaxStep = 0.25;
};

struct EquilibriumResult {
  bool converged = false;
  State state;            ///< the equilibrium (or the last iterate), velocities zero
  VectorXd lambda;        ///< multipliers of the constraint rows (minimum norm)
  double residual = 0;    ///< max |Q + A^T lambda| at `state` (generalized force units)
  double constraintResidual = 0;  ///< max |phi|
  bool stable = false;    ///< the reduced tangent stiffness is positive definite
  double minStiffness = 0;  ///< its smallest eigenvalue (negative: unstable, ~0: neutral)
  int freeDirections = 0;   ///< dimension of the constraint null space
  int iterations = 0;
  bool usedFallback = false;  ///< Newton with line search alone did not do (usedLm or relaxed)
  bool usedLm = false;        ///< Levenberg–Marquardt steps were taken
  bool relaxed = false;       ///< the dynamic-relaxation fallback was needed
  bool escapedUnstable = false;  ///< Newton reached an unstable equilibrium; relaxation left it
  /// Not converged: the unbalanced force along the free directions (coordinate, component
  /// of the unit direction), largest first; empty when converged.
  std::vector<std::pair<std::string, double>> direction;
  std::string message;
};

/// Finds a static equilibrium from `start` (its velocities are ignored, its time is kept).
/// Never throws for a model without equilibrium: converged = false and the message names the
/// direction of the net force.
EquilibriumResult findEquilibrium(const Model& model, const State& start,
                                  const EquilibriumOptions& options = {});

/// The joint reactions at a static state (docs/results.md conventions): the minimum-norm
/// multipliers of A^T lambda = -Q(q, 0) (rows redundant with others flagged, `unique` false),
/// mapped to each joint's forces and torques. Non-ideal parts are re-evaluated from the joints'
/// laws at zero velocity.
std::vector<JointResult> staticJointResults(const Model& model, const State& s);

struct ModesOptions {
  /// Modes to report (lowest first); 0: all.
  int count = 0;
  /// A mode is a zero mode when |w^2| <= zeroTolerance * max |w^2| (+ 1e-12 rad^2/s^2).
  double zeroTolerance = 1e-8;
};

struct ModesResult {
  std::vector<double> frequenciesHz;  ///< ascending; 0 for zero modes; negative for unstable (imaginary) ones
  std::vector<double> dampingRatios;  ///< modal damping x^T D x / (2 w) (exact for proportional damping)
  std::vector<VectorXd> shapes;       ///< per mode, n coordinates, largest entry +1
  int zeroModes = 0;
  int unstableModes = 0;
  int masslessExcluded = 0;  ///< massless directions condensed out
  int freeDirections = 0;    ///< dimension of the constraint null space
};

/// Linearised modes about `s` (velocities are used for D only). Throws ModelError when the
/// massless directions have no stiffness (ill posed at rest).
ModesResult computeModes(const Model& model, const State& s, const ModesOptions& options = {});

}  // namespace joinery
