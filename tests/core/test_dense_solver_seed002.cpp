// Seed 002 (Udwadia & Phohomsiri, Proc. R. Soc. A 462 (2006)) worked examples, checked
// against closed forms derived by hand (docs/theory.md; seed 002 in docs/benchmarks.md).
//
// Tolerances: every problem here has n <= 3 and a well-conditioned stacked matrix
// [(I - A+A) M; A] (condition number below ~1e3 for the parameters used), so an SVD-based
// solve is accurate to ~1e-13 relative; 1e-10 relative leaves a wide margin while still
// catching any wrong formula (a wrong answer is off by O(1)).
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "eigen_approx.hpp"
#include "dense_test_support.hpp"
#include "joinery/core/dense_solver.hpp"

using Eigen::MatrixXd;
using Eigen::VectorXd;
using joinery::DenseSolver;
using joinery::Posedness;
using joinery::test::isApprox;
using joinery::test::col;
using joinery::test::anyMessageContains;

namespace {

constexpr double kG = 9.81;
constexpr double kRel = 1e-10;  // see the file comment
constexpr double kAbs = 1e-12;  // absolute floor for entries that are exactly zero



VectorXd vec3(double a, double b, double c) {
  VectorXd v(3);
  v << a, b, c;
  return v;
}

/// Parameters of the two-mass, two-spring example (Example 3).
struct Springs {
  double m1, m2, k1, k2, d, l10, l20;
};

const std::vector<Springs> kSpringSets = {
    {1.0, 2.0, 10.0, 30.0, 0.5, 1.0, 1.0},
    {0.3, 7.5, 250.0, 4.0, 0.1, 0.7, 2.2},
    {12.0, 0.05, 1.5, 900.0, 2.0, 3.0, 0.4},
};

/// Q of Example 3 at coordinates (x1, q1, q2).
VectorXd springQ(const Springs& p, double x1, double q1, double q2) {
  const double s = q2 - q1 - p.l20;  // extension of spring k2
  return vec3(-p.k1 * (x1 - p.l10), p.k2 * s, -p.k2 * s);
}

MatrixXd connectionRow() {
  MatrixXd A(1, 3);
  A << -1, 1, 0;  // q1 = x1 + d  =>  -x1'' + q1'' = 0
  return A;
}

}  // namespace

TEST_CASE("seed002 example 1: wheel on an incline", "[dense_solver][seed002]") {
  const double m = GENERATE(0.5, 2.0, 30.0);
  const double R = GENERATE(0.05, 0.3, 1.5);
  const double alpha = GENERATE(0.05, 0.6, 1.4);
  const double icFactor = GENERATE(0.5, 1.0);  // disk, ring
  CAPTURE(m, R, alpha, icFactor);
  const double Ic = icFactor * m * R * R;
  const double J = Ic + m * R * R;

  MatrixXd M = MatrixXd::Zero(2, 2);
  M(1, 1) = J;
  VectorXd Q(2);
  Q << m * kG, 0.0;
  MatrixXd A(1, 2);
  A << 1.0, -R * std::sin(alpha);
  const VectorXd b = VectorXd::Zero(1);

  const auto sol = DenseSolver().solve(M, Q, A, b, VectorXd(), {"y", "theta"});
  const auto& d = sol.diagnosis;
  CHECK(d.n == 2);
  CHECK(d.m == 1);
  CHECK(d.rankA == 1);
  CHECK(d.rankMA == 2);
  CHECK(d.redundant == 0);
  CHECK(d.fullRank);
  CHECK(d.consistent);
  CHECK(d.wellPosed);
  CHECK(d.status == Posedness::WellPosed);
  CHECK(d.indeterminate.empty());
  CHECK(d.indeterminateCoordinates.empty());

  const double thetadd = m * kG * R * std::sin(alpha) / J;
  const double ydd = R * std::sin(alpha) * thetadd;
  VectorXd expected(2);
  expected << ydd, thetadd;
  CHECK_THAT(col(sol.qdd), isApprox(col(expected), kRel, kAbs));

  // Constraint force Qc = M q'' - Q = (-m g, J theta''), and J theta'' = m g R sin(alpha):
  // Qc = -m g A^T, in range(A^T) (the normal/friction reaction of the incline).
  VectorXd force(2);
  force << -m * kG, m * kG * R * std::sin(alpha);
  CHECK_THAT(col(sol.forceIdeal), isApprox(col(force), kRel, kAbs));
  CHECK_THAT(col(sol.forceNonideal), isApprox(col(VectorXd::Zero(2)), 0, 1e-10 * m * kG));
}

