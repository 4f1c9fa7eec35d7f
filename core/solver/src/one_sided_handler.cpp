// One-sided rows during a run: event functions, impacts, the active set (one_sided_handler.hpp,
// docs/contact.md).
#include "joinery/core/one_sided_handler.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "impulse_recovery.hpp"

namespace joinery {

OneSidedHandler::OneSidedHandler(ModelSystem& system, OneSidedOptions options)
    : system_(system), model_(system.model()), opt_(options) {
  for (const RowBlock& rb : model_.rowBlocks()) {
    if (rb.constraint == nullptr) continue;
    const OneSidedRows* rows = oneSidedRows(*rb.constraint);
    if (rows == nullptr) continue;
    for (int k = 0; k < rows->count(); ++k) {
      rows->resetRunState(k);  // not what an earlier run of the same model left
      const int tangent = rows->tangentRow(k), tangent2 = rows->tangentRow2(k);
      if (tangent >= 0) friction_.push_back(static_cast<int>(candidates_.size()));
      candidates_.push_back({rb.constraint, rows, k, rb.row + rows->localRow(k), rb.constraint->numLocalCoordinates(),
                             tangent >= 0 ? rb.row + tangent : -1, rows->friction(),
                             tangent >= 0 && tangent2 >= 0 ? rb.row + tangent2 : -1});
    }
  }
  qdd_ = VectorXd::Zero(model_.numCoordinates());
}

std::string OneSidedHandler::candidateName(int i) const {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  const std::string& label = c.rows->label(c.k);
  return label.empty() ? c.joint->name() : c.joint->name() + " (" + label + ")";
}

namespace {
/// A friction mode that slips (planar +1 / -1, spatial kSlip).
bool isSlipMode(int mode) { return mode == 1 || mode == -1 || mode == OneSidedRows::kSlip; }

LocalState localState(const Model& model, const State& s, const Constraint& c, std::vector<BodyStateView>& views) {
  views.clear();
  for (const Body* b : c.bodies()) {
    const BodySlot& slot = model.slotOf(*b);
    views.push_back({b, s.q.data() + slot.offset, s.v.data() + slot.offset, slot.size});
  }
  LocalState ls;
  ls.t = s.t;
  ls.bodies = std::span<const BodyStateView>(views);
  return ls;
}

/// The local vector of global `x` over the bodies of `c`.
void gather(const Model& model, const Constraint& c, const VectorXd& x, VectorXd& out) {
  out.resize(c.numLocalCoordinates());
  int o = 0;
  for (const Body* b : c.bodies()) {
    const BodySlot& slot = model.slotOf(*b);
    out.segment(o, slot.size) = x.segment(slot.offset, slot.size);
    o += slot.size;
  }
}
}  // namespace

double OneSidedHandler::calcGap(const State& s, int i) {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  return c.rows->calcGap(localState(model_, s, *c.joint, views_), c.k);
}

const VectorXd& OneSidedHandler::row(const State& s, int i, double& b) {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  aRow_.resize(c.columns);
  Eigen::Map<MatrixXd> a(aRow_.data(), 1, c.columns);
  c.rows->calcRow(localState(model_, s, *c.joint, views_), c.k, a, b);
  return aRow_;
}

double OneSidedHandler::calcRowRate(const State& s, int i) {
  double b = 0;
  const VectorXd& a = row(s, i, b);
  gather(model_, *candidates_[static_cast<std::size_t>(i)].joint, s.v, local_);
  return a.dot(local_);
}

double OneSidedHandler::calcJointGap(const State& s, const Constraint& c) {
  double g = std::nan("");
  for (int i = 0; i < static_cast<int>(candidates_.size()); ++i)
    if (candidates_[static_cast<std::size_t>(i)].joint == &c) {
      const double gi = calcGap(s, i);
      g = std::isnan(g) ? gi : std::min(g, gi);
    }
  return g;
}

void OneSidedHandler::setActive(int i, bool on, double target) {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  // the rows at a state changed: a factorization kept for that state (reused when q and t are
  // the same) is not theirs any more. (setActive, setFriction and setSlip are the only places
  // the rows change, so the handler forgets nothing else: what it solved last with the final
  // set, at the resolved state, serves the integrator's restart there.)
  if (c.rows->active(c.k) != on || c.rows->velocityTarget(c.k) != target) system_.forgetCachedState();
  c.rows->setActive(c.k, on);
  c.rows->setVelocityTarget(c.k, target);
}

double OneSidedHandler::speedScale(const State& s) const {
  return opt_.speedTolerance * (1.0 + (s.v.size() ? s.v.cwiseAbs().maxCoeff() : 0.0));
}

double OneSidedHandler::calcSlidingVelocity(const State& s, int i) {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  if (c.tangent < 0) return 0;
  double b = 0;
  const VectorXd& a = tangentRow(s, i, b);
  gather(model_, *c.joint, s.v, local_);
  return a.dot(local_);
}

const VectorXd& OneSidedHandler::tangentRow(const State& s, int i, double& b) {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  aT_.resize(c.columns);
  Eigen::Map<MatrixXd> a(aT_.data(), 1, c.columns);
  c.rows->calcTangentRow(localState(model_, s, *c.joint, views_), c.k, a, b);
  return aT_;
}

const VectorXd& OneSidedHandler::tangentRow2(const State& s, int i, double& b) {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  aT2_.resize(c.columns);
  Eigen::Map<MatrixXd> a(aT2_.data(), 1, c.columns);
  c.rows->calcTangentRow2(localState(model_, s, *c.joint, views_), c.k, a, b);
  return aT2_;
}

Eigen::Vector2d OneSidedHandler::calcSliding(const State& s, int i) {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  Eigen::Vector2d v(calcSlidingVelocity(s, i), 0.0);
  if (c.tangent2 < 0) return v;
  double b = 0;
  const VectorXd& a = tangentRow2(s, i, b);
  gather(model_, *c.joint, s.v, local_);
  v(1) = a.dot(local_);
  return v;
}

Eigen::Vector2d OneSidedHandler::tangentPair(int i, const VectorXd& x) const {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  return {x(c.tangent), c.tangent2 >= 0 ? x(c.tangent2) : 0.0};
}

void OneSidedHandler::setSlip(int i, const Eigen::Vector2d& d) {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  if (c.tangent2 < 0) {
    setFriction(i, d(0) > 0 ? 1 : -1);
    return;
  }
  setFriction(i, OneSidedRows::kSlip);
  if (c.rows->slipDirection(c.k) != d) system_.forgetCachedState();
  c.rows->setSlipDirection(c.k, d);
}

void OneSidedHandler::setFriction(int i, int mode, double target) {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  if (c.tangent < 0) return;
  if (c.rows->frictionMode(c.k) != mode || c.rows->tangentTarget(c.k) != target) system_.forgetCachedState();
  c.rows->setFrictionMode(c.k, mode);
  c.rows->setTangentTarget(c.k, target);
}

int OneSidedHandler::frictionMode(int i) const {
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  return c.tangent >= 0 && c.rows->active(c.k) ? c.rows->frictionMode(c.k) : OneSidedRows::kNoFriction;
}

void OneSidedHandler::calcEventFunctions(const State& s, VecRef values) {
  const int nc = static_cast<int>(candidates_.size());
  bool anyActive = false;
  for (int i = 0; i < nc; ++i) {
    const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
    if (c.rows->active(c.k))
      anyActive = true;
    else
      values(i) = gapFunction(s, i);
  }
  // friction: a slipping point's sliding velocity along its direction (an event when it stops),
  // a sticking point's margin mu N - |F_t| (an event when the force leaves the friction cone,
  // written below with the forces)
  for (std::size_t f = 0; f < friction_.size(); ++f)
    values(static_cast<Eigen::Index>(nc) + static_cast<Eigen::Index>(f)) = slidingFunction(s, friction_[f]);
  if (!anyActive) return;
  // the active rows' multipliers: compressive (tensile for a rope) while >= 0. At a step's
  // end they are usually those of the integrator's last stage, at this very state (dopri5's
  // first same as last): no evaluation then
  AccelerationStatus st;
  if (!system_.lastMultipliers(s, mult_)) {
    st = system_.calcAccelerations(s, qdd_);
    if (st.ok()) calcMultipliers(s, st);
  }
  // (the total multipliers: with friction slipping, the normal forces that the friction's
  // moment shifts between the corners, what makes a pushed box tip; the ideal ones otherwise)
  for (int i = 0; i < nc; ++i) {
    const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
    if (c.rows->active(c.k)) values(i) = st.ok() ? mult_.total(c.row) : 0.0;
  }
  for (std::size_t f = 0; f < friction_.size(); ++f) {
    const int i = friction_[f];
    if (frictionMode(i) != OneSidedRows::kStick || !st.ok()) continue;
    const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
    values(static_cast<Eigen::Index>(nc) + static_cast<Eigen::Index>(f)) =
        c.mu * std::max(0.0, mult_.ideal(c.row)) - tangentPair(i, mult_.total).norm();
  }
}

void OneSidedHandler::calcSomeEventFunctions(const State& s, VecRef values, const std::vector<int>& which) {
  const int nc = static_cast<int>(candidates_.size());
  const auto needsForces = [&](int e) {
    if (e < nc) return candidates_[static_cast<std::size_t>(e)].rows->active(candidates_[static_cast<std::size_t>(e)].k);
    return frictionMode(friction_[static_cast<std::size_t>(e - nc)]) == OneSidedRows::kStick;
  };
  if (std::any_of(which.begin(), which.end(), needsForces)) {
    calcEventFunctions(s, values);
    return;
  }
  for (int e : which)
    values(e) = e < nc ? gapFunction(s, e) : slidingFunction(s, friction_[static_cast<std::size_t>(e - nc)]);
}

double OneSidedHandler::gapFunction(const State& s, int i) { return calcGap(s, i) + opt_.gapTolerance; }

double OneSidedHandler::slidingFunction(const State& s, int i) {
  const int mode = frictionMode(i);
  if (mode == OneSidedRows::kNoFriction || mode == OneSidedRows::kStick) return 1.0;  // (stick: the forces')
  const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
  // the sliding stops at half the speed tolerance past zero (as a gap closes at -gapTolerance;
  // within the tolerance, where the resolution takes the point for one at rest): a point made to
  // slip at zero speed while other points hold the body (a box on two corners whose lighter
  // corner leaves its cone under the minimum-norm split of the tangential force) keeps a
  // sliding speed of round-off, which crossed zero after every resolution: the events at one
  // instant never ended. The stick that follows a stop starts from exactly zero (resolve).
  if (mode == OneSidedRows::kSlip)  // spatial: along the reference direction (acceptStep)
    return calcSliding(s, i).dot(c.rows->slipDirection(c.k)) + slidingStopMargin(s);
  return mode * calcSlidingVelocity(s, i) + slidingStopMargin(s);
}

bool OneSidedHandler::acceptStep(const State& s, VecRef values) {
  // a spatial slipping point's event function is v_s . d_ref (docs/contact.md, "Friction in
  // 3-D"): d_ref moves to the sliding direction at the end of every accepted step, so the
  // function is |v_s| there and crosses zero within a step only where the sliding stops or
  // reverses, however far the direction turns over the whole slip
  const auto nc = static_cast<Eigen::Index>(candidates_.size());
  bool moved = false;
  for (std::size_t f = 0; f < friction_.size(); ++f) {
    const int i = friction_[f];
    if (frictionMode(i) != OneSidedRows::kSlip) continue;
    const Eigen::Vector2d v = calcSliding(s, i);
    const double speed = v.norm();
    if (!(speed > 0) || !std::isfinite(speed)) continue;
    const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
    c.rows->setSlipDirection(c.k, v / speed);
    values(nc + static_cast<Eigen::Index>(f)) = speed + slidingStopMargin(s);  // (slidingFunction there)
    moved = true;
  }
  if (moved) system_.forgetCachedState();
  return moved;
}

void OneSidedHandler::normalActiveSet(const State& s, const std::vector<int>& touching) {
  // Acceleration-level complementarity over the touching candidates (gap and gap rate zero):
  //   lambda_k >= 0,  g_k'' >= 0,  lambda_k g_k'' = 0.
  // Active-set iteration: all touching rows start active; the most tensile active row leaves,
  // else the inactive row accelerating deepest into penetration joins, until neither exists (or
  // the iteration bound: a degenerate set, docs/contact.md). Each trial is one singular-mass
  // solve of the model with the trial rows, so singular M and redundant rows (a block on four
  // corners: minimum-norm split of the forces) are handled as for two-sided rows.
  for (int i : touching) setActive(i, true);
  const int limit = opt_.iterationsPerCandidate * static_cast<int>(touching.size()) + 2;
  bool settledSet = false;
  for (int it = 0; it < limit; ++it) {
    const AccelerationStatus st = system_.calcAccelerations(s, qdd_);
    if (!st.ok()) return;  // the run's own check reports it at the next evaluation
    calcMultipliers(s, st);
    int worst = -1, deepestRow = -1;
    double worstValue = 0;
    // strictly: a row found just past its release (the event's far side) has a force a
    // round-off below zero and must leave; a tolerance would keep it and glue it on
    for (int i : touching) {
      const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
      if (!c.rows->active(c.k)) continue;
      const double lambda = mult_.total(c.row);  // = ideal without slipping friction
      if (lambda < 0 && lambda < worstValue) {
        worst = i;
        worstValue = lambda;
      }
    }
    double accScale = qdd_.size() ? 1e-10 * (1.0 + qdd_.cwiseAbs().maxCoeff()) : 1e-10;
    double deepest = -accScale;
    for (int i : touching) {
      const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
      if (c.rows->active(c.k)) continue;
      double b = 0;
      const VectorXd& a = row(s, i, b);
      gather(model_, *c.joint, qdd_, local_);
      const double acc = a.dot(local_) - b;
      if (acc < deepest) {
        deepest = acc;
        deepestRow = i;
      }
    }
    if (worst >= 0) {  // the most tensile row leaves first
      setActive(worst, false);
    } else if (deepestRow >= 0) {
      setActive(deepestRow, true);
    } else {
      settledSet = true;
      break;
    }
  }
  if (!settledSet) {
    ++boundHits_;
    spdlog::debug("t = {}: the acceleration-level active set of {} touching rows did not settle within {} solves",
                  s.t, touching.size(), limit);
  }
}

bool OneSidedHandler::frictionActiveSet(const State& s, const std::vector<int>& touching) {
  // Coulomb at acceleration level: a sticking point stays stuck while its tangential force is
  // inside the cone, |F_t| <= mu N; the one furthest outside starts to slip, in the direction
  // the stick force was holding it from (d = -sign F_t: the friction force mu N then acts
  // along F_t's direction, at the cone's edge).
  const AccelerationStatus st = system_.calcAccelerations(s, qdd_);
  if (!st.ok()) return false;
  calcMultipliers(s, st);
  int worst = -1;
  double worstExcess = 0;
  for (int i : touching) {
    if (frictionMode(i) != OneSidedRows::kStick) continue;
    const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
    const double excess = tangentPair(i, mult_.total).norm() - c.mu * std::max(0.0, mult_.ideal(c.row));
    if (excess > worstExcess) {
      worstExcess = excess;
      worst = i;
    }
  }
  if (worst < 0) return false;
  const Eigen::Vector2d Ft = tangentPair(worst, mult_.total);
  setSlip(worst, -Ft / Ft.norm());  // planar: -sign F_t
  return true;
}

void OneSidedHandler::complementarity(const State& s, const std::vector<int>& touching) {
  // friction modes from the sliding velocities: a point sliding faster than the speed tolerance
  // slips along its motion, one at rest is tried stuck first
  const double vtol = speedScale(s);
  int withFriction = 0;
  for (int i : touching) {
    if (candidates_[static_cast<std::size_t>(i)].tangent < 0) continue;
    ++withFriction;
    const Eigen::Vector2d v = calcSliding(s, i);  // planar: (v_s, 0)
    if (v.norm() > vtol)
      setSlip(i, v / v.norm());
    else
      setFriction(i, OneSidedRows::kStick);
  }
  // the normal active set, then stick or slip; a point that starts to slip may lift a corner
  // (a box tipping): the normal set again, until neither changes
  for (int outer = 0; outer < 2 * withFriction + 2; ++outer) {
    normalActiveSet(s, touching);
    if (withFriction == 0 || !frictionActiveSet(s, touching)) break;
  }
}

namespace {
/// x(global, over the bodies of c) += local.
void scatterAdd(const Model& model, const Constraint& c, const VectorXd& local, VectorXd& x) {
  int o = 0;
  for (const Body* b : c.bodies()) {
    const BodySlot& slot = model.slotOf(*b);
    x.segment(slot.offset, slot.size) += local.segment(o, slot.size);
    o += slot.size;
  }
}
}  // namespace

void OneSidedHandler::impact(State& s, const std::vector<int>& touching, const std::vector<int>& approaching,
                             const std::vector<double>& rate) {
  // Newton's law on the rows involved: with the set S (the approaching rows, plus touching rows
  // that the impulse would drive into penetration), the velocity after is the singular-mass
  // projection of the velocity before onto  A_bilateral v = 0, a_k v = -e_k a_k v^- (k in S):
  // the step of least kinetic metric (M + rho A^T A restricted to the rows: M's metric), i.e.
  // M dv = A^T P with the impulses P. A row of S whose impulse comes out tensile leaves S.
  // Coulomb friction (docs/contact.md, "Friction at impacts"): a point of S with friction is
  // first stuck (its tangential row joins with target 0: no sliding after the impact); when its
  // tangential impulse leaves the cone |P_t| <= mu P_n, it slips: a tangential impulse
  // -mu P_n d (d the sliding direction before) is applied with the normal one, P_n from the
  // projection of v^- + M^+ (friction impulse) (a fixed point in P_n).
  const VectorXd v0 = s.v;
  const double vtol = speedScale(s);
  std::vector<double> target(candidates_.size(), 0.0), before(candidates_.size(), 0.0);
  std::vector<Eigen::Vector2d> slideBefore(candidates_.size(), Eigen::Vector2d::Zero());
  std::vector<Eigen::Vector2d> slipDir(candidates_.size(), Eigen::Vector2d::Zero());  // d of a slipping point
  std::vector<char> inS(candidates_.size(), 0), rest(candidates_.size(), 0);
  std::vector<int> mode(candidates_.size(), OneSidedRows::kNoFriction);
  for (std::size_t j = 0; j < touching.size(); ++j) before[static_cast<std::size_t>(touching[j])] = rate[j];
  for (int i : touching) slideBefore[static_cast<std::size_t>(i)] = calcSliding(s, i);
  // accumulation: a rebound that would fly for less than accumulationTime is made plastic
  // (the free gap acceleration from the state before, with the current active set)
  const AccelerationStatus st0 = system_.calcAccelerations(s, qdd_);
  for (int i : approaching) {
    const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
    const double e = c.rows->restitution(c.k);
    double t = -e * before[static_cast<std::size_t>(i)];
    if (e > 0 && st0.ok()) {
      double b = 0;
      const VectorXd& a = row(s, i, b);
      gather(model_, *c.joint, qdd_, local_);
      const double acc = a.dot(local_) - b;
      if ((acc < 0 && 2 * t / -acc < opt_.accumulationTime) || t < 10 * vtol) {
        t = 0;
        rest[static_cast<std::size_t>(i)] = 1;
      }
    }
    target[static_cast<std::size_t>(i)] = t;
    inS[static_cast<std::size_t>(i)] = 1;
    if (c.tangent >= 0) mode[static_cast<std::size_t>(i)] = OneSidedRows::kStick;
  }
  ProjectionOptions po;
  po.maxIterations = 8;
  po.tolerance = 1e-13;
  VectorXd P, F, dv;
  if (!haveWs_) {
    ws_ = model_.makeWorkspace(false);  // the blocks only: no dense M or A (docs/contact.md)
    haveWs_ = true;
  }
  // M at the impact's configuration (q does not jump), for the friction impulses of slipping
  // points only: the impulses come from the projection, or recoverImpulses takes the blocks
  bool haveM = false;
  bool settled = false;  // a lifted row kept in contact (accumulation of a rocking motion)
  // the rows kept so: holding a row that the impact lifts takes a (small) tensile impulse,
  // which is what makes the rebound plastic; they do not leave for it (before, each left and
  // was kept again until the iteration bound: 35 projections for 11 touching rows)
  std::vector<char> held(candidates_.size(), 0);
  bool settledSet = false;
  const int limit = opt_.iterationsPerCandidate * static_cast<int>(touching.size()) + 2 +
                    2 * static_cast<int>(friction_.size());
  for (int it = 0; it < limit; ++it) {
    for (int i : touching) {
      const auto u = static_cast<std::size_t>(i);
      setActive(i, inS[u] != 0, target[u]);
      setFriction(i, inS[u] ? mode[u] : OneSidedRows::kNoFriction, 0.0);
    }
    bool anySlip = false;
    for (int i : touching)
      if (inS[static_cast<std::size_t>(i)] && isSlipMode(mode[static_cast<std::size_t>(i)])) anySlip = true;
    F = VectorXd::Zero(v0.size());
    // slipping points: the fixed point P_n -> friction impulse F -> projection -> P_n
    for (int inner = 0; inner < (anySlip ? 60 : 1); ++inner) {
      system_.forgetCachedState();
      s.v = v0;
      if (anySlip) {
        if (!haveM) model_.calcBlocks(s, ws_);
        haveM = true;
        detail::solveBlockPseudoInverse(model_, ws_, F, dv);
        s.v += dv;
      }
      system_.projectVelocities(s, po);
      // impulses: M dv = A^T P + F over the rows active now (minimum norm where redundant)
      recoverImpulses(s, v0, F, P);
      if (!anySlip) break;
      VectorXd Fn = VectorXd::Zero(v0.size());
      for (int i : touching) {
        const auto u = static_cast<std::size_t>(i);
        if (!inS[u] || !isSlipMode(mode[u])) continue;
        const OneSidedCandidate& c = candidates_[u];
        double b = 0;
        const VectorXd& a = tangentRow(s, i, b);
        scatterAdd(model_, *c.joint, (-c.mu * std::max(0.0, P(c.row)) * slipDir[u](0)) * a, Fn);
        if (c.tangent2 >= 0)
          scatterAdd(model_, *c.joint, (-c.mu * std::max(0.0, P(c.row)) * slipDir[u](1)) * tangentRow2(s, i, b), Fn);
      }
      const double change = (Fn - F).cwiseAbs().maxCoeff(), size = Fn.cwiseAbs().maxCoeff();
      F = Fn;
      if (change <= 1e-15 * (1 + size)) break;
    }
    double pscale = 0;
    for (int i : touching) pscale = std::max(pscale, std::abs(P(candidates_[static_cast<std::size_t>(i)].row)));
    // a stuck point whose tangential impulse leaves the cone slips (the worst first)
    int worst = -1;
    double worstExcess = 1e-12 * pscale;
    for (int i : touching) {
      const auto u = static_cast<std::size_t>(i);
      if (!inS[u] || mode[u] != OneSidedRows::kStick) continue;
      const OneSidedCandidate& c = candidates_[u];
      const double excess = tangentPair(i, P).norm() - c.mu * std::max(0.0, P(c.row));
      if (excess > worstExcess) {
        worstExcess = excess;
        worst = i;
      }
    }
    if (worst >= 0) {
      // d: the sliding direction before, or at no sliding against the stuck impulse P_t
      const auto w = static_cast<std::size_t>(worst);
      const Eigen::Vector2d Pt = tangentPair(worst, P);
      const Eigen::Vector2d d = slideBefore[w].norm() > vtol ? Eigen::Vector2d(slideBefore[w] / slideBefore[w].norm())
                                                            : Eigen::Vector2d(-Pt / Pt.norm());
      if (candidates_[w].tangent2 < 0) {
        mode[w] = d(0) > 0 ? 1 : -1;
        slipDir[w] = Eigen::Vector2d(static_cast<double>(mode[w]), 0.0);
      } else {
        mode[w] = OneSidedRows::kSlip;
        slipDir[w] = d;
      }
      continue;
    }
    // the normal set: the most tensile row of S leaves, else the row outside driven deepest
    // into penetration joins
    double worstValue = -1e-10 * pscale;
    for (int i : touching) {
      if (!inS[static_cast<std::size_t>(i)] || held[static_cast<std::size_t>(i)]) continue;
      const double p = P(candidates_[static_cast<std::size_t>(i)].row);
      if (p < worstValue) {
        worstValue = p;
        worst = i;
      }
    }
    bool separating = false;
    joining_.clear();
    for (int i : touching) {
      if (inS[static_cast<std::size_t>(i)]) continue;
      const double r = calcRowRate(s, i);
      separating = separating || r > vtol;
      if (r < -vtol) joining_.push_back(i);  // (driven into penetration)
    }
    const auto join = [&](int i) {
      const auto w = static_cast<std::size_t>(i);
      inS[w] = 1;
      target[w] = before[w] < -vtol ? -candidates_[w].rows->restitution(candidates_[w].k) * before[w] : 0.0;
      if (candidates_[w].tangent >= 0) mode[w] = OneSidedRows::kStick;
    };
    if (worst >= 0) {
      inS[static_cast<std::size_t>(worst)] = 0;
      continue;
    }
    if (!joining_.empty()) {
      // every row the impulse drives into penetration joins at once (one at a time took a
      // projection each: on the rocking chain, most impacts joined 1 to 6 rows)
      for (int i : joining_) join(i);
      continue;
    }
    if (separating) {
      // accumulation of a rocking motion: a touching row that the impact lifts off, but so
      // slowly that it would come back within the gap tolerance's reach (excursion below
      // 10 gap tolerances, or a flight shorter than accumulationTime), stays in contact: a
      // block rocking on its corners comes to rest instead of rocking on at the tolerance's
      // scale (each event at a gap of -gapTolerance feeds it energy)
      if (system_.calcAccelerations(s, qdd_).ok()) {
        for (int i : touching) {
          if (inS[static_cast<std::size_t>(i)]) continue;
          const double r = calcRowRate(s, i);
          if (!(r > vtol)) continue;
          double b = 0;
          const VectorXd& a = row(s, i, b);
          gather(model_, *candidates_[static_cast<std::size_t>(i)].joint, qdd_, local_);
          const double acc = a.dot(local_) - b;
          if (acc < 0 && (r * r / (2 * -acc) < 10 * opt_.gapTolerance || 2 * r / -acc < opt_.accumulationTime))
            joining_.push_back(i);  // (held, all of them at once)
        }
      }
    }
    if (joining_.empty()) {
      settledSet = true;
      break;
    }
    settled = true;
    for (int i : joining_) {
      join(i);
      held[static_cast<std::size_t>(i)] = 1;
    }
  }
  if (!settledSet) {
    ++boundHits_;
    spdlog::debug("t = {}: the impact's set of {} touching rows did not settle within {} projections", s.t,
                  touching.size(), limit);
  }
  for (int i : touching) setActive(i, false);
  for (int i : approaching) {
    const auto u = static_cast<std::size_t>(i);
    const OneSidedCandidate& c = candidates_[u];
    OneSidedEvent ev;
    ev.t = s.t;
    ev.kind = rest[u] || settled ? "rest" : "impact";
    ev.joint = c.joint->name();
    ev.label = c.rows->label(c.k);
    const double scale = c.rows->calcRowScale(localState(model_, s, *c.joint, views_), c.k);
    ev.impulse = inS[u] ? P(c.row) * scale : 0.0;
    ev.speed = -before[u] / scale;
    if (inS[u] && c.tangent >= 0) {
      const Eigen::Vector2d Pt = mode[u] == OneSidedRows::kStick ? tangentPair(i, P)
                                                                 : Eigen::Vector2d(-c.mu * std::max(0.0, P(c.row)) * slipDir[u]);
      ev.tangentImpulse = Pt(0);
      ev.tangentImpulse2 = Pt(1);
      ev.tangentDimension = c.tangent2 >= 0 ? 2 : 1;
    }
    events_.push_back(ev);
    spdlog::info("t = {}: {} of '{}'{}: approach speed {}, impulse {}{}", ev.t, ev.kind, ev.joint,
                 ev.label.empty() ? "" : " (" + ev.label + ")", ev.speed, ev.impulse,
                 c.tangent >= 0 && inS[u]
                     ? fmt::format(", tangential impulse {} ({})",
                                   c.tangent2 >= 0 ? fmt::format("[{}, {}]", ev.tangentImpulse, ev.tangentImpulse2)
                                                   : fmt::format("{}", ev.tangentImpulse),
                                   mode[u] == OneSidedRows::kStick ? "stick" : "slip")
                     : std::string());
  }
}

void OneSidedHandler::calcMultipliers(const State& s, const AccelerationStatus& st) {
  if (system_.lastMultipliers(s, mult_)) return;  // the structured solve's own (unique) multipliers
  if (st.structured && st.denseComponents == 0 && !model_.hasNonideal()) {
    // released rows (redundant: a chain lying on all its circles, where the dense solve took
    // 180 ms at 300 coordinates): the minimum-norm multipliers of the ideal constraint force
    // M q'' - Q = A^T lambda, by the sparse solve of the impulses (impulse_recovery.hpp) on the
    // blocks at s; the dense solver only when it cannot vouch for its answer. (With non-ideal
    // joints the forces of the rows are not A^T lambda alone: dense.)
    if (!haveWs_) {
      ws_ = model_.makeWorkspace(false);
      haveWs_ = true;
    }
    model_.calcBlocks(s, ws_);
    detail::ImpulseReport rep;
    detail::recoverImpulses(model_, ws_, qdd_, ws_.Q, lambda_, &rep, opt_.impulseResidualTolerance);
    if (rep.residual <= opt_.impulseResidualTolerance && lambda_.allFinite()) {
      const auto m = static_cast<int>(lambda_.size());
      if (mult_.ideal.size() != m) mult_.resize(m);
      mult_.ideal = lambda_;
      mult_.total = lambda_;
      mult_.valid = true;
      ++sparseMultipliers_;
      return;
    }
  }
  system_.calcMultipliers(s, mult_);  // the dense reference solver
  ++denseMultipliers_;
}

void OneSidedHandler::recoverImpulses(const State& s, const VectorXd& v0, const VectorXd& F, VectorXd& P) {
  ++impulseRecoveries_;
  // the projection's own multipliers when it made the jump from v0 alone (no friction impulse)
  // with independent rows: checked on the blocks it used, M (v - v0) = A^T P
  if ((F.size() == 0 || F.isZero(0.0)) && system_.lastVelocityCorrectionImpulses(P) && P.allFinite()) {
    const double res = detail::calcImpulseResidual(model_, system_.workspace(), s.v - v0, F, P);
    if (res <= opt_.impulseResidualTolerance) {
      ++projectionImpulses_;
      spdlog::debug("t = {}: impulses from the projection's multipliers, relative residual {}", s.t, res);
      return;
    }
  }
  // sparse normal equations or sparse QR of the rows (impulse_recovery.hpp), on the blocks at
  // the state after the jump
  model_.calcBlocks(s, ws_);
  detail::ImpulseReport rep;
  detail::recoverImpulses(model_, ws_, s.v - v0, F, P, &rep, opt_.impulseResidualTolerance);
  static constexpr const char* kMethod[] = {"no rows", "normal equations", "QR of A^T", "minimum-norm QR"};
  spdlog::debug("t = {}: impulses of {} rows (rank {}) by {}, relative residual {}", s.t, rep.rows, rep.rank,
                kMethod[static_cast<int>(rep.method)], rep.residual);
  // Eigen's sparse QR orders columns for sparsity, not by pivot size: for redundant rows (the
  // QR of the wide A) a tiny pivot it keeps gave impulses of 1e30 and more, which then decide
  // the active set, and rows nearly dependent but of full rank can leave the tall form
  // inaccurate. The residual shows it; the dense complete orthogonal decomposition
  // (rank-revealing) answers then, unless the residual is the jump's own part outside the
  // rows' range (impulseInconsistencyTolerance), which the dense answer keeps as well.
  const bool within = rep.residual <= opt_.impulseResidualTolerance;
  const bool leastSquares = !within && rep.optimality >= 0 && rep.optimality <= opt_.impulseResidualTolerance &&
                            rep.residual <= opt_.impulseInconsistencyTolerance;
  if (leastSquares && P.allFinite()) {
    ++leastSquaresImpulses_;
    spdlog::debug("t = {}: sparse impulses kept as the least-squares answer (optimality {})", s.t, rep.optimality);
  }
  if (!(within || leastSquares) || !P.allFinite()) {
    P = detail::calcImpulsesDense(model_, s, s.v - v0, F);
    ++denseImpulseRecoveries_;
    spdlog::debug("t = {}: sparse impulses rejected (relative residual {}): dense recovery", s.t, rep.residual);
  }
}

void OneSidedHandler::resolve(State& s) {
  if (candidates_.empty()) return;
  std::vector<char> wasActive(candidates_.size());
  std::vector<int> wasMode(candidates_.size());
  std::vector<char> stopped(candidates_.size(), 0);  // a spatial slipping point that stopped
  const double vtol = speedScale(s);
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    wasActive[i] = candidates_[i].rows->active(candidates_[i].k);
    wasMode[i] = frictionMode(static_cast<int>(i));
    if (wasMode[i] == OneSidedRows::kSlip) stopped[i] = calcSliding(s, static_cast<int>(i)).norm() <= vtol ? 1 : 0;
  }
  // touching candidates and their rates before
  std::vector<int> touching, approaching;
  std::vector<double> rate;
  for (int i = 0; i < static_cast<int>(candidates_.size()); ++i) {
    if (calcGap(s, i) > 2 * opt_.gapTolerance) {
      setActive(i, false);
      continue;
    }
    touching.push_back(i);
    rate.push_back(calcRowRate(s, i));
    if (rate.back() < -vtol) approaching.push_back(i);
  }
  if (!approaching.empty()) impact(s, touching, approaching, rate);
  // after the impact: the touching rows that neither separate nor approach take part in the
  // acceleration-level complementarity; those separating stay inactive
  std::vector<int> resting;
  for (int i : touching)
    if (std::abs(calcRowRate(s, i)) <= speedScale(s)) resting.push_back(i);
  for (int i : touching) setActive(i, false);
  complementarity(s, resting);
  bool stuck = false;
  for (int i = 0; i < static_cast<int>(candidates_.size()); ++i) {
    const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
    const bool now = c.rows->active(c.k);
    const bool impacted = std::find(approaching.begin(), approaching.end(), i) != approaching.end();
    const int modeNow = frictionMode(i), modeBefore = wasMode[static_cast<std::size_t>(i)];
    if (modeNow == OneSidedRows::kStick && modeBefore != OneSidedRows::kStick) stuck = true;
    const bool slidesOn = modeNow == OneSidedRows::kSlip && stopped[static_cast<std::size_t>(i)];
    if (now && wasActive[static_cast<std::size_t>(i)] && !impacted && (modeNow != modeBefore || slidesOn)) {
      // stick / slip transitions of a point in contact before and after (spatial: a stop
      // where it slides on, in the direction -F_t / |F_t|)
      OneSidedEvent ev;
      ev.t = s.t;
      ev.kind = modeNow == OneSidedRows::kStick ? "stick" : "slip";
      ev.joint = c.joint->name();
      ev.label = c.rows->label(c.k);
      events_.push_back(ev);
      spdlog::info("t = {}: {} of '{}'{}", ev.t, ev.kind, ev.joint, ev.label.empty() ? "" : " (" + ev.label + ")");
    }
    if (now == (wasActive[static_cast<std::size_t>(i)] != 0)) continue;
    if (now && impacted) continue;  // the impact said it
    OneSidedEvent ev;
    ev.t = s.t;
    ev.kind = now ? "contact" : "release";
    ev.joint = c.joint->name();
    ev.label = c.rows->label(c.k);
    events_.push_back(ev);
    spdlog::info("t = {}: {} of '{}'{}", ev.t, ev.kind, ev.joint, ev.label.empty() ? "" : " (" + ev.label + ")");
  }
  if (stuck) {
    // a point that stopped sliding (within the speed tolerance) sticks from exactly zero
    ProjectionOptions po;
    po.maxIterations = 8;
    po.tolerance = 1e-13;
    system_.forgetCachedState();
    system_.projectVelocities(s, po);
    system_.forgetCachedState();
  }
}

void OneSidedHandler::decideActiveSet(const State& s) {
  std::vector<int> touching;
  for (int i = 0; i < static_cast<int>(candidates_.size()); ++i) {
    setActive(i, false);
    if (calcGap(s, i) <= 2 * opt_.gapTolerance && std::abs(calcRowRate(s, i)) <= speedScale(s)) touching.push_back(i);
  }
  complementarity(s, touching);
}

nlohmann::json OneSidedHandler::toJson(const State& s) {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 0; i < static_cast<int>(candidates_.size()); ++i) {
    const OneSidedCandidate& c = candidates_[static_cast<std::size_t>(i)];
    const double g = calcGap(s, i);
    const bool on = c.rows->active(c.k);
    nlohmann::json& e = j[c.joint->name()];
    if (e.is_null()) {
      e = {{"active", on}, {"gap", g}};
    } else {
      e["active"] = e["active"].get<bool>() || on;
      e["gap"] = std::min(e["gap"].get<double>(), g);
    }
    if (c.rows->count() > 1) e["rows"].push_back({{"label", c.rows->label(c.k)}, {"active", on}, {"gap", g}});
  }
  return j;
}

}  // namespace joinery
