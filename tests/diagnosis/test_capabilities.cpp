// The capability queries of bodies and joints (body.hpp, constraint.hpp) that the diagnosis
// asks instead of comparing type names: an axial driver's rough start is found like a
// coordinate driver's, and the answers of the built-in types are the ones their docs give.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "joinery/core/plausibility.hpp"
#include "joinery/core/scene.hpp"

using namespace joinery;
using nlohmann::json;

namespace {

/// A link on a ground revolute3d (axis z) and a block on a prismatic3d along it, the turn
/// and the travel driven by `turn(t)` and `travel(t)`.
json drivenArm(const std::string& turn, const std::string& travel) {
  return json::parse(R"({"joinery": 1, "gravity": [0, 0, -9.81],
    "bodies": [
      {"name": "arm", "type": "rigid3d", "mass": 2, "inertia": [0.01, 0.17, 0.17], "position": [0.5, 0, 0]},
      {"name": "block", "type": "rigid3d", "mass": 0.5, "inertia": [0.001, 0.001, 0.001], "position": [0.3, 0, 0.05]}],
    "joints": [
      {"name": "shoulder", "type": "revolute3d", "body1": "ground", "axis1": [0, 0, 1], "body2": "arm",
       "point2": [-0.5, 0, 0], "axis2": [0, 0, 1]},
      {"name": "motor", "type": "revolute_driver", "body1": "ground", "axis1": [0, 0, 1], "body2": "arm",
       "axis2": [0, 0, 1], "point2": [-0.5, 0, 0], "value": ")" + turn + R"("},
      {"name": "rail", "type": "prismatic3d", "body1": "arm", "point1": [-0.5, 0, 0.05], "axis1": [1, 0, 0],
       "body2": "block"},
      {"name": "actuator", "type": "prismatic_driver", "body1": "arm", "point1": [-0.5, 0, 0.05],
       "axis1": [1, 0, 0], "body2": "block", "value": ")" + travel + R"("}]})");
}

const Constraint& joint(const Model& m, const std::string& name) {
  for (const RowBlock& rb : m.rowBlocks())
    if (rb.constraint && rb.constraint->name() == name) return *rb.constraint;
  throw std::runtime_error("no joint " + name);
}

}  // namespace

TEST_CASE("capabilities: a revolute_driver or prismatic_driver with an infinite start speed is named") {
  // sqrt(t) has the speed 1/(2 sqrt(t)), infinite at t = 0; 0.2 + sqrt(t) for the travel
  auto warnings = [](const std::string& turn, const std::string& travel) {
    return plausibilityWarnings(sceneFromJson(drivenArm(turn, travel), "arm.json"));
  };
  auto w = warnings("sqrt(t)", "0.2");
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Catch::StartsWith("motor: the prescribed motion is not twice differentiable at t = 0"));
  w = warnings("0", "0.2 + sqrt(t)");
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Catch::StartsWith("actuator: the prescribed motion is not twice differentiable at t = 0"));
  // smooth motions (polynomials) give no warning
  CHECK(warnings("t^2", "0.2 + t^3").empty());
}

TEST_CASE("capabilities: the joints say what they prescribe and which axis turns or slides") {
  const Scene scene = sceneFromJson(drivenArm("t^2", "0.2 + t^3"), "arm.json");
  const Model& m = scene.model;
  CHECK_FALSE(joint(m, "shoulder").prescribesMotion());
  CHECK(joint(m, "motor").prescribesMotion());
  CHECK(joint(m, "actuator").prescribesMotion());
  const auto hinge = joint(m, "shoulder").axisMotion();
  REQUIRE(hinge);
  CHECK((hinge->turn && !hinge->travel));
  CHECK(hinge->body2 == m.findBody("arm"));
  CHECK(hinge->point2.isApprox(Vector3d(-0.5, 0, 0)));
  CHECK(hinge->axis1.isApprox(Vector3d::UnitZ()));
  const auto rail = joint(m, "rail").axisMotion();
  REQUIRE(rail);
  CHECK((!rail->turn && rail->travel));
  CHECK(rail->axis1.isApprox(Vector3d::UnitX()));
  const auto motor = joint(m, "motor").axisMotion();
  REQUIRE(motor);
  CHECK((motor->turn && !motor->travel && motor->reference1 && motor->reference2));
  const auto actuator = joint(m, "actuator").axisMotion();
  REQUIRE(actuator);
  CHECK((!actuator->turn && actuator->travel));
}

TEST_CASE("capabilities: a distance joint reports its residual as a length") {
  // rod of length 2 between the origin and a particle at (2.5, 0): phi = (2.5^2 - 2^2) / 2 =
  // 1.125, which is a gap of 2.5 - 2 = 0.5 m
  const Scene scene = sceneFromJson(json::parse(R"({"joinery": 1, "gravity": [0, 0, 0],
    "bodies": [{"name": "p", "type": "particle", "dim": 2, "mass": 1, "position": [2.5, 0]}],
    "joints": [{"name": "rod", "type": "distance", "body1": "ground", "body2": "p", "length": 2}]})"),
                                    "rod.json");
  const Constraint& rod = joint(scene.model, "rod");
  CHECK(rod.measuredResidual(0, 1.125, false) == Approx(0.5).epsilon(1e-14));
  CHECK(rod.measuredResidual(0, 3.0, true) == Approx(1.5).epsilon(1e-14));  // velocity / L
  const Body& p = *scene.model.findBody("p");
  CHECK(p.coordinateKind(1) == CoordinateKind::Length);
  const auto mp = p.massProperties();
  REQUIRE(mp);
  CHECK((mp->mass == 1 && mp->translations == 2 && mp->rotations == 0));
}
