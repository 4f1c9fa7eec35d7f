#pragma once
// Helpers for the joint and force-element tests: bodies of every type created through the
// registry, random smooth motions q(s) of an element's bodies (s is the time offset), local
// states, and evaluation of an element's rows, errors and forces along such a motion.
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "eigen_approx.hpp"
#include "joinery/core/constraint.hpp"
#include "test_context.hpp"

namespace joinery::test {

/// Scene JSON of a body of one of the kinds the tests pair joints with.
inline nlohmann::json bodyJson(const std::string& kind, const std::string& name) {
  using nlohmann::json;
  if (kind == "particle1") return {{"name", name}, {"type", "particle"}, {"dim", 1}, {"mass", 1.1}};
  if (kind == "particle2") return {{"name", name}, {"type", "particle"}, {"dim", 2}, {"mass", 1.3}};
  if (kind == "particle3") return {{"name", name}, {"type", "particle"}, {"dim", 3}, {"mass", 0.7}};
  if (kind == "rigid2d") return {{"name", name}, {"type", "rigid2d"}, {"mass", 2.0}, {"inertia", 0.3}};
  if (kind == "rigid3d")
    return {{"name", name}, {"type", "rigid3d"}, {"mass", 3.0}, {"inertia", {0.2, 0.3, 0.4}}};
  if (kind == "linear")
    return {{"name", name},
            {"type", "linear"},
            {"coordinates", {"u1", "u2"}},
            {"mass_matrix", {{1.0, 0.0}, {0.0, 1.0}}},
            {"stiffness_matrix", {{1.0, 0.0}, {0.0, 1.0}}}};
  FAIL("unknown body kind " << kind);
  return {};
}

/// Bodies created through the registry and a context that knows them.
class TestScene {
 public:
  /// Creates a body of `kind` named `name` ("ground" returns the world body).
  const Body& add(const std::string& kind, const std::string& name) {
    if (kind == "ground") return ctx.ground();
    owned_.push_back(create<Body>(bodyJson(kind, name), ctx));
    ctx.addBody(*owned_.back());
    return *owned_.back();
  }
  std::unique_ptr<Constraint> joint(const nlohmann::json& j) const { return create<Constraint>(j, ctx); }
  std::unique_ptr<ForceElement> force(const nlohmann::json& j) const { return create<ForceElement>(j, ctx); }

  TestContext ctx;

 private:
  std::vector<BodyPtr> owned_;
};

/// A smooth motion of one body: q(s) = q0 + s v + s^2/2 a, except the quaternion of a
/// rigid3d body, which moves on the unit sphere along a great circle
/// e(s) = cos(th(s)) e0 + sin(th(s)) u, th(s) = w s + beta s^2 / 2 (u unit, u.e0 = 0), so
/// e'(0) = w u and e''(0) = beta u - w^2 e0.
struct BodyPath {
  VectorXd q0, v0, a0;
  bool quaternion = false;
  Eigen::Vector4d e0 = Eigen::Vector4d::Zero(), u = Eigen::Vector4d::Zero();
  double w = 0, beta = 0;

  VectorXd q(double s) const {
    VectorXd out = q0 + s * v0 + 0.5 * s * s * a0;
    if (quaternion) {
      const double th = w * s + 0.5 * beta * s * s;
      out.segment<4>(3) = std::cos(th) * e0 + std::sin(th) * u;
    }
    return out;
  }
  VectorXd qdot(double s) const {
    VectorXd out = v0 + s * a0;
    if (quaternion) {
      const double th = w * s + 0.5 * beta * s * s;
      out.segment<4>(3) = (w + beta * s) * (-std::sin(th) * e0 + std::cos(th) * u);
    }
    return out;
  }
};

inline double uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

inline VectorXd randomVector(std::mt19937& rng, int n, double scale) {
  VectorXd v(n);
  for (int i = 0; i < n; ++i) v(i) = uniform(rng, -scale, scale);
  return v;
}

/// A random motion of `body` (positions within ~1 m, angles within ~1 rad, rates ~1).
inline BodyPath randomPath(const Body& body, std::mt19937& rng) {
  const int n = body.numCoordinates();
  BodyPath p;
  p.q0 = randomVector(rng, n, 1.0);
  p.v0 = randomVector(rng, n, 1.0);
  p.a0 = randomVector(rng, n, 1.0);
  if (body.typeName() == "rigid3d") {
    p.quaternion = true;
    p.e0 = Eigen::Vector4d(randomVector(rng, 4, 1.0)).normalized();
    Eigen::Vector4d u = randomVector(rng, 4, 1.0);
    u -= p.e0 * p.e0.dot(u);
    p.u = u.normalized();
    p.w = uniform(rng, -1.5, 1.5);
    p.beta = uniform(rng, -1.5, 1.5);
    p.q0.segment<4>(3) = p.e0;
    p.v0.segment<4>(3) = p.w * p.u;
    p.a0.segment<4>(3) = p.beta * p.u - p.w * p.w * p.e0;
  }
  return p;
}

/// The local state of an element's bodies: owns the coordinate vectors the views point to.
class StateHolder {
 public:
  StateHolder(const std::vector<const Body*>& bodies, const std::vector<VectorXd>& q,
              const std::vector<VectorXd>& v, double t)
      : q_(q), v_(v) {
    for (std::size_t k = 0; k < bodies.size(); ++k) {
      BodyStateView view;
      view.body = bodies[k];
      view.q = q_[k].data();
      view.v = v_[k].data();
      view.n = bodies[k]->numCoordinates();
      views_.push_back(view);
    }
    state_.t = t;
    state_.bodies = std::span<const BodyStateView>(views_);
  }
  StateHolder(const StateHolder&) = delete;
  StateHolder& operator=(const StateHolder&) = delete;
  const LocalState& state() const { return state_; }
  /// Local (concatenated) velocity vector.
  VectorXd velocities() const { return concat(v_); }
  VectorXd coordinates() const { return concat(q_); }

