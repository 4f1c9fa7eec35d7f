#pragma once
/// @file radau5.hpp
/// Radau IIA of order 5 (three stages, L-stable, stiffly accurate): the implicit method for
/// stiff models (`"integrator": "implicit"` or `"radau5"`, docs/integrators.md).
///
/// Applied, like the explicit methods, to the first-order system y = (q, q'),
/// y' = (q', q''(t, q, q')) where q'' comes from DynamicSystem::calcAccelerations (the
/// singular-mass equation resolves every constraint at acceleration level, redundant rows
/// included); drift control stays in the simulation loop. The stage equations are solved by
/// simplified Newton iterations with the transformation of Hairer & Wanner (Solving ODEs II,
/// §IV.8, code RADAU5): one real and one complex linear system per iteration, each reduced to
/// n x n by the second-order structure of y' (dy_q = dy_v). The iteration matrix comes from the
/// system's force linearization when it has one (a KKT matrix of M, A, dQ/dq, dQ/dq'), else
/// from the Jacobian dq''/d(q, q') by forward differences (2n evaluations); it is kept across
/// steps while Newton converges fast. Error estimate, step-size controller (Gustafsson's
/// predictive controller) and the tolerance transformation as in RADAU5. Dense output: the
/// collocation polynomial.

#include <memory>

#include "joinery/integrators/integrator.hpp"

namespace joinery {

/// Options of Radau IIA 5.
struct Radau5Options {
  /// Tolerances as for dopri5 (the error is rms(e_i / (atol + rtol |y_i|))); internally
  /// transformed as in RADAU5 (rtol' = 0.1 rtol^(2/3), atol' = rtol' atol / rtol) so that a
  /// given rtol gives an accuracy comparable to the explicit methods'.
  double rtol = 1e-6;
  double atol = 1e-9;
  double initialStep = 0;  ///< first trial step; 0: 1e-6 * max(1, span)
  double minStep = 0;      ///< below this the run fails; 0: 1e-12 * max(1, |t|)
  double maxStep = 0;      ///< 0: no limit
  int maxNewton = 7;       ///< Newton iterations per step before the step is retried smaller
  /// The Jacobian is re-evaluated after an accepted step only when the Newton contraction
  /// rate exceeded this (RADAU5's THET, there 0.001; 0.5 here because a Jacobian costs 2n
  /// evaluations: measured cheapest on the stiff benchmarks, docs/performance.md).
  double jacobianReuse = 0.5;
  /// The same threshold when the system gives its force linearization (the iteration matrix
  /// is then the KKT matrix of M, A, dQ/dq, dQ/dq': no acceleration solve, a few evaluations
  /// of Q): cheap, so re-evaluated far more often (measured, docs/performance.md).
  double linearizedJacobianReuse = 0.1;
  /// Use DynamicSystem::calcForceLinearization when the system provides it (false: always
  /// the finite-difference Jacobian of q'', 2n evaluations).
  bool useForceLinearization = true;
  /// With the force linearization: the KKT iteration matrix (n + m unknowns) is factorized
  /// sparsely from this many unknowns on, densely below (docs/performance.md, "Stiff
  /// models": where each pays), and the linearization is then asked in sparse form
  /// (ForceLinearization::wantSparse). 0: always dense. Sparsely: on its pattern, fixed once,
  /// in the reverse Cuthill-McKee order by a banded LU with partial pivoting (BandLu: chains
  /// and trees of few branches give narrow bands; no allocation once the pattern is set), or
  /// where the band is wider than maxBand by Eigen::SparseLU (COLAMD; allocates).
  int sparseFrom = 120;
  /// Widest half-bandwidth (after the reordering) factorized by the banded LU; wider: the
  /// general sparse LU.
  int maxBand = 64;
  /// Fixed step `initialStep`, no error control (for convergence studies only).
  bool fixedStep = false;
};

/// Counters beyond IntegratorStats.
struct Radau5Stats {
  long long jacobians = 0;       ///< Jacobians (finite differences of q'': 2n evaluations each; or force linearizations)
  long long linearizations = 0;  ///< of these, force linearizations (KKT iteration matrix)
  long long factorizations = 0;  ///< LU factorizations (one real + one complex n x n each)
  long long sparseFactorizations = 0;  ///< of these, sparse (Radau5Options::sparseFrom)
  long long bandFactorizations = 0;    ///< of these, by the banded LU (Radau5Options::maxBand)
  long long newtonIterations = 0;
  long long newtonFailures = 0;  ///< trial steps retried smaller because Newton did not converge
  long long errorRejections = 0; ///< trial steps rejected by the error estimate
};

class Radau5Integrator final : public Integrator {
 public:
  Radau5Integrator(DynamicSystem& system, Radau5Options opt, Baumgarte stab = {});
  ~Radau5Integrator() override;
  const char* name() const override { return "radau5"; }
  StepResult advance(double tLimit) override;
  bool hasDenseOutput() const override { return true; }
  /// After a discontinuity of the state or of the model's rows (an event of one-sided rows,
  /// events.hpp): the next step neither extrapolates the last step's stages across it nor
  /// reuses its Jacobian.
  void forgetHistory() noexcept;
  void interpolate(double t, State& out) override;
  const Radau5Stats& radauStats() const noexcept;

 private:
  struct Impl;  // radau5.cpp: the method's state, its Newton iteration and its linear solves
  std::unique_ptr<Impl> impl_;
};

}  // namespace joinery
