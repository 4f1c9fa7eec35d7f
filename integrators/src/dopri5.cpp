// Dormand–Prince 5(4) with PI step-size control and dense output.
// Coefficients and controller as in Hairer's code DOPRI5 (Hairer, Nørsett & Wanner,
// Solving Ordinary Differential Equations I, 2nd ed., §II.5, II.6 and the code listing).
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
constexpr double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
// Runge-Kutta matrix
constexpr double a21 = 1.0 / 5;
constexpr double a31 = 3.0 / 40, a32 = 9.0 / 40;
constexpr double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176,
                 a65 = -5103.0 / 18656;
constexpr double a71 = 35.0 / 384, a73 = 500.0 / 1113, a74 = 125.0 / 192, a75 = -2187.0 / 6784,
                 a76 = 11.0 / 84;
// error estimate: 5th order minus embedded 4th order
constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200,
                 e6 = 22.0 / 525, e7 = -1.0 / 40;
// dense output (4th-order continuous extension)
constexpr double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0,
                 d4 = -10690763975.0 / 1880347072.0, d5 = 701980252875.0 / 199316789632.0,
                 d6 = -1453857185.0 / 822651844.0, d7 = 69997945.0 / 29380423.0;
constexpr double kFailShrink = 0.25;
}  // namespace

Dopri5Integrator::Dopri5Integrator(DynamicSystem& system, Dopri5Options opt, Baumgarte stab)
    : Integrator(system, stab), opt_(opt) {
  if (!opt_.fixedStep && !(opt_.rtol > 0 || opt_.atol > 0))
    throw SimulationError("dopri5: rtol or atol must be > 0");
  if (opt_.fixedStep && !(opt_.initialStep > 0))
    throw SimulationError("dopri5: a fixed step needs initialStep > 0");
  for (VectorXd* v : {&k2_, &k3_, &k4_, &k5_, &k6_, &k7_, &yt_, &y0_, &y1_, &err_, &dense_, &inner_})
    *v = VectorXd::Zero(2 * n_);
}

double Dopri5Integrator::initialStep(double tLimit) {
  const double t = state_.t;
  const double span = tLimit - t;
  double hmax = opt_.maxStep > 0 ? opt_.maxStep : span;
  hmax = std::min(hmax, span);
  if (opt_.initialStep > 0) return std::min(opt_.initialStep, hmax);
  // Hairer's HINIT: h from |y| / |f| and an estimate of the second derivative
  const VectorXd sk = (opt_.atol + opt_.rtol * y_.cwiseAbs().array()).matrix();
  const double dnf = (k1_.array() / sk.array()).square().sum();
  const double dny = (y_.array() / sk.array()).square().sum();
  double h = (dnf <= 1e-10 || dny <= 1e-10) ? 1e-6 : std::sqrt(dny / dnf) * 0.01;
  h = std::min(h, hmax);
  yt_ = y_ + h * k1_;
  const AccelerationStatus st = evaluate(t + h, yt_, k2_);
  if (!st.ok()) return std::min(h, hmax);
  const double der2 = std::sqrt(((k2_ - k1_).array() / sk.array()).square().sum()) / h;
  const double der12 = std::max(std::abs(der2), std::sqrt(dnf));
  const double h1 = der12 <= 1e-15 ? std::max(1e-6, std::abs(h) * 1e-3) : std::pow(0.01 / der12, 0.2);
  return std::min({100 * std::abs(h), h1, hmax});
}

