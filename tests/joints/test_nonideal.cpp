// Non-ideal laws: Coulomb friction of prismatic2d opposes sliding, expression work vectors.
#include <catch2/catch.hpp>

#include "joinery/joints/nonideal.hpp"
#include "joint_test_support.hpp"

namespace joinery::test {
namespace {

VectorXd work(const Constraint& c, const LocalState& s, double Fi) {
  REQUIRE(c.nonideal() != nullptr);
  VectorXd C = VectorXd::Constant(c.numLocalCoordinates(), 999.0);
  c.nonideal()->calcWork(c, s, Fi, C);
  return C;
}

Eigen::Matrix2d rot(double a) {
  Eigen::Matrix2d R;
  R << std::cos(a), -std::sin(a), std::sin(a), std::cos(a);
  return R;
}

Eigen::Vector2d perp(const Eigen::Vector2d& v) { return {-v.y(), v.x()}; }

}  // namespace

TEST_CASE("coulomb friction on prismatic2d opposes the relative sliding", "[joints][nonideal]") {
  std::mt19937 rng(31);
  TestScene scene;
  const Body& b1 = scene.add("rigid2d", "body1");
  const Body& b2 = scene.add("rigid2d", "body2");
  const Eigen::Vector2d p1(0.3, -0.2), p2(-0.1, 0.4), axisLocal = Eigen::Vector2d(0.6, 0.8);
  const double angle = 0.2, mu = 0.3;
  const auto joint = scene.joint({{"name", "slider"}, {"type", "prismatic2d"}, {"body1", "body1"},
                                  {"point1", {p1.x(), p1.y()}}, {"body2", "body2"}, {"point2", {p2.x(), p2.y()}},
                                  {"axis", {axisLocal.x(), axisLocal.y()}}, {"angle", angle},
                                  {"nonideal", {{"coulomb", mu}}}});
  for (int trial = 0; trial < 10; ++trial) {
    // a state satisfying the joint: body1 anywhere, point2 at slide s along the axis
    const double th1 = uniform(rng, -3, 3), w1 = uniform(rng, -2, 2);
    const Eigen::Vector2d x1(uniform(rng, -1, 1), uniform(rng, -1, 1)), v1(uniform(rng, -1, 1), uniform(rng, -1, 1));
    const double slide = uniform(rng, -1, 1), slideRate = (trial % 2 ? 1 : -1) * uniform(rng, 0.1, 2);
    const Eigen::Vector2d a = rot(th1) * axisLocal.normalized();
    const Eigen::Vector2d r1 = x1 + rot(th1) * p1, r2 = r1 + slide * a;
    const double th2 = th1 + angle;
    const Eigen::Vector2d x2 = r2 - rot(th2) * p2;
    // velocities: r1' = v1 + w1 perp(R1 p1), r2' = r1' + w1 perp(slide a) + slide' a, w2 = w1
    const Eigen::Vector2d r1dot = v1 + w1 * perp(rot(th1) * p1);
    const Eigen::Vector2d r2dot = r1dot + w1 * perp(slide * a) + slideRate * a;
    const Eigen::Vector2d v2 = r2dot - w1 * perp(rot(th2) * p2);
    StateHolder s({&b1, &b2}, {Eigen::Vector3d(x1.x(), x1.y(), th1), Eigen::Vector3d(x2.x(), x2.y(), th2)},
                  {Eigen::Vector3d(v1.x(), v1.y(), w1), Eigen::Vector3d(v2.x(), v2.y(), w1)}, 0);
    REQUIRE(positionError(*joint, s.state()).norm() < 1e-12);
    REQUIRE(velocityError(*joint, s.state()).norm() < 1e-12);

    const double Fi = uniform(rng, 0.5, 5);
    const VectorXd C = work(*joint, s.state(), Fi);
    // the friction force on body2 is -mu Fi sign(slide') a; body1 gets the reaction
    const Eigen::Vector2d F = -mu * Fi * (slideRate > 0 ? 1 : -1) * a;
    CHECK_THAT(VectorXd(C.segment<2>(3)), isApprox(F, 1e-12, 1e-12));
    CHECK_THAT(VectorXd(C.segment<2>(0)), isApprox(-F, 1e-12, 1e-12));
    // it dissipates exactly mu Fi |slide'|
    CHECK(C.dot(s.velocities()) == Approx(-mu * Fi * std::abs(slideRate)).epsilon(1e-12));
  }
  SECTION("no sliding, no friction") {
    StateHolder s({&b1, &b2}, {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(0, 0, angle)},
                  {Eigen::Vector3d(1, 2, 0), Eigen::Vector3d(1, 2, 0)}, 0);
    CHECK_THAT(work(*joint, s.state(), 3.0), isApprox(VectorXd::Zero(6), 0, 0));
  }
  SECTION("round trip keeps the law") {
    const nlohmann::json j = joint->toJson();
    CHECK(j.at("nonideal") == nlohmann::json{{"coulomb", mu}});
    CHECK(scene.joint(j)->toJson() == j);
  }
}

TEST_CASE("coulomb friction against the ground: force on body2 only", "[joints][nonideal]") {
  TestScene scene;
  const Body& block = scene.add("rigid2d", "block");
  const Body& ground = scene.ctx.ground();
  scene.ctx.setParameter("mu", 0.25);
  const auto joint = scene.joint({{"name", "rail"}, {"type", "prismatic2d"}, {"body1", "ground"}, {"point1", {0, 1}},
                                  {"body2", "block"}, {"axis", {1, 0}}, {"nonideal", {{"coulomb", "mu"}}}});
  StateHolder s({&ground, &block}, {VectorXd(), Eigen::Vector3d(2, 1, 0)}, {VectorXd(), Eigen::Vector3d(-0.5, 0, 0)}, 0);
  CHECK_THAT(work(*joint, s.state(), 4.0), isApprox(Eigen::Vector3d(0.25 * 4, 0, 0), 1e-15, 0));
}

TEST_CASE("nonideal C: an expression work vector over the joint's coordinates", "[joints][nonideal]") {
  TestScene scene;
  const Body& b1 = scene.add("rigid2d", "body1");
  const Body& b2 = scene.add("particle2", "body2");
  scene.ctx.setParameter("c", 0.1);
  const nlohmann::json def = {{"name", "pin"}, {"type", "revolute2d"}, {"body1", "body1"}, {"body2", "body2"},
                              {"nonideal", {{"C", {{"body1.theta", "-c*Fi*body1.theta_dot"},
                                                   {"body2.y", "t + body2.x - body1.y_dot"}}}}}};
  const auto joint = scene.joint(def);
  StateHolder s({&b1, &b2}, {Eigen::Vector3d(1, 2, 3), Eigen::Vector2d(4, 5)},
                {Eigen::Vector3d(6, 7, 8), Eigen::Vector2d(9, 10)}, 0.5);
  VectorXd expected = VectorXd::Zero(5);
  expected(2) = -0.1 * 2.5 * 8;
  expected(4) = 0.5 + 4 - 7;
  CHECK_THAT(work(*joint, s.state(), 2.5), isApprox(expected, 1e-14, 1e-14));
  CHECK(joint->toJson().at("nonideal") == def.at("nonideal"));
  CHECK(scene.joint(joint->toJson())->toJson() == joint->toJson());
}

}  // namespace joinery::test
