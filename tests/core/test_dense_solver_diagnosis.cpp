// DenseSolver diagnosis: ill-posed, inconsistent, redundant and invalid problems, row scaling
// and the mass tolerance (equations.md section 4; dense_solver.hpp, errors.hpp).
//
// Tolerances: all problems are tiny (n <= 5) with exact or well-conditioned data, so solver
// results are accurate to ~1e-14 relative; 1e-10 relative is used unless stated otherwise.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "eigen_approx.hpp"
#include "dense_test_support.hpp"
#include "joinery/core/dense_solver.hpp"
#include "joinery/core/errors.hpp"

using Eigen::MatrixXd;
using Eigen::VectorXd;
using joinery::DenseSolver;
using joinery::Posedness;
using joinery::test::isApprox;
using joinery::test::col;
using joinery::test::lower;
using joinery::test::anyMessageContains;

namespace {

constexpr double kRelDiagnosis = 1e-10;  // see the file comment


VectorXd vec(std::initializer_list<double> xs) {
  VectorXd v(static_cast<Eigen::Index>(xs.size()));
  Eigen::Index i = 0;
  for (double x : xs) v(i++) = x;
  return v;
}


/// Three carts glued together by two constraints plus a massless, unconstrained "pin".
struct Chain {
  MatrixXd M = vec({2.0, 3.0, 1.0, 0.0}).asDiagonal();
  VectorXd Q = vec({1.0, -2.0, 4.0, 0.0});
  MatrixXd A = (MatrixXd(2, 4) << 1, -1, 0, 0, 0, 1, -1, 0).finished();
  VectorXd b = VectorXd::Zero(2);
  std::vector<std::string> names = {"cart_a", "cart_b", "cart_c", "pin_p"};
};

/// Runs f and returns the error of type E it throws (REQUIREs that it does).
template <class E, class F>
E thrown(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  }
  FAIL("expected exception was not thrown");
  throw std::logic_error("unreachable");
}

/// A valid 3-coordinate problem to corrupt one field at a time.
struct Valid {
  MatrixXd M = vec({1.0, 2.0, 3.0}).asDiagonal();
  VectorXd Q = vec({1.0, 0.0, -1.0});
  MatrixXd A = (MatrixXd(1, 3) << 1, 1, 0).finished();
  VectorXd b = vec({0.5});
  VectorXd C = VectorXd::Zero(3);
};

template <class E>
void checkInvalid(const Valid& p, const std::string& field, int row = -2, int col = -2) {
  const DenseSolver solver;
  REQUIRE_THROWS_AS(solver.solve(p.M, p.Q, p.A, p.b, p.C), E);
  REQUIRE_THROWS_AS(joinery::validateProblem(p.M, p.Q, p.A, p.b, p.C), E);
  const E e = thrown<E>([&] { (void)solver.solve(p.M, p.Q, p.A, p.b, p.C); });
  CHECK(e.field() == field);
  CHECK(std::string(e.what()).find(field) != std::string::npos);
  if (row != -2) CHECK(e.row() == row);
  if (col != -2) CHECK(e.col() == col);
}

}  // namespace

TEST_CASE("diagnosis: massless free coordinate in force balance", "[dense_solver][diagnosis]") {
  const Chain c;
  const auto sol = DenseSolver().solve(c.M, c.Q, c.A, c.b, VectorXd(), c.names);
  const auto& d = sol.diagnosis;
  CHECK(d.rankA == 2);
  CHECK(d.rankMA == 3);
  CHECK_FALSE(d.fullRank);
  CHECK_FALSE(d.wellPosed);
  CHECK(d.status == Posedness::IllPosed);
  CHECK(d.indeterminateCoordinates == std::vector<int>{3});
  REQUIRE(d.indeterminate.size() == 1);
  CHECK(d.indeterminate[0].forceBalanced);
  CHECK(anyMessageContains(d.messages, "pin_p"));
  // Finite, minimum-norm: the glued carts share (1 - 2 + 4) / (2 + 3 + 1) = 0.5; pin'' = 0.
  REQUIRE(sol.qdd.allFinite());
  CHECK_THAT(col(sol.qdd), isApprox(col(vec({0.5, 0.5, 0.5, 0.0})), kRelDiagnosis, 1e-14));
  CHECK(std::string(joinery::toString(d.status)) == "ill_posed");
}

