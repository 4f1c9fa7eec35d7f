// The `expression` joint: position-, velocity- and acceleration-level user constraints.
// A and b are checked against finite differences along random motions (every body pairing),
// against the built-in joints they restate, and exactly for acceleration rows; JSON round
// trips; input errors with their JSON paths; qualification of names inside components.
#include <catch2/catch.hpp>

#include "joinery/core/scene.hpp"
#include "joint_test_support.hpp"

namespace joinery::test {
namespace {

using nlohmann::json;

template <class F>
InputError expressionInputError(F&& make) {
  try {
    make();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  return InputError("");
}

}  // namespace

TEST_CASE("expression position constraints: A and b against finite differences on every body pairing",
          "[joints][expression]") {
  std::mt19937 rng(41);
  const std::vector<std::string> kinds = {"particle1", "particle2", "particle3", "rigid2d", "rigid3d", "linear"};
  // every body kind has a first coordinate named x (particles, rigid bodies) or u1 (linear)
  auto first = [](const std::string& kind) { return kind == "linear" ? std::string("u1") : std::string("x"); };
  auto last = [](const std::string& kind) {
    if (kind == "particle1") return std::string("x");
    if (kind == "particle2") return std::string("y");
    if (kind == "particle3") return std::string("z");
    if (kind == "rigid2d") return std::string("theta");
    if (kind == "rigid3d") return std::string("e3");
    return std::string("u2");
  };
  for (const auto& k1 : kinds) {
    for (const auto& k2 : kinds) {
      DYNAMIC_SECTION(k1 << " with " << k2) {
        TestScene scene;
        scene.add(k1, "a");
        scene.add(k2, "b");
        const std::string a1 = "a." + first(k1), a2 = "a." + last(k1), b1 = "b." + first(k2), b2 = "b." + last(k2);
        // nonlinear, coupled, rheonomic (products of t and coordinates give phi_qt, phi_tt)
        const json def = {{"name", "j"},
                          {"type", "expression"},
                          {"position", {a1 + "*" + b2 + " - sin(" + a2 + " + 0.3*t) + exp(0.2*" + b1 + ")*t^2",
                                        "(" + b1 + " - " + a1 + ")^2 + " + b2 + "^2/(2 + cos(" + a2 + ")) - 1"}}};
        const auto joint = scene.joint(def);
        REQUIRE(joint->numRows() == 2);
        CHECK(joint->level() == ConstraintLevel::Position);
        for (int trial = 0; trial < 3; ++trial) {
          ElementMotion motion(joint->bodies(), rng, uniform(rng, 0, 2));
          checkAgainstFiniteDifferences(*joint, motion, false);
        }
        // a scleronomic one: psi = A q' exactly
        const auto sclero = scene.joint({{"name", "k"},
                                         {"type", "expression"},
                                         {"position", {a1 + "*" + b1 + " + " + a2 + "^3 - " + b2}}});
        ElementMotion motion(sclero->bodies(), rng, 0.7);
        checkAgainstFiniteDifferences(*sclero, motion, true);
      }
    }
  }
}

TEST_CASE("expression position constraints reproduce the built-in joints they restate", "[joints][expression]") {
  std::mt19937 rng(42);
  TestScene scene;
  scene.add("rigid2d", "body1");
  scene.add("rigid2d", "body2");
  SECTION("coupling 2 x1 - 0.5 x2 = 0.1 sin(3t): identical rows") {
    const auto builtin = scene.joint(json::parse(R"J({"name": "c", "type": "coupling",
        "terms": [{"coordinate": "body1.x", "coefficient": 2}, {"coordinate": "body2.x", "coefficient": -0.5}],
        "value": "0.1*sin(3*t)"})J"));
    const auto mine = scene.joint(json::parse(R"J({"name": "e", "type": "expression",
        "position": ["2*body1.x - 0.5*body2.x - 0.1*sin(3*t)"]})J"));
    for (int trial = 0; trial < 3; ++trial) {
      ElementMotion motion(builtin->bodies(), rng, uniform(rng, 0, 2));
      const auto s = motion.at(0);
      const Rows r1 = accelerationRows(*builtin, s->state()), r2 = accelerationRows(*mine, s->state());
      // same arithmetic up to the order of operations: 1e-14 relative
      CHECK_THAT(r2.A, isApprox(r1.A, 1e-14, 1e-14));
      CHECK_THAT(r2.b, isApprox(r1.b, 1e-14, 1e-14));
      CHECK_THAT(positionError(*mine, s->state()), isApprox(positionError(*builtin, s->state()), 1e-14, 1e-14));
      CHECK_THAT(velocityError(*mine, s->state()), isApprox(velocityError(*builtin, s->state()), 1e-14, 1e-14));
    }
  }
  SECTION("revolute2d of body2's point (-0.5, 0) to the ground origin: same rows") {
    const auto builtin = scene.joint(json::parse(R"J({"name": "r", "type": "revolute2d",
        "body1": "ground", "point1": [0, 0], "body2": "body2", "point2": [-0.5, 0]})J"));
    const auto mine = scene.joint(json::parse(R"J({"name": "e", "type": "expression",
        "position": ["body2.x - 0.5*cos(body2.theta)", "body2.y - 0.5*sin(body2.theta)"]})J"));
    REQUIRE(mine->numLocalCoordinates() == 3);
    for (int trial = 0; trial < 3; ++trial) {
      ElementMotion motion(mine->bodies(), rng, 0.0);
      const auto s = motion.at(0);
      // the built-in joint's local layout is ground (no coordinates) then body2: same columns
      REQUIRE(builtin->bodies().size() == 2);
      StateHolder withGround(builtin->bodies(), {VectorXd(0), motion.q(0)[0]}, {VectorXd(0), motion.qdot(0)[0]}, 0.0);
      const Rows r1 = accelerationRows(*builtin, withGround.state());
      const Rows r2 = accelerationRows(*mine, s->state());
      // the rows may differ by sign convention (point2 - point1): compare up to the sign
      const double sign = r1.A(0, 0) * r2.A(0, 0) < 0 ? -1.0 : 1.0;
      CHECK_THAT(MatrixXd(sign * r2.A), isApprox(r1.A, 1e-13, 1e-13));
      CHECK_THAT(VectorXd(sign * r2.b), isApprox(r1.b, 1e-13, 1e-13));
    }
  }
}

TEST_CASE("expression velocity constraints: A = psi_q', b = -(psi_q q' + psi_t)", "[joints][expression]") {
  std::mt19937 rng(43);
  for (const std::string kind : {"particle2", "rigid2d", "rigid3d"}) {
    DYNAMIC_SECTION(kind) {
      TestScene scene;
      scene.add(kind, "body1");
      scene.add("rigid2d", "body2");
      // a knife edge (linear in velocities) and a nonlinear, rheonomic one
      const auto joint = scene.joint(json::parse(R"J({"name": "v", "type": "expression", "velocity": [
          "-sin(body2.theta)*body2.x_dot + cos(body2.theta)*body2.y_dot",
          "body1.x_dot^2 + body1.y_dot*body2.theta_dot*cos(body1.x) - 0.5*sin(body2.theta + t)*exp(0.1*t*body1.y)"]})J"));
      CHECK(joint->level() == ConstraintLevel::Velocity);
      REQUIRE(joint->numRows() == 2);
      for (int trial = 0; trial < 3; ++trial) {
        ElementMotion motion(joint->bodies(), rng, uniform(rng, 0, 2));
        checkVelocityRows(*joint, motion);
      }
    }
  }
}

TEST_CASE("expression acceleration rows are the expressions as written", "[joints][expression]") {
  TestScene scene;
  scene.add("rigid2d", "body1");
  scene.add("particle2", "p");
  const auto joint = scene.joint(json::parse(R"J({"name": "a", "type": "expression", "acceleration": [
      {"A": {"body1.x": "cos(body1.theta)", "p.y": 2}, "b": "-body1.theta_dot^2*sin(body1.theta) + t"},
      {"A": {"p.x": "p.x_dot"}, "b": 0.5}]})J"));
  CHECK(joint->level() == ConstraintLevel::Acceleration);
  REQUIRE(joint->numRows() == 2);
  REQUIRE(joint->numLocalCoordinates() == 5);  // body1 (x y theta), then p (x y)
  const std::vector<VectorXd> q = {(VectorXd(3) << 0.1, 0.2, 0.3).finished(), (VectorXd(2) << 0.4, 0.5).finished()};
  const std::vector<VectorXd> v = {(VectorXd(3) << 1.1, 1.2, 1.3).finished(), (VectorXd(2) << 1.4, 1.5).finished()};
  StateHolder s(joint->bodies(), q, v, 0.7);
  const Rows r = accelerationRows(*joint, s.state());
  MatrixXd A = MatrixXd::Zero(2, 5);
  A(0, 0) = std::cos(0.3);
  A(0, 4) = 2;
  A(1, 3) = 1.4;
  const VectorXd b = (VectorXd(2) << -1.3 * 1.3 * std::sin(0.3) + 0.7, 0.5).finished();
  // one evaluation of the same formula: round-off only
  CHECK_THAT(r.A, isApprox(A, 1e-15, 1e-15));
  CHECK_THAT(r.b, isApprox(b, 1e-15, 1e-15));
  CHECK_THAT(positionError(*joint, s.state()), isApprox(VectorXd::Zero(2), 0, 0));
  CHECK_THAT(velocityError(*joint, s.state()), isApprox(VectorXd::Zero(2), 0, 0));
}

