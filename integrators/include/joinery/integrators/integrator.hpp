#pragma once
/// @file integrator.hpp
/// One-step integrators of a DynamicSystem written as the first-order system
///
///     y = (q, q'),   y' = (q', q''(t, q, q'))
///
/// An integrator knows a state, its derivative and how to advance it; drift control,
/// sampling and the run loop live in simulation.hpp. See docs/integrators.md.

#include <memory>
#include <string>
#include <vector>

#include "joinery/core/assert.hpp"
#include "joinery/core/dynamic_system.hpp"

namespace joinery {

/// Counters of one integrator.
struct IntegratorStats {
  long long steps = 0;          ///< accepted steps (RK4: including internal halvings)
  long long rejected = 0;       ///< rejected trial steps (error too large, failed stage)
  long long evaluations = 0;    ///< calls of DynamicSystem::calcAccelerations
  /// Of these, the ones an implicit method spent on finite-difference Jacobians of q''.
  long long jacobianEvaluations = 0;
  /// Evaluations of the applied forces Q alone (no acceleration solve, not in `evaluations`)
  /// an implicit method spent on its iteration matrix (DynamicSystem::calcForceLinearization).
  long long forceEvaluations = 0;
  long long redundantEvaluations = 0;  ///< evaluations where rank A < m (singular positions)
  int maxRedundant = 0;         ///< largest m - rank A met
  /// Evaluations at a singular position answered by least squares (slight drift-induced
  /// inconsistency tolerated, AccelerationStatus::leastSquares), and the largest relative
  /// inconsistency tolerated there.
  long long leastSquaresEvaluations = 0;
  double maxToleratedInconsistency = 0;
  double minStep = 0;           ///< smallest accepted step (0 before the first)
  double maxStep = 0;           ///< largest accepted step
};

/// The result of Integrator::advance().
struct StepResult {
  /// True when a step was taken. False when the run must stop because the state is ill posed
  /// or inconsistent: `status` explains, `t` is the time where it was found.
  bool ok = true;
  AccelerationStatus status;
  double tOld = 0;
  double tNew = 0;
  double t = 0;  ///< time of the evaluation that stopped the run (when !ok)
};

/// Base of the one-step methods.
class Integrator {
 public:
  /// `system` must outlive the integrator. `stab` is passed to every acceleration evaluation.
  Integrator(DynamicSystem& system, Baumgarte stab);
  virtual ~Integrator();
  Integrator(const Integrator&) = delete;
  Integrator& operator=(const Integrator&) = delete;

  virtual const char* name() const = 0;

  /// Sets the current state (after drift control, or to start). The derivative is
  /// re-evaluated (and the state re-diagnosed) at the next advance().
  void reset(const State& s);
  /// Like reset(), after drift control changed the state of the step just taken (a
  /// projection, a quaternion renormalization): a method may keep what it knows of the state
  /// when the change is far below its error tolerance (dopri5 keeps its last stage, FSAL).
  virtual void adjust(const State& s) { reset(s); }
  const State& state() const noexcept { return state_; }
  double time() const noexcept { return state_.t; }
  const IntegratorStats& stats() const noexcept { return stats_; }

  /// Takes one accepted step from time() towards `tLimit` (> time()), landing exactly on
  /// `tLimit` when it is reached. First re-checks the current state: an ill-posed or
  /// inconsistent state returns `ok = false`.
  /// @throws SimulationError for a non-finite state or derivative, or a step-size collapse.
  virtual StepResult advance(double tLimit) = 0;

  /// True when interpolate() works inside the last step.
  virtual bool hasDenseOutput() const { return false; }
  /// The state at `t` in [tOld, tNew] of the last step, from the dense output (the raw
  /// step, before any drift control). Only when hasDenseOutput().
  virtual void interpolate(double t, State& out);

 protected:
  /// Evaluates y' at (t, y) into dy; counts and checks finiteness.
  AccelerationStatus evaluate(double t, const VectorXd& y, VectorXd& dy);
  /// Ensures k1 = y'(state) is known; returns the status of the current state.
  AccelerationStatus ensureDerivative();
  /// y <- state, and back.
  void loadY();
  void storeY(double t);
  void noteStep(double h);
  [[noreturn]] void failNonFinite(double t, const AccelerationStatus& st, const char* where) const;