  static VectorXd concat(const std::vector<VectorXd>& parts) {
    int n = 0;
    for (const auto& p : parts) n += static_cast<int>(p.size());
    VectorXd out(n);
    int k = 0;
    for (const auto& p : parts) {
      out.segment(k, p.size()) = p;
      k += static_cast<int>(p.size());
    }
    return out;
  }

 private:
  std::vector<VectorXd> q_, v_;
  std::vector<BodyStateView> views_;
  LocalState state_;
};

/// Random motions of every body of an element, evaluated at time offset s from t0.
class ElementMotion {
 public:
  ElementMotion(const std::vector<const Body*>& bodies, std::mt19937& rng, double t0)
      : bodies_(bodies), t0_(t0) {
    for (const Body* b : bodies) paths_.push_back(randomPath(*b, rng));
  }
  std::vector<VectorXd> q(double s) const {
    std::vector<VectorXd> out;
    for (const auto& p : paths_) out.push_back(p.q(s));
    return out;
  }
  std::vector<VectorXd> qdot(double s) const {
    std::vector<VectorXd> out;
    for (const auto& p : paths_) out.push_back(p.qdot(s));
    return out;
  }
  /// The local state at offset s (time t0 + s, or t0 when `frozenTime`).
  std::unique_ptr<StateHolder> at(double s, bool frozenTime = false) const {
    return std::make_unique<StateHolder>(bodies_, q(s), qdot(s), frozenTime ? t0_ : t0_ + s);
  }
  VectorXd acceleration() const {
    std::vector<VectorXd> a;
    for (const auto& p : paths_) a.push_back(p.a0);
    return StateHolder::concat(a);
  }
  double t0() const { return t0_; }