TEST_CASE("expression joints round-trip through JSON in every mode", "[joints][expression][registry]") {
  std::mt19937 rng(44);
  TestScene scene;
  scene.add("rigid2d", "body1");
  scene.add("rigid2d", "body2");
  scene.ctx.setParameter("R", 0.3);
  const std::vector<json> defs = {
      json::parse(R"J({"name": "p", "type": "expression", "position": ["body1.x - R*body2.theta - t", "body2.y^2 - 1"]})J"),
      json::parse(R"J({"name": "v", "type": "expression",
          "velocity": ["body1.x_dot - R*cos(body1.theta)*body2.theta_dot"],
          "nonideal": {"C": {"body1.x": "-0.1*Fi*body1.x_dot"}}})J"),
      json::parse(R"J({"name": "a", "type": "expression",
          "acceleration": [{"A": {"body1.y": 1, "body2.y": "-R"}, "b": "sin(t)*body1.y_dot"}]})J")};
  for (const json& def : defs) {
    DYNAMIC_SECTION(def.at("name").get<std::string>()) {
      const auto joint = scene.joint(def);
      const json j = joint->toJson();
      CHECK(j == def);
      const auto again = scene.joint(j);
      CHECK(again->toJson() == j);
      REQUIRE(again->bodies() == joint->bodies());
      ElementMotion motion(joint->bodies(), rng, 0.4);
      const auto s = motion.at(0);
      const Rows r1 = accelerationRows(*joint, s->state()), r2 = accelerationRows(*again, s->state());
      // two parses of the same text may round differently (GiNaC's term order): 1e-14 relative
      CHECK_THAT(r2.A, isApprox(r1.A, 1e-14, 1e-14));
      CHECK_THAT(r2.b, isApprox(r1.b, 1e-14, 1e-14));
      CHECK((joint->nonideal() == nullptr) == (again->nonideal() == nullptr));
    }
  }
}

