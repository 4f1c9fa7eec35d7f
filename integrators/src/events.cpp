// Event location inside a step (events.hpp, docs/contact.md).
#include "joinery/integrators/events.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace joinery {

EventLocator::EventLocator(DynamicSystem& system, OneSidedEvents& events) : system_(system), events_(events) {
  const int k = events_.numEventFunctions();
  prev_ = VectorXd::Zero(k);
  now_ = VectorXd::Zero(k);
  probe_ = VectorXd::Zero(k);
  shift_ = VectorXd::Zero(k);
  const int n = system_.numCoordinates();
  a0_ = VectorXd::Zero(n);
  a1_ = VectorXd::Zero(n);
}

double EventLocator::timeTolerance(double t) { return 1e-12 * std::max(1.0, std::abs(t)); }

void EventLocator::start(const State& s) {
  if (prev_.size() == 0) return;
  events_.calcEventFunctions(s, prev_);
  // a function a little below zero where a piece starts (the state just past an event, or a
  // row the event left slightly inside its tolerance) is watched from there: shifted to 0, so
  // that a crossing inside the next step (a rebound shorter than a step) is not missed
  shift_ = (-prev_).cwiseMax(0.0);
  prev_ += shift_;
}

double EventLocator::minTriggered(const VectorXd& values) const {
  double m = std::numeric_limits<double>::infinity();
  for (int i : triggered_) m = std::min(m, values(i) + shift_(i));
  return m;
}

void EventLocator::stateAt(Integrator& integ, const State& before, double t, State& out) {
  if (integ.hasDenseOutput()) {
    integ.interpolate(t, out);
    return;
  }
  // cubic Hermite on (q, q') with the derivatives (q', q'') at both ends (rk4: no dense output)
  const State& after = integ.state();
  if (!haveA_) {
    system_.calcAccelerations(before, a0_);
    system_.calcAccelerations(after, a1_);
    haveA_ = true;
  }
  const double h = after.t - before.t, th = (t - before.t) / h;
  const double h00 = (1 + 2 * th) * (1 - th) * (1 - th), h10 = th * (1 - th) * (1 - th);
  const double h01 = th * th * (3 - 2 * th), h11 = th * th * (th - 1);
  out.t = t;
  out.q = h00 * before.q + h10 * h * before.v + h01 * after.q + h11 * h * after.v;
  out.v = h00 * before.v + h10 * h * a0_ + h01 * after.v + h11 * h * a1_;
}

bool EventLocator::check(Integrator& integ, const State& before, State& at) {
  iterations_ = 0;
  if (prev_.size() == 0) return false;
  const State& after = integ.state();
  events_.calcEventFunctions(after, now_);
  triggered_.clear();
  for (int i = 0; i < now_.size(); ++i)
    if (prev_(i) >= 0 && now_(i) + shift_(i) < 0) triggered_.push_back(i);
  if (triggered_.empty()) {
    // the step is accepted: the system may move its functions' references (docs/contact.md)
    events_.acceptStep(after, now_);  // (rewrites now_ where a reference moved)
    prev_ = now_ + shift_;
    return false;
  }
  // Illinois (modified regula falsi) on F(t) = min over the triggered functions, F(lo) >= 0 > F(hi)
  haveA_ = false;
  double lo = before.t, hi = after.t;
  double flo = std::numeric_limits<double>::infinity(), fhi = minTriggered(now_);
  for (int i : triggered_) flo = std::min(flo, prev_(i));  // (prev_ is shifted already)
  int side = 0;
  at = after;
  State probe = after;
  const double tol = timeTolerance(hi);
  while (hi - lo > tol && iterations_ < 200) {
    ++iterations_;
    double t = (flo * hi - fhi * lo) / (flo - fhi);
    // keep inside, and bisect when regula falsi stalls on one side
    if (!(t > lo && t < hi) || iterations_ % 8 == 0) t = 0.5 * (lo + hi);
    stateAt(integ, before, t, probe);
    // the triggered functions alone: a gap needs no solve
    events_.calcSomeEventFunctions(probe, probe_, triggered_);
    const double f = minTriggered(probe_);
    if (f < 0) {
      hi = t;
      fhi = f;
      at = probe;
      if (side == -1) flo *= 0.5;
      side = -1;
    } else {
      lo = t;
      flo = f;
      if (side == 1) fhi *= 0.5;
      side = 1;
    }
  }
  if (at.t != hi) stateAt(integ, before, hi, at);
  return true;
}

}  // namespace joinery
