// Spatial rigid body in quaternion coordinates: conventions, Euler's equations pointwise,
// ranks, Lagrange consistency, markers, conservation, factory.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "body_checks.hpp"
#include "eigen_approx.hpp"
#include "joinery/bodies/quaternion.hpp"
#include "joinery/bodies/rigid3d.hpp"
#include "joinery/core/dense_solver.hpp"
#include "test_context.hpp"

using namespace joinery;
using joinery::test::isApprox;
using nlohmann::json;
namespace quat = joinery::quaternion;

namespace {

// A body-frame inertia that is not diagonal and has distinct principal moments (1 : 2.2 : 2.9
// roughly), so that gyroscopic terms are non-trivial and no accidental symmetry hides a bug.
const Eigen::Matrix3d kInertia = (Eigen::Matrix3d() << 0.9, 0.12, -0.05,   //
                                  0.12, 1.6, 0.2,                          //
                                  -0.05, 0.2, 2.1).finished();

json matrixJson(const Eigen::Matrix3d& M) {
  json a = json::array();
  for (int i = 0; i < 3; ++i) a.push_back({M(i, 0), M(i, 1), M(i, 2)});
  return a;
}

json bodyJson(double mass = 3.0) {
  return {{"name", "box"},
          {"type", "rigid3d"},
          {"mass", mass},
          {"inertia", matrixJson(kInertia)},
          {"position", {0.1, -0.2, 0.3}},
          {"orientation", {0.5, 0.5, 0.5, 0.5}},
          {"velocity", {0.0, 0.5, -0.25}},
          {"angular_velocity", {1.0, -2.0, 0.5}}};
}

Eigen::Vector4d randomUnitQuaternion(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Eigen::Vector4d e(n(rng), n(rng), n(rng), n(rng));
  return e.normalized();
}

Eigen::Vector3d randomVector(std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return {u(rng), u(rng), u(rng)};
}

/// A random quaternion rate consistent with the norm constraint: e.e' = 0.
Eigen::Vector4d randomTangent(const Eigen::Vector4d& e, std::mt19937& rng, double scale = 2.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Eigen::Vector4d d(u(rng), u(rng), u(rng), u(rng));
  return d - e.dot(d) * e;
}

Eigen::VectorXd stateQ(const Eigen::Vector3d& x, const Eigen::Vector4d& e) {
  Eigen::VectorXd q(7);
  q << x, e;
  return q;
}

Eigen::MatrixXd internalA(const Body& b, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          Eigen::VectorXd& rhs) {
  Eigen::MatrixXd A(1, 7);
  rhs.resize(1);
  b.calcInternalConstraints(0.0, q, v, A, rhs);
  return A;
}

}  // namespace

