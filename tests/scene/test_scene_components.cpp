// Substructuring: components from included libraries, instances with parameters, ports and
// placements, nested instances and local names.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "eigen_approx.hpp"
#include "joinery/core/registry.hpp"
#include "joinery/core/scene.hpp"
#include "scene_test_support.hpp"

using joinery::loadScene;
using joinery::Model;
using joinery::Scene;
using joinery::sceneFromJson;
using joinery::test::coordinateIndex;
using joinery::test::isApprox;
using joinery::test::resolvedElement;
using joinery::test::sceneData;

namespace {

constexpr double kPi = std::numbers::pi;

using joinery::test::vec;

/// Initial coordinates of one body, by its name.
Eigen::VectorXd bodyCoordinates(const Model& m, const std::string& body) {
  const joinery::Body* b = m.findBody(body);
  REQUIRE(b != nullptr);
  const joinery::BodySlot& slot = m.slotOf(*b);
  return m.initialState().q.segment(slot.offset, slot.size);
}

Eigen::VectorXd bodyVelocities(const Model& m, const std::string& body) {
  const joinery::Body* b = m.findBody(body);
  REQUIRE(b != nullptr);
  const joinery::BodySlot& slot = m.slotOf(*b);
  return m.initialState().v.segment(slot.offset, slot.size);
}

/// Position-level constraint residual at the initial state.
Eigen::VectorXd initialResidual(const Model& m) {
  joinery::ModelWorkspace ws = m.makeWorkspace();
  Eigen::VectorXd phi(m.numConstraintRows());
  m.calcPositionErrors(m.initialState(), ws, phi);
  return phi;
}

}  // namespace

TEST_CASE("a two-link pendulum assembled from a component library", "[scene][components]") {
  const Scene s = loadScene(sceneData("two_link.json"));
  const Model& m = s.model;
  REQUIRE(m.coordinateNames() == std::vector<std::string>{"l1.rod.x", "l1.rod.y", "l1.rod.theta",
                                                          "l2.rod.x", "l2.rod.y", "l2.rod.theta"});
  CHECK(m.numConstraintRows() == 4);
  REQUIRE(m.constraints().size() == 2);
  CHECK(m.constraints()[0]->name() == "pivot");
  CHECK(m.constraints()[1]->name() == "elbow");

  // bodies start where the placements put them
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "l1.rod")), isApprox(vec({0, -1, 0})));
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "l2.rod")), isApprox(vec({0.5, -2, kPi / 2})));

  // instance parameters override defaults; defaults depending on them follow
  const nlohmann::json l1 = resolvedElement(s, "bodies", "l1.rod");
  CHECK(l1.at("mass").get<double>() == 1.0);
  CHECK(l1.at("inertia").get<double>() == Approx(4.0 / 12));  // L = La = 2
  const nlohmann::json l2 = resolvedElement(s, "bodies", "l2.rod");
  CHECK(l2.at("mass").get<double>() == 2.0);
  CHECK(l2.at("inertia").get<double>() == Approx(2.0 / 12));

  // ports became body + point
  const nlohmann::json pivot = resolvedElement(s, "joints", "pivot");
  CHECK(pivot.at("body2") == "l1.rod");
  CHECK(pivot.at("point2").at(1).get<double>() == Approx(1.0));
  const nlohmann::json elbow = resolvedElement(s, "joints", "elbow");
  CHECK(elbow.at("body1") == "l1.rod");
  CHECK(elbow.at("body2") == "l2.rod");

  // the placements and the ports agree: the joints are closed at the initial state
  CHECK_THAT(Eigen::MatrixXd(initialResidual(m)), isApprox(Eigen::VectorXd::Zero(4), 0, 1e-12));
}