  DynamicSystem& system_;
  Baumgarte stab_;
  int n_ = 0;
  State state_;
  State work_;          // scratch state for evaluations
  VectorXd y_, k1_;     // 2n
  bool haveDerivative_ = false;
  long long resets_ = 0;  // counts reset() calls
  AccelerationStatus currentStatus_;
  IntegratorStats stats_;
};

/// Classical fourth-order Runge–Kutta with a fixed step (Hairer, Nørsett & Wanner, Solving
/// ODEs I, table II.1.2). The step is shortened evenly so that every `tLimit` is hit exactly:
/// h = (tLimit - t) / ceil((tLimit - t) / step). A stage that is ill posed, inconsistent or
/// not finite is retried with the step halved (at most 8 times); then the run stops.
class Rk4Integrator final : public Integrator {
 public:
  Rk4Integrator(DynamicSystem& system, double step, Baumgarte stab = {});
  const char* name() const override { return "rk4"; }
  double step() const noexcept { return h_; }
  StepResult advance(double tLimit) override;

 private:
  StepResult substep(double h, double tNew, int depth);
  double h_;
  VectorXd k2_, k3_, k4_, yt_;
};

/// Options of the embedded Runge–Kutta pairs (dopri5, rkm).
struct EmbeddedRkOptions {
  double rtol = 1e-6;
  double atol = 1e-9;
  double initialStep = 0;  ///< first trial step; 0: Hairer's automatic choice (for the method's order)
  double minStep = 0;      ///< below this the run fails ("step-size collapse"); 0: StepSizeRule's relative minimum
  double maxStep = 0;      ///< 0: no limit
  /// Fixed step `initialStep`, no error control (for convergence studies only).
  bool fixedStep = false;
};
using Dopri5Options = EmbeddedRkOptions;
using RkmOptions = EmbeddedRkOptions;

/// An explicit embedded Runge–Kutta pair given by its Butcher tableau: nodes c, the strictly
/// lower matrix a, the weights b of the propagated solution and e of the error estimate (the
/// difference of the two solutions, times h). Stage i is k_i = f(t + c_i h, y + h sum_j a_ij k_j);
/// y1 = y + h sum b_i k_i. `fsal`: the last stage is evaluated at y1 (a_s = b), so its
/// derivative starts the next step ("first same as last").
struct ButcherTableau {
  static constexpr int kMaxStages = 7;
  const char* name;  ///< for messages ("dopri5: step-size collapse ...")
  int stages;
  int order;  ///< of the propagated solution (the exponent of Hairer's initial-step guess)
  bool fsal;
  double c[kMaxStages];
  double a[kMaxStages][kMaxStages];
  double b[kMaxStages];
  double e[kMaxStages];
};

/// The adaptive step of every embedded pair (one implementation, the method is the tableau; the
/// form of MuJoCo's mj_RungeKutta, with error control): the stages, the error norm
/// err = rms(e_i / (atol + rtol max(|y0_i|, |y1_i|))), Hairer's PI controller and the rules for
/// failed stages and step-size collapse of StepSizeRule (step_control.hpp). A stage that is not
/// finite, ill posed or inconsistent rejects the trial step (h /= 4). Each method adds its
/// dense output.
class EmbeddedRkIntegrator : public Integrator {
 public:
  StepResult advance(double tLimit) final;
  bool hasDenseOutput() const override { return true; }
  /// The step size the next advance() will try.
  double nextStep() const noexcept { return h_; }
  /// The weighted RMS norm of the last trial step's error estimate (accepted when <= 1).
  double lastErrorNorm() const noexcept { return errLast_; }
  const ButcherTableau& tableau() const noexcept { return tab_; }
  /// A first-same-as-last pair keeps its last stage when the change is at most kFsalKeep of
  /// the error tolerance in every component (|dy_i| <= kFsalKeep (atol + rtol |y_i|)): the stale
  /// derivative then errs by L |dy|, a thousandth of what a step may err. Otherwise reset().
  void adjust(const State& s) override;
  static constexpr double kFsalKeep = 1e-3;
  /// Accepted steps that kept their last stage across a state adjustment.
  long long fsalKept() const noexcept { return fsalKept_; }

 protected:
  EmbeddedRkIntegrator(DynamicSystem& system, const ButcherTableau& tab, EmbeddedRkOptions opt, Baumgarte stab);
  /// Stage i (0-based; stage 0 is k1_, the derivative at the step's start).
  const VectorXd& stage(int i) const {
    JOINERY_ASSERT(i >= 0 && i < tab_.stages, "embedded RK: stage index in range");
    return i == 0 ? k1_ : k_[static_cast<std::size_t>(i - 1)];
  }
  const ButcherTableau& tab_;
  EmbeddedRkOptions opt_;
  VectorXd yt_, y0_, y1_, err_, inner_;  // inner_: dense output's scratch (sized once)
  double tOld_ = 0, hLast_ = 0;          // the last accepted step
  bool haveStep_ = false;
  long long advances_ = 0;               // calls of advance() (a dense output made since stays valid)