TEST_CASE("quaternion conventions: R, G (body) and H (world)", "[bodies][rigid3d][quaternion]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Vector4d e = randomUnitQuaternion(rng), ed = randomTangent(e, rng);
    const Eigen::Matrix3d R = quat::rotation(e);
    const quat::Matrix34d G = quat::bodyG(e), H = quat::worldH(e);
    // R is a proper rotation; R = H G^T; G e = H e = 0; G G^T = I; G^T G = I - e e^T.
    CHECK_THAT(Eigen::MatrixXd(R.transpose() * R), isApprox(Eigen::Matrix3d::Identity(), 1e-14, 1e-14));
    CHECK(R.determinant() == Approx(1.0).epsilon(1e-14));
    CHECK_THAT(Eigen::MatrixXd(H * G.transpose()), isApprox(R, 1e-14, 1e-14));
    CHECK((G * e).norm() <= 1e-15);  // exact up to rounding (products cancel pairwise)
    CHECK((H * e).norm() <= 1e-15);
    CHECK_THAT(Eigen::MatrixXd(G * G.transpose()), isApprox(Eigen::Matrix3d::Identity(), 1e-14, 1e-14));
    CHECK_THAT(Eigen::MatrixXd(G.transpose() * G),
               isApprox(Eigen::Matrix4d::Identity() - e * e.transpose(), 1e-14, 1e-14));
    // Agrees with Eigen's quaternion (w, x, y, z) = (e0, e1, e2, e3).
    CHECK_THAT(Eigen::MatrixXd(R),
               isApprox(Eigen::Quaterniond(e(0), e(1), e(2), e(3)).toRotationMatrix(), 1e-14, 1e-14));
    // Angular velocities: along the unit curve e(s) = normalize(e + s ed), R' R^T = [2 H e']x
    // (world) and R^T R' = [2 G e']x (body). Central differences, h = 1e-5: error ~h^2 ~ 1e-10.
    const double h = 1e-5;
    const Eigen::Matrix3d Rd =
        (quat::rotation((e + h * ed).normalized()) - quat::rotation((e - h * ed).normalized())) / (2 * h);
    CHECK_THAT(Eigen::MatrixXd(Rd * R.transpose()), isApprox(quat::skew(2.0 * H * ed), 1e-8, 1e-8));
    CHECK_THAT(Eigen::MatrixXd(R.transpose() * Rd), isApprox(quat::skew(2.0 * G * ed), 1e-8, 1e-8));
    // The antisymmetry that makes G(e') e' vanish, and G(a) G(b)^T = (a.b) I + [G(a) b]x.
    const Eigen::Vector4d a = randomUnitQuaternion(rng), bq = randomTangent(a, rng) + 0.3 * a;
    CHECK_THAT(Eigen::MatrixXd(quat::bodyG(a) * bq), isApprox(-quat::bodyG(bq) * a, 1e-14, 1e-14));
    CHECK_THAT(Eigen::MatrixXd(quat::worldH(a) * bq), isApprox(-quat::worldH(bq) * a, 1e-14, 1e-14));
    CHECK((quat::bodyG(ed) * ed).norm() <= 1e-14);
    CHECK_THAT(Eigen::MatrixXd(quat::bodyG(a) * quat::bodyG(bq).transpose()),
               isApprox(a.dot(bq) * Eigen::Matrix3d::Identity() + quat::skew(quat::bodyG(a) * bq),
                        1e-14, 1e-14));
  }
}

TEST_CASE("rigid3d reproduces Euler's equations pointwise", "[bodies][rigid3d][euler]") {
  // For random unit e, random e' with e.e' = 0 and random body torques tau, solve the 4
  // quaternion coordinates [4 G^T J G; 2 e^T] e'' = [Q_rot + 2 G^T tau; -2 e'.e'] with the
  // dense reference solver, recover w' = 2 G e'' (the term 2 G(e') e' vanishes identically)
  // and check J w' + w x J w = tau. The solver's error is ~eps * cond of the row-scaled
  // system (cond ~ 10 here): ~1e-14; 1e-9 relative to the largest term is a wide margin,
  // while a wrong gyroscopic factor (the -8 vs -4 confusion) gives O(1) errors.
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(), ctx);
  const DenseSolver solver;
  std::mt19937 rng(2010);
  for (int trial = 0; trial < 50; ++trial) {
    const Eigen::Vector4d e = randomUnitQuaternion(rng), ed = randomTangent(e, rng, 3.0);
    const Eigen::Vector3d tau = randomVector(rng, 5.0);
    const Eigen::VectorXd q = stateQ(randomVector(rng), e);
    Eigen::VectorXd v(7);
    v << randomVector(rng), ed;
    const Eigen::MatrixXd M = test::massMatrix(*body, q);
    const Eigen::VectorXd Q = test::forces(*body, q, v);
    Eigen::VectorXd bnorm;
    const Eigen::MatrixXd A = internalA(*body, q, v, bnorm);

    const quat::Matrix34d G = quat::bodyG(e);
    const Eigen::Matrix4d Mrot = M.bottomRightCorner<4, 4>();
    const Eigen::Vector4d Qrot = Q.tail<4>() + 2.0 * G.transpose() * tau;
    const Eigen::MatrixXd Arot = A.rightCols<4>();
    const Solution s = solver.solve(Mrot, Qrot, Arot, bnorm);
    REQUIRE(s.diagnosis.wellPosed);
    CHECK(s.diagnosis.rankMA == 4);
    const Eigen::Vector4d edd = s.qdd;

    const Eigen::Vector3d w = 2.0 * G * ed;
    const Eigen::Vector3d wd = 2.0 * G * edd + 2.0 * quat::bodyG(ed) * ed;
    CHECK((quat::bodyG(ed) * ed).norm() <= 1e-14);
    const Eigen::Vector3d lhs = kInertia * wd + w.cross(kInertia * w);
    const double scale = std::max({tau.norm(), (kInertia * wd).norm(), w.cross(kInertia * w).norm()});
    INFO("trial " << trial << " e " << e.transpose() << " e' " << ed.transpose());
    CHECK((lhs - tau).norm() <= 1e-9 * scale);
    // The norm constraint holds at acceleration level.
    CHECK(e.dot(edd) == Approx(-ed.squaredNorm()).epsilon(1e-10));
  }
}

