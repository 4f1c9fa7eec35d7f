// Kutta–Merson 4(5) with PI step-size control and a third-order dense output.
// The method: R. H. Merson, "An operational method for the study of integration processes",
// Proc. Symp. Data Processing, Weapons Research Establishment, Salisbury, Australia, 1957;
// its tableau and error estimate as in Hairer, Nørsett & Wanner, Solving Ordinary Differential
// Equations I, 2nd ed., §II.4 (table 4.1). Error norm, PI controller, rejection of failed
// stages and the initial step as in Hairer's DOPRI5 (dopri5.cpp), the exponents for order 4.
// Verified (order conditions up to order 4, the stability polynomial, the dense weights) in
// exact rational arithmetic; the tests are in tests/integrators/test_rkm.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/integrator.hpp"
#include "step_control.hpp"

namespace joinery {

namespace {
// nodes
constexpr double c2 = 1.0 / 3, c3 = 1.0 / 3, c4 = 1.0 / 2;
// Runge–Kutta matrix
constexpr double a21 = 1.0 / 3;
constexpr double a31 = 1.0 / 6, a32 = 1.0 / 6;
constexpr double a41 = 1.0 / 8, a43 = 3.0 / 8;
constexpr double a51 = 1.0 / 2, a53 = -3.0 / 2, a54 = 2.0;
// 4th-order solution
constexpr double b1 = 1.0 / 6, b4 = 2.0 / 3, b5 = 1.0 / 6;
// error estimate: (k5's argument - y1) / 5 = h (2 k1 - 9 k3 + 8 k4 - k5) / 30; the sign is
// immaterial to the norm
constexpr double e1 = 2.0 / 30, e3 = -9.0 / 30, e4 = 8.0 / 30, e5 = -1.0 / 30;
// PI controller (dopri5's beta, safety and factors); the error of the 4th-order solution
// scales like h^5 (exactly so for linear problems), hence 1/5 in the exponent
constexpr double kFailShrink = 0.25;

/// Dense output weights b_i(theta) = integral over [0, theta] of the Lagrange polynomial of
/// node c_i on the nodes {0, 1/3, 1/2, 1} (stages 1, 3, 4, 5; stage 2 must carry no weight for
/// order 3 since its A c differs from c^2 / 2). At theta = 1 they are (1/6, 0, 2/3, 1/6).
struct DenseWeights {
  double w1, w3, w4, w5;
};
DenseWeights denseWeights(double th) {
  const double th2 = th * th;
  const double u = 1.0 - th;
  return {th * (1.0 + th * (-3.0 + th * (11.0 / 3.0 - 1.5 * th))),
          6.75 * th2 * u * u,
          th2 * (-4.0 + th * (32.0 / 3.0 - 6.0 * th)),
          th2 * (0.25 + th * (-5.0 / 6.0 + 0.75 * th))};
}
}  // namespace

RkmIntegrator::RkmIntegrator(DynamicSystem& system, RkmOptions opt, Baumgarte stab)
    : Integrator(system, stab), opt_(opt) {
  if (!opt_.fixedStep && !(opt_.rtol > 0 || opt_.atol > 0))
    throw SimulationError("rkm: rtol or atol must be > 0");
  if (opt_.fixedStep && !(opt_.initialStep > 0))
    throw SimulationError("rkm: a fixed step needs initialStep > 0");
  for (VectorXd* v : {&k2_, &k3_, &k4_, &k5_, &yt_, &y0_, &y1_, &err_, &inner_}) *v = VectorXd::Zero(2 * n_);
}

double RkmIntegrator::initialStep(double tLimit) {
  const double t = state_.t;
  const double span = tLimit - t;
  double hmax = opt_.maxStep > 0 ? opt_.maxStep : span;
  hmax = std::min(hmax, span);
  if (opt_.initialStep > 0) return std::min(opt_.initialStep, hmax);
  // Hairer's HINIT (as dopri5's), with the order of this method, 4, in the last exponent
  err_ = (opt_.atol + opt_.rtol * y_.cwiseAbs().array()).matrix();  // sk (scratch: no allocation)
  const double dnf = (k1_.array() / err_.array()).square().sum();
  const double dny = (y_.array() / err_.array()).square().sum();
  double h = (dnf <= 1e-10 || dny <= 1e-10) ? 1e-6 : std::sqrt(dny / dnf) * 0.01;
  h = std::min(h, hmax);
  yt_ = y_ + h * k1_;
  const AccelerationStatus st = evaluate(t + h, yt_, k2_);
  if (!st.ok()) return std::min(h, hmax);
  const double der2 = std::sqrt(((k2_ - k1_).array() / err_.array()).square().sum()) / h;
  const double der12 = std::max(std::abs(der2), std::sqrt(dnf));
  const double h1 = der12 <= 1e-15 ? std::max(1e-6, std::abs(h) * 1e-3) : std::pow(0.01 / der12, 0.25);
  return std::min({100 * std::abs(h), h1, hmax});
}

// long: one adaptive step in the order of the method (stages, error estimate, acceptance,
// step-size control), each commented; the same structure as Dopri5Integrator::advance.
StepResult RkmIntegrator::advance(double tLimit) {
  StepResult r;
  r.tOld = state_.t;
  const AccelerationStatus st0 = ensureDerivative();  // k1 (no first same as last)
  if (!st0.finite) failNonFinite(state_.t, st0, "at an accepted state");
  if (!st0.ok()) {
    r.ok = false;
    r.status = st0;
    r.t = state_.t;
    r.tNew = state_.t;
    return r;
  }
  const double hmax = opt_.maxStep > 0 ? opt_.maxStep : std::numeric_limits<double>::infinity();
  if (opt_.fixedStep)
    h_ = opt_.initialStep;
  else if (!(h_ > 0))
    h_ = initialStep(tLimit);

  detail::TrialFailure lastFailure;
  const double N = static_cast<double>(2 * n_);
  for (;;) {
    const double t = state_.t;
    const double hmin = opt_.minStep > 0 ? opt_.minStep : 1e-12 * std::max(1.0, std::abs(t));
    if (!opt_.fixedStep && h_ < hmin) return detail::stepSizeCollapse("rkm", t, h_, hmin, lastFailure, state_.t);
    double h = std::min(h_, hmax);
    bool last = false;
    if (t + 1.01 * h >= tLimit) {
      h = tLimit - t;
      last = true;
    }
    // stages
    bool failed = false;
    AccelerationStatus st;
    double tFail = t;
    const auto stage = [&](double c, VectorXd& k) {
      if (failed) return;
      st = evaluate(t + c * h, yt_, k);
      if (!st.ok()) {
        failed = true;
        tFail = t + c * h;
      }
    };
    yt_ = y_ + (h * a21) * k1_;
    stage(c2, k2_);
    if (!failed) yt_ = y_ + h * (a31 * k1_ + a32 * k2_);
    stage(c3, k3_);
    if (!failed) yt_ = y_ + h * (a41 * k1_ + a43 * k3_);
    stage(c4, k4_);
    if (!failed) yt_ = y_ + h * (a51 * k1_ + a53 * k3_ + a54 * k4_);
    stage(1.0, k5_);
    double errn = 0;
    if (!failed) {
      y1_ = y_ + h * (b1 * k1_ + b4 * k4_ + b5 * k5_);
      err_ = h * (e1 * k1_ + e3 * k3_ + e4 * k4_ + e5 * k5_);
      const auto sk = opt_.atol + opt_.rtol * y_.cwiseAbs().cwiseMax(y1_.cwiseAbs()).array();
      errn = std::sqrt((err_.array() / sk).square().sum() / N);
      if (!std::isfinite(errn) || !y1_.allFinite()) {
        failed = true;
        st.finite = false;
        st.message = "non-finite error estimate";
        tFail = t + h;
      }
    }
    if (failed) {
      if (opt_.fixedStep) {
        if (!st.finite) failNonFinite(tFail, st, "fixed-step rkm stage");
        r.ok = false;
        r.status = st;
        r.t = tFail;
        r.tNew = state_.t;
        return r;
      }
      ++stats_.rejected;
      lastFailure = {true, st, tFail};
      h_ = h * kFailShrink;
      lastRejected_ = true;
      continue;
    }
    errLast_ = errn;
    if (opt_.fixedStep) errn = 0;
    // PI step-size controller
    const double hnew = detail::PiStep::next(h, errn, facold_, lastRejected_);
    if (errn <= 1.0) {
      // accept: k1 of the next step is evaluated at the state after drift control
      y0_ = y_;
      tOld_ = t;
      hLast_ = h;
      y_ = y1_;
      storeY(last ? tLimit : t + h);
      noteStep(h);
      haveDerivative_ = false;
      haveStep_ = true;
      // a step cut short to land on tLimit does not shrink the next one
      if (!(last && h < h_)) h_ = std::min(hnew, hmax);
      r.ok = true;
      r.tNew = state_.t;
      return r;
    }
    ++stats_.rejected;
    h_ = hnew;
  }
}

void RkmIntegrator::interpolate(double t, State& out) {
  if (!haveStep_) throw SimulationError("rkm: no step to interpolate in");
  // k1_ still holds the last step's first stage: the next advance() re-evaluates it
  const double h = hLast_;
  const double theta = std::clamp((t - tOld_) / h, 0.0, 1.0);
  const DenseWeights w = denseWeights(theta);
  inner_ = y0_ + h * (w.w1 * k1_ + w.w3 * k3_ + w.w4 * k4_ + w.w5 * k5_);
  out.t = t;
  out.q = inner_.head(n_);
  out.v = inner_.tail(n_);
}

}  // namespace joinery