 private:
  std::vector<const Body*> bodies_;
  std::vector<BodyPath> paths_;
  double t0_;
};

inline VectorXd positionError(const Constraint& c, const LocalState& s) {
  VectorXd phi(c.numRows());
  c.calcPositionError(s, phi);
  return phi;
}
inline VectorXd velocityError(const Constraint& c, const LocalState& s) {
  VectorXd psi(c.numRows());
  c.calcVelocityError(s, psi);
  return psi;
}
struct Rows {
  MatrixXd A;
  VectorXd b;
};
inline Rows accelerationRows(const Constraint& c, const LocalState& s) {
  Rows r{MatrixXd::Constant(c.numRows(), c.numLocalCoordinates(), 12345.0), VectorXd::Constant(c.numRows(), 12345.0)};
  c.calcAccelerationRows(s, r.A, r.b);
  return r;
}
inline VectorXd generalizedForce(const ForceElement& f, const LocalState& s) {
  VectorXd Q = VectorXd::Zero(f.numLocalCoordinates());
  f.addForces(s, Q);
  return Q;
}

/// Checks a position-level constraint along a random motion against finite differences:
///   1. psi(0) = d phi / ds                (central difference, h = 1e-5)
///   2. A a - b = d psi / ds               (central difference of the velocity error, h = 1e-5)
///   3. A a - b = d^2 phi / ds^2           (second difference, h = 1e-4)
///   4. psi(0) - A v = phi_t               (central difference in t at fixed q, h = 1e-5)
///   5. scleronomic constraints: psi = A v exactly (round-off).
/// Tolerances: a central difference with step h has truncation error ~h^2 |f'''| / 6 and
/// round-off ~eps |f| / h; with h = 1e-5 and |f|, |f'''| = O(1..10) both are below 1e-9, so
/// 1e-7 (relative to the size of the compared quantity, absolute floor 1e-7) leaves a wide
/// margin yet catches any wrong term (those are O(1)). The second difference has round-off
/// ~eps |f| / h^2, hence h = 1e-4 and tolerance 1e-5 there.
inline void checkAgainstFiniteDifferences(const Constraint& c, const ElementMotion& motion,
                                          bool scleronomic) {
  const double h = 1e-5, h2 = 1e-4;
  const auto s0 = motion.at(0);
  const VectorXd phi0 = positionError(c, s0->state());
  const VectorXd psi0 = velocityError(c, s0->state());
  const Rows rows = accelerationRows(c, s0->state());
  const VectorXd v = s0->velocities();
  const VectorXd a = motion.acceleration();
  REQUIRE(rows.A.allFinite());
  REQUIRE(rows.b.allFinite());

  const VectorXd dphi = (positionError(c, motion.at(h)->state()) - positionError(c, motion.at(-h)->state())) / (2 * h);
  CHECK_THAT(psi0, isApprox(dphi, 1e-7, 1e-7));

  const VectorXd dpsi = (velocityError(c, motion.at(h)->state()) - velocityError(c, motion.at(-h)->state())) / (2 * h);
  const VectorXd Aa_b = rows.A * a - rows.b;
  CHECK_THAT(Aa_b, isApprox(dpsi, 1e-7, 1e-7));

  const VectorXd ddphi = (positionError(c, motion.at(h2)->state()) - 2 * phi0 +
                          positionError(c, motion.at(-h2)->state())) / (h2 * h2);
  CHECK_THAT(Aa_b, isApprox(ddphi, 1e-5, 1e-5));

  // phi_t at fixed q: a state with the coordinates of s = 0 at other times
  auto atTime = [&](double dt) {
    return std::make_unique<StateHolder>(c.bodies(), motion.q(0), motion.qdot(0), motion.t0() + dt);
  };
  const VectorXd phit = (positionError(c, atTime(h)->state()) - positionError(c, atTime(-h)->state())) / (2 * h);
  CHECK_THAT(VectorXd(psi0 - rows.A * v), isApprox(phit, 1e-7, 1e-7));
  if (scleronomic) CHECK_THAT(psi0, isApprox(VectorXd(rows.A * v), 1e-12, 1e-12));
}

/// A velocity-level constraint along a random motion against finite differences:
///   d psi / ds = psi_q q' + psi_q' q'' + psi_t = A a - b   (central difference, h = 1e-5),
///   A = psi_q'   (central difference in the velocities at fixed q and t, h = 1e-6).
/// Tolerance 1e-7 (relative, absolute floor 1e-7): truncation ~h^2 |psi'''| / 6 ~ 1e-9 and
/// round-off ~eps |psi| / h ~ 1e-10 for O(1..10) quantities; a wrong term is O(1).
inline void checkVelocityRows(const Constraint& c, const ElementMotion& motion) {
  const double h = 1e-5;
  const auto s0 = motion.at(0);
  const Rows rows = accelerationRows(c, s0->state());
  REQUIRE(rows.A.allFinite());
  REQUIRE(rows.b.allFinite());
  const VectorXd dpsi = (velocityError(c, motion.at(h)->state()) - velocityError(c, motion.at(-h)->state())) / (2 * h);
  CHECK_THAT(VectorXd(rows.A * motion.acceleration() - rows.b), isApprox(dpsi, 1e-7, 1e-7));
  CHECK_THAT(positionError(c, s0->state()), isApprox(VectorXd::Zero(c.numRows()), 0, 0));
  // columns of A: perturb one local velocity at a time
  const VectorXd q = s0->coordinates(), v = s0->velocities();
  const double hv = 1e-6;
  MatrixXd Afd(c.numRows(), c.numLocalCoordinates());
  for (int k = 0; k < c.numLocalCoordinates(); ++k) {
    auto split = [&](const VectorXd& whole) {
      std::vector<VectorXd> parts;
      int at = 0;
      for (const Body* b : c.bodies()) {
        parts.push_back(whole.segment(at, b->numCoordinates()));
        at += b->numCoordinates();
      }
      return parts;
    };
    VectorXd vp = v, vm = v;
    vp(k) += hv;
    vm(k) -= hv;
    StateHolder sp(c.bodies(), split(q), split(vp), motion.t0()), sm(c.bodies(), split(q), split(vm), motion.t0());
    Afd.col(k) = (velocityError(c, sp.state()) - velocityError(c, sm.state())) / (2 * hv);
  }
  CHECK_THAT(rows.A, isApprox(Afd, 1e-7, 1e-7));
}

}  // namespace joinery::test