TEST_CASE("nested instances qualify names and compose placements", "[scene][components]") {
  const Scene s = loadScene(sceneData("nested.json"));
  const Model& m = s.model;
  // scene bodies first, then the instances' bodies in order
  REQUIRE(m.coordinateNames() ==
          std::vector<std::string>{"bob.x", "bob.y", "arm.l1.rod.x", "arm.l1.rod.y", "arm.l1.rod.theta",
                                   "arm.l2.rod.x", "arm.l2.rod.y", "arm.l2.rod.theta"});
  std::vector<std::string> joints;
  for (const auto* c : m.constraints()) joints.push_back(c->name());
  CHECK(joints == std::vector<std::string>{"pivot", "hook", "arm.elbow"});
  REQUIRE(m.forces().size() == 1);
  CHECK(m.forces()[0]->name() == "tether");

  // arm placed at (1, 2) turned by pi/2; inside it, l1 at (0, -L1/2), l2 at (0, -L1 - L2/2)
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "arm.l1.rod")), isApprox(vec({1.5, 2, kPi / 2})));
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "arm.l2.rod")), isApprox(vec({2.25, 2, kPi / 2})));
  CHECK_THAT(Eigen::MatrixXd(initialResidual(m)), isApprox(Eigen::VectorXd::Zero(m.numConstraintRows()), 0, 1e-12));

  // arm.base re-exports l1.top; arm.l2.bottom reaches a nested instance's port
  const nlohmann::json pivot = resolvedElement(s, "joints", "pivot");
  CHECK(pivot.at("body2") == "arm.l1.rod");
  const nlohmann::json hook = resolvedElement(s, "joints", "hook");
  CHECK(hook.at("body1") == "arm.l2.rod");
  CHECK(hook.at("point1").at(1).get<double>() == Approx(-0.25));
  const nlohmann::json tether = resolvedElement(s, "forces", "tether");
  CHECK(tether.at("body2") == "arm.l2.rod");
  CHECK(resolvedElement(s, "bodies", "arm.l2.rod").at("inertia").get<double>() == Approx(0.25 / 12));
}

TEST_CASE("a library included twice through different paths is read once", "[scene][components]") {
  const Scene s = loadScene(sceneData("diamond.json"));
  CHECK(s.model.coordinateNames() == std::vector<std::string>{"a.l.rod.x", "a.l.rod.y", "a.l.rod.theta",
                                                              "b.l.rod.x", "b.l.rod.y", "b.l.rod.theta"});
  CHECK(resolvedElement(s, "bodies", "b.l.rod").at("inertia").get<double>() == Approx(0.75));
}

TEST_CASE("coordinates, parameters and non-ideal keys inside components are local", "[scene][components]") {
  const Scene s = loadScene(sceneData("local_names.json"));
  const Model& m = s.model;
  CHECK(coordinateIndex(m, "d1.cart.x") >= 0);
  CHECK(coordinateIndex(m, "d2.rod.theta") >= 0);
  CHECK(m.numCoordinates() == 14);
  const nlohmann::json spin = resolvedElement(s, "joints", "d2.spin");
  REQUIRE(spin.is_object());
  CHECK(spin.at("coordinate") == "d2.wheel.theta");
  CHECK(spin.at("value") == "(1.5)*t");
  CHECK(bodyCoordinates(m, "d2.cart")(0) == 0.25);

  const nlohmann::json tie = resolvedElement(s, "joints", "d1.tie");
  REQUIRE(tie.is_object());
  CHECK(tie.at("terms").at(0).at("coordinate") == "d1.cart.x");
  CHECK(tie.at("terms").at(1).at("coordinate") == "d1.rod.x");

  const nlohmann::json slide = resolvedElement(s, "joints", "d2.slide");
  REQUIRE(slide.is_object());
  REQUIRE(slide.at("nonideal").at("C").contains("d2.rod.x"));
  const std::string c = slide.at("nonideal").at("C").at("d2.rod.x").get<std::string>();
  CHECK(c.find("d2.rod.x_dot") != std::string::npos);
  CHECK(c.find("(0.5)") != std::string::npos);  // c = 0.5 substituted

  const std::string f1 = resolvedElement(s, "forces", "d1.restoring").at("value").get<std::string>();
  const std::string f2 = resolvedElement(s, "forces", "d2.restoring").at("value").get<std::string>();
  CHECK(f1.find("(3)*d1.rod.theta") != std::string::npos);  // k overridden to 3
  CHECK(f2.find("(2)*d2.rod.theta") != std::string::npos);  // k default 2
  CHECK(f1.find("d1.cart.x") != std::string::npos);
}

