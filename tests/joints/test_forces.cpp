// Force elements: conservative parts against -dV/dq, dissipation of the dampers, applied
// forces against their virtual work, generalized forces by value.
#include <catch2/catch.hpp>
#include <tuple>

#include "joint_test_support.hpp"

namespace joinery::test {
namespace {

/// Central difference of the element's potential energy along each local coordinate
/// (h = 1e-6: truncation ~1e-12 |V'''|, round-off ~1e-10 |V|; compared with tolerance 1e-6).
VectorXd potentialGradient(const ForceElement& f, const std::vector<VectorXd>& q, double t) {
  const int n = f.numLocalCoordinates();
  const double h = 1e-6;
  VectorXd grad(n);
  const VectorXd flat = StateHolder::concat(q);
  auto split = [&](const VectorXd& x) {
    std::vector<VectorXd> parts;
    int k = 0;
    for (const Body* b : f.bodies()) {
      parts.push_back(x.segment(k, b->numCoordinates()));
      k += b->numCoordinates();
    }
    return parts;
  };
  std::vector<VectorXd> zeroV;
  for (const Body* b : f.bodies()) zeroV.push_back(VectorXd::Zero(b->numCoordinates()));
  for (int i = 0; i < n; ++i) {
    VectorXd plus = flat, minus = flat;
    plus(i) += h;
    minus(i) -= h;
    StateHolder sp(f.bodies(), split(plus), zeroV, t), sm(f.bodies(), split(minus), zeroV, t);
    grad(i) = (f.calcPotentialEnergy(sp.state()) - f.calcPotentialEnergy(sm.state())) / (2 * h);
  }
  return grad;
}

const std::vector<std::string> kPointKinds = {"ground", "particle2", "particle3", "rigid2d", "rigid3d"};

}  // namespace

TEST_CASE("spring: Q = -dV/dq, V = k (|d| - L0)^2 / 2, damping dissipates", "[forces]") {
  std::mt19937 rng(5);
  for (const auto& k1 : kPointKinds) {
    for (const auto& k2 : kPointKinds) {
      if (k1 == "ground" && k2 == "ground") continue;
      DYNAMIC_SECTION("spring between " << k1 << " and " << k2) {
        TestScene scene;
        const Body& b1 = scene.add(k1, "b1");
        const Body& b2 = scene.add(k2, "b2");
        nlohmann::json j = {{"name", "s"},          {"type", "spring"},         {"body1", b1.name()},
                            {"point1", {0.3, -0.2, 0.1}}, {"body2", b2.name()}, {"point2", {0.1, 0.4, -0.3}},
                            {"stiffness", 150}, {"free_length", 0.4}};
        const auto spring = scene.force(j);
        j["stiffness"] = 0;
        j["damping"] = 3.5;
        const auto damper = scene.force(j);
        for (int trial = 0; trial < 4; ++trial) {
          ElementMotion motion(spring->bodies(), rng, 0.3);
          const auto s = motion.at(0);
          // conservative part: no velocity dependence without damping
          const VectorXd Q = generalizedForce(*spring, s->state());
          CHECK_THAT(Q, isApprox(VectorXd(-potentialGradient(*spring, motion.q(0), 0.3)), 1e-6, 1e-6));
          // energy value
          auto length = [&](double ds) {
            const auto st = motion.at(ds);
            const Vector3d r1 = b1.points()->calcPointPosition(st->state().bodies[0].coords(), Vector3d(0.3, -0.2, 0.1));
            const Vector3d r2 = b2.points()->calcPointPosition(st->state().bodies[1].coords(), Vector3d(0.1, 0.4, -0.3));
            return (r2 - r1).norm();
          };
          const double L = length(0);
          CHECK(spring->calcPotentialEnergy(s->state()) == Approx(0.5 * 150 * (L - 0.4) * (L - 0.4)));
          // damper: power Q.q' = -c (d|d|/dt)^2, d|d|/dt by central difference
          const double rate = (length(1e-6) - length(-1e-6)) / 2e-6;
          const VectorXd Qd = generalizedForce(*damper, s->state());
          CHECK(Qd.dot(s->velocities()) == Approx(-3.5 * rate * rate).epsilon(1e-6).margin(1e-8));
          CHECK(damper->calcPotentialEnergy(s->state()) == 0);
        }
      }
    }
  }
}

TEST_CASE("spring with coincident end points gives a finite force", "[forces]") {
  TestScene scene;
  const Body& p = scene.add("particle2", "p");
  const Body& ground = scene.ctx.ground();
  StateHolder s({&ground, &p}, {VectorXd(), Eigen::Vector2d(0, 0)}, {VectorXd(), Eigen::Vector2d(1, 2)}, 0);
  SECTION("free_length 0: F = -k d = 0") {
    const auto f = scene.force({{"name", "s"}, {"type", "spring"}, {"body1", "ground"}, {"body2", "p"},
                                {"stiffness", 10}, {"damping", 2}});
    CHECK_THAT(generalizedForce(*f, s.state()), isApprox(VectorXd::Zero(2), 0, 0));
  }
  SECTION("free_length > 0: the direction is undefined, the force is zero") {
    const auto f = scene.force({{"name", "s"}, {"type", "spring"}, {"body1", "ground"}, {"body2", "p"},
                                {"stiffness", 10}, {"damping", 2}, {"free_length", 1}});
    const VectorXd Q = generalizedForce(*f, s.state());
    CHECK(Q.allFinite());
    CHECK_THAT(Q, isApprox(VectorXd::Zero(2), 0, 0));
    CHECK(f->calcPotentialEnergy(s.state()) == Approx(5));
  }
  SECTION("free_length 0 near coincidence: F = -k d, continuous") {
    const auto f = scene.force({{"name", "s"}, {"type", "spring"}, {"body1", "ground"}, {"body2", "p"},
                                {"stiffness", 10}});
    StateHolder near({&ground, &p}, {VectorXd(), Eigen::Vector2d(1e-13, -2e-13)}, {VectorXd(), Eigen::Vector2d(1, 2)}, 0);
    CHECK_THAT(generalizedForce(*f, near.state()), isApprox(Eigen::Vector2d(-1e-12, 2e-12), 1e-12, 0));
  }
}

TEST_CASE("torsion2d: Q = -dV/dq, damping dissipates, sign convention", "[forces]") {
  std::mt19937 rng(6);
  for (const auto& [k1, k2] : std::vector<std::pair<std::string, std::string>>{
           {"ground", "rigid2d"}, {"rigid2d", "ground"}, {"rigid2d", "rigid2d"}}) {
    DYNAMIC_SECTION("torsion2d between " << k1 << " and " << k2) {
      TestScene scene;
      const Body& b1 = scene.add(k1, "b1");
      const Body& b2 = scene.add(k2, "b2");
      const auto spring = scene.force({{"name", "t"}, {"type", "torsion2d"}, {"body1", b1.name()},
                                       {"body2", b2.name()}, {"stiffness", 20}, {"free_angle", 0.25}});
      const auto damper = scene.force({{"name", "t"}, {"type", "torsion2d"}, {"body1", b1.name()},
                                       {"body2", b2.name()}, {"stiffness", 0}, {"damping", 0.7}});
      for (int trial = 0; trial < 4; ++trial) {
        ElementMotion motion(spring->bodies(), rng, 0);
        const auto s = motion.at(0);
        CHECK_THAT(generalizedForce(*spring, s->state()),
                   isApprox(VectorXd(-potentialGradient(*spring, motion.q(0), 0)), 1e-6, 1e-6));
        const VectorXd v = s->velocities();
        const double w1 = k1 == "ground" ? 0 : v(2), w2 = k2 == "ground" ? 0 : v(v.size() - 1);
        CHECK(generalizedForce(*damper, s->state()).dot(v) == Approx(-0.7 * (w2 - w1) * (w2 - w1)));
      }
    }
  }
  SECTION("a positive twist of body2 gives a negative torque on body2") {
    TestScene scene;
    const Body& r = scene.add("rigid2d", "r");
    const Body& ground = scene.ctx.ground();
    const auto spring = scene.force({{"name", "t"}, {"type", "torsion2d"}, {"body1", "ground"}, {"body2", "r"},
                                     {"stiffness", 20}, {"free_angle", 0.25}});
    StateHolder s({&ground, &r}, {VectorXd(), Eigen::Vector3d(1, 2, 0.35)}, {VectorXd(), Eigen::Vector3d::Zero()}, 0);
    CHECK_THAT(generalizedForce(*spring, s.state()), isApprox(Eigen::Vector3d(0, 0, -2), 1e-12, 1e-12));
    CHECK(spring->calcPotentialEnergy(s.state()) == Approx(0.5 * 20 * 0.01));
  }
}

TEST_CASE("joint_spring: Q = -dV/dq on a joint's turn and travel, damping dissipates", "[forces]") {
  std::mt19937 rng(16);
  // body pairings of a revolute3d (turn) and a prismatic3d (travel); the axes are not aligned
  // with any body axis and the joint's points are off the centres of mass
  for (const auto& [k1, k2, jointType] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"ground", "rigid3d", "revolute3d"}, {"rigid3d", "rigid3d", "revolute3d"},
           {"rigid3d", "ground", "revolute3d"}, {"rigid3d", "rigid3d", "prismatic3d"},
           {"ground", "rigid3d", "prismatic3d"}}) {
    DYNAMIC_SECTION("joint_spring on a " << jointType << " between " << k1 << " and " << k2) {
      TestScene scene;
      const Body& b1 = scene.add(k1, "b1");
      const Body& b2 = scene.add(k2, "b2");
      nlohmann::json jj = {{"name", "hinge"}, {"type", jointType}, {"body1", b1.name()},
                           {"point1", {0.3, -0.2, 0.1}}, {"body2", b2.name()}, {"point2", {0.1, 0.4, -0.3}},
                           {"axis1", {0.2, 0.5, 0.8}}};
      if (jointType == "revolute3d") jj["axis2"] = {-0.3, 0.7, 0.4};
      const auto joint = scene.joint(jj);
      scene.ctx.addConstraint(*joint);
      const auto spring = scene.force({{"name", "s"}, {"type", "joint_spring"}, {"joint", "hinge"},
                                       {"stiffness", 40}, {"rest", -1.0}});
      const auto damper = scene.force({{"name", "d"}, {"type", "joint_spring"}, {"joint", "hinge"}, {"damping", 2.5}});
      REQUIRE(spring->bodies() == joint->bodies());
      for (int trial = 0; trial < 4; ++trial) {
        ElementMotion motion(spring->bodies(), rng, 0.3);
        const auto s = motion.at(0);
        const VectorXd Qs = generalizedForce(*spring, s->state());
        // the conservative part: no velocity dependence without damping
        CHECK_THAT(Qs, isApprox(VectorXd(-potentialGradient(*spring, motion.q(0), 0.3)), 1e-6, 1e-6));
        // the damper's power is -c x'^2; x'^2 from the spring: dV/dt = k (x - rest) x' = -Qs.v
        // and V = k (x - rest)^2 / 2, so x'^2 = (Qs.v)^2 / (2 k V) (rest = -1 keeps V away from 0)
        const VectorXd v = s->velocities();
        const double V = spring->calcPotentialEnergy(s->state());
        REQUIRE(V > 1e-3);
        const double rate2 = Qs.dot(v) * Qs.dot(v) / (2 * 40 * V);
        CHECK(generalizedForce(*damper, s->state()).dot(v) == Approx(-2.5 * rate2).epsilon(1e-9).margin(1e-12));
        CHECK(damper->calcPotentialEnergy(s->state()) == 0);
      }
    }
  }
  SECTION("at the initial state the turn and the travel are 0: the energy is k rest^2 / 2") {
    TestScene scene;
    scene.add("rigid3d", "b2");
    const auto joint = scene.joint({{"name", "hinge"}, {"type", "revolute3d"}, {"body1", "ground"},
                                    {"point1", {0, 0, 0}}, {"body2", "b2"}, {"point2", {0.5, 0, 0}},
                                    {"axis1", {0, 0, 1}}, {"axis2", {0, 0, 1}}});
    scene.ctx.addConstraint(*joint);
    const auto spring = scene.force({{"name", "s"}, {"type", "joint_spring"}, {"joint", "hinge"},
                                     {"stiffness", 40}, {"rest", 0.3}});
    const Body& b2 = *joint->bodies()[1];
    VectorXd q0(b2.numCoordinates()), v0(b2.numCoordinates());
    b2.getInitialState(q0, v0);
    StateHolder st({&scene.ctx.ground(), &b2}, {VectorXd(), q0}, {VectorXd(), v0}, 0);
    CHECK(spring->calcPotentialEnergy(st.state()) == Approx(0.5 * 40 * 0.09).epsilon(1e-14));
  }
  SECTION("errors name the joint and what was expected") {
    TestScene scene;
    scene.add("rigid3d", "b2");
    const auto joint = scene.joint({{"name", "ball"}, {"type", "spherical"}, {"body1", "ground"},
                                    {"point1", {0, 0, 0}}, {"body2", "b2"}, {"point2", {0.5, 0, 0}}});
    scene.ctx.addConstraint(*joint);
    CHECK_THROWS_WITH(scene.force({{"name", "s"}, {"type", "joint_spring"}, {"joint", "ball"}, {"stiffness", 1}}),
                      Catch::Contains("joint 'ball' is a spherical joint, which has no turn"));
    CHECK_THROWS_WITH(scene.force({{"name", "s"}, {"type", "joint_spring"}, {"joint", "bal"}, {"stiffness", 1}}),
                      Catch::Contains("unknown joint 'bal'"));
    const auto hinge = scene.joint({{"name", "hinge"}, {"type", "revolute3d"}, {"body1", "ground"},
                                    {"point1", {0, 0, 0}}, {"body2", "b2"}, {"point2", {0.5, 0, 0}},
                                    {"axis1", {0, 0, 1}}, {"axis2", {0, 0, 1}}});
    scene.ctx.addConstraint(*hinge);
    CHECK_THROWS_WITH(scene.force({{"name", "s"}, {"type", "joint_spring"}, {"joint", "hinge"}}),
                      Catch::Contains("needs a 'stiffness' or a 'damping'"));
    CHECK_THROWS_WITH(scene.force({{"name", "s"}, {"type", "joint_spring"}, {"joint", "hinge"}, {"damping", -1}}),
                      Catch::Contains("expected a finite number >= 0 (N m s/rad)"));
    CHECK_THROWS_WITH(scene.force({{"name", "s"}, {"type", "joint_spring"}, {"joint", "hinge"}, {"stiffness", 1},
                                   {"quantity", "travel"}}),
                      Catch::Contains("a turn only"));
  }
}

