#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "body_checks.hpp"
#include "eigen_approx.hpp"
#include "joinery/bodies/rigid2d.hpp"
#include "test_context.hpp"

using namespace joinery;
using joinery::test::isApprox;
using nlohmann::json;

namespace {
const json kLink{{"name", "link"},     {"type", "rigid2d"}, {"mass", 2.0},
                 {"inertia", 0.25},    {"position", {1.0, -0.5}}, {"angle", 0.7},
                 {"velocity", {0.3, -0.2}}, {"angular_velocity", 1.9}};

std::string errorOf(const json& j) {
  test::TestContext ctx;
  try {
    test::create<Body>(j, ctx);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("rigid2d state, mass matrix and forces", "[bodies][rigid2d]") {
  test::TestContext ctx;
  const BodyPtr b = test::create<Body>(kLink, ctx);
  CHECK(b->coordinateNames() == std::vector<std::string>{"x", "y", "theta"});
  CHECK(b->isPlanar());
  Eigen::VectorXd q0(3), v0(3);
  b->getInitialState(q0, v0);
  CHECK(q0 == Eigen::Vector3d(1.0, -0.5, 0.7));
  CHECK(v0 == Eigen::Vector3d(0.3, -0.2, 1.9));
  CHECK(test::massMatrix(*b, q0) == Eigen::Vector3d(2.0, 2.0, 0.25).asDiagonal().toDenseMatrix());
  CHECK(test::forces(*b, q0, v0).isZero(0.0));
  CHECK(b->calcKineticEnergy(0, q0, v0) == Approx(0.5 * 2.0 * (0.09 + 0.04) + 0.5 * 0.25 * 1.9 * 1.9));
  CHECK(b->toJson() == kLink);
}

TEST_CASE("rigid2d point marker matches the closed form and finite differences", "[bodies][rigid2d]") {
  test::TestContext ctx;
  const BodyPtr b = test::create<Body>(kLink, ctx);
  const Eigen::Vector3d q(1.0, -0.5, 0.7), v(0.3, -0.2, 1.9);
  const Eigen::Vector3d p(0.4, -0.3, 5.0);  // z of a planar point is ignored
  const double c = std::cos(0.7), s = std::sin(0.7);
  const Eigen::Vector2d Rp(c * 0.4 + s * 0.3, s * 0.4 - c * 0.3);
  CHECK_THAT(Eigen::MatrixXd(b->points()->calcPointPosition(q, p)),
             isApprox(Eigen::Vector3d(1.0 + Rp.x(), -0.5 + Rp.y(), 0.0), 1e-15, 1e-15));
  Eigen::MatrixXd J(3, 3);
  b->points()->calcPointJacobian(q, p, J);
  Eigen::Matrix3d Jexp;
  Jexp << 1, 0, -Rp.y(), 0, 1, Rp.x(), 0, 0, 0;
  CHECK_THAT(J, isApprox(Jexp, 1e-15, 1e-15));
  CHECK_THAT(Eigen::MatrixXd(b->points()->calcPointBias(q, v, p)),
             isApprox(Eigen::Vector3d(-1.9 * 1.9 * Rp.x(), -1.9 * 1.9 * Rp.y(), 0), 1e-15, 1e-15));

  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const test::Motion m = test::randomMotion(*b, rng, 3.0);
    test::checkPointMarker(*b, m, Eigen::Vector3d(0.4, -0.3, 0.0));
    test::checkPointMarker(*b, m, Eigen::Vector3d(-1.5, 2.0, 0.0));
    test::checkFrameMarker(*b, m);
  }
}

TEST_CASE("rigid2d frame marker and point forces", "[bodies][rigid2d]") {
  test::TestContext ctx;
  const BodyPtr b = test::create<Body>(kLink, ctx);
  const Eigen::Vector3d q(1.0, -0.5, 0.7);
  CHECK_THAT(Eigen::MatrixXd(b->frames()->calcOrientation(q)),
             isApprox(Eigen::AngleAxisd(0.7, Eigen::Vector3d::UnitZ()).toRotationMatrix(), 1e-15, 1e-15));
  Eigen::MatrixXd Jw(3, 3);
  b->frames()->calcAngularJacobian(q, Jw);
  CHECK(Jw == (Eigen::Matrix3d() << 0, 0, 0, 0, 0, 0, 0, 0, 1).finished());
  CHECK(b->frames()->calcAngularBias(q, Eigen::Vector3d(1, 2, 3)).isZero(0.0));
  // A force F at a body point has generalized force J^T F = (F, (R p x F)_z): the torque.
  const Eigen::Vector3d p(0.4, -0.3, 0.0), F(2.0, -1.0, 0.0);
  Eigen::MatrixXd J(3, 3);
  b->points()->calcPointJacobian(q, p, J);
  const Eigen::Vector3d Rp = b->frames()->calcOrientation(q) * p;
  CHECK_THAT(Eigen::MatrixXd(J.transpose() * F),
             isApprox(Eigen::Vector3d(2.0, -1.0, Rp.cross(F).z()), 1e-14, 1e-14));
}

TEST_CASE("rigid2d gravity", "[bodies][rigid2d]") {
  test::TestContext ctx;
  const BodyPtr b = test::create<Body>(kLink, ctx);
  const Eigen::Vector3d q(1.0, -0.5, 0.7), g(0.5, -9.81, 4.0);
  Eigen::VectorXd Q = Eigen::VectorXd::Zero(3);
  b->addGravityForce(q, g, Q);
  CHECK(Q == Eigen::Vector3d(1.0, -19.62, 0.0));  // g_z does not act in the plane
  CHECK(b->calcGravityPotential(q, g) == Approx(-2.0 * (0.5 * 1.0 + 9.81 * 0.5)));
  test::checkGravity(*b, q, g);
}

TEST_CASE("rigid2d defaults, zero mass and factory errors", "[bodies][rigid2d][errors]") {
  test::TestContext ctx;
  const BodyPtr b = test::create<Body>(
      {{"name", "bar"}, {"type", "rigid2d"}, {"mass", 0}, {"inertia", 0}}, ctx);
  Eigen::VectorXd q0(3), v0(3);
  b->getInitialState(q0, v0);
  CHECK(q0.isZero(0.0));
  CHECK(v0.isZero(0.0));
  CHECK(test::massMatrix(*b, q0).isZero(0.0));

  auto with = [](const std::string& k, const json& v) {
    json j = kLink;
    j[k] = v;
    return j;
  };
  CHECK_THAT(errorOf(with("mass", -2)), Catch::Contains("at /mass") && Catch::Contains("expected a mass >= 0"));
  CHECK_THAT(errorOf(with("inertia", -0.1)),
             Catch::Contains("at /inertia") && Catch::Contains("expected an inertia >= 0"));
  CHECK_THAT(errorOf(with("position", {1, 2, 3})),
             Catch::Contains("at /position") && Catch::Contains("an array of 2 numbers"));
  CHECK_THAT(errorOf(with("angle", "foo")), Catch::Contains("at /angle") && Catch::Contains("foo"));
  CHECK_THAT(errorOf(with("angular_velocty", 1)),
             Catch::Contains("unknown key 'angular_velocty'") &&
                 Catch::Contains("did you mean 'angular_velocity'"));
  json noInertia = kLink;
  noInertia.erase("inertia");
  CHECK_THAT(errorOf(noInertia), Catch::Contains("missing required field 'inertia'"));
}
