// A and b of every geometric joint on every body pairing, against finite differences of the
// position and velocity errors along random motions; incompatible pairings must be rejected.
#include <catch2/catch.hpp>

#include "joint_test_support.hpp"

namespace joinery::test {
namespace {

struct Kind {
  std::string name;
  bool points, frames, planar;
};

const std::vector<Kind> kKinds = {
    {"ground", true, true, true},      {"particle1", true, false, true},
    {"particle2", true, false, true},  {"particle3", true, false, false},
    {"rigid2d", true, true, true},     {"rigid3d", true, true, false},
    {"linear", false, false, false},
};

struct JointCase {
  std::string type;
  nlohmann::json fields;
  bool points, frames, planar;
  int rows;
  bool framesOnBody1Only = false;  ///< body 2 needs only a point (point_on_line, point_on_plane)
};

const std::vector<JointCase>& jointCases() {
  static const std::vector<JointCase> cases = {
      {"revolute2d", {{"point1", {0.3, -0.2}}, {"point2", {0.1, 0.4}}}, true, false, true, 2},
      {"prismatic2d",
       {{"point1", {0.3, -0.2}}, {"point2", {0.1, 0.4}}, {"axis", {0.6, 0.8}}, {"angle", 0.2}},
       true, true, true, 2},
      {"weld2d", {{"point1", {0.3, -0.2}}, {"point2", {0.1, 0.4}}, {"angle", -0.4}}, true, true, true, 3},
      {"distance", {{"point1", {0.3, -0.2, 0.1}}, {"point2", {0.1, 0.4, -0.3}}, {"length", 1.2}}, true,
       false, false, 1},
      {"spherical", {{"point1", {0.3, -0.2, 0.1}}, {"point2", {0.1, 0.4, -0.3}}}, true, false, false, 3},
      {"revolute3d",
       {{"point1", {0.3, -0.2, 0.1}}, {"axis1", {0.2, 0.3, 1.0}}, {"point2", {0.1, 0.4, -0.3}},
        {"axis2", {1.0, 0.1, 0.2}}},
       true, true, false, 5},
      {"universal",
       {{"point1", {0.3, -0.2, 0.1}}, {"axis1", {0.2, 0.3, 1.0}}, {"point2", {0.1, 0.4, -0.3}},
        {"axis2", {1.0, 0.1, 0.2}}},
       true, true, false, 4},
      {"cylindrical",
       {{"point1", {0.3, -0.2, 0.1}}, {"axis1", {0.2, 0.3, 1.0}}, {"point2", {0.1, 0.4, -0.3}},
        {"axis2", {1.0, 0.1, 0.2}}},
       true, true, false, 4},
      {"prismatic3d",
       {{"point1", {0.3, -0.2, 0.1}}, {"axis1", {0.2, 0.3, 1.0}}, {"point2", {0.1, 0.4, -0.3}},
        {"orientation", {{"euler", {{"sequence", "ZXZ"}, {"angles", {0.4, -0.3, 1.1}}}}}}},
       true, true, false, 5},
      {"weld3d",
       {{"point1", {0.3, -0.2, 0.1}}, {"point2", {0.1, 0.4, -0.3}},
        {"orientation", {{"axis", {1, 2, 3}}, {"angle", 0.7}}}},
       true, true, false, 6},
      {"weld3d", {{"point1", {0.3, -0.2, 0.1}}, {"point2", {0.1, 0.4, -0.3}}}, true, true, false, 6},
      {"planar3d",
       {{"point1", {0.3, -0.2, 0.1}}, {"normal", {0.2, 0.3, 1.0}}, {"point2", {0.1, 0.4, -0.3}},
        {"axis2", {1.0, 0.1, 0.2}}},
       true, true, false, 3},
      {"screw",
       {{"point1", {0.3, -0.2, 0.1}}, {"axis1", {0.2, 0.3, 1.0}}, {"point2", {0.1, 0.4, -0.3}},
        {"axis2", {1.0, 0.1, 0.2}}, {"pitch", 0.7}, {"reference1", {1, 0, 0}}, {"reference2", {0, 1, 0}}},
       true, true, false, 5},
      {"point_on_line",
       {{"point1", {0.3, -0.2, 0.1}}, {"axis1", {0.2, 0.3, 1.0}}, {"point2", {0.1, 0.4, -0.3}}},
       true, true, false, 2, true},
      {"point_on_plane",
       {{"point1", {0.3, -0.2, 0.1}}, {"normal", {0.2, 0.3, 1.0}}, {"point2", {0.1, 0.4, -0.3}}},
       true, true, false, 1, true},
  };
  return cases;
}

bool compatible(const Kind& k, const JointCase& j, int side) {
  const bool frames = j.frames && (side == 1 || !j.framesOnBody1Only);
  return (!j.points || k.points) && (!frames || k.frames) && (!j.planar || k.planar);
}

}  // namespace

TEST_CASE("every geometric joint on every body pairing: A and b match finite differences", "[joints][fd]") {
  std::mt19937 rng(20261121);
  int checked = 0, rejected = 0;
  for (const JointCase& jc : jointCases()) {
    for (const Kind& k1 : kKinds) {
      for (const Kind& k2 : kKinds) {
        if (k1.name == "ground" && k2.name == "ground") continue;
        DYNAMIC_SECTION(jc.type << (jc.type == "weld3d" && !jc.fields.contains("orientation") ? " (initial orientation)" : "") << " between " << k1.name << " and " << k2.name) {
          TestScene scene;
          const Body& b1 = scene.add(k1.name, "b1");
          const Body& b2 = scene.add(k2.name, "b2");
          nlohmann::json j = jc.fields;
          j["name"] = "j";
          j["type"] = jc.type;
          j["body1"] = b1.name();
          j["body2"] = b2.name();
          if (compatible(k1, jc, 1) && compatible(k2, jc, 2)) {
            const auto joint = scene.joint(j);
            REQUIRE(joint->typeName() == jc.type);
            REQUIRE(joint->numRows() == jc.rows);
            REQUIRE(joint->bodies() == std::vector<const Body*>{&b1, &b2});
            REQUIRE(joint->numLocalCoordinates() == b1.numCoordinates() + b2.numCoordinates());
            for (int trial = 0; trial < 4; ++trial) {
              ElementMotion motion(joint->bodies(), rng, uniform(rng, 0, 2));
              checkAgainstFiniteDifferences(*joint, motion, true);
            }
            ++checked;
          } else {
            // the first body that lacks something is named, at its field
            const bool firstBad = !compatible(k1, jc, 1);
            const std::string bad = firstBad ? b1.name() : b2.name();
            try {
              (void)scene.joint(j);
              FAIL("expected an InputError");
            } catch (const InputError& e) {
              CHECK_THAT(e.detail(), Catch::Contains("body '" + bad + "'"));
              CHECK(e.jsonPath() == (firstBad ? "/body1" : "/body2"));
            }
            ++rejected;
          }
        }
      }
    }
  }
  (void)checked;
  (void)rejected;
}

TEST_CASE("joint position errors have the documented meaning", "[joints]") {
  TestScene scene;
  const Body& link = scene.add("rigid2d", "link");
  const Body& other = scene.add("rigid2d", "other");
  const Body& p3 = scene.add("particle3", "p3");
  const Body& ground = scene.ctx.ground();

  SECTION("revolute2d: world x, y of r2 - r1") {
    const auto j = scene.joint({{"name", "j"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {1, 2}},
                                {"body2", "link"}, {"point2", {0.5, 0}}});
    StateHolder s({&ground, &link}, {VectorXd(), Eigen::Vector3d(3, 4, M_PI / 2)}, {VectorXd(), Eigen::Vector3d::Zero()}, 0);
    // point2 in the world: (3, 4) + Rz(pi/2) (0.5, 0) = (3, 4.5)
    CHECK_THAT(positionError(*j, s.state()), isApprox(Eigen::Vector2d(2, 2.5), 1e-12, 1e-12));
  }
  SECTION("prismatic2d: perpendicular offset from the line along the rotated axis, relative angle") {
    const auto j = scene.joint({{"name", "j"}, {"type", "prismatic2d"}, {"body1", "link"}, {"point1", {0, 0}},
                                {"body2", "other"}, {"point2", {0, 0}}, {"axis", {1, 0}}, {"angle", 0.1}});
    // body1 at the origin turned by 90 deg: the line is the world y axis, its normal -x
    StateHolder s({&link, &other}, {Eigen::Vector3d(0, 0, M_PI / 2), Eigen::Vector3d(0.25, 7, M_PI / 2 + 0.3)},
                  {Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero()}, 0);
    const VectorXd phi = positionError(*j, s.state());
    CHECK(phi(0) == Approx(-0.25).margin(1e-12));  // n = R1 (ez x axis) = (-1, 0)
    CHECK(phi(1) == Approx(0.2).margin(1e-12));    // theta2 - theta1 - angle
  }
  SECTION("weld2d: relative angle error is wrapped into [-pi, pi]") {
    const auto j = scene.joint({{"name", "j"}, {"type", "weld2d"}, {"body1", "link"}, {"body2", "other"}});
    StateHolder s({&link, &other}, {Eigen::Vector3d(0, 0, 0.1), Eigen::Vector3d(0, 0, 0.1 + 2 * M_PI + 0.05)},
                  {Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero()}, 0);
    CHECK(positionError(*j, s.state())(2) == Approx(0.05).margin(1e-12));
  }
  SECTION("distance: (|d|^2 - L^2) / 2") {
    const auto j = scene.joint({{"name", "j"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {0, 0, 1}},
                                {"body2", "p3"}, {"length", 2}});
    StateHolder s({&ground, &p3}, {VectorXd(), Eigen::Vector3d(3, 0, 5)}, {VectorXd(), Eigen::Vector3d::Zero()}, 0);
    CHECK(positionError(*j, s.state())(0) == Approx((9 + 16 - 4) / 2.0));
  }
  SECTION("revolute3d: the axis rows vanish when the world axes are parallel") {
    const Body& r1 = scene.add("rigid3d", "r1");
    const Body& r2 = scene.add("rigid3d", "r2");
    const auto j = scene.joint({{"name", "j"}, {"type", "revolute3d"}, {"body1", "r1"}, {"axis1", {0, 0, 1}},
                                {"body2", "r2"}, {"axis2", {1, 0, 0}}});
    // r1 unrotated (axis1 = world z); r2 turned by -90 deg about y: its x axis goes to world z
    VectorXd q1(7), q2(7);
    q1 << 0, 0, 0, 1, 0, 0, 0;
    q2 << 0, 0, 0, std::cos(-M_PI / 4), 0, std::sin(-M_PI / 4), 0;
    StateHolder s({&r1, &r2}, {q1, q2}, {VectorXd::Zero(7), VectorXd::Zero(7)}, 0);
    CHECK_THAT(positionError(*j, s.state()), isApprox(VectorXd::Zero(5), 0, 1e-12));
  }
}

TEST_CASE("coupling: sum c_i q_i = value(t), rheonomic rows against finite differences", "[joints][fd]") {
  std::mt19937 rng(7);
  TestScene scene;
  scene.ctx.setParameter("w", 2.0);
  scene.add("rigid2d", "body1");
  scene.add("rigid3d", "body2");
  scene.add("particle2", "body3");
  const auto j = scene.joint(nlohmann::json::parse(R"({"name": "c", "type": "coupling",
      "terms": [{"coordinate": "body1.x", "coefficient": 2},
                {"coordinate": "body2.e2", "coefficient": "-w"},
                {"coordinate": "body1.theta", "coefficient": 0.5},
                {"coordinate": "body1.x", "coefficient": 1},
                {"coordinate": "body3.y"}],
      "value": "0.3*sin(w*t) + t^2/5"})"));
  REQUIRE(j->numRows() == 1);
  REQUIRE(j->bodies().size() == 3);
  CHECK(j->bodies()[0]->name() == "body1");
  CHECK(j->bodies()[1]->name() == "body2");
  CHECK(j->bodies()[2]->name() == "body3");
  for (int trial = 0; trial < 5; ++trial) {
    ElementMotion motion(j->bodies(), rng, uniform(rng, 0, 3));
    checkAgainstFiniteDifferences(*j, motion, false);
    const auto s = motion.at(0);
    const Rows rows = accelerationRows(*j, s->state());
    // columns: body1 (x y theta) | body2 (x y z e0 e1 e2 e3) | body3 (x y)
    Eigen::RowVectorXd expected = Eigen::RowVectorXd::Zero(12);
    expected(0) = 3;    // body1.x twice: 2 + 1
    expected(2) = 0.5;  // body1.theta
    expected(8) = -2;   // body2.e2
    expected(11) = 1;   // body3.y, default coefficient 1
    CHECK_THAT(MatrixXd(rows.A), isApprox(expected, 0, 0));
    const double t = s->state().t;
    CHECK(rows.b(0) == Approx(-0.3 * 4 * std::sin(2 * t) + 0.4).epsilon(1e-12));
  }
}

TEST_CASE("driver: a coordinate or a point follows a function of time", "[joints][fd]") {
  std::mt19937 rng(11);
  TestScene scene;
  scene.add("rigid2d", "body1");
  scene.add("rigid3d", "body2");
  scene.add("particle3", "body3");
  scene.add("particle2", "body4");

  SECTION("coordinate") {
    const std::vector<std::pair<std::string, int>> coords = {{"body1.theta", 2}, {"body2.e1", 4}, {"body3.z", 2}};
    for (const auto& [coord, column] : coords) {
      const auto j = scene.joint({{"name", "d"}, {"type", "driver"}, {"coordinate", coord},
                                  {"value", "0.5*sin(2*t) + 0.1*t^3"}});
      REQUIRE(j->numRows() == 1);
      REQUIRE(j->bodies().size() == 1);
      for (int trial = 0; trial < 3; ++trial) {
        ElementMotion motion(j->bodies(), rng, uniform(rng, 0, 3));
        checkAgainstFiniteDifferences(*j, motion, false);
        const auto s = motion.at(0);
        const double t = s->state().t;
        CHECK(accelerationRows(*j, s->state()).b(0) == Approx(-2 * std::sin(2 * t) + 0.6 * t).epsilon(1e-12));
        CHECK(positionError(*j, s->state())(0) ==
              Approx(s->coordinates()(column) - (0.5 * std::sin(2 * t) + 0.1 * t * t * t)).margin(1e-12));
        CHECK(velocityError(*j, s->state())(0) ==
              Approx(s->velocities()(column) - (std::cos(2 * t) + 0.3 * t * t)).margin(1e-12));
      }
    }
  }
  SECTION("point") {
    struct Case {
      std::string body;
      nlohmann::json value;
      int rows;
    };
    for (const Case& c : {Case{"body1", {"sin(t)", "t^2"}, 2}, Case{"body2", {"sin(t)", "t^2", "cos(3*t)"}, 3},
                          Case{"body3", {"sin(t)", "t^2", "1 - t"}, 3}, Case{"body4", {"exp(-t)", 2}, 2}}) {
      const auto j = scene.joint({{"name", "d"}, {"type", "driver"}, {"body", c.body}, {"point", {0.3, 0.1, -0.2}},
                                  {"value", c.value}});
      REQUIRE(j->numRows() == c.rows);
      for (int trial = 0; trial < 3; ++trial) {
        ElementMotion motion(j->bodies(), rng, uniform(rng, 0, 3));
        checkAgainstFiniteDifferences(*j, motion, false);
      }
    }
  }
}

}  // namespace joinery::test