TEST_CASE("generalized force of a body torque is 2 G^T tau, consistent with the point marker",
          "[bodies][rigid3d][euler]") {
  // Virtual power: tau_b . w_b = tau_b . (2 G e') = (2 G^T tau_b) . e' for every e'.
  // A world force F at body point p has generalized force J_p^T F; for unit e its rotational
  // part must equal 2 G^T (p x R^T F), the body torque mapped the same way.
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(), ctx);
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Vector4d e = randomUnitQuaternion(rng);
    const Eigen::VectorXd q = stateQ(randomVector(rng), e);
    const Eigen::Vector3d p = randomVector(rng), F = randomVector(rng, 3.0);
    Eigen::MatrixXd J(3, 7);
    body->points()->calcPointJacobian(q, p, J);
    const Eigen::VectorXd gen = J.transpose() * F;
    const Eigen::Vector3d tauBody = p.cross(quat::rotation(e).transpose() * F);
    CHECK_THAT(Eigen::MatrixXd(gen.head<3>()), isApprox(F, 1e-14, 1e-14));
    CHECK_THAT(Eigen::MatrixXd(gen.tail<4>()),
               isApprox(2.0 * quat::bodyG(e).transpose() * tauBody, 1e-13, 1e-13));
  }
}

TEST_CASE("rigid3d mass matrix: rank 6, null direction e, full rank with the norm row",
          "[bodies][rigid3d][rank]") {
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(), ctx);
  const DenseSolver solver;
  std::mt19937 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::Vector4d e = randomUnitQuaternion(rng), ed = randomTangent(e, rng);
    const Eigen::VectorXd q = stateQ(randomVector(rng), e);
    Eigen::VectorXd v(7);
    v << randomVector(rng), ed;
    const Eigen::MatrixXd M = test::massMatrix(*body, q);
    test::checkMassMatrix(M);
    CHECK_THAT(Eigen::MatrixXd(M.topLeftCorner<3, 3>()), isApprox(3.0 * Eigen::Matrix3d::Identity(), 0, 0));
    CHECK(M.topRightCorner<3, 4>().isZero(0.0));
    // 4 G^T J G e = 0: e spans the null space of the rotational block.
    CHECK((M.bottomRightCorner<4, 4>() * e).norm() <= 1e-14);
    Eigen::VectorXd bnorm;
    const Eigen::MatrixXd A = internalA(*body, q, v, bnorm);
    CHECK_THAT(A, isApprox((Eigen::MatrixXd(1, 7) << 0, 0, 0, 2 * e.transpose()).finished(), 0, 0));
    CHECK(bnorm(0) == Approx(-2.0 * ed.squaredNorm()));
    const Eigen::VectorXd Q = test::forces(*body, q, v);
    const Solution withNorm = solver.solve(M, Q, A, bnorm);
    CHECK(withNorm.diagnosis.wellPosed);
    CHECK(withNorm.diagnosis.rankMA == 7);
    const Solution alone = solver.solve(M, Q, Eigen::MatrixXd(0, 7), Eigen::VectorXd(0));
    CHECK(alone.diagnosis.rankMA == 6);
    CHECK_FALSE(alone.diagnosis.wellPosed);
  }
  // A point mass as rigid3d (J = 0): the orientation is not determined, rank 4 with the norm row.
  json pointMass = bodyJson();
  pointMass["inertia"] = {0, 0, 0};
  const BodyPtr pm = test::create<Body>(pointMass, ctx);
  const Eigen::VectorXd q = stateQ(Eigen::Vector3d::Zero(), Eigen::Vector4d(1, 0, 0, 0));
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(7);
  Eigen::VectorXd bnorm;
  const Eigen::MatrixXd A = internalA(*pm, q, v, bnorm);
  const Solution s = solver.solve(test::massMatrix(*pm, q), test::forces(*pm, q, v), A, bnorm);
  CHECK(s.diagnosis.rankMA == 4);
  CHECK_FALSE(s.diagnosis.wellPosed);
}