TEST_CASE("placement turns positions and velocities, adds angles and composes orientations",
          "[scene][components]") {
  nlohmann::json j = nlohmann::json::parse(R"({
    "joinery": 1,
    "components": {
      "planar": {
        "bodies": [
          {"name": "b", "type": "rigid2d", "mass": 1, "inertia": 1, "position": [1, 0], "angle": 0.25,
           "velocity": [2, 0], "angular_velocity": 3},
          {"name": "p", "type": "particle", "dim": 2, "mass": 1, "position": [0, 1], "velocity": [0, 1]},
          {"name": "q", "type": "particle", "dim": 3, "mass": 1, "position": [1, 0, 0]}
        ]
      },
      "spatial": {
        "bodies": [ {"name": "p", "type": "particle", "dim": 3, "mass": 1, "position": [1, 0, 0],
                     "velocity": [0, 1, 0]} ]
      },
      "line": { "bodies": [ {"name": "p", "type": "particle", "dim": 1, "mass": 1, "position": [1]} ] }
    },
    "instances": [
      {"name": "a", "component": "planar", "placement": {"position": [10, 20], "angle": "pi/2"}},
      {"name": "s", "component": "spatial",
       "placement": {"position": [1, 2, 3], "orientation": [0.7071067811865476, 0.7071067811865476, 0, 0]}},
      {"name": "z", "component": "spatial", "placement": {"orientation": [0.7071067811865476, 0, 0, 0.7071067811865476]}},
      {"name": "l", "component": "line", "placement": {"position": [5, 0]}}
    ],
    "bodies": []
  })");
  {
    j["components"]["spatial"]["bodies"].push_back(nlohmann::json::parse(R"(
      {"name": "r", "type": "rigid3d", "mass": 1, "inertia": [1, 1, 1], "position": [0, 1, 0],
       "angular_velocity": [0, 0, 1]})"));
  }
  const Scene s = sceneFromJson(j, "placement.json");
  const Model& m = s.model;
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "a.b")), isApprox(vec({10, 21, 0.25 + kPi / 2})));
  CHECK_THAT(Eigen::MatrixXd(bodyVelocities(m, "a.b")), isApprox(vec({0, 2, 3}), 1e-12, 1e-15));
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "a.p")), isApprox(vec({9, 20})));
  CHECK_THAT(Eigen::MatrixXd(bodyVelocities(m, "a.p")), isApprox(vec({-1, 0}), 1e-12, 1e-15));
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "a.q")), isApprox(vec({10, 21, 0})));
  // 90 degrees about x: (1, 0, 0) stays, (0, 1, 0) -> (0, 0, 1)
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "s.p")), isApprox(vec({2, 2, 3})));
  CHECK_THAT(Eigen::MatrixXd(bodyVelocities(m, "s.p")), isApprox(vec({0, 0, 1}), 1e-12, 1e-15));
  // an orientation about z is a planar angle too
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "z.p")), isApprox(vec({0, 1, 0}), 1e-12, 1e-15));
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "l.p")), isApprox(vec({6})));
  {
    const double h = std::sqrt(0.5);
    // position (0,1,0) -> (0,0,1) + (1,2,3); orientation identity -> the placement's
    CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(m, "s.r")), isApprox(vec({1, 2, 4, h, h, 0, 0}), 1e-12, 1e-15));
    // angular velocity (0,0,1) -> (0,-1,0) in the world frame; the centre of mass stays at rest
    CHECK_THAT(Eigen::MatrixXd(bodyVelocities(m, "s.r").head(3)), isApprox(vec({0, 0, 0}), 1e-12, 1e-15));
    const nlohmann::json w = resolvedElement(s, "bodies", "s.r").at("angular_velocity");
    CHECK_THAT(Eigen::MatrixXd(vec({w.at(0).get<double>(), w.at(1).get<double>(), w.at(2).get<double>()})),
               isApprox(vec({0, -1, 0}), 1e-12, 1e-15));
  }
}

TEST_CASE("component parameters may be expressions of the instance's outer parameters", "[scene][components]") {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "joinery": 1,
    "parameters": {"scale": 3},
    "components": {
      "pair": {
        "parameters": {"d": 1, "m": "2*d"},
        "instances": [ {"name": "x", "component": "bead", "parameters": {"m": "m", "x0": "-d"}},
                       {"name": "y", "component": "bead", "parameters": {"m": "m/2", "x0": "d"}} ],
        "joints": [ {"name": "rod", "type": "distance", "body1": "x.p", "body2": "y.p", "length": "2*d"} ]
      },
      "bead": { "parameters": {"m": 1, "x0": 0},
                "bodies": [ {"name": "p", "type": "particle", "dim": 2, "mass": "m", "position": ["x0", 0]} ] }
    },
    "instances": [ {"name": "big", "component": "pair", "parameters": {"d": "scale"}} ],
    "bodies": []
  })");
  const Scene s = sceneFromJson(j, "outer.json");
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(s.model, "big.x.p")), isApprox(vec({-3, 0})));
  CHECK_THAT(Eigen::MatrixXd(bodyCoordinates(s.model, "big.y.p")), isApprox(vec({3, 0})));
  CHECK(resolvedElement(s, "bodies", "big.x.p").at("mass").get<double>() == 6.0);
  CHECK(resolvedElement(s, "bodies", "big.y.p").at("mass").get<double>() == 3.0);
  CHECK(resolvedElement(s, "joints", "big.rod").at("length").get<double>() == 6.0);
  CHECK(resolvedElement(s, "joints", "big.rod").at("body1") == "big.x.p");
  CHECK_THAT(Eigen::MatrixXd(initialResidual(s.model)), isApprox(Eigen::VectorXd::Zero(1), 0, 1e-12));
}
