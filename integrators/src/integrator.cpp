// Integrator base and classical RK4 (fixed step).
#include "joinery/integrators/integrator.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "joinery/core/assert.hpp"
#include "joinery/core/errors.hpp"

namespace joinery {

Integrator::Integrator(DynamicSystem& system, Baumgarte stab)
    : system_(system), stab_(stab), n_(system.numCoordinates()) {
  state_.q = VectorXd::Zero(n_);
  state_.v = VectorXd::Zero(n_);
  work_.q = VectorXd::Zero(n_);
  work_.v = VectorXd::Zero(n_);
  y_ = VectorXd::Zero(2 * n_);
  k1_ = VectorXd::Zero(2 * n_);
}

Integrator::~Integrator() = default;

void Integrator::reset(const State& s) {
  if (s.q.size() != n_ || s.v.size() != n_) {
    std::ostringstream os;
    os << "integrator state has " << s.q.size() << " coordinates and " << s.v.size()
       << " velocities; the system has " << n_;
    throw SimulationError(os.str());
  }
  state_.t = s.t;
  state_.q = s.q;
  state_.v = s.v;
  haveDerivative_ = false;
  ++resets_;
}

void Integrator::interpolate(double t, State& out) {
  (void)t;
  (void)out;
  throw SimulationError(std::string("integrator ") + name() + " has no dense output");
}

void Integrator::loadY() {
  y_.head(n_) = state_.q;
  y_.tail(n_) = state_.v;
}

void Integrator::storeY(double t) {
  JOINERY_ASSERT(y_.size() == 2 * n_ && state_.q.size() == n_, "integrator: y of 2n entries, q of n");
  state_.t = t;
  state_.q = y_.head(n_);
  state_.v = y_.tail(n_);
}

AccelerationStatus Integrator::evaluate(double t, const VectorXd& y, VectorXd& dy) {
  JOINERY_ASSERT(y.size() == 2 * n_ && dy.size() == 2 * n_, "integrator: y and y' of 2n entries");
  work_.t = t;
  work_.q = y.head(n_);
  work_.v = y.tail(n_);
  dy.head(n_) = y.tail(n_);
  AccelerationStatus st = system_.calcAccelerations(work_, dy.tail(n_), stab_);
  ++stats_.evaluations;
  if (st.redundant > 0) {
    ++stats_.redundantEvaluations;
    stats_.maxRedundant = std::max(stats_.maxRedundant, st.redundant);
  }
  if (st.leastSquares) {
    ++stats_.leastSquaresEvaluations;
    stats_.maxToleratedInconsistency = std::max(stats_.maxToleratedInconsistency, st.inconsistency);
  }
  if (st.finite && !(y.allFinite() && dy.allFinite())) {
    st.finite = false;
    const bool badState = !y.allFinite();
    const VectorXd& bad = badState ? y : dy;
    const auto& names = system_.coordinateNames();
    std::ostringstream os;
    os << "non-finite " << (badState ? "state" : "accelerations") << " at t = " << t;
    for (Eigen::Index i = 0; i < bad.size(); ++i) {
      if (std::isfinite(bad(i))) continue;
      const auto c = static_cast<std::size_t>(i % n_);
      const std::string nm = c < names.size() ? names[c] : "q[" + std::to_string(c) + "]";
      const std::string what = badState ? (i < n_ ? nm : nm + "_dot") : nm + "''";
      os << " (" << what << " = " << bad(i) << ")";
      break;
    }
    st.message = os.str();
  }
  return st;
}

AccelerationStatus Integrator::ensureDerivative() {
  if (!haveDerivative_) {
    loadY();
    currentStatus_ = evaluate(state_.t, y_, k1_);
    haveDerivative_ = true;
  }
  return currentStatus_;
}

void Integrator::noteStep(double h) {
  ++stats_.steps;
  if (stats_.steps == 1) {
    stats_.minStep = h;
    stats_.maxStep = h;
  } else {
    stats_.minStep = std::min(stats_.minStep, h);
    stats_.maxStep = std::max(stats_.maxStep, h);
  }
}

void Integrator::failNonFinite(double t, const AccelerationStatus& st, const char* where) const {
  std::ostringstream os;
  os << name() << ": " << (st.message.empty() ? "non-finite value" : st.message) << " (" << where
     << ", t = " << t << ")";
  throw SimulationError(os.str());
}

// ---- RK4 -------------------------------------------------------------------------------

namespace {
constexpr int kMaxHalvings = 8;
}

Rk4Integrator::Rk4Integrator(DynamicSystem& system, double step, Baumgarte stab)
    : Integrator(system, stab), h_(step) {
  if (!(step > 0) || !std::isfinite(step)) throw SimulationError("rk4: the step must be > 0");
  k2_ = VectorXd::Zero(2 * n_);
  k3_ = VectorXd::Zero(2 * n_);
  k4_ = VectorXd::Zero(2 * n_);
  yt_ = VectorXd::Zero(2 * n_);
}

StepResult Rk4Integrator::advance(double tLimit) {
  StepResult r;
  r.tOld = state_.t;
  const AccelerationStatus st = ensureDerivative();
  if (!st.finite) failNonFinite(state_.t, st, "at an accepted state");
  if (!st.ok()) {
    r.ok = false;
    r.status = st;
    r.t = state_.t;
    r.tNew = state_.t;
    return r;
  }
  const double remaining = tLimit - state_.t;
  // shorten the step evenly so that tLimit is hit exactly
  const double nsub = std::max(1.0, std::ceil(remaining / h_ - 1e-9));
  const double h = remaining / nsub;
  const double tNew = nsub == 1.0 ? tLimit : state_.t + h;
  return substep(h, tNew, 0);
}

StepResult Rk4Integrator::substep(double h, double tNew, int depth) {
  StepResult r;
  r.tOld = state_.t;
  const double t = state_.t;
  // y_ and k1_ are valid at state_
  AccelerationStatus st;
  double tFail = t;
  bool failed = false;
  const auto stage = [&](const VectorXd& k, double c, double a, VectorXd& out) {
    if (failed) return;
    yt_ = y_ + (a * h) * k;
    st = evaluate(t + c * h, yt_, out);
    if (!st.ok()) {
      failed = true;
      tFail = t + c * h;
    }
  };
  stage(k1_, 0.5, 0.5, k2_);
  stage(k2_, 0.5, 0.5, k3_);
  stage(k3_, 1.0, 1.0, k4_);
  if (!failed) {
    yt_ = y_ + (h / 6.0) * (k1_ + 2.0 * k2_ + 2.0 * k3_ + k4_);
    if (!yt_.allFinite()) {
      failed = true;
      st.finite = false;
      st.message = "non-finite state after the step";
      tFail = tNew;
    }
  }
  if (failed) {
    ++stats_.rejected;
    if (depth >= kMaxHalvings) {
      if (!st.finite) failNonFinite(tFail, st, "rk4 stage, step halved 8 times");
      r.ok = false;
      r.status = st;
      r.t = tFail;
      r.tNew = state_.t;
      return r;
    }
    // retry as two half steps (no drift control in between)
    const double tMid = t + 0.5 * h;
    StepResult first = substep(0.5 * h, tMid, depth + 1);
    if (!first.ok) return first;
    const AccelerationStatus mid = ensureDerivative();
    if (!mid.finite) failNonFinite(state_.t, mid, "at an intermediate state");
    if (!mid.ok()) {
      r.ok = false;
      r.status = mid;
      r.t = state_.t;
      r.tNew = state_.t;
      return r;
    }
    StepResult second = substep(0.5 * h, tNew, depth + 1);
    second.tOld = r.tOld;
    return second;
  }
  y_ = yt_;
  storeY(tNew);
  haveDerivative_ = false;
  noteStep(h);
  r.ok = true;
  r.tNew = tNew;
  return r;
}

}  // namespace joinery