TEST_CASE("rigid3d velocity terms follow from Lagrange's equations", "[bodies][rigid3d]") {
  // Q = dT/dq - (dM/dt) q' with T = 1/2 q'^T M(q) q'. Checked by central differences (step
  // 1e-6, T and M are quadratic in e so only rounding ~1e-10 remains) at arbitrary states,
  // including non-unit e and e' not tangent: the formula is Lagrange's for this T everywhere.
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(), ctx);
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::VectorXd q(7), v(7);
    for (int i = 0; i < 7; ++i) {
      q(i) = u(rng);
      v(i) = 2 * u(rng);
    }
    const double h = 1e-6;
    Eigen::VectorXd dTdq(7);
    Eigen::MatrixXd Mdot = Eigen::MatrixXd::Zero(7, 7);
    for (int i = 0; i < 7; ++i) {
      Eigen::VectorXd qp = q, qm = q;
      qp(i) += h;
      qm(i) -= h;
      dTdq(i) = (body->calcKineticEnergy(0, qp, v) - body->calcKineticEnergy(0, qm, v)) / (2 * h);
    }
    Mdot = (test::massMatrix(*body, q + h * v) - test::massMatrix(*body, q - h * v)) / (2 * h);
    const Eigen::VectorXd expected = dTdq - Mdot * v;
    CHECK_THAT(Eigen::MatrixXd(test::forces(*body, q, v)), isApprox(expected, 1e-7, 1e-7));
  }
}

TEST_CASE("rigid3d kinetic energy and initial state", "[bodies][rigid3d]") {
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(), ctx);
  Eigen::VectorXd q0(7), v0(7);
  body->getInitialState(q0, v0);
  const Eigen::Vector4d e = q0.tail<4>(), ed = v0.tail<4>();
  CHECK(q0.head<3>() == Eigen::Vector3d(0.1, -0.2, 0.3));
  CHECK(e == Eigen::Vector4d(0.5, 0.5, 0.5, 0.5));
  CHECK(v0.head<3>() == Eigen::Vector3d(0.0, 0.5, -0.25));
  CHECK(std::abs(e.dot(ed)) <= 1e-15);  // the initial velocity satisfies the norm constraint
  const Eigen::Vector3d wWorld(1.0, -2.0, 0.5);
  CHECK_THAT(Eigen::MatrixXd(2.0 * quat::worldH(e) * ed), isApprox(wWorld, 1e-15, 1e-15));
  Eigen::MatrixXd Jw(3, 7);
  body->frames()->calcAngularJacobian(q0, Jw);
  CHECK_THAT(Eigen::MatrixXd(Jw * v0), isApprox(wWorld, 1e-15, 1e-15));
  const Eigen::Vector3d wBody = quat::rotation(e).transpose() * wWorld;
  CHECK_THAT(Eigen::MatrixXd(2.0 * quat::bodyG(e) * ed), isApprox(wBody, 1e-15, 1e-15));
  const double T = 0.5 * 3.0 * v0.head<3>().squaredNorm() + 0.5 * wBody.dot(kInertia * wBody);
  CHECK(body->calcKineticEnergy(0, q0, v0) == Approx(T).epsilon(1e-14));
}