TEST_CASE("force: Q = J^T F, the virtual work of the world force at the point", "[forces]") {
  std::mt19937 rng(8);
  for (const std::string kind : {"particle2", "particle3", "rigid2d", "rigid3d"}) {
    DYNAMIC_SECTION("force on " << kind) {
      TestScene scene;
      const Body& b = scene.add(kind, "body1");
      const Vector3d local(0.5, 0.2, -0.1);
      const auto f = scene.force({{"name", "push"}, {"type", "force"}, {"body", "body1"}, {"point", {0.5, 0.2, -0.1}},
                                  {"value", {"3*cos(t)", "-2 + t", "t^2"}}});
      for (int trial = 0; trial < 4; ++trial) {
        ElementMotion motion(f->bodies(), rng, uniform(rng, 0, 2));
        const auto s = motion.at(0);
        const double t = s->state().t;
        const Vector3d F(3 * std::cos(t), -2 + t, t * t);
        auto r = [&](double ds) { return b.points()->calcPointPosition(motion.at(ds)->state().bodies[0].coords(), local); };
        const Vector3d rdot = (r(1e-6) - r(-1e-6)) / 2e-6;
        CHECK(generalizedForce(*f, s->state()).dot(s->velocities()) == Approx(F.dot(rdot)).epsilon(1e-7));
      }
    }
  }
  SECTION("a 2-vector value is a planar force") {
    TestScene scene;
    const Body& b = scene.add("particle2", "body1");
    const auto f = scene.force({{"name", "push"}, {"type", "force"}, {"body", "body1"}, {"value", {"1.5", "-t"}}});
    StateHolder s({&b}, {Eigen::Vector2d(1, 1)}, {Eigen::Vector2d::Zero()}, 2.0);
    CHECK_THAT(generalizedForce(*f, s.state()), isApprox(Eigen::Vector2d(1.5, -2.0), 1e-15, 0));
  }
}

