#pragma once
// Private to joinery::integrators: the step-size rules every adaptive method shares (dopri5,
// rkm and radau5) and the controllers that pick the next step from an error norm — Hairer's PI
// controller for the explicit pairs (the constants of his code DOPRI5; Hairer, Nørsett & Wanner,
// Solving ODE I, §II.4), Gustafsson's predictive controller for radau5 (Hairer & Wanner, Solving
// ODE II, §IV.8, code RADAU5) — and the rule for a step size that collapses.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/integrator.hpp"

namespace joinery::detail {

/// A trial step towards a limit: its size and whether it lands on the limit.
struct TrialStep {
  double h;
  bool last;
};

/// What every adaptive method does with a step size, whatever its controller.
struct StepSizeRule {
  /// The step is retried this much smaller after a stage could not be evaluated.
  static constexpr double kFailShrink = 0.25;
  /// The default smallest step relative to the time: 1e-12 max(1, |t|), about 4500 units of
  /// round-off of t. Below it t + h hardly moves (t + h - t errs by 1e-4 of h at the bound);
  /// a run that wants smaller steps has collapsed ("step-size collapse", exit 5).
  static constexpr double kRelativeMinStep = 1e-12;
  /// The minimum step at time t: `minStep` when set (> 0), else the relative default.
  static double minStep(double minStepOption, double t) {
    return minStepOption > 0 ? minStepOption : kRelativeMinStep * std::max(1.0, std::abs(t));
  }
  /// The trial step h from t towards tLimit: stretched or cut to land on tLimit when within
  /// 1 % of it (no sliver of a step left before the limit).
  static TrialStep towards(double t, double h, double tLimit) {
    if (t + 1.01 * h >= tLimit) return {tLimit - t, true};
    return {h, false};
  }
};

/// PI controller: safety 0.9, step factors 1/10 ... 5, beta 0.04, exponent 0.2 - 0.75 beta.
struct PiStep {
  static constexpr double kSafe = 0.9, kFacc1 = 1.0 / 0.2, kFacc2 = 1.0 / 10.0, kBeta = 0.04;
  static constexpr double kExpo1 = 0.2 - kBeta * 0.75;
  /// After a trial step h with error norm errn (accepted when errn <= 1): the next step size
  /// (not above h right after a rejection) or, rejected, the retry's. Updates the controller's
  /// memory `facold` and `lastRejected`.
  static double next(double h, double errn, double& facold, bool& lastRejected) {
    const double fac11 = std::pow(errn, kExpo1);
    if (errn <= 1.0) {
      double fac = fac11 / std::pow(facold, kBeta);
      fac = std::clamp(fac / kSafe, kFacc2, kFacc1);
      double hnew = h / fac;
      facold = std::max(errn, 1e-4);
      if (lastRejected) hnew = std::min(hnew, h);
      lastRejected = false;
      return hnew;
    }
    lastRejected = true;
    return h / std::min(kFacc1, fac11 / kSafe);
  }
};

/// Gustafsson's predictive controller as in RADAU5 (order 3 error estimate: exponent 1/4),
/// step factors 1/8 ... 5; `fac` is the safety factor (smaller when Newton needed many
/// iterations). Memory: the last accepted step and its error.
struct GustafssonStep {
  static constexpr double kFacl = 5.0, kFacr = 1.0 / 8;
  double hacc = 0, erracc = 1e-2;
  /// The step the error alone proposes after a trial step h with error err.
  static double proposal(double h, double err, double fac) {
    const double quot = std::max(kFacr, std::min(kFacl, std::pow(err, 0.25) / fac));
    return h / quot;
  }
  /// After an accepted step h with error err: the next step, from the proposal `hnew` and,
  /// except for the first step (`first`), the predictive factor; updates the memory.
  double accepted(double h, double err, double fac, double hnew, bool first) {
    double quot = h / hnew;
    if (!first) {
      double facgus = (hacc / h) * std::pow(err * err / erracc, 0.25) / fac;
      facgus = std::max(kFacr, std::min(kFacl, facgus));
      quot = std::max(quot, facgus);
      hnew = h / quot;
    }
    hacc = h;
    erracc = std::max(1e-2, err);
    return hnew;
  }
};

/// The last trial stage of a step that could not be evaluated (ill-posed, inconsistent, not
/// finite), for the step-size collapse rule.
struct TrialFailure {
  bool have = false;
  AccelerationStatus status;
  double t = 0;
};

/// The step size h fell below hmin at time t: when the rejected trials kept meeting an
/// ill-posed or inconsistent state, that is the answer (r filled, the state unchanged at
/// `tNow`); otherwise throws SimulationError "NAME: step-size collapse ...", with the last
/// failure's message when there is one, else `why` (what keeps the step small).
inline StepResult stepSizeCollapse(const char* name, double t, double h, double hmin, const TrialFailure& f,
                                   double tNow,
                                   const char* why = "error control cannot be met: stiff or discontinuous model, or "
                                                     "tolerances too tight") {
  if (f.have && f.status.finite && f.status.posedness != Posedness::WellPosed) {
    StepResult r;
    r.tOld = tNow;
    r.ok = false;
    r.status = f.status;
    r.t = f.t;
    r.tNew = tNow;
    return r;
  }
  std::ostringstream os;
  os << name << ": step-size collapse at t = " << t << ": step " << h << " s below the minimum " << hmin << " s";
  if (f.have && !f.status.message.empty())
    os << "; last rejected trial step: " << f.status.message;
  else
    os << " (" << why << ")";
  throw SimulationError(os.str());
}

}  // namespace joinery::detail
