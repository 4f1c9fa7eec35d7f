// Registration and JSON round trips of every joint and force type of joinery::joints: the
// registered example instantiates with bodies named body1 and body2, and create(toJson())
// reproduces the element (same JSON, same rows / forces).
#include <algorithm>
#include <catch2/catch.hpp>

#include "joint_test_support.hpp"

namespace joinery::test {
namespace {

const std::vector<std::string> kJointTypes = {"revolute2d", "prismatic2d", "weld2d",   "distance",
                                              "spherical",  "revolute3d",  "coupling", "driver",
                                              "expression",
                                              // spatial joints
                                              "universal",  "cylindrical", "prismatic3d", "weld3d",
                                              "planar3d",   "point_on_line", "point_on_plane",
                                              // the axial joints (test_axial_joints.cpp)
                                              "screw", "revolute_driver", "prismatic_driver", "rolling_disk",
                                              "gear", "rack_pinion",
                                              // one-sided joints (test_contact_input.cpp, tests/contact)
                                              "rope", "contact"};
const std::vector<std::string> kForceTypes = {"spring", "torsion2d", "force", "generalized", "joint_spring",
                                              // a compliant contact (tests/contact/test_compliant.cpp)
                                              "contact"};

}  // namespace

// The conformance cases below iterate the lists above (each type needs its example pair of
// bodies); this case makes a type registered but left out of the lists a failure, and an
// empty registry (self-registration dropped by the linker) too.
TEST_CASE("the conformance lists cover every registered joint and force type", "[joints][registry]") {
  const auto joints = ConstraintRegistry::instance().names();
  const auto forces = ForceRegistry::instance().names();
  REQUIRE_FALSE(joints.empty());
  REQUIRE_FALSE(forces.empty());
  for (const std::string& name : joints) {
    INFO("registered joint type '" << name << "' has no conformance case: add it to kJointTypes");
    CHECK(std::find(kJointTypes.begin(), kJointTypes.end(), name) != kJointTypes.end());
  }
  for (const std::string& name : forces) {
    INFO("registered force type '" << name << "' has no conformance case: add it to kForceTypes");
    CHECK(std::find(kForceTypes.begin(), kForceTypes.end(), name) != kForceTypes.end());
  }
}

TEST_CASE("every joint type is registered and round-trips through JSON", "[joints][registry]") {
  std::mt19937 rng(1);
  for (const std::string& type : kJointTypes) {
    DYNAMIC_SECTION(type) {
      const auto* info = ConstraintRegistry::instance().find(type);
      REQUIRE(info != nullptr);
      CHECK_FALSE(info->summary.empty());
      TestScene scene;
      scene.add("rigid2d", "body1");
      scene.add("rigid2d", "body2");
      const auto joint = scene.joint(info->example);
      CHECK(joint->typeName() == type);
      const nlohmann::json j = joint->toJson();
      CHECK(j.at("type") == type);
      CHECK(j.at("name") == info->example.at("name"));
      const auto again = scene.joint(j);
      CHECK(again->toJson() == j);
      REQUIRE(again->bodies() == joint->bodies());
      REQUIRE(again->numRows() == joint->numRows());
      CHECK((joint->nonideal() == nullptr) == (again->nonideal() == nullptr));
      for (int trial = 0; trial < 3; ++trial) {
        ElementMotion motion(joint->bodies(), rng, uniform(rng, 0, 2));
        const auto s = motion.at(0);
        const Rows r1 = accelerationRows(*joint, s->state()), r2 = accelerationRows(*again, s->state());
        // bit-identical, except for expression joints over coordinates: two parses of the same
        // text may order GiNaC's canonical sums differently (symbol creation order), so the
        // compiled programs may round differently: 1e-14 relative
        const double tol = type == "expression" ? 1e-14 : 0;
        CHECK_THAT(r2.A, isApprox(r1.A, tol, tol));
        CHECK_THAT(r2.b, isApprox(r1.b, tol, tol));
        CHECK_THAT(positionError(*again, s->state()), isApprox(positionError(*joint, s->state()), tol, tol));
        CHECK_THAT(velocityError(*again, s->state()), isApprox(velocityError(*joint, s->state()), tol, tol));
        if (joint->nonideal()) {
          VectorXd C1(joint->numLocalCoordinates()), C2(joint->numLocalCoordinates());
          joint->nonideal()->calcWork(*joint, s->state(), 1.7, C1);
          again->nonideal()->calcWork(*again, s->state(), 1.7, C2);
          CHECK_THAT(C2, isApprox(C1, 0, 0));
        }
        // and the rows of the example are right (FD), whatever the pairing
        if (joint->level() == ConstraintLevel::Velocity)
          checkVelocityRows(*joint, motion);
        else
          checkAgainstFiniteDifferences(*joint, motion, type != "coupling" && type != "driver" && type != "expression" &&
                                                            type != "revolute_driver" && type != "prismatic_driver");
      }
    }
  }
}

TEST_CASE("every force type is registered and round-trips through JSON", "[forces][registry]") {
  std::mt19937 rng(2);
  for (const std::string& type : kForceTypes) {
    DYNAMIC_SECTION(type) {
      const auto* info = ForceRegistry::instance().find(type);
      REQUIRE(info != nullptr);
      TestScene scene;
      scene.add("rigid2d", "body1");
      scene.add("rigid2d", "body2");
      // a force on a joint's own quantity (joint_spring): its example names the joint "knee"
      std::unique_ptr<Constraint> knee;
      if (info->example.contains("joint")) {
        knee = scene.joint({{"name", info->example.at("joint")}, {"type", "revolute_driver"}, {"body1", "body1"},
                            {"axis1", {0, 0, 1}}, {"body2", "body2"}, {"axis2", {0, 0, 1}}, {"value", "0.3*t"}});
        scene.ctx.addConstraint(*knee);
      }
      const auto force = scene.force(info->example);
      CHECK(force->typeName() == type);
      const nlohmann::json j = force->toJson();
      const auto again = scene.force(j);
      CHECK(again->toJson() == j);
      REQUIRE(again->bodies() == force->bodies());
      for (int trial = 0; trial < 3; ++trial) {
        ElementMotion motion(force->bodies(), rng, uniform(rng, 0, 2));
        const auto s = motion.at(0);
        CHECK_THAT(generalizedForce(*again, s->state()), isApprox(generalizedForce(*force, s->state()), 0, 0));
        CHECK(again->calcPotentialEnergy(s->state()) == force->calcPotentialEnergy(s->state()));
      }
    }
  }
}

TEST_CASE("expressions over parameters round-trip as written", "[joints][registry]") {
  TestScene scene;
  scene.add("rigid2d", "body1");
  scene.ctx.setParameter("A", 0.5);
  const nlohmann::json def = {{"name", "d"}, {"type", "driver"}, {"coordinate", "body1.theta"}, {"value", "A*sin(t)"}};
  const auto joint = scene.joint(def);
  CHECK(joint->toJson() == def);
  // numeric fields given as expressions are written as their values
  const auto w = scene.joint({{"name", "w"}, {"type", "weld2d"}, {"body1", "ground"}, {"body2", "body1"},
                              {"point1", {"2*A", 0}}, {"angle", "A/2"}});
  CHECK(w->toJson().at("point1") == nlohmann::json::array({1.0, 0.0}));
  CHECK(w->toJson().at("angle") == 0.25);
}

}  // namespace joinery::test