TEST_CASE("rigid3d markers: classical forms on the unit sphere, exact derivatives everywhere",
          "[bodies][rigid3d][markers]") {
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(), ctx);
  std::mt19937 rng(23);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Vector4d e = randomUnitQuaternion(rng), ed = randomTangent(e, rng);
    const Eigen::VectorXd q = stateQ(randomVector(rng), e);
    Eigen::VectorXd v(7);
    v << randomVector(rng), ed;
    const Eigen::Vector3d p = randomVector(rng);
    const Eigen::Matrix3d R = quat::rotation(e);
    const Eigen::Vector3d Rp = R * p, w = 2.0 * quat::worldH(e) * ed;
    // Unit e, e.e' = 0: J_rot = -2 [R p]x H(e), bias = w x (w x R p); frame bias 0.
    CHECK_THAT(Eigen::MatrixXd(body->points()->calcPointPosition(q, p)),
               isApprox(q.head<3>() + Rp, 1e-14, 1e-14));
    Eigen::MatrixXd J(3, 7);
    body->points()->calcPointJacobian(q, p, J);
    CHECK_THAT(Eigen::MatrixXd(J.rightCols<4>()),
               isApprox(-2.0 * quat::skew(Rp) * quat::worldH(e), 1e-14, 1e-14));
    CHECK_THAT(Eigen::MatrixXd(body->points()->calcPointBias(q, v, p)),
               isApprox(w.cross(w.cross(Rp)), 1e-13, 1e-13));
    CHECK(body->frames()->calcAngularBias(q, v).norm() <= 1e-14);
    CHECK_THAT(Eigen::MatrixXd(body->frames()->calcOrientation(q)), isApprox(R, 1e-14, 1e-14));

    // Along a motion that keeps |e| = 1 (e'' with e.e'' = -|e'|^2): the point acceleration
    // equals the rigid-body formula x'' + w' x Rp + w x (w x Rp), w' = 2 H e''.
    std::uniform_real_distribution<double> uu(-1.0, 1.0);
    Eigen::Vector4d edd(uu(rng), uu(rng), uu(rng), uu(rng));
    edd -= (e.dot(edd) + ed.squaredNorm()) * e;
    Eigen::VectorXd a(7);
    a << randomVector(rng), edd;
    const Eigen::Vector3d wd = 2.0 * quat::worldH(e) * edd;
    CHECK_THAT(Eigen::MatrixXd(J * a + body->points()->calcPointBias(q, v, p)),
               isApprox(a.head<3>() + wd.cross(Rp) + w.cross(w.cross(Rp)), 1e-13, 1e-13));

    // Off the unit sphere (|e| != 1, e.e' != 0) the markers are exact derivatives of
    // r = x + R(e/|e|) p and of R(e/|e|): finite differences in arbitrary directions.
    test::Motion m;
    m.q = q;
    m.q.tail<4>() *= 1.3;
    m.v.resize(7);
    m.a.resize(7);
    for (int i = 0; i < 7; ++i) {
      m.v(i) = uu(rng);
      m.a(i) = uu(rng);
    }
    test::checkPointMarker(*body, m, p);
    test::checkFrameMarker(*body, m);
    test::checkInternalConstraints(*body, m);
  }
}

TEST_CASE("rigid3d free body: a force at a point gives Newton and Euler", "[bodies][rigid3d]") {
  // The full 7-coordinate body with the norm row, a world force F at body point p through the
  // point marker: x'' = F/m, and J w' + w x J w = p x R^T F (body frame).
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(), ctx);
  const DenseSolver solver;
  std::mt19937 rng(31);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Vector4d e = randomUnitQuaternion(rng), ed = randomTangent(e, rng);
    const Eigen::VectorXd q = stateQ(randomVector(rng), e);
    Eigen::VectorXd v(7);
    v << randomVector(rng), ed;
    const Eigen::Vector3d p = randomVector(rng), F = randomVector(rng, 4.0);
    Eigen::MatrixXd J(3, 7);
    body->points()->calcPointJacobian(q, p, J);
    const Eigen::VectorXd Q = test::forces(*body, q, v) + J.transpose() * F;
    Eigen::VectorXd bnorm;
    const Eigen::MatrixXd A = internalA(*body, q, v, bnorm);
    const Solution s = solver.solve(test::massMatrix(*body, q), Q, A, bnorm);
    REQUIRE(s.diagnosis.wellPosed);
    CHECK_THAT(Eigen::MatrixXd(s.qdd.head<3>()), isApprox(F / 3.0, 1e-12, 1e-12));
    const Eigen::Vector3d w = 2.0 * quat::bodyG(e) * ed;
    const Eigen::Vector3d wd = 2.0 * quat::bodyG(e) * s.qdd.tail<4>();
    const Eigen::Vector3d tau = p.cross(quat::rotation(e).transpose() * F);
    CHECK_THAT(Eigen::MatrixXd(kInertia * wd + w.cross(kInertia * w)), isApprox(tau, 1e-9, 1e-9));
  }
}