TEST_CASE("seed002 example 2: a free zero-mass particle is indeterminate", "[dense_solver][seed002]") {
  const double m = GENERATE(1.0, 4.0);
  const double R = GENERATE(0.2, 0.9);
  const double alpha = GENERATE(0.3, 1.1);
  CAPTURE(m, R, alpha);
  const double J = 1.5 * m * R * R;  // disk: Ic = m R^2 / 2

  MatrixXd M = MatrixXd::Zero(3, 3);
  M(1, 1) = J;
  const VectorXd Q = vec3(m * kG, 0.0, 0.0);
  MatrixXd A(1, 3);
  A << 1.0, -R * std::sin(alpha), 0.0;
  const VectorXd b = VectorXd::Zero(1);

  // "x" is the name the brief asks for; the distinctive second name makes the
  // message check meaningful (a single letter "x" could appear by accident).
  const std::string xName = GENERATE(as<std::string>{}, "x", "massless_particle_x");
  const auto sol = DenseSolver().solve(M, Q, A, b, VectorXd(), {"y", "theta", xName});
  const auto& d = sol.diagnosis;
  CHECK(d.rankA == 1);
  CHECK(d.rankMA == 2);
  CHECK_FALSE(d.fullRank);
  CHECK_FALSE(d.wellPosed);
  CHECK(d.consistent);
  CHECK(d.status == Posedness::IllPosed);
  CHECK(d.indeterminateCoordinates == std::vector<int>{2});
  REQUIRE(d.nullBasis.rows() == 3);
  REQUIRE(d.nullBasis.cols() == 1);
  REQUIRE(d.indeterminate.size() == 1);
  const auto& dir = d.indeterminate[0];
  CHECK(dir.coordinates == std::vector<int>{2});
  // Unit direction, largest entry positive: exactly +e_x.
  CHECK_THAT(col(dir.direction), isApprox(col(vec3(0, 0, 1)), 0, 1e-12));
  // Q_x = 0: the particle is in force balance (|w^T Q| ~ 1e-16 |Q| from rounding).
  CHECK(dir.forceBalanced);
  CHECK(std::abs(dir.netForce) <= 1e-12 * m * kG);

  // Never NaN; the (y, theta) part equals Example 1; x'' = 0 is the minimum-norm choice.
  REQUIRE(sol.qdd.size() == 3);
  CHECK(sol.qdd.allFinite());
  const double thetadd = m * kG * R * std::sin(alpha) / J;
  CHECK_THAT(col(sol.qdd), isApprox(col(vec3(R * std::sin(alpha) * thetadd, thetadd, 0.0)), kRel, kAbs));

  REQUIRE_FALSE(d.messages.empty());
  CHECK(anyMessageContains(d.messages, xName));
  CHECK(anyMessageContains(d.messages, "balance"));
}

TEST_CASE("seed002 example 3: two masses equal the classical 2-DOF model", "[dense_solver][seed002]") {
  for (const auto& p : kSpringSets) {
    for (const double x1 : {0.2, 1.0, 1.7}) {
      for (const double ext : {-0.3, 0.0, 0.45}) {  // extension of spring k2
        CAPTURE(p.m1, p.m2, p.k1, p.k2, x1, ext);
        const double q1 = x1 + p.d;  // position-consistent state
        const double q2 = q1 + p.l20 + ext;
        const MatrixXd M = vec3(p.m1, 0.0, p.m2).asDiagonal();
        const auto sol =
            DenseSolver().solve(M, springQ(p, x1, q1, q2), connectionRow(), VectorXd::Zero(1));
        CHECK(sol.diagnosis.wellPosed);
        CHECK(sol.diagnosis.rankMA == 3);
        // m1 x1'' = -k1 (x1 - l10) + k2 (q2 - x1 - d - l20);  m2 q2'' = -k2 (q2 - x1 - d - l20)
        const double s = q2 - x1 - p.d - p.l20;
        const double x1dd = (-p.k1 * (x1 - p.l10) + p.k2 * s) / p.m1;
        const double q2dd = -p.k2 * s / p.m2;
        CHECK_THAT(col(sol.qdd), isApprox(col(vec3(x1dd, x1dd, q2dd)), kRel, kAbs));
      }
    }
  }
}

