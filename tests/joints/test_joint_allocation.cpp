// Evaluation of joints, non-ideal laws and force elements does not touch the heap (for bodies
// with up to 32 coordinates): rows, errors, work vectors and forces are written into
// caller-provided storage. Counted by the replaced global operator new (allocation_counter.cpp).
#include <catch2/catch.hpp>

#include "allocation_counter.hpp"
#include "joint_test_support.hpp"

namespace joinery::test {

TEST_CASE("evaluating joints, non-ideal laws and forces allocates nothing", "[joints][forces][allocation]") {
  std::mt19937 rng(3);
  {  // the counter counts
    const long before = heapAllocations();
    auto probe = std::make_unique<std::vector<double>>(100, 1.0);
    REQUIRE(heapAllocations() > before);
  }
  for (const std::string kind : {"rigid2d", "rigid3d"}) {
    const std::vector<std::string> joints = kind == "rigid2d"
        ? std::vector<std::string>{"revolute2d", "prismatic2d", "weld2d", "distance", "spherical", "revolute3d", "coupling", "driver", "expression"}
        : std::vector<std::string>{"distance", "spherical", "revolute3d", "coupling", "driver"};
    for (const std::string& type : joints) {
      DYNAMIC_SECTION(type << " on " << kind) {
        TestScene scene;
        scene.add(kind, "body1");
        scene.add(kind, "body2");
        const auto joint = scene.joint(ConstraintRegistry::instance().find(type)->example);
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
      }
    }
    for (const std::string type : {"spring", "torsion2d", "force", "generalized", "contact"}) {
      if (kind == "rigid3d" && type == std::string("torsion2d")) continue;
      DYNAMIC_SECTION(type << " on " << kind) {
        TestScene scene;
        scene.add(kind, "body1");
        scene.add(kind, "body2");
        const auto force = scene.force(ForceRegistry::instance().find(type)->example);
        ElementMotion motion(force->bodies(), rng, 0.5);
        const auto s = motion.at(0);
        VectorXd Q = VectorXd::Zero(force->numLocalCoordinates());
        const long before = heapAllocations();
        force->addForces(s->state(), Q);
        const double V = force->calcPotentialEnergy(s->state());
        const long during = heapAllocations() - before;
        CHECK(during == 0);
        CHECK(std::isfinite(V));
      }
    }
  }
}

}  // namespace joinery::test
