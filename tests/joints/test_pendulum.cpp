// Acceptance: pendulums assembled by hand (M, Q with gravity, A, b from the joint and the
// bodies' own constraints), solved with the dense reference solver, against the closed form
// of the pendulum equation at random states consistent with the joint.
#include <catch2/catch.hpp>

#include "joinery/core/dense_solver.hpp"
#include "joint_test_support.hpp"

namespace joinery::test {
namespace {

/// M, Q (own forces + gravity), and A, b (joint rows, then the body's internal rows) of one
/// body hanging from the ground by `joint` (bodies() = {ground, body}).
struct Assembled {
  MatrixXd M, A;
  VectorXd Q, b;
};

Assembled assemble(const Body& body, const Constraint& joint, const VectorXd& q, const VectorXd& v,
                   const Vector3d& g) {
  const int n = body.numCoordinates();
  const int m = joint.numRows() + body.numInternalConstraints();
  Assembled out{MatrixXd::Zero(n, n), MatrixXd::Zero(m, n), VectorXd::Zero(n), VectorXd::Zero(m)};
  body.calcMassMatrix(0, q, out.M);
  body.calcForces(0, q, v, out.Q);
  body.addGravityForce(q, g, out.Q);
  REQUIRE(joint.bodies().size() == 2);
  REQUIRE(joint.bodies()[0]->isGround());
  StateHolder s(joint.bodies(), {VectorXd(), q}, {VectorXd(), v}, 0);
  // the state must satisfy the joint at position and velocity level
  REQUIRE(positionError(joint, s.state()).norm() < 1e-12);
  REQUIRE(velocityError(joint, s.state()).norm() < 1e-12);
  joint.calcAccelerationRows(s.state(), out.A.topRows(joint.numRows()), out.b.head(joint.numRows()));
  if (body.numInternalConstraints() > 0)
    body.calcInternalConstraints(0, q, v, out.A.bottomRows(body.numInternalConstraints()),
                                 out.b.tail(body.numInternalConstraints()));
  return out;
}

VectorXd solve(const Assembled& a) {
  const Solution sol = DenseSolver().solve(a.M, a.Q, a.A, a.b);
  REQUIRE(sol.diagnosis.wellPosed);
  REQUIRE(sol.diagnosis.residual < 1e-10);
  return sol.qdd;
}

}  // namespace

TEST_CASE("rigid2d + revolute2d pendulum: theta'' = -m g l sin(theta) / (I + m l^2)", "[joints][acceptance]") {
  std::mt19937 rng(2024);
  const double m = 2.3, I = 0.17, l = 0.8, g = 9.81;
  TestScene scene;
  scene.ctx.setParameter("l", l);
  const auto bodyDef = nlohmann::json{{"name", "rod"}, {"type", "rigid2d"}, {"mass", m}, {"inertia", I}};
  auto body = create<Body>(bodyDef, scene.ctx);
  scene.ctx.addBody(*body);
  // pivot at the world origin, at body point (0, l): the centre of mass hangs below at theta = 0
  const auto joint = scene.joint({{"name", "pivot"}, {"type", "revolute2d"}, {"body1", "ground"},
                                  {"point1", {0, 0}}, {"body2", "rod"}, {"point2", {0, "l"}}});
  for (int trial = 0; trial < 20; ++trial) {
    const double theta = uniform(rng, -3.1, 3.1), omega = uniform(rng, -4, 4);
    Eigen::Vector3d q(l * std::sin(theta), -l * std::cos(theta), theta);
    Eigen::Vector3d v(l * std::cos(theta) * omega, l * std::sin(theta) * omega, omega);
    const VectorXd qdd = solve(assemble(*body, *joint, q, v, Vector3d(0, -g, 0)));
    const double expected = -m * g * l * std::sin(theta) / (I + m * l * l);
    CHECK(qdd(2) == Approx(expected).margin(1e-9));
    // the centre of mass accelerates on its circle: tangential l theta'', centripetal l omega^2
    CHECK(qdd(0) == Approx(l * (std::cos(theta) * expected - std::sin(theta) * omega * omega)).margin(1e-9));
    CHECK(qdd(1) == Approx(l * (std::sin(theta) * expected + std::cos(theta) * omega * omega)).margin(1e-9));
  }
}

TEST_CASE("particle (dim 2) + distance pendulum: theta'' = -(g / L) sin(theta)", "[joints][acceptance]") {
  std::mt19937 rng(77);
  const double m = 1.7, L = 1.3, g = 9.81;
  TestScene scene;
  auto body = create<Body>({{"name", "bob"}, {"type", "particle"}, {"dim", 2}, {"mass", m}}, scene.ctx);
  scene.ctx.addBody(*body);
  const auto joint = scene.joint({{"name", "rod"}, {"type", "distance"}, {"body1", "ground"},
                                  {"point1", {0, 0}}, {"body2", "bob"}, {"length", L}});
  for (int trial = 0; trial < 20; ++trial) {
    const double theta = uniform(rng, -3.1, 3.1), omega = uniform(rng, -4, 4);
    Eigen::Vector2d q(L * std::sin(theta), -L * std::cos(theta));
    Eigen::Vector2d v(L * std::cos(theta) * omega, L * std::sin(theta) * omega);
    const VectorXd qdd = solve(assemble(*body, *joint, q, v, Vector3d(0, -g, 0)));
    const double tangential = qdd(0) * std::cos(theta) + qdd(1) * std::sin(theta);
    const double radial = qdd(0) * std::sin(theta) - qdd(1) * std::cos(theta);  // outward
    CHECK(tangential / L == Approx(-(g / L) * std::sin(theta)).margin(1e-9));
    CHECK(radial == Approx(-L * omega * omega).margin(1e-9));
  }
}

TEST_CASE("rigid3d + revolute3d pendulum about z: theta'' = -m g l sin(theta) / (Izz + m l^2)",
          "[joints][acceptance]") {
  std::mt19937 rng(99);
  const double m = 3.0, Izz = 0.4, l = 0.6, g = 9.81;
  TestScene scene;
  auto body = create<Body>({{"name", "rotor"}, {"type", "rigid3d"}, {"mass", m}, {"inertia", {0.2, 0.3, Izz}}},
                           scene.ctx);
  scene.ctx.addBody(*body);
  const auto joint = scene.joint({{"name", "hinge"}, {"type", "revolute3d"}, {"body1", "ground"},
                                  {"point1", {0, 0, 0}}, {"axis1", {0, 0, 1}}, {"body2", "rotor"},
                                  {"point2", {0, l, 0}}, {"axis2", {0, 0, 1}}});
  for (int trial = 0; trial < 20; ++trial) {
    const double theta = uniform(rng, -3.1, 3.1), omega = uniform(rng, -4, 4);
    VectorXd q(7), v(7);
    q << l * std::sin(theta), -l * std::cos(theta), 0, std::cos(theta / 2), 0, 0, std::sin(theta / 2);
    v << l * std::cos(theta) * omega, l * std::sin(theta) * omega, 0, -0.5 * omega * std::sin(theta / 2), 0, 0,
        0.5 * omega * std::cos(theta / 2);
    const VectorXd qdd = solve(assemble(*body, *joint, q, v, Vector3d(0, -g, 0)));
    MatrixXd Jw(3, 7);
    body->frames()->calcAngularJacobian(q, Jw);
    const Vector3d alpha = Jw * qdd + body->frames()->calcAngularBias(q, v);
    CHECK(alpha.z() == Approx(-m * g * l * std::sin(theta) / (Izz + m * l * l)).margin(1e-9));
    CHECK(alpha.x() == Approx(0).margin(1e-9));
    CHECK(alpha.y() == Approx(0).margin(1e-9));
  }
}

}  // namespace joinery::test