TEST_CASE("diagnosis: net force on a massless free coordinate", "[dense_solver][diagnosis]") {
  Chain c;
  c.Q(3) = 1.5;  // a force on a point that has no mass and nothing holding it
  const auto sol = DenseSolver().solve(c.M, c.Q, c.A, c.b, VectorXd(), c.names);
  const auto& d = sol.diagnosis;
  CHECK(d.status == Posedness::IllPosed);
  REQUIRE(d.indeterminate.size() == 1);
  CHECK_FALSE(d.indeterminate[0].forceBalanced);
  // Direction is +e_pin (largest entry positive), so netForce = Q_pin.
  CHECK(d.indeterminate[0].netForce == Approx(1.5).epsilon(kRelDiagnosis));
  CHECK(anyMessageContains(d.messages, "net force"));
  CHECK(anyMessageContains(d.messages, "pin_p"));
  // The zero row of Mhat for the pin decouples it: the carts are unaffected, pin'' = 0.
  REQUIRE(sol.qdd.allFinite());
  CHECK_THAT(col(sol.qdd), isApprox(col(vec({0.5, 0.5, 0.5, 0.0})), kRelDiagnosis, 1e-14));
}

TEST_CASE("diagnosis: contradictory constraints are inconsistent", "[dense_solver][diagnosis]") {
  const MatrixXd M = MatrixXd::Identity(2, 2);
  const VectorXd Q = vec({0.0, 0.7});
  const MatrixXd A = (MatrixXd(2, 2) << 1, 0, 1, 0).finished();
  const VectorXd b = vec({1.0, 2.0});  // x'' = 1 and x'' = 2
  const auto sol = DenseSolver().solve(M, Q, A, b);
  const auto& d = sol.diagnosis;
  CHECK(d.status == Posedness::Inconsistent);
  CHECK_FALSE(d.consistent);
  CHECK_FALSE(d.wellPosed);
  CHECK(d.rankA == 1);
  // Least squares gives x'' = 1.5, so |A q'' - b| = sqrt(0.5); any answer has residual >= that.
  CHECK(d.residual > 0.1);
  CHECK(d.residual == Approx((A * sol.qdd - b).norm()).epsilon(1e-12));
  CHECK(d.inconsistency > 0);
  REQUIRE_FALSE(d.inconsistentRows.empty());
  for (int r : d.inconsistentRows) CHECK((r == 0 || r == 1));
  CHECK(anyMessageContains(d.messages, "inconsistent"));
  CHECK(sol.qdd.allFinite());
  CHECK(sol.qdd(1) == Approx(0.7).epsilon(kRelDiagnosis));  // the free coordinate is unaffected
  CHECK(std::string(joinery::toString(d.status)) == "inconsistent");
}

TEST_CASE("diagnosis: redundant consistent rows are legal", "[dense_solver][diagnosis]") {
  const MatrixXd M = vec({1.0, 2.0, 4.0}).asDiagonal();
  const VectorXd Q = vec({3.0, -1.0, 2.0});
  const MatrixXd A1 = (MatrixXd(2, 3) << 1, -1, 0, 0, 1, 1).finished();
  const VectorXd b1 = vec({0.25, -1.0});
  MatrixXd A2(3, 3);
  A2 << A1, 2.0 * A1.row(0) - 3.0 * A1.row(1);  // a combination of the other two
  VectorXd b2(3);
  b2 << b1, 2.0 * b1(0) - 3.0 * b1(1);
  const auto s1 = DenseSolver().solve(M, Q, A1, b1);
  const auto s2 = DenseSolver().solve(M, Q, A2, b2);
  CHECK(s1.diagnosis.redundant == 0);
  CHECK(s2.diagnosis.redundant == 1);
  CHECK(s2.diagnosis.rankA == 2);
  CHECK(s2.diagnosis.wellPosed);
  CHECK(s2.diagnosis.consistent);
  CHECK(s2.diagnosis.status == Posedness::WellPosed);
  CHECK(std::string(joinery::toString(s2.diagnosis.status)) == "well_posed");
  CHECK_THAT(col(s2.qdd), isApprox(col(s1.qdd), kRelDiagnosis, 1e-14));
  // Hand solution: null(A1) = (1, 1, -1); (1, 1, -1) . (M q'' - Q) = 0 with
  // q'' = (t + 0.25, t, -1 - t): (t + .25) + 2 t + 4 (1 + t) = 3 - 1 - 2 = 0  =>  t = -4.25/7.
  const double t = -4.25 / 7.0;
  CHECK_THAT(col(s1.qdd), isApprox(col(vec({t + 0.25, t, -1.0 - t})), kRelDiagnosis, 1e-14));
}

