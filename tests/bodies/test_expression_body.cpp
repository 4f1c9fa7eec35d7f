#include <catch2/catch.hpp>
#include <cmath>

#include "body_checks.hpp"
#include "eigen_approx.hpp"
#include "joinery/bodies/expression_body.hpp"
#include "joinery/core/dense_solver.hpp"
#include "test_context.hpp"

using namespace joinery;
using joinery::test::isApprox;
using nlohmann::json;

namespace {
// A particle in polar coordinates written as expressions, with the Lagrange velocity terms
// in `force` and a radial spring -3 r and a torque sin(t).
const json kBead{{"name", "bead"},
                 {"type", "expression"},
                 {"coordinates", {"r", "phi"}},
                 {"mass_matrix", {{2, 0}, {0, "2*r^2"}}},
                 {"force", {"2*r*phi_dot^2 - 3*r", "-4*r*r_dot*phi_dot + sin(t)"}},
                 {"q0", {1.2, 0.5}},
                 {"v0", {0.3, -0.8}}};

std::string expressionBodyError(const json& j) {
  test::TestContext ctx;
  try {
    test::create<Body>(j, ctx);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
json withBead(const std::string& k, const json& v) {
  json j = kBead;
  j[k] = v;
  return j;
}
}  // namespace

TEST_CASE("expression body evaluates M(q, t) and Q(q, q', t)", "[bodies][expression]") {
  test::TestContext ctx;
  const BodyPtr b = test::create<Body>(kBead, ctx);
  CHECK(b->coordinateNames() == std::vector<std::string>{"r", "phi"});
  CHECK(b->points() == nullptr);
  Eigen::VectorXd q0(2), v0(2);
  b->getInitialState(q0, v0);
  CHECK(q0 == Eigen::Vector2d(1.2, 0.5));
  CHECK(v0 == Eigen::Vector2d(0.3, -0.8));
  const Eigen::Vector2d q(0.7, 2.0), v(-0.4, 1.1);
  CHECK_THAT(test::massMatrix(*b, q, 0.3), isApprox(Eigen::Vector2d(2, 2 * 0.49).asDiagonal().toDenseMatrix()));
  const Eigen::Vector2d Q(2 * 0.7 * 1.21 - 3 * 0.7, -4 * 0.7 * -0.4 * 1.1 + std::sin(0.3));
  CHECK_THAT(Eigen::MatrixXd(test::forces(*b, q, v, 0.3)), isApprox(Q, 1e-14, 1e-14));
  CHECK(b->toJson() == kBead);
  // Without the spring and the torque it moves like a free particle: the Cartesian
  // acceleration (from r'' and phi'') vanishes.
  json free = kBead;
  free["force"] = {"2*r*phi_dot^2", "-4*r*r_dot*phi_dot"};
  const BodyPtr f = test::create<Body>(free, ctx);
  const Eigen::VectorXd a = test::massMatrix(*f, q).ldlt().solve(test::forces(*f, q, v));
  const double c = std::cos(q(1)), s = std::sin(q(1));
  const double ax = (a(0) - q(0) * v(1) * v(1)) * c - (q(0) * a(1) + 2 * v(0) * v(1)) * s;
  const double ay = (a(0) - q(0) * v(1) * v(1)) * s + (q(0) * a(1) + 2 * v(0) * v(1)) * c;
  CHECK(std::abs(ax) <= 1e-13);
  CHECK(std::abs(ay) <= 1e-13);
}

TEST_CASE("expression body: the wheel on an incline of seed 002 (singular M)", "[bodies][expression]") {
  // equations.md section 5, example 1: M = diag(0, Ic + m R^2), Q = (m g, 0), y = R sin(alpha) theta.
  test::TestContext ctx;
  ctx.setParameter("m", 2.0);
  ctx.setParameter("R", 0.3);
  ctx.setParameter("Ic", 0.09);
  ctx.setParameter("g", 9.81);
  const BodyPtr wheel = test::create<Body>({{"name", "wheel"},
                                            {"type", "expression"},
                                            {"coordinates", {"y", "theta"}},
                                            {"mass_matrix", {0, "Ic + m*R^2"}},
                                            {"force", {"m*g", 0}}},
                                           ctx);
  const Eigen::Vector2d q(0, 0), v(0, 0);
  const double alpha = 0.4;
  const Eigen::MatrixXd A = (Eigen::MatrixXd(1, 2) << 1.0, -0.3 * std::sin(alpha)).finished();
  const Solution s = DenseSolver().solve(test::massMatrix(*wheel, q), test::forces(*wheel, q, v), A,
                                         Eigen::VectorXd::Zero(1));
  REQUIRE(s.diagnosis.wellPosed);
  const double thetadd = 2.0 * 9.81 * 0.3 * std::sin(alpha) / (0.09 + 2.0 * 0.09);
  CHECK(s.qdd(1) == Approx(thetadd).epsilon(1e-12));
  CHECK(s.qdd(0) == Approx(0.3 * std::sin(alpha) * thetadd).epsilon(1e-12));
}

TEST_CASE("expression body factory errors", "[bodies][expression][errors]") {
  std::string e = expressionBodyError(withBead("mass_matrix", {{2, "r"}, {0, "2*r^2"}}));
  CHECK_THAT(e, Catch::Contains("at /mass_matrix") && Catch::Contains("not symmetric") &&
                    Catch::Contains("[0][1] = 1.2"));
  e = expressionBodyError(withBead("mass_matrix", {{2, 0}, {0, "-r"}}));
  CHECK_THAT(e, Catch::Contains("at /mass_matrix") && Catch::Contains("not positive semi-definite"));
  e = expressionBodyError(withBead("mass_matrix", {{2, 0}, {0, "2*r_dot"}}));
  CHECK_THAT(e, Catch::Contains("at /mass_matrix/1/1") &&
                    Catch::Contains("depends on the velocity 'r_dot'"));
  e = expressionBodyError(withBead("mass_matrix", {{2, 0}, {0}}));
  CHECK_THAT(e, Catch::Contains("at /mass_matrix/1") && Catch::Contains("a row of 2 expressions"));
  e = expressionBodyError(withBead("force", {"r", "x + 1"}));
  CHECK_THAT(e, Catch::Contains("at /force/1") && Catch::Contains("'x'"));
  e = expressionBodyError(withBead("coordinates", {"r", "r"}));
  CHECK_THAT(e, Catch::Contains("at /coordinates") && Catch::Contains("appears twice"));
  e = expressionBodyError(withBead("q", {1, 2}));
  CHECK_THAT(e, Catch::Contains("unknown key 'q'"));
}