TEST_CASE("generalized: Q_k = value(coordinates, velocities, t)", "[forces]") {
  TestScene scene;
  const Body& b1 = scene.add("rigid2d", "body1");
  const Body& b2 = scene.add("particle2", "body2");
  scene.ctx.setParameter("c", 0.3);
  SECTION("referenced bodies join bodies(), only the target coordinate receives the force") {
    const auto f = scene.force({{"name", "drag"}, {"type", "generalized"}, {"coordinate", "body1.theta"},
                                {"value", "-c*body1.x_dot + 0.5*sin(t) - 2*body2.y"}});
    REQUIRE(f->bodies() == std::vector<const Body*>{&b1, &b2});
    StateHolder s({&b1, &b2}, {Eigen::Vector3d(1, 2, 3), Eigen::Vector2d(4, 5)},
                  {Eigen::Vector3d(-1, 7, 8), Eigen::Vector2d(9, 10)}, 0.7);
    VectorXd expected = VectorXd::Zero(5);
    expected(2) = -0.3 * -1 + 0.5 * std::sin(0.7) - 2 * 5;
    CHECK_THAT(generalizedForce(*f, s.state()), isApprox(expected, 1e-14, 1e-14));
  }
  SECTION("a body whose name contains dots (an instance body) resolves by the longest prefix") {
    auto rod = create<Body>({{"name", "arm.l1.rod"}, {"type", "rigid2d"}, {"mass", 1}, {"inertia", 1}}, scene.ctx);
    scene.ctx.addBody(*rod);
    const auto f = scene.force({{"name", "g"}, {"type", "generalized"}, {"coordinate", "arm.l1.rod.theta"},
                                {"value", "-2*arm.l1.rod.theta_dot - arm.l1.rod.theta"}});
    REQUIRE(f->bodies() == std::vector<const Body*>{rod.get()});
    StateHolder s({rod.get()}, {Eigen::Vector3d(0, 0, 0.5)}, {Eigen::Vector3d(0, 0, 0.25)}, 0);
    CHECK_THAT(generalizedForce(*f, s.state()), isApprox(Eigen::Vector3d(0, 0, -1.0), 1e-15, 0));
  }
}

}  // namespace joinery::test