TEST_CASE("diagnosis: no constraints (A is 0 x n)", "[dense_solver][diagnosis]") {
  MatrixXd M(3, 3);
  M << 4, 1, 0, 1, 3, 0.5, 0, 0.5, 2;  // positive definite
  const VectorXd Q = vec({1.0, -2.0, 0.5});
  const auto sol = DenseSolver().solve(M, Q, MatrixXd(0, 3), VectorXd(0));
  const auto& d = sol.diagnosis;
  CHECK(d.m == 0);
  CHECK(d.rankA == 0);
  CHECK(d.rankMA == 3);
  CHECK(d.wellPosed);
  CHECK_THAT(col(sol.qdd), isApprox(col(M.ldlt().solve(Q)), kRelDiagnosis, 1e-14));
  CHECK_THAT(col(sol.forceIdeal), isApprox(col(VectorXd::Zero(3)), 0, 1e-12));
}

TEST_CASE("diagnosis: invalid input throws typed errors", "[dense_solver][diagnosis][errors]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  SECTION("non-square M") {
    Valid p;
    p.M = MatrixXd::Identity(3, 2);
    checkInvalid<joinery::DimensionError>(p, "M");
  }
  SECTION("Q of the wrong size") {
    Valid p;
    p.Q = VectorXd::Ones(2);
    checkInvalid<joinery::DimensionError>(p, "Q");
  }
  SECTION("A with the wrong column count") {
    Valid p;
    p.A = MatrixXd::Ones(1, 4);
    checkInvalid<joinery::DimensionError>(p, "A");
  }
  SECTION("b of the wrong size") {
    Valid p;
    p.b = VectorXd::Ones(2);
    checkInvalid<joinery::DimensionError>(p, "b");
  }
  SECTION("C of the wrong size") {
    Valid p;
    p.C = VectorXd::Ones(4);
    checkInvalid<joinery::DimensionError>(p, "C");
  }
  SECTION("NaN in M") {
    Valid p;
    p.M(1, 0) = nan;
    checkInvalid<joinery::NonFiniteError>(p, "M", 1, 0);
  }
  SECTION("Inf in b") {
    Valid p;
    p.b(0) = inf;
    checkInvalid<joinery::NonFiniteError>(p, "b", 0);
  }
  SECTION("NaN in Q, A, C") {
    Valid p1, p2, p3;
    p1.Q(2) = nan;
    checkInvalid<joinery::NonFiniteError>(p1, "Q", 2);
    p2.A(0, 1) = -inf;
    checkInvalid<joinery::NonFiniteError>(p2, "A", 0, 1);
    p3.C(1) = nan;
    checkInvalid<joinery::NonFiniteError>(p3, "C", 1);
  }
  SECTION("asymmetric M") {
    Valid p;
    p.M(0, 2) = 0.5;
    checkInvalid<joinery::AsymmetricMassError>(p, "M");
  }
  SECTION("indefinite M") {
    Valid p;
    p.M = vec({1.0, -1.0, 2.0}).asDiagonal();
    checkInvalid<joinery::IndefiniteMassError>(p, "M");
  }
  SECTION("errors derive from InvalidProblemError") {
    Valid p;
    p.M(1, 1) = -1.0;
    REQUIRE_THROWS_AS(DenseSolver().solve(p.M, p.Q, p.A, p.b, p.C), joinery::InvalidProblemError);
  }
}

TEST_CASE("diagnosis: rounding-level asymmetry and indefiniteness are accepted", "[dense_solver][diagnosis]") {
  // Symmetry tolerance is 1e-10 relative; 1e-14 is rounding noise from assembly.
  Valid p;
  p.M(0, 1) = 0.5;
  p.M(1, 0) = 0.5 + 1e-14 * 3.0;  // max|M| = 3
  REQUIRE_NOTHROW(DenseSolver().solve(p.M, p.Q, p.A, p.b, p.C));
  REQUIRE_NOTHROW(joinery::validateProblem(p.M, p.Q, p.A, p.b, p.C));
  // A rank-1 M = v v^T computed in floating point has eigenvalues ~ -1e-16 |v|^2.
  const VectorXd v = vec({0.3, 1.7, -2.9});
  const MatrixXd M = v * v.transpose();
  const MatrixXd A = (MatrixXd(2, 3) << 1, 0, 0, 0, 1, 0).finished();
  const auto sol = DenseSolver().solve(M, vec({0.0, 0.0, 1.0}), A, vec({0.0, 0.0}));
  CHECK(sol.diagnosis.wellPosed);
  // x'' = y'' = 0, so M q'' - Q has third row v_z^2 z'' - 1 = 0: z'' = 1 / 2.9^2.
  CHECK(sol.qdd(2) == Approx(1.0 / (2.9 * 2.9)).epsilon(kRelDiagnosis));
}