// long: one adaptive step in the order of the method (stages, error estimate, acceptance,
// step-size control, dense-output coefficients), each commented.
StepResult Dopri5Integrator::advance(double tLimit) {
  StepResult r;
  r.tOld = state_.t;
  // first same as last: k7 of the last step is y' at the current state unless reset since
  if (fsal_ && resets_ == resetsAtStep_ && !haveDerivative_) {
    k1_ = k7_;
    loadY();
    currentStatus_ = status7_;
    haveDerivative_ = true;
  }
  fsal_ = false;
  haveDense_ = false;
  const AccelerationStatus st0 = ensureDerivative();
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
    if (!opt_.fixedStep && h_ < hmin) return detail::stepSizeCollapse("dopri5", t, h_, hmin, lastFailure, state_.t);
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
    if (!failed) yt_ = y_ + h * (a41 * k1_ + a42 * k2_ + a43 * k3_);
    stage(c4, k4_);
    if (!failed) yt_ = y_ + h * (a51 * k1_ + a52 * k2_ + a53 * k3_ + a54 * k4_);
    stage(c5, k5_);
    if (!failed) yt_ = y_ + h * (a61 * k1_ + a62 * k2_ + a63 * k3_ + a64 * k4_ + a65 * k5_);
    stage(1.0, k6_);
    if (!failed) {
      y1_ = y_ + h * (a71 * k1_ + a73 * k3_ + a74 * k4_ + a75 * k5_ + a76 * k6_);
      yt_ = y1_;
    }
    stage(1.0, k7_);
    double errn = 0;
    if (!failed) {
      err_ = h * (e1 * k1_ + e3 * k3_ + e4 * k4_ + e5 * k5_ + e6 * k6_ + e7 * k7_);
      const auto sk = opt_.atol + opt_.rtol * y_.cwiseAbs().cwiseMax(y1_.cwiseAbs()).array();
      errn = std::sqrt((err_.array() / sk).square().sum() / N);
      if (!std::isfinite(errn)) {
        failed = true;
        st.finite = false;
        st.message = "non-finite error estimate";
        tFail = t + h;
      }
    }
    if (failed) {
      if (opt_.fixedStep) {
        if (!st.finite) failNonFinite(tFail, st, "fixed-step dopri5 stage");
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
    if (opt_.fixedStep) errn = 0;
    // PI step-size controller
    const double hnew = detail::PiStep::next(h, errn, facold_, lastRejected_);
    if (errn <= 1.0) {
      // accept
      y0_ = y_;
      tOld_ = t;
      hLast_ = h;
      y_ = y1_;
      storeY(last ? tLimit : t + h);
      noteStep(h);
      fsal_ = true;
      resetsAtStep_ = resets_;
      status7_ = st;
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

void Dopri5Integrator::adjust(const State& s) {
  const bool keep = fsal_ && resets_ == resetsAtStep_ && !opt_.fixedStep && s.t == state_.t &&
                    s.q.size() == n_ && s.v.size() == n_ && [&] {
                      for (Eigen::Index i = 0; i < n_; ++i) {
                        const double wq = kFsalKeep * (opt_.atol + opt_.rtol * std::abs(state_.q(i)));
                        const double wv = kFsalKeep * (opt_.atol + opt_.rtol * std::abs(state_.v(i)));
                        if (!(std::abs(s.q(i) - state_.q(i)) <= wq) || !(std::abs(s.v(i) - state_.v(i)) <= wv)) return false;
                      }
                      return true;
                    }();
  if (!keep) return reset(s);
  state_.q = s.q;  // k7 stays the derivative used for the next step's first stage
  state_.v = s.v;
  ++fsalKept_;
}

void Dopri5Integrator::interpolate(double t, State& out) {
  if (!haveStep_) throw SimulationError("dopri5: no step to interpolate in");
  if (!haveDense_) {
    // rcont: y(theta) = y0 + theta (ydiff + theta1 (bspl + theta (r4 + theta1 r5)))
    const double h = hLast_;
    dense_ = h * (d1 * k1_ + d3 * k3_ + d4 * k4_ + d5 * k5_ + d6 * k6_ + d7 * k7_);
    haveDense_ = true;
  }
  const double h = hLast_;
  const double theta = std::clamp((t - tOld_) / h, 0.0, 1.0);
  const double theta1 = 1.0 - theta;
  // ydiff = y1 - y0, bspl = h k1 - ydiff, r4 = ydiff - h k7 - bspl
  yt_ = y1_ - y0_;  // ydiff
  err_ = h * k1_ - yt_;  // bspl
  // y = y0 + theta*(ydiff + theta1*(bspl + theta*(ydiff - h k7 - bspl + theta1*r5)))
  inner_ = (yt_ - h * k7_ - err_) + theta1 * dense_;
  inner_ = y0_ + theta * (yt_ + theta1 * (err_ + theta * inner_));  // y (element-wise: no aliasing)
  out.t = t;
  out.q = inner_.head(n_);
  out.v = inner_.tail(n_);
}

}  // namespace joinery