 private:
  double initialStep(double tLimit);
  /// out = y + h sum_j w_j k_j (or h sum_j w_j k_j without y) over the stages j < count with
  /// w_j != 0, in one pass (a one-term sum as y + (h w) k).
  void combine(VectorXd& out, const VectorXd* y, double h, const double* w, int count) const;
  std::vector<VectorXd> k_;  // stages 2..s
  double h_ = 0, errLast_ = 0;
  double facold_ = 1e-4;
  bool lastRejected_ = false;
  bool fsal_ = false;  // the last stage holds y'(state) (no reset since the last step)
  AccelerationStatus statusLast_;
  long long resetsAtStep_ = -1;
  long long fsalKept_ = 0;
};

/// Dormand–Prince 5(4) with error control and dense output (Hairer, Nørsett & Wanner, Solving
/// ODEs I, §II.5 and II.6, code DOPRI5): the 5th-order solution is propagated, the embedded
/// 4th-order one estimates the error, and a PI controller (beta = 0.04, safety 0.9, factors in
/// [0.2, 10]) picks the next step; first same as last (6 evaluations per accepted step).
/// The dense output is the standard 4th-order continuous extension.
class Dopri5Integrator final : public EmbeddedRkIntegrator {
 public:
  Dopri5Integrator(DynamicSystem& system, Dopri5Options opt, Baumgarte stab = {});
  const char* name() const override { return "dopri5"; }
  void interpolate(double t, State& out) override;

 private:
  VectorXd dense_;
  long long denseAt_ = -1;  // advances_ when dense_ was made
};

/// Merson's 4(5) method (R. H. Merson 1957; Hairer, Nørsett & Wanner, Solving ODEs I, §II.4,
/// table 4.1), five evaluations per step, the form of Simbody's RungeKuttaMersonIntegrator:
///
///     k1 = f(t, y)                   k2 = f(t + h/3, y + h/3 k1)
///     k3 = f(t + h/3, y + h/6 (k1 + k2))
///     k4 = f(t + h/2, y + h/8 (k1 + 3 k3))
///     k5 = f(t + h, y + h/2 (k1 - 3 k3 + 4 k4))
///     y1 = y + h/6 (k1 + 4 k4 + k5)                        (order 4, propagated)
///     e  = h/30 (2 k1 - 9 k3 + 8 k4 - k5)                  (error estimate)
///
/// e is a fifth of the difference between y1 and the third-order k5 argument: for linear
/// problems with constant coefficients it is exactly the leading local error of y1
/// (-(h L)^5/720 y), in general it is O(h^4), a conservative over-estimate. The error norm,
/// the PI controller (exponent for order 4: 1/5 - 0.75 beta), the rejection of failed stages
/// (h /= 4), the collapse rule and the fixed-step mode are dopri5's (EmbeddedRkIntegrator).
/// Stable on the imaginary axis up to |h lambda| = sqrt(12) = 3.46 (|R(iy)|^2 = 1 + y^8 (y^2 -
/// 12) / 20736), against dopri5's 3.3 with 6-7 evaluations: the cheaper method where
/// oscillations hold the step. No first same as last (k5 is not at y1), so every accepted step
/// costs 5 evaluations. Dense output: a free continuous extension of order 3 from k1, k3, k4,
/// k5 (see interpolate()).
class RkmIntegrator final : public EmbeddedRkIntegrator {
 public:
  RkmIntegrator(DynamicSystem& system, RkmOptions opt, Baumgarte stab = {});
  const char* name() const override { return "rkm"; }
  /// y(t0 + theta h) = y0 + h (b1 k1 + b3 k3 + b4 k4 + b5 k5) with the weights b_i(theta) of
  /// the quadrature interpolating at the nodes 0, 1/3, 1/2, 1 (stages 1, 3, 4, 5): third order
  /// (local error O(h^4), one below the step's, as dopri5's extension is one below its step),
  /// continuous (y1 at theta = 1), no extra evaluation.
  void interpolate(double t, State& out) override;
};

}  // namespace joinery