TEST_CASE("diagnosis: ranks survive rows in wildly different units", "[dense_solver][diagnosis]") {
  // M is singular in coordinates 2 and 3; rows 0 and 1 of A fix them, row 2 ties 0 and 1.
  const MatrixXd M = vec({1.0, 2.0, 0.0, 0.0}).asDiagonal();
  const VectorXd Q = vec({3.0, 0.0, 5.0, -7.0});
  MatrixXd A(3, 4);
  A << 0, 0, 1, -1,  //
      0, 0, 0, 1,    //
      1, -1, 0, 0;
  const VectorXd b = vec({0.5, 2.0, 0.3});
  // Without row scaling, a spread of 1e6 between rows already defeats the 1e-10 rank
  // tolerance. Rows 1e8 and 1e-8 together (spread ~1e16) fall below the documented zeroRow
  // tolerance (1e-13 of the largest row norm: "a zero row"), so that case runs with a smaller
  // zeroRow to show the scaling itself copes.
  const auto [big, small, zeroRow] = GENERATE(table<double, double, double>({
      {1.0, 1.0, 1e-13}, {1e8, 1.0, 1e-13}, {1.0, 1e-8, 1e-13}, {1e6, 1e-6, 1e-13},
      {1e8, 1e-8, 1e-20}}));
  CAPTURE(big, small, zeroRow);
  joinery::SolverTolerances tol;
  tol.zeroRow = zeroRow;
  MatrixXd As = A;
  VectorXd bs = b;
  As.row(0) *= big;
  bs(0) *= big;
  As.row(1) *= small;
  bs(1) *= small;
  const auto sol = DenseSolver(tol).solve(M, Q, As, bs);
  const auto& d = sol.diagnosis;
  CHECK(d.rankA == 3);
  CHECK(d.rankMA == 4);
  CHECK(d.redundant == 0);
  CHECK(d.wellPosed);
  // Hand solution: q3'' = 2, q2'' = 2.5; q0'' - q1'' = 0.3 and q0'' + 2 q1'' = 3 (from the
  // null direction (1, 1, 0, 0)): q1'' = 0.9, q0'' = 1.2. Row scaling by 1e+-8 costs at most
  // ~1e-8 relative in an unscaled pseudo-inverse, none in a row-scaled one: check to 1e-8.
  CHECK_THAT(col(sol.qdd), isApprox(col(vec({1.2, 0.9, 2.5, 2.0})), 1e-8, 1e-12));
}

TEST_CASE("diagnosis: a very light mass is still a mass", "[dense_solver][diagnosis]") {
  // 1e-8 relative mass is far above the rank tolerance (1e-10): well posed.
  const MatrixXd M = vec({1.0, 1e-8, 3.0}).asDiagonal();
  const VectorXd Q = vec({2.0, 1e-8, 0.0});
  const MatrixXd A = (MatrixXd(1, 3) << 1, 0, -1).finished();  // q0 = q2; q1 is free
  const auto sol = DenseSolver().solve(M, Q, A, vec({0.0}));
  const auto& d = sol.diagnosis;
  CHECK(d.rankMA == 3);
  CHECK(d.wellPosed);
  CHECK(d.indeterminate.empty());
  // q0'' = q2'' = 2 / 4; q1'' = 1e-8 / 1e-8 = 1. Accuracy ~ cond * eps ~ 1e8 * 1e-16 on the
  // light coordinate, so 1e-6 relative.
  CHECK_THAT(col(sol.qdd), isApprox(col(vec({0.5, 1.0, 0.5})), 1e-6, 1e-12));
}

TEST_CASE("diagnosis: a problem both rank deficient and inconsistent is reported inconsistent") {
  // x is massless and free (ill posed), and two rows demand y'' = 1 and y'' = 2 (inconsistent).
  // docs/theory.md: inconsistency takes priority (exit 4), the null space is still reported.
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(2, 2);
  M(1, 1) = 1.0;
  Eigen::MatrixXd A(2, 2);
  A << 0, 1, 0, 1;
  const Eigen::VectorXd Q = Eigen::VectorXd::Zero(2);
  const Eigen::Vector2d b(1, 2);
  const auto s = joinery::DenseSolver().solve(M, Q, A, b);
  CHECK(s.diagnosis.status == joinery::Posedness::Inconsistent);
  CHECK_FALSE(s.diagnosis.consistent);
  CHECK_FALSE(s.diagnosis.fullRank);
  CHECK(s.diagnosis.indeterminateCoordinates == std::vector<int>{0});
  CHECK(s.qdd.allFinite());
}
