// Evaluating expression joints (every mode, with a non-ideal law) allocates nothing: the
// symbolic derivatives are taken at load time; evaluation runs compiled programs over a stack
// buffer of slots. Counted by the replaced global operator new (allocation_counter.cpp).
#include <catch2/catch.hpp>

#include "allocation_counter.hpp"
#include "joint_test_support.hpp"

namespace joinery::test {

TEST_CASE("evaluating expression joints allocates nothing", "[joints][expression][allocation]") {
  std::mt19937 rng(45);
  const std::vector<std::string> defs = {
      R"J({"name": "p", "type": "expression", "position": ["body1.x*body2.e1 - sin(body1.theta + t)",
          "(body2.x - body1.x)^2 + body2.z^2 - 1 - 0.1*t^2*body1.y"]})J",
      R"J({"name": "v", "type": "expression", "velocity": ["-sin(body1.theta)*body1.x_dot + cos(body1.theta)*body1.y_dot",
          "body2.x_dot^2 + body2.e0*body1.theta_dot - t"],
          "nonideal": {"C": {"body1.x": "-0.2*Fi*body1.x_dot"}}})J",
      R"J({"name": "a", "type": "expression", "acceleration": [{"A": {"body1.x": "cos(body1.theta)", "body2.z": 1},
          "b": "body1.theta_dot^2 + t"}]})J"};
  for (const std::string& text : defs) {
    const nlohmann::json def = nlohmann::json::parse(text);
    DYNAMIC_SECTION(def.at("name").get<std::string>()) {
      TestScene scene;
      scene.add("rigid2d", "body1");
      scene.add("rigid3d", "body2");
      const auto joint = scene.joint(def);
      ElementMotion motion(joint->bodies(), rng, 0.5);
      const auto s = motion.at(0);
      MatrixXd A(joint->numRows(), joint->numLocalCoordinates());
      VectorXd b(joint->numRows()), phi(joint->numRows()), psi(joint->numRows()), C(joint->numLocalCoordinates());
      const long before = heapAllocations();
      joint->calcAccelerationRows(s->state(), A, b);
      joint->calcPositionError(s->state(), phi);
      joint->calcVelocityError(s->state(), psi);
      if (joint->nonideal()) joint->nonideal()->calcWork(*joint, s->state(), 2.0, C);
      const long during = heapAllocations() - before;
      CHECK(during == 0);
      CHECK(A.allFinite());
      CHECK(b.allFinite());
    }
  }
}

}  // namespace joinery::test
