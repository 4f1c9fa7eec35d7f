#include <catch2/catch.hpp>
#include <cmath>

#include "body_checks.hpp"
#include "eigen_approx.hpp"
#include "joinery/bodies/linear_body.hpp"
#include "test_context.hpp"

using namespace joinery;
using joinery::test::isApprox;
using nlohmann::json;

namespace {
const json kBeam{{"name", "beam"},
                 {"type", "linear"},
                 {"coordinates", {"u1", "u2"}},
                 {"mass_matrix", {{2.0, 0.5}, {0.5, 1.0}}},
                 {"damping_matrix", {{0.1, 0.0}, {0.02, 0.3}}},
                 {"stiffness_matrix", {{200.0, -100.0}, {-100.0, 100.0}}},
                 {"force", {"F0*sin(t) + u2", "-0.5*u2_dot*abs(u2_dot) + 3*u1_dot"}},
                 {"q0", {0.01, 0.02}},
                 {"v0", {0.0, -0.1}}};

std::string linearBodyError(const json& j) {
  test::TestContext ctx;
  ctx.setParameter("F0", 2.0);
  try {
    test::create<Body>(j, ctx);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

json withBeam(const std::string& k, const json& v) {
  json j = kBeam;
  j[k] = v;
  return j;
}
}  // namespace

TEST_CASE("linear body: M, Q = force - D q' - K q, energies", "[bodies][linear]") {
  test::TestContext ctx;
  ctx.setParameter("F0", 2.0);
  const BodyPtr b = test::create<Body>(kBeam, ctx);
  CHECK(b->coordinateNames() == std::vector<std::string>{"u1", "u2"});
  CHECK(b->points() == nullptr);
  CHECK(b->frames() == nullptr);
  CHECK_FALSE(b->isPlanar());
  Eigen::VectorXd q0(2), v0(2);
  b->getInitialState(q0, v0);
  CHECK(q0 == Eigen::Vector2d(0.01, 0.02));
  CHECK(v0 == Eigen::Vector2d(0.0, -0.1));
  const Eigen::Matrix2d M = (Eigen::Matrix2d() << 2.0, 0.5, 0.5, 1.0).finished();
  const Eigen::Matrix2d D = (Eigen::Matrix2d() << 0.1, 0.0, 0.02, 0.3).finished();
  const Eigen::Matrix2d K = (Eigen::Matrix2d() << 200.0, -100.0, -100.0, 100.0).finished();
  CHECK(test::massMatrix(*b, q0) == Eigen::MatrixXd(M));

  // Slot order t, q, q': the force sees t = 0.7, u1 = 0.3, u2 = -0.4, u1' = 1.5, u2' = -2.
  const double t = 0.7;
  const Eigen::Vector2d q(0.3, -0.4), v(1.5, -2.0);
  const Eigen::Vector2d f(2.0 * std::sin(t) + q(1), -0.5 * v(1) * std::abs(v(1)) + 3.0 * v(0));
  CHECK_THAT(Eigen::MatrixXd(test::forces(*b, q, v, t)), isApprox(f - D * v - K * q, 1e-14, 1e-14));
  CHECK(b->calcKineticEnergy(t, q, v) == Approx(0.5 * v.dot(M * v)));
  CHECK(b->calcPotentialEnergy(t, q) == Approx(0.5 * q.dot(K * q)));
  // Gravity does not act on a linear body (it has no position in space).
  Eigen::VectorXd Q = Eigen::VectorXd::Zero(2);
  b->addGravityForce(q, Eigen::Vector3d(0, -9.81, 0), Q);
  CHECK(Q.isZero(0.0));

  // Round trip keeps the force texts.
  CHECK(b->toJson() == kBeam);
}

TEST_CASE("linear body: optional matrices, diagonal shorthand, singular mass", "[bodies][linear]") {
  test::TestContext ctx;
  const BodyPtr b = test::create<Body>({{"name", "springs"},
                                        {"type", "linear"},
                                        {"coordinates", {"x1", "q1", "q2"}},
                                        {"mass_matrix", {1.0, 0.0, 2.0}},
                                        {"force", {0, 1.5, "-x1"}}},
                                       ctx);
  const Eigen::Vector3d q(1, 2, 3), v(4, 5, 6);
  CHECK(test::massMatrix(*b, q) == Eigen::MatrixXd(Eigen::Vector3d(1, 0, 2).asDiagonal()));
  CHECK(test::forces(*b, q, v) == Eigen::Vector3d(0, 1.5, -1));
  CHECK(b->calcPotentialEnergy(0, q) == 0.0);
  const json j = b->toJson();
  CHECK(j.at("force") == json{0.0, 1.5, "-x1"});
  CHECK_FALSE(j.contains("damping_matrix"));
  CHECK(test::create<Body>(j, ctx)->toJson() == j);
}

TEST_CASE("linear body factory errors", "[bodies][linear][errors]") {
  std::string e = linearBodyError(withBeam("mass_matrix", {{2.0, 0.5}, {0.4, 1.0}}));
  CHECK_THAT(e, Catch::Contains("at /mass_matrix") && Catch::Contains("mass_matrix is not symmetric") &&
                    Catch::Contains("[0][1] = 0.5") && Catch::Contains("[1][0] = 0.4") &&
                    Catch::Contains("expected a symmetric matrix"));
  e = linearBodyError(withBeam("mass_matrix", {{1.0, 2.0}, {2.0, 1.0}}));
  CHECK_THAT(e, Catch::Contains("at /mass_matrix") && Catch::Contains("not positive semi-definite") &&
                    Catch::Contains("smallest eigenvalue -1"));
  e = linearBodyError(withBeam("mass_matrix", {{1.0, 0.0}}));
  CHECK_THAT(e, Catch::Contains("at /mass_matrix") && Catch::Contains("expected 2"));
  e = linearBodyError(withBeam("stiffness_matrix", {{1.0, 0.0}, {0.0}}));
  CHECK_THAT(e, Catch::Contains("at /stiffness_matrix/1") && Catch::Contains("expected 2"));
  e = linearBodyError(withBeam("coordinates", {"u1", "u1"}));
  CHECK_THAT(e, Catch::Contains("at /coordinates") && Catch::Contains("'u1' appears twice"));
  e = linearBodyError(withBeam("coordinates", {"u1", "2u"}));
  CHECK_THAT(e, Catch::Contains("'2u' is not an identifier"));
  e = linearBodyError(withBeam("coordinates", {"u1", "t"}));
  CHECK_THAT(e, Catch::Contains("'t' is reserved"));
  e = linearBodyError(withBeam("coordinates", {"u1", "u1_dot"}));
  CHECK_THAT(e, Catch::Contains("clashes with the velocity of coordinate 'u1'"));
  e = linearBodyError(withBeam("force", {"u1", "u3"}));
  CHECK_THAT(e, Catch::Contains("at /force/1") && Catch::Contains("u3"));
  e = linearBodyError(withBeam("force", {"u1"}));
  CHECK_THAT(e, Catch::Contains("at /force") && Catch::Contains("an array of 2 expressions"));
  e = linearBodyError(withBeam("q0", {1, 2, 3}));
  CHECK_THAT(e, Catch::Contains("at /q0") && Catch::Contains("u1, u2"));
  e = linearBodyError(withBeam("stifness_matrix", {{1, 0}, {0, 1}}));
  CHECK_THAT(e, Catch::Contains("unknown key 'stifness_matrix'") &&
                    Catch::Contains("did you mean 'stiffness_matrix'"));
  json noM = kBeam;
  noM.erase("mass_matrix");
  CHECK_THAT(linearBodyError(noM), Catch::Contains("missing required field 'mass_matrix'"));
}
