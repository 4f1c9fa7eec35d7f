// The adaptive step of the explicit embedded Runge–Kutta pairs (dopri5.cpp, rkm.cpp give the
// tableaux and the dense outputs): stages from the Butcher tableau, Hairer's error norm and PI
// controller, and the rules of StepSizeRule (step_control.hpp) for failed stages, the minimum
// step and the last step before a limit. Error norm, controller, initial step and the
// rejection of failed stages as in Hairer's code DOPRI5 (Hairer, Nørsett & Wanner, Solving
// Ordinary Differential Equations I, 2nd ed., §II.4 and the code listing).
#include <algorithm>
#include <cmath>
#include <limits>

#include "joinery/core/assert.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/integrators/integrator.hpp"
#include "step_control.hpp"

namespace joinery {

EmbeddedRkIntegrator::EmbeddedRkIntegrator(DynamicSystem& system, const ButcherTableau& tab, EmbeddedRkOptions opt,
                                           Baumgarte stab)
    : Integrator(system, stab), tab_(tab), opt_(opt) {
  JOINERY_ASSERT(tab_.stages >= 2 && tab_.stages <= ButcherTableau::kMaxStages, "embedded RK: 2 to 7 stages");
  if (!opt_.fixedStep && !(opt_.rtol > 0 || opt_.atol > 0))
    throw SimulationError(std::string(tab_.name) + ": rtol or atol must be > 0");
  if (opt_.fixedStep && !(opt_.initialStep > 0))
    throw SimulationError(std::string(tab_.name) + ": a fixed step needs initialStep > 0");
  k_.assign(static_cast<std::size_t>(tab_.stages - 1), VectorXd::Zero(2 * n_));
  for (VectorXd* v : {&yt_, &y0_, &y1_, &err_, &inner_}) *v = VectorXd::Zero(2 * n_);
}

namespace {

/// out = y + h sum_j w_j k_j (AddY) or h sum_j w_j k_j, T terms, in one pass over the entries:
/// the sum left to right, as the expression w_0 k_0 + w_1 k_1 + ... would be evaluated.
template <int T, bool AddY>
void embeddedRkCombine(double* __restrict out, const double* __restrict y, double h, const double* w,
                       const double* const* k, Eigen::Index n) {
  for (Eigen::Index i = 0; i < n; ++i) {
    double acc = w[0] * k[0][i];
    for (int j = 1; j < T; ++j) acc += w[j] * k[j][i];
    if constexpr (AddY) out[i] = y[i] + h * acc;
    else out[i] = h * acc;
  }
}

template <bool AddY>
void embeddedRkCombine(int terms, double* out, const double* y, double h, const double* w, const double* const* k,
                       Eigen::Index n) {
  switch (terms) {
    case 1: return embeddedRkCombine<1, AddY>(out, y, h, w, k, n);
    case 2: return embeddedRkCombine<2, AddY>(out, y, h, w, k, n);
    case 3: return embeddedRkCombine<3, AddY>(out, y, h, w, k, n);
    case 4: return embeddedRkCombine<4, AddY>(out, y, h, w, k, n);
    case 5: return embeddedRkCombine<5, AddY>(out, y, h, w, k, n);
    case 6: return embeddedRkCombine<6, AddY>(out, y, h, w, k, n);
    default: return embeddedRkCombine<7, AddY>(out, y, h, w, k, n);
  }
}

}  // namespace

void EmbeddedRkIntegrator::combine(VectorXd& out, const VectorXd* y, double h, const double* w, int count) const {
  JOINERY_ASSERT(count >= 1 && count <= tab_.stages && out.size() == 2 * n_, "embedded RK: a stage combination");
  double coef[ButcherTableau::kMaxStages];
  const double* k[ButcherTableau::kMaxStages];
  int terms = 0;
  for (int j = 0; j < count; ++j) {
    if (w[j] == 0) continue;
    coef[terms] = w[j];
    k[terms++] = stage(j).data();
  }
  if (terms == 0) {
    if (y) out = *y;
    else out.setZero();
    return;
  }
  if (terms == 1 && y) {  // y + (h w) k, as written for a one-term row
    coef[0] *= h;
    h = 1.0;
  }
  if (y) embeddedRkCombine<true>(terms, out.data(), y->data(), h, coef, k, out.size());
  else embeddedRkCombine<false>(terms, out.data(), nullptr, h, coef, k, out.size());
}

double EmbeddedRkIntegrator::initialStep(double tLimit) {
  const double t = state_.t;
  const double span = tLimit - t;
  double hmax = opt_.maxStep > 0 ? opt_.maxStep : span;
  hmax = std::min(hmax, span);
  if (opt_.initialStep > 0) return std::min(opt_.initialStep, hmax);
  // Hairer's HINIT: h from |y| / |f| and an estimate of the second derivative; the last
  // exponent is 1 / (the method's order)
  VectorXd& k2 = k_[0];
  err_ = (opt_.atol + opt_.rtol * y_.cwiseAbs().array()).matrix();  // sk (scratch: no allocation)
  const double dnf = (k1_.array() / err_.array()).square().sum();
  const double dny = (y_.array() / err_.array()).square().sum();
  double h = (dnf <= 1e-10 || dny <= 1e-10) ? 1e-6 : std::sqrt(dny / dnf) * 0.01;
  h = std::min(h, hmax);
  yt_ = y_ + h * k1_;
  const AccelerationStatus st = evaluate(t + h, yt_, k2);
  if (!st.ok()) return std::min(h, hmax);
  const double der2 = std::sqrt(((k2 - k1_).array() / err_.array()).square().sum()) / h;
  const double der12 = std::max(std::abs(der2), std::sqrt(dnf));
  const double h1 = der12 <= 1e-15 ? std::max(1e-6, std::abs(h) * 1e-3)
                                   : std::pow(0.01 / der12, 1.0 / static_cast<double>(tab_.order));
  return std::min({100 * std::abs(h), h1, hmax});
}

// long: one adaptive step in the order of the method (stages, error estimate, acceptance,
// step-size control), each commented.
StepResult EmbeddedRkIntegrator::advance(double tLimit) {
  StepResult r;
  r.tOld = state_.t;
  const int s = tab_.stages;
  ++advances_;
  // first same as last: the last stage of the last step is y' at the current state unless
  // reset since
  if (fsal_ && resets_ == resetsAtStep_ && !haveDerivative_) {
    k1_ = k_.back();
    loadY();
    currentStatus_ = statusLast_;
    haveDerivative_ = true;
  }
  fsal_ = false;
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
    const double hmin = detail::StepSizeRule::minStep(opt_.minStep, t);
    if (!opt_.fixedStep && h_ < hmin) return detail::stepSizeCollapse(tab_.name, t, h_, hmin, lastFailure, state_.t);
    const detail::TrialStep trial = detail::StepSizeRule::towards(t, std::min(h_, hmax), tLimit);
    const double h = trial.h;
    const bool last = trial.last;
    // stages 2..s at y + h sum_j a_ij k_j (a one-term row as (h a) k)
    bool failed = false;
    AccelerationStatus st;
    double tFail = t;
    for (int i = 1; i < s && !failed; ++i) {
      VectorXd& ki = k_[static_cast<std::size_t>(i - 1)];
      if (tab_.fsal && i == s - 1) {
        combine(y1_, &y_, h, tab_.b, s);
        yt_ = y1_;
      } else {
        combine(yt_, &y_, h, tab_.a[i], i);
      }
      st = evaluate(t + tab_.c[i] * h, yt_, ki);
      if (!st.ok()) {
        failed = true;
        tFail = t + tab_.c[i] * h;
      }
    }
    double errn = 0;
    if (!failed) {
      if (!tab_.fsal) combine(y1_, &y_, h, tab_.b, s);
      combine(err_, nullptr, h, tab_.e, s);
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
        if (!st.finite) failNonFinite(tFail, st, (std::string("fixed-step ") + tab_.name + " stage").c_str());
        r.ok = false;
        r.status = st;
        r.t = tFail;
        r.tNew = state_.t;
        return r;
      }
      ++stats_.rejected;
      lastFailure = {true, st, tFail};
      h_ = h * detail::StepSizeRule::kFailShrink;
      lastRejected_ = true;
      continue;
    }
    errLast_ = errn;
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
      if (tab_.fsal) {
        fsal_ = true;
        resetsAtStep_ = resets_;
        statusLast_ = st;
      }
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

void EmbeddedRkIntegrator::adjust(const State& s) {
  const bool keep = tab_.fsal && fsal_ && resets_ == resetsAtStep_ && !opt_.fixedStep && s.t == state_.t &&
                    s.q.size() == n_ && s.v.size() == n_ && [&] {
                      for (Eigen::Index i = 0; i < n_; ++i) {
                        const double wq = kFsalKeep * (opt_.atol + opt_.rtol * std::abs(state_.q(i)));
                        const double wv = kFsalKeep * (opt_.atol + opt_.rtol * std::abs(state_.v(i)));
                        if (!(std::abs(s.q(i) - state_.q(i)) <= wq) || !(std::abs(s.v(i) - state_.v(i)) <= wv)) return false;
                      }
                      return true;
                    }();
  if (!keep) return reset(s);
  state_.q = s.q;  // the last stage stays the derivative used for the next step's first stage
  state_.v = s.v;
  ++fsalKept_;
}

}  // namespace joinery