TEST_CASE("rigid3d torque-free motion conserves energy and angular momentum",
          "[bodies][rigid3d][validation]") {
  // RK4, step 1e-3, 1 s of tumbling about no principal axis (|w| ~ 2.3 rad/s) with the dense
  // solver at each stage; no projection. RK4's global error ~C dt^4 ~ 1e-12 here; 1e-9
  // relative on T and on the world angular momentum R J w_b is a safe bound, while a wrong
  // gyroscopic term changes both at order 1e-1 within the first 0.1 s.
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(), ctx);
  const DenseSolver solver;
  auto accel = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
    Eigen::VectorXd bnorm;
    const Eigen::MatrixXd A = internalA(*body, q, v, bnorm);
    return solver.solve(test::massMatrix(*body, q), test::forces(*body, q, v), A, bnorm).qdd;
  };
  auto momentum = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& v) -> Eigen::Vector3d {
    const Eigen::Vector4d e = q.tail<4>();
    return quat::rotation(e) * (kInertia * (2.0 * quat::bodyG(e) * v.tail<4>()));
  };
  Eigen::VectorXd q(7), v(7);
  body->getInitialState(q, v);
  const double T0 = body->calcKineticEnergy(0, q, v);
  const Eigen::Vector3d L0 = momentum(q, v);
  const double dt = 1e-3;
  for (int step = 0; step < 1000; ++step) {
    const Eigen::VectorXd k1q = v, k1v = accel(q, v);
    const Eigen::VectorXd k2q = v + 0.5 * dt * k1v, k2v = accel(q + 0.5 * dt * k1q, k2q);
    const Eigen::VectorXd k3q = v + 0.5 * dt * k2v, k3v = accel(q + 0.5 * dt * k2q, k3q);
    const Eigen::VectorXd k4q = v + dt * k3v, k4v = accel(q + dt * k3q, k4q);
    q += dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
    v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
  }
  CHECK(body->calcKineticEnergy(0, q, v) == Approx(T0).epsilon(1e-9));
  CHECK_THAT(Eigen::MatrixXd(momentum(q, v)), isApprox(L0, 1e-9, 1e-12));
  CHECK(q.tail<4>().norm() == Approx(1.0).epsilon(1e-9));
  CHECK_THAT(Eigen::MatrixXd(q.head<3>()),
             isApprox(Eigen::Vector3d(0.1, 0.3, 0.05), 1e-12, 1e-12));  // uniform COM motion
}

TEST_CASE("rigid3d gravity, normalization and internal position error", "[bodies][rigid3d]") {
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(), ctx);
  Eigen::VectorXd q(7);
  q << 1, 2, 3, 0.2, 0.4, -0.6, 1.2;
  const Eigen::Vector3d g(0.1, -9.81, 2.0);
  Eigen::VectorXd Q = Eigen::VectorXd::Zero(7);
  body->addGravityForce(q, g, Q);
  CHECK(Q.head<3>() == (3.0 * g).eval());
  CHECK(Q.tail<4>().isZero(0.0));
  test::checkGravity(*body, q, g);
  Eigen::VectorXd phi(1);
  body->calcInternalPositionError(0, q, phi);
  CHECK(phi(0) == Approx(q.tail<4>().squaredNorm() - 1.0));
  body->normalizeCoordinates(q);
  CHECK(q.tail<4>().norm() == Approx(1.0).epsilon(1e-15));
  CHECK(q.head<3>() == Eigen::Vector3d(1, 2, 3));
}