// m1 = 0 with the force balance at the massless point, k1 (x1 - l10) = k2 (q2 - q1 - l20),
// differentiated twice: k1 x1'' + k2 q1'' - k2 q2'' = 0. Null space of A: w = (k2, k2, k1+k2).
// The projected dynamics w^T (M q'' - Q) = 0 give
//   (k1+k2) m2 q2'' = k2 Q_x1 + k2 Q_q1 + (k1+k2) Q_q2 = -k1 k2 [(x1 - l10) + (q2 - q1 - l20)],
// i.e. m2 q2'' = -ks [(x1 - l10) + (q2 - q1 - l20)] = -ks (q2 - d - l10 - l20) (using
// q1 = x1 + d; x1 cancels), ks = k1 k2 / (k1+k2): the series spring, whose extension is the
// distance from the wall to m2 minus d and both free lengths, at ANY state. Where the balance holds, x1 - l10 = k2 s / k1 (s = q2 - q1 - l20), so the
// series force is -k2 s. The rows of A give q1'' = x1'' and x1'' = k2 q2'' / (k1 + k2).
TEST_CASE("seed002 example 3: m1 = 0 plus force balance gives springs in series", "[dense_solver][seed002]") {
  for (const auto& p : kSpringSets) {
    for (const double x1 : {0.3, 1.0, 2.4}) {
      for (const bool balanced : {true, false}) {
        CAPTURE(p.m2, p.k1, p.k2, x1, balanced);
        const double q1 = x1 + p.d;
        const double s = balanced ? p.k1 * (x1 - p.l10) / p.k2 : 0.37 - 0.1 * x1;
        const double q2 = q1 + p.l20 + s;
        const MatrixXd M = vec3(0.0, 0.0, p.m2).asDiagonal();
        MatrixXd A(2, 3);
        A << -1, 1, 0,  //
            p.k1, p.k2, -p.k2;
        const auto sol = DenseSolver().solve(M, springQ(p, x1, q1, q2), A, VectorXd::Zero(2));
        const auto& d = sol.diagnosis;
        CHECK(d.rankA == 2);
        CHECK(d.rankMA == 3);
        CHECK(d.wellPosed);
        CHECK(d.status == Posedness::WellPosed);

        const double ks = p.k1 * p.k2 / (p.k1 + p.k2);
        const double q2dd = -ks * (q2 - p.d - p.l10 - p.l20) / p.m2;
        const double x1dd = p.k2 * q2dd / (p.k1 + p.k2);
        CHECK_THAT(col(sol.qdd), isApprox(col(vec3(x1dd, x1dd, q2dd)), kRel, kAbs));
        if (balanced) CHECK(sol.qdd(2) == Approx(-p.k2 * s / p.m2).epsilon(kRel));
      }
    }
  }
}

// m2 = 0 with "no force in spring k2": q2'' - q1'' = 0. Null space of A: w = (1, 1, 1);
// w^T (M q'' - Q) = 0 gives m1 x1'' = Q_x1 + Q_q1 + Q_q2 = -k1 (x1 - l10) (the k2 terms cancel
// at any state), and all three accelerations are equal.
TEST_CASE("seed002 example 3: m2 = 0 plus zero spring force", "[dense_solver][seed002]") {
  for (const auto& p : kSpringSets) {
    for (const double x1 : {0.3, 1.0, 2.4}) {
      CAPTURE(p.m1, p.k1, x1);
      const double q1 = x1 + p.d;
      const double q2 = q1 + p.l20;  // consistent state: spring k2 at free length
      const MatrixXd M = vec3(p.m1, 0.0, 0.0).asDiagonal();
      MatrixXd A(2, 3);
      A << -1, 1, 0,  //
          0, -1, 1;
      const auto sol = DenseSolver().solve(M, springQ(p, x1, q1, q2), A, VectorXd::Zero(2));
      CHECK(sol.diagnosis.rankMA == 3);
      CHECK(sol.diagnosis.wellPosed);
      const double x1dd = -p.k1 * (x1 - p.l10) / p.m1;
      CHECK_THAT(col(sol.qdd), isApprox(col(vec3(x1dd, x1dd, x1dd)), kRel, kAbs));
    }
  }
}

