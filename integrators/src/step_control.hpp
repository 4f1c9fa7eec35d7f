#pragma once
// Private to joinery::integrators: what the explicit embedded pairs (dopri5, rkm) share around
// their stages — Hairer's PI step-size controller (the constants of his code DOPRI5; Hairer,
// Nørsett & Wanner, Solving ODE I, §II.4) and the rule for a step size that collapses.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/integrator.hpp"

namespace joinery::detail {

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
/// failure's message when there is one.
inline StepResult stepSizeCollapse(const char* name, double t, double h, double hmin, const TrialFailure& f,
                                   double tNow) {
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
    os << " (error control cannot be met: stiff or discontinuous model, or tolerances too tight)";
  throw SimulationError(os.str());
}

}  // namespace joinery::detail