TEST_CASE("expression joint input errors name the field and the text", "[joints][expression][errors]") {
  TestScene scene;
  scene.add("rigid2d", "body1");
  scene.add("rigid2d", "body2");
  struct Case {
    std::string label, json, path, fragment;
  };
  const std::vector<Case> cases = {
      {"none of the three", R"J({"name": "j", "type": "expression"})J", "/", "exactly one of 'position'"},
      {"two of the three", R"J({"name": "j", "type": "expression", "position": ["body1.x"], "velocity": ["body1.x_dot"]})J",
       "/", "more than one kind of constraint"},
      {"empty position list", R"J({"name": "j", "type": "expression", "position": []})J", "/position",
       "non-empty list"},
      {"empty acceleration list", R"J({"name": "j", "type": "expression", "acceleration": []})J", "/acceleration",
       "non-empty list of rows"},
      {"position not a list", R"J({"name": "j", "type": "expression", "position": "body1.x"})J", "/position",
       "array"},
      {"unknown coordinate", R"J({"name": "j", "type": "expression", "position": ["body1.x", "body1.z - 1"]})J",
       "/position/1", "unknown coordinate 'body1.z'"},
      {"unknown body", R"J({"name": "j", "type": "expression", "position": ["wheel.x + body1.x"]})J", "/position/0",
       "unknown body 'wheel'"},
      {"unknown name", R"J({"name": "j", "type": "expression", "position": ["body1.x - L"]})J", "/position/0",
       "body1.x - L"},
      {"syntax error", R"J({"name": "j", "type": "expression", "velocity": ["body1.x_dot * (body2.y"]})J",
       "/velocity/0", "body1.x_dot * (body2.y"},
      {"velocity in a position constraint", R"J({"name": "j", "type": "expression", "position": ["body1.x_dot"]})J",
       "/position/0", "use 'velocity'"},
      {"position row without coordinates", R"J({"name": "j", "type": "expression", "position": ["body1.x", "t - 1"]})J",
       "/position/1", "names no coordinate"},
      {"velocity row without velocities", R"J({"name": "j", "type": "expression", "velocity": ["body1.x - t"]})J",
       "/velocity/0", "names no velocity"},
      {"unknown coordinate in an A row",
       R"J({"name": "j", "type": "expression", "acceleration": [{"A": {"body1.x": 1}, "b": 0}, {"A": {"body2.q": 1}, "b": 0}]})J",
       "/acceleration/1/A/body2.q", "unknown coordinate 'body2.q'"},
      {"empty A", R"J({"name": "j", "type": "expression", "acceleration": [{"A": {}, "b": 0}]})J", "/acceleration/0/A",
       "non-empty object"},
      {"missing b", R"J({"name": "j", "type": "expression", "acceleration": [{"A": {"body1.x": 1}}]})J",
       "/acceleration/0", "'b'"},
      {"unknown key in a row", R"J({"name": "j", "type": "expression", "acceleration": [{"A": {"body1.x": 1}, "b": 0, "c": 1}]})J",
       "/acceleration/0/c", "unknown key 'c'"},
      {"bad expression in b", R"J({"name": "j", "type": "expression", "acceleration": [{"A": {"body1.x": 1}, "b": "sin("}]})J",
       "/acceleration/0/b", "sin("},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.label) {
      const auto e = expressionInputError([&] { return scene.joint(json::parse(c.json)); });
      INFO(e.what());
      CHECK(e.jsonPath() == c.path);
      CHECK(e.file() == "test.json");
      CHECK_THAT(std::string(e.what()), Catch::Contains(c.fragment));
    }
  }
}

TEST_CASE("expression joints inside components: local coordinate names are qualified", "[joints][expression][scene]") {
  // a cart with a knife edge and a position constraint, instantiated twice
  const json doc = json::parse(R"J({"joinery": 1,
    "components": {"cart": {
      "parameters": {"c": 0.5},
      "bodies": [{"name": "b", "type": "rigid2d", "mass": 1, "inertia": 0.1,
                  "velocity": [1, 0], "angular_velocity": 0}],
      "joints": [{"name": "edge", "type": "expression",
                  "velocity": ["-sin(b.theta)*b.x_dot + cos(b.theta)*b.y_dot"]},
                 {"name": "turn", "type": "expression", "position": ["b.theta - c*t"]}]}},
    "instances": [{"name": "c1", "component": "cart"}, {"name": "c2", "component": "cart", "parameters": {"c": 1}}],
    "bodies": []})J");
  const Scene scene = sceneFromJson(doc, "cart.json");
  const Model& m = scene.model;
  REQUIRE(m.numCoordinates() == 6);
  REQUIRE(m.numConstraintRows() == 4);
  const auto joints = scene.resolved().at("joints");
  bool found = false;
  for (const auto& j : joints) {
    if (j.at("name") == "c2.turn") {
      found = true;
      // the parameter is resolved and the coordinate qualified
      CHECK(j.at("position").at(0).get<std::string>().find("c2.b.theta") != std::string::npos);
    }
    if (j.at("name") == "c1.edge")
      CHECK(j.at("velocity").at(0).get<std::string>().find("c1.b.x_dot") != std::string::npos);
  }
  CHECK(found);
  // the flattened scene loads into the same model
  const Scene again = sceneFromJson(scene.resolved(), "flat.json");
  CHECK(again.model.numConstraintRows() == 4);
}

}  // namespace joinery::test