// m1 = 0 without the balance row: [M; A] = [diag(0,0,m2); -1 1 0] has null space
// w = (1, 1, 0)/sqrt(2): the massless point (x1, q1) is indeterminate. Its net force is
// w^T Q = (-k1 (x1 - l10) + k2 s)/sqrt(2), zero exactly when the balance holds.
TEST_CASE("seed002 example 3: m1 = 0 alone is ill posed", "[dense_solver][seed002]") {
  for (const auto& p : kSpringSets) {
    for (const bool balanced : {true, false}) {
      CAPTURE(p.k1, p.k2, balanced);
      const double x1 = 1.3;
      const double q1 = x1 + p.d;
      const double s = balanced ? p.k1 * (x1 - p.l10) / p.k2 : 0.8;
      const double q2 = q1 + p.l20 + s;
      const VectorXd Q = springQ(p, x1, q1, q2);
      const MatrixXd M = vec3(0.0, 0.0, p.m2).asDiagonal();
      const auto sol = DenseSolver().solve(M, Q, connectionRow(), VectorXd::Zero(1), VectorXd(),
                                           {"x1", "q1", "q2"});
      const auto& d = sol.diagnosis;
      CHECK(d.rankMA == 2);
      CHECK_FALSE(d.wellPosed);
      CHECK(d.status == Posedness::IllPosed);
      CHECK(d.indeterminateCoordinates == std::vector<int>{0, 1});
      REQUIRE(d.indeterminate.size() == 1);
      const auto& dir = d.indeterminate[0];
      CHECK(dir.coordinates == std::vector<int>{0, 1});
      // Tie between the two largest entries: the sign is not specified, only the axis.
      const double r = 1.0 / std::sqrt(2.0);
      CHECK_THAT(col(dir.direction.cwiseAbs()), isApprox(col(vec3(r, r, 0)), 0, 1e-12));
      CHECK(dir.direction(0) * dir.direction(1) > 0);

      const double net = std::abs(-p.k1 * (x1 - p.l10) + p.k2 * s) * r;
      CHECK(std::abs(dir.netForce) == Approx(net).epsilon(1e-10).margin(1e-12 * Q.norm()));
      CHECK(dir.forceBalanced == balanced);

      // Minimum-norm answer (the inconsistent projected rows are all zero in Mhat, so
      // any least-squares weighting gives the same): m2 q2'' = Q_q2, x1'' = q1'' = 0.
      CHECK(sol.qdd.allFinite());
      CHECK_THAT(col(sol.qdd), isApprox(col(vec3(0, 0, Q(2) / p.m2)), kRel, kAbs));
      CHECK(anyMessageContains(d.messages, "x1"));
      CHECK(anyMessageContains(d.messages, "q1"));
    }
  }
}

// m2 = 0 without the zero-force row: [M; A] = [diag(m1,0,0); -1 1 0] has null space e_q2 only
// (q1 is tied to x1, which has mass). Net force on it: Q_q2 = -k2 s.
TEST_CASE("seed002 example 3: m2 = 0 alone is ill posed in q2 only", "[dense_solver][seed002]") {
  for (const auto& p : kSpringSets) {
    for (const double s : {0.0, 0.6}) {
      CAPTURE(p.m1, p.k2, s);
      const double x1 = 0.9;
      const double q1 = x1 + p.d;
      const double q2 = q1 + p.l20 + s;
      const VectorXd Q = springQ(p, x1, q1, q2);
      const MatrixXd M = vec3(p.m1, 0.0, 0.0).asDiagonal();
      const auto sol = DenseSolver().solve(M, Q, connectionRow(), VectorXd::Zero(1), VectorXd(),
                                           {"x1", "q1", "q2"});
      const auto& d = sol.diagnosis;
      CHECK(d.rankMA == 2);
      CHECK(d.status == Posedness::IllPosed);
      CHECK(d.indeterminateCoordinates == std::vector<int>{2});
      REQUIRE(d.indeterminate.size() == 1);
      const auto& dir = d.indeterminate[0];
      CHECK_THAT(col(dir.direction), isApprox(col(vec3(0, 0, 1)), 0, 1e-12));
      CHECK(dir.netForce == Approx(-p.k2 * s).margin(1e-12 * Q.norm()));
      CHECK(dir.forceBalanced == (s == 0.0));
      // Determinate part: m1 x1'' = Q_x1 + Q_q1 (the massless end of k2 passes its force
      // on); q2'' = 0 is the minimum-norm choice.
      const double x1dd = (Q(0) + Q(1)) / p.m1;
      CHECK_THAT(col(sol.qdd), isApprox(col(vec3(x1dd, x1dd, 0.0)), kRel, kAbs));
      CHECK(anyMessageContains(d.messages, "q2"));
    }
  }
}
