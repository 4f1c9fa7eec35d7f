// Runs over every registered body type (the library's and the custom ones registered by the
// test sources), using the example each type registers: JSON round trip, mass matrix,
// kinetic energy, markers and internal constraints against finite differences, gravity.
#include <catch2/catch.hpp>
#include <random>

#include "body_checks.hpp"
#include "eigen_approx.hpp"
#include "joinery/core/registry.hpp"
#include "test_context.hpp"

using namespace joinery;
using joinery::test::isApprox;

TEST_CASE("the body registry holds the library's types", "[bodies][conformance]") {
  const auto names = BodyRegistry::instance().names();
  for (const char* t : {"particle", "rigid2d", "rigid3d", "linear"})
    CHECK(std::find(names.begin(), names.end(), t) != names.end());
}

TEST_CASE("every registered body type conforms", "[bodies][conformance]") {
  test::TestContext ctx;
  std::mt19937 rng(20261121);
  for (const std::string& type : BodyRegistry::instance().names()) {
    const TypeInfo<Body>* info = BodyRegistry::instance().find(type);
    REQUIRE(info != nullptr);
    INFO("type " << type);
    CHECK(!info->summary.empty());
    CHECK(info->example.at("type") == type);
    const BodyPtr body = test::create<Body>(info->example, ctx);
    REQUIRE(body);
    CHECK(body->typeName() == type);
    const int n = body->numCoordinates();
    REQUIRE(n > 0);

    // Round trip: create(toJson()) gives the same definition and the same numbers.
    const nlohmann::json j = body->toJson();
    const BodyPtr again = test::create<Body>(j, ctx);
    CHECK(again->toJson() == j);
    CHECK(again->coordinateNames() == body->coordinateNames());
    Eigen::VectorXd q0(n), v0(n), q1(n), v1(n);
    body->getInitialState(q0, v0);
    again->getInitialState(q1, v1);
    CHECK(q0 == q1);
    CHECK(v0 == v1);
    CHECK(test::massMatrix(*body, q0) == test::massMatrix(*again, q0));
    CHECK(test::forces(*body, q0, v0, 0.2) == test::forces(*again, q0, v0, 0.2));

    for (int trial = 0; trial < 5; ++trial) {
      const test::Motion m = test::randomMotion(*body, rng);
      const Eigen::MatrixXd M = test::massMatrix(*body, m.q, m.t);
      test::checkMassMatrix(M);
      CHECK(body->calcKineticEnergy(m.t, m.q, m.v) ==
            Approx(0.5 * m.v.dot(M * m.v)).epsilon(1e-12).margin(1e-14));
      if (body->points()) {
        test::checkPointMarker(*body, m, Eigen::Vector3d::Zero());
        test::checkPointMarker(*body, m, Eigen::Vector3d(0.3, -0.7, 0.4));
      }
      if (body->frames()) test::checkFrameMarker(*body, m);
      test::checkInternalConstraints(*body, m);
      test::checkGravity(*body, m.q, Eigen::Vector3d(0.4, -9.81, 1.3));
    }
  }
}