TEST_CASE("rigid3d factory: inertia forms, orientation norm, errors, round trip",
          "[bodies][rigid3d][errors]") {
  test::TestContext ctx;
  auto errorOf = [&](const json& j) -> std::string {
    try {
      test::create<Body>(j, ctx);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  auto with = [](const std::string& k, const json& v) {
    json j = bodyJson();
    j[k] = v;
    return j;
  };
  // Round trip with a full matrix, with a diagonal, and defaults.
  for (const json& j : {bodyJson(), with("inertia", {1, 2, 3})}) {
    const BodyPtr b = test::create<Body>(j, ctx);
    CHECK(b->toJson() == j);
  }
  const BodyPtr d = test::create<Body>({{"name", "b"}, {"type", "rigid3d"}, {"mass", 1}, {"inertia", {1, 1, 1}}}, ctx);
  Eigen::VectorXd q0(7), v0(7);
  d->getInitialState(q0, v0);
  CHECK(q0 == (Eigen::VectorXd(7) << 0, 0, 0, 1, 0, 0, 0).finished());
  CHECK(v0.isZero(0.0));

  // A small deviation from unit norm is renormalized; a large one is an error.
  const BodyPtr r = test::create<Body>(with("orientation", {1 + 5e-7, 0, 0, 0}), ctx);
  r->getInitialState(q0, v0);
  CHECK(q0.tail<4>() == Eigen::Vector4d(1, 0, 0, 0));
  std::string e = errorOf(with("orientation", {1, 0.1, 0, 0}));
  CHECK_THAT(e, Catch::Contains("at /orientation") && Catch::Contains("norm 1.00498") &&
                    Catch::Contains("expected a unit quaternion"));
  CHECK_THAT(errorOf(with("orientation", {1, 0, 0})),
             Catch::Contains("at /orientation") && Catch::Contains("an array of 4 numbers"));

  CHECK_THAT(errorOf(with("mass", -3)), Catch::Contains("at /mass") && Catch::Contains("expected a mass >= 0"));
  CHECK_THAT(errorOf(with("inertia", {1, -2, 3})),
             Catch::Contains("at /inertia/1") && Catch::Contains("expected a principal moment of inertia >= 0"));
  CHECK_THAT(errorOf(with("inertia", {{1, 0.5, 0}, {0, 1, 0}, {0, 0, 1}})),
             Catch::Contains("at /inertia") && Catch::Contains("inertia is not symmetric") &&
                 Catch::Contains("[0][1] = 0.5"));
  CHECK_THAT(errorOf(with("inertia", {{1, 2, 0}, {2, 1, 0}, {0, 0, 1}})),
             Catch::Contains("at /inertia") && Catch::Contains("not positive semi-definite") &&
                 Catch::Contains("smallest eigenvalue -1"));
  CHECK_THAT(errorOf(with("inertia", {1, 2})), Catch::Contains("at /inertia") &&
                                                   Catch::Contains("[Ixx, Iyy, Izz] or a 3x3 matrix"));
  CHECK_THAT(errorOf(with("angular_velocity", {1, 2})),
             Catch::Contains("at /angular_velocity") && Catch::Contains("an array of 3 numbers"));
  CHECK_THAT(errorOf(with("orientaton", {1, 0, 0, 0})),
             Catch::Contains("unknown key 'orientaton'") && Catch::Contains("did you mean 'orientation'"));
}

TEST_CASE("rigid3d writes every entry of M and of its internal row (fixed-size code)",
          "[bodies][rigid3d]") {
  // calcMassMatrix and calcInternalConstraints write their blocks without zeroing them first:
  // into blocks holding garbage (inside wider matrices, as Model passes them) they must give
  // diag(m I3, 4 G^T J G) and [0, 2 e^T], M exactly symmetric, also off the unit sphere.
  test::TestContext ctx;
  const BodyPtr body = test::create<Body>(bodyJson(2.5), ctx);
  std::mt19937 rng(20261127);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Vector4d e = (trial % 2 ? 1.3 : 1.0) * randomUnitQuaternion(rng);
    const Eigen::VectorXd q = stateQ(randomVector(rng), e);
    Eigen::VectorXd v(7);
    v << randomVector(rng), randomTangent(e, rng);
    Eigen::MatrixXd Mbig = Eigen::MatrixXd::Constant(9, 9, 12345.0);
    body->calcMassMatrix(0.0, q, Mbig.block(1, 2, 7, 7));
    const Eigen::MatrixXd M = Mbig.block(1, 2, 7, 7);
    const quat::Matrix34d G = quat::bodyG(e);
    Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(7, 7);
    expected.topLeftCorner<3, 3>().diagonal().setConstant(2.5);
    expected.bottomRightCorner<4, 4>() = 4.0 * G.transpose() * kInertia * G;
    CHECK_THAT(M, isApprox(expected, 1e-14, 1e-14));
    CHECK(M == M.transpose());
    CHECK(M.topRightCorner<3, 4>().isZero(0.0));
    CHECK(M.bottomLeftCorner<4, 3>().isZero(0.0));
    CHECK(Mbig.row(0).isConstant(12345.0));  // nothing outside the block
    CHECK(Mbig.col(1).isConstant(12345.0));

    Eigen::MatrixXd Abig = Eigen::MatrixXd::Constant(3, 9, 12345.0);
    Eigen::VectorXd b(1);
    body->calcInternalConstraints(0.0, q, v, Abig.block(1, 1, 1, 7), b);
    Eigen::MatrixXd Aexpected = Eigen::MatrixXd::Zero(1, 7);
    Aexpected.rightCols<4>() = 2.0 * e.transpose();
    CHECK(Abig.block(1, 1, 1, 7) == Aexpected);
    CHECK(b(0) == Approx(-2.0 * v.tail<4>().squaredNorm()).epsilon(1e-15));
  }
}
