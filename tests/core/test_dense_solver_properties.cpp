// Randomized properties of DenseSolver (equations.md sections 3 and 4) on well-posed problems:
// positive-definite M, and rank-deficient PSD M whose null space the constraints cover.
//
// Tolerances: problems are built with controlled spectra. Eigenvalues of M lie in [1e-2, 1e2]
// (PD) or [1e-1, 1e1] (PSD range part), singular values of A in [0.3, 3], and the part of A
// acting on null(M) has smallest singular value >= 0.05, so every matrix the solver factors
// has a condition number below ~1e4. An SVD-based pseudo-inverse then loses at most ~1e-12
// relative; 1e-8 relative is a wide margin, yet any wrong formula is off by O(1).
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "eigen_approx.hpp"
#include "dense_test_support.hpp"
#include "joinery/core/dense_solver.hpp"

using Eigen::MatrixXd;
using Eigen::VectorXd;
using joinery::DenseSolver;
using joinery::test::isApprox;
using joinery::test::col;

namespace {

constexpr double kRelProperties = 1e-8;  // see the file comment
constexpr int kTrials = 50;


MatrixXd randn(std::mt19937& g, int r, int c) {
  std::normal_distribution<double> nd;
  MatrixXd X(r, c);
  for (int j = 0; j < c; ++j)
    for (int i = 0; i < r; ++i) X(i, j) = nd(g);
  return X;
}

double uniform(std::mt19937& g, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(g);
}

int uniformInt(std::mt19937& g, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }

/// n x k matrix with orthonormal columns.
MatrixXd orthonormal(std::mt19937& g, int n, int k) {
  Eigen::HouseholderQR<MatrixXd> qr(randn(g, n, n));
  return MatrixXd(qr.householderQ()).leftCols(k);
}

/// r x c matrix of rank min(r, c), singular values log-uniform in [lo, hi].
MatrixXd withSingularValues(std::mt19937& g, int r, int c, double lo, double hi) {
  const int k = std::min(r, c);
  VectorXd s(k);
  for (int i = 0; i < k; ++i) s(i) = std::exp(uniform(g, std::log(lo), std::log(hi)));
  return orthonormal(g, r, k) * s.asDiagonal() * orthonormal(g, c, k).transpose();
}

/// Reference pseudo-inverse (SVD, cut at 1e-12 sigma_max; the inputs are well conditioned).
MatrixXd pinv(const MatrixXd& X) {
  Eigen::JacobiSVD<MatrixXd> svd(X, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const VectorXd& s = svd.singularValues();
  MatrixXd Sp = MatrixXd::Zero(X.cols(), X.rows());
  for (int i = 0; i < s.size(); ++i)
    if (s(i) > 1e-12 * s(0)) Sp(i, i) = 1.0 / s(i);
  return svd.matrixV() * Sp * svd.matrixU().transpose();
}

/// Orthonormal basis of null(X) (X has full row rank here).
MatrixXd nullSpace(const MatrixXd& X) {
  Eigen::JacobiSVD<MatrixXd> svd(X, Eigen::ComputeFullV);
  return svd.matrixV().rightCols(X.cols() - X.rows());
}

struct Problem {
  MatrixXd M, A;
  VectorXd Q, b, C;
  bool pd = true;
};

/// Random well-posed problem. A has full row rank m; b = A * (random) is consistent.
Problem makeProblem(std::mt19937& g, bool pd) {
  Problem p;
  p.pd = pd;
  const int n = uniformInt(g, 3, 12);
  if (pd) {
    const int m = uniformInt(g, 1, n);
    VectorXd e(n);
    for (int i = 0; i < n; ++i) e(i) = std::exp(uniform(g, std::log(1e-2), std::log(1e2)));
    const MatrixXd U = orthonormal(g, n, n);
    p.M = U * e.asDiagonal() * U.transpose();
    p.A = withSingularValues(g, m, n, 0.3, 3.0);
  } else {
    const int r = uniformInt(g, 1, n - 1);  // rank of M
    const int k = n - r;                    // nullity of M, to be covered by A
    const int m = uniformInt(g, k, n);
    const MatrixXd U = orthonormal(g, n, n);
    VectorXd e(r);
    for (int i = 0; i < r; ++i) e(i) = std::exp(uniform(g, std::log(1e-1), std::log(1e1)));
    p.M = U.leftCols(r) * e.asDiagonal() * U.leftCols(r).transpose();
    const MatrixXd N0 = U.rightCols(k);
    // Rejection sampling: A must act injectively (and not nearly singularly) on null(M).
    do {
      p.A = withSingularValues(g, m, n, 0.3, 3.0);
    } while (Eigen::JacobiSVD<MatrixXd>(p.A * N0).singularValues().minCoeff() < 0.05);
  }
  p.M = 0.5 * (p.M + p.M.transpose());  // exactly symmetric
  p.Q = 3.0 * randn(g, n, 1);
  p.b = p.A * randn(g, n, 1);
  p.C = randn(g, n, 1);
  return p;
}

/// Solution of the KKT system [M A^T; A 0][q''; -lambda] = [Q + C; b] (A full row rank).
VectorXd kkt(const Problem& p, const VectorXd& C) {
  const int n = p.M.rows(), m = p.A.rows();
  MatrixXd K = MatrixXd::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = p.M;
  K.topRightCorner(n, m) = p.A.transpose();
  K.bottomLeftCorner(m, n) = p.A;
  VectorXd rhs(n + m);
  rhs << p.Q + C, p.b;
  return K.fullPivLu().solve(rhs).head(n);
}

/// Scale of the force-like quantities of a solution, for absolute tolerances.
double forceScale(const Problem& p, const VectorXd& qdd, const VectorXd& C) {
  return p.M.norm() * qdd.norm() + p.Q.norm() + C.norm();
}

}  // namespace

TEST_CASE("properties: constraints satisfied and D'Alembert projection holds", "[dense_solver][properties]") {
  std::mt19937 g(20261121);
  for (int t = 0; t < 2 * kTrials; ++t) {
    const Problem p = makeProblem(g, t % 2 == 0);
    CAPTURE(t, p.pd, p.M.rows(), p.A.rows());
    const auto sol = DenseSolver().solve(p.M, p.Q, p.A, p.b, p.C);
    const auto& d = sol.diagnosis;
    const int n = p.M.rows();
    REQUIRE(d.wellPosed);
    CHECK(d.rankMA == n);
    CHECK(d.rankA == p.A.rows());
    CHECK(d.redundant == 0);
    CHECK(d.nullBasis.cols() == 0);
    REQUIRE(sol.qdd.size() == n);
    // A q'' = b
    const double aScale = p.A.norm() * sol.qdd.norm() + p.b.norm();
    CHECK_THAT(col(p.A * sol.qdd), isApprox(col(p.b), 0, kRelProperties * aScale));
    CHECK(d.residual <= kRelProperties * aScale);
    // Qc = M q'' - Q = forceIdeal + forceNonideal, and (I - A+A)(Qc - C) = 0.
    const double fScale = forceScale(p, sol.qdd, p.C);
    const VectorXd Qc = p.M * sol.qdd - p.Q;
    CHECK_THAT(col(sol.forceIdeal + sol.forceNonideal), isApprox(col(Qc), 0, kRelProperties * fScale));
    const MatrixXd P = MatrixXd::Identity(n, n) - pinv(p.A) * p.A;
    CHECK_THAT(col(P * (Qc - p.C)), isApprox(col(VectorXd::Zero(n)), 0, kRelProperties * fScale));
    // forceIdeal does no virtual work: it lies in range(A^T).
    CHECK_THAT(col(P * sol.forceIdeal), isApprox(col(VectorXd::Zero(n)), 0, kRelProperties * fScale));
    // forceIdeal is "the force with C = 0".
    const auto sol0 = DenseSolver().solve(p.M, p.Q, p.A, p.b);
    CHECK_THAT(col(sol.forceIdeal), isApprox(col(p.M * sol0.qdd - p.Q), kRelProperties, kRelProperties * fScale));
  }
}

TEST_CASE("properties: positive-definite M equals Udwadia-Kalaba", "[dense_solver][properties]") {
  std::mt19937 g(7);
  for (int t = 0; t < kTrials; ++t) {
    const Problem p = makeProblem(g, true);
    const int n = p.M.rows();
    CAPTURE(t, n, p.A.rows());
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(p.M);
    const MatrixXd Mih = es.operatorInverseSqrt();  // M^-1/2
    const VectorXd a = Mih * (Mih * p.Q);
    const MatrixXd B = p.A * Mih;
    const MatrixXd Bp = pinv(B);
    const MatrixXd I = MatrixXd::Identity(n, n);
    const VectorXd uk = a + Mih * Bp * (p.b - p.A * a) + Mih * (I - Bp * B) * Mih * p.C;
    const VectorXd ideal =
        p.A.transpose() * pinv(p.A * Mih * Mih * p.A.transpose()) * (p.b - p.A * a);

    const auto sol = DenseSolver().solve(p.M, p.Q, p.A, p.b, p.C);
    REQUIRE(sol.diagnosis.wellPosed);
    CHECK_THAT(col(sol.qdd), isApprox(col(uk), kRelProperties, 1e-14 * uk.norm()));
    CHECK_THAT(col(sol.forceIdeal), isApprox(col(ideal), kRelProperties, kRelProperties * forceScale(p, uk, p.C)));
    // M = L L^T form (C = 0): B = A L^-T, q'' = a + L^-T B+ (b - A a).
    const MatrixXd L = p.M.llt().matrixL();
    const MatrixXd BL = L.triangularView<Eigen::Lower>().solve(p.A.transpose()).transpose();
    const MatrixXd BLp = pinv(BL);
    const VectorXd ukL =
        a + L.transpose().triangularView<Eigen::Upper>().solve(BLp * (p.b - p.A * a));
    const auto sol0 = DenseSolver().solve(p.M, p.Q, p.A, p.b);
    CHECK_THAT(col(sol0.qdd), isApprox(col(ukL), kRelProperties, 1e-14 * ukL.norm()));
  }
}

TEST_CASE("properties: equals the KKT solution for full-row-rank A", "[dense_solver][properties]") {
  std::mt19937 g(11);
  for (int t = 0; t < 2 * kTrials; ++t) {
    const Problem p = makeProblem(g, t % 2 == 0);
    CAPTURE(t, p.pd, p.M.rows(), p.A.rows());
    const VectorXd ref = kkt(p, p.C);
    const auto sol = DenseSolver().solve(p.M, p.Q, p.A, p.b, p.C);
    CHECK_THAT(col(sol.qdd), isApprox(col(ref), kRelProperties, 1e-14 * ref.norm()));
    const VectorXd ref0 = kkt(p, VectorXd::Zero(p.M.rows()));
    const auto sol0 = DenseSolver().solve(p.M, p.Q, p.A, p.b);
    CHECK_THAT(col(sol0.qdd), isApprox(col(ref0), kRelProperties, 1e-14 * ref0.norm()));
    // With C = 0 all of the constraint force is ideal.
    CHECK_THAT(col(sol0.forceNonideal),
               isApprox(col(VectorXd::Zero(p.M.rows())), 0, kRelProperties * forceScale(p, ref0, p.C)));
  }
}

TEST_CASE("properties: duplicated and rescaled rows leave q'' unchanged", "[dense_solver][properties]") {
  std::mt19937 g(13);
  for (int t = 0; t < 2 * kTrials; ++t) {
    const Problem p = makeProblem(g, t % 2 == 0);
    const int n = p.M.rows(), m = p.A.rows();
    const auto base = DenseSolver().solve(p.M, p.Q, p.A, p.b, p.C);
    REQUIRE(base.diagnosis.wellPosed);

    // Every row scaled by 10^u, u in [-6, 6]; then 1..3 duplicates of random rows, each
    // with its own factor 10^u. Scaling a row of (A, b) does not change the constraint.
    const int dups = uniformInt(g, 1, 3);
    MatrixXd A2(m + dups, n);
    VectorXd b2(m + dups);
    for (int i = 0; i < m; ++i) {
      const double f = std::pow(10.0, uniform(g, -6, 6));
      A2.row(i) = f * p.A.row(i);
      b2(i) = f * p.b(i);
    }
    for (int j = 0; j < dups; ++j) {
      const int src = uniformInt(g, 0, m - 1);
      const double f = std::pow(10.0, uniform(g, -6, 6)) * (j % 2 ? -1.0 : 1.0);
      A2.row(m + j) = f * p.A.row(src);
      b2(m + j) = f * p.b(src);
    }
    CAPTURE(t, p.pd, n, m, dups);
    const auto sol = DenseSolver().solve(p.M, p.Q, A2, b2, p.C);
    const auto& d = sol.diagnosis;
    CHECK(d.m == m + dups);
    CHECK(d.rankA == base.diagnosis.rankA);
    CHECK(d.rankMA == n);
    CHECK(d.redundant == base.diagnosis.redundant + dups);
    CHECK(d.consistent);
    CHECK(d.wellPosed);
    CHECK_THAT(col(sol.qdd), isApprox(col(base.qdd), kRelProperties, 1e-14 * base.qdd.norm()));
    // Forces are physical quantities: unchanged too (unlike multipliers).
    const double fScale = forceScale(p, base.qdd, p.C);
    CHECK_THAT(col(sol.forceIdeal), isApprox(col(base.forceIdeal), kRelProperties, kRelProperties * fScale));
    CHECK_THAT(col(sol.forceNonideal), isApprox(col(base.forceNonideal), kRelProperties, kRelProperties * fScale));
  }
}

TEST_CASE("properties: C only matters modulo range(A^T)", "[dense_solver][properties]") {
  std::mt19937 g(17);
  for (int t = 0; t < 2 * kTrials; ++t) {
    const Problem p = makeProblem(g, t % 2 == 0);
    CAPTURE(t, p.pd, p.M.rows(), p.A.rows());
    const VectorXd lambda = 5.0 * randn(g, p.A.rows(), 1);
    const VectorXd C2 = p.C + p.A.transpose() * lambda;
    const auto s1 = DenseSolver().solve(p.M, p.Q, p.A, p.b, p.C);
    const auto s2 = DenseSolver().solve(p.M, p.Q, p.A, p.b, C2);
    CHECK_THAT(col(s2.qdd), isApprox(col(s1.qdd), kRelProperties, 1e-14 * s1.qdd.norm()));
    // ... and C does change q'' when it has a part outside range(A^T) (m < n).
    if (p.A.rows() < p.M.rows()) {
      const auto s0 = DenseSolver().solve(p.M, p.Q, p.A, p.b);
      const MatrixXd P = MatrixXd::Identity(p.M.rows(), p.M.rows()) - pinv(p.A) * p.A;
      if ((P * p.C).norm() > 1e-3 * p.C.norm())
        CHECK((s1.qdd - s0.qdd).norm() > 1e-6 * (s1.qdd.norm() + 1));
    }
  }
}

// Gauss's principle (ideal constraints): q'' minimizes G(x) = 1/2 x^T M x - x^T Q over
// {A x = b}; for PD M this is 1/2 (x - a)^T M (x - a) up to a constant. For any feasible
// x = q'' + N z (N a null basis of A), G(x) - G(q'') = z^T N^T (M q'' - Q) + 1/2 z^T N^T M N z,
// whose first term vanishes at the minimizer: the increase is exactly the quadratic term.
TEST_CASE("properties: Gauss's principle of least constraint", "[dense_solver][properties]") {
  std::mt19937 g(19);
  for (int t = 0; t < 2 * kTrials; ++t) {
    const Problem p = makeProblem(g, t % 2 == 0);
    const int n = p.M.rows(), m = p.A.rows();
    if (m == n) continue;  // feasible set is a single point
    CAPTURE(t, p.pd, n, m);
    const auto sol = DenseSolver().solve(p.M, p.Q, p.A, p.b);
    const VectorXd& x0 = sol.qdd;
    auto G = [&](const VectorXd& x) { return 0.5 * x.dot(p.M * x) - x.dot(p.Q); };
    const MatrixXd N = nullSpace(p.A);
    for (int k = 0; k < 10; ++k) {
      const double size = std::pow(10.0, uniform(g, -3, 1)) * (x0.norm() + 1.0);
      const VectorXd z = size * randn(g, N.cols(), 1).normalized();
      const VectorXd x = x0 + N * z;
      const double inc = G(x) - G(x0);
      const double quad = 0.5 * z.dot(N.transpose() * p.M * N * z);
      const double scale = p.M.norm() * x.squaredNorm() + p.Q.norm() * x.norm();
      CHECK(inc >= -1e-12 * scale);
      CHECK(inc == Approx(quad).margin(kRelProperties * scale));
      CHECK(quad > 0);  // M is positive definite on null(A): the minimizer is unique
    }
  }
}

// A change of units must not change the answer: masses and forces in any unit (M, Q, C scaled
// by s: kg -> g or tonnes) and every constraint row in any unit (A, b scaled by t). The spread
// (up to 1e12 between mass rows and constraint rows) defeats a rank decision on the unscaled
// stacked matrix, which is why equations.md asks for row scaling.
TEST_CASE("properties: invariance under a change of units", "[dense_solver][properties]") {
  std::mt19937 g(23);
  for (int t = 0; t < 2 * kTrials; ++t) {
    const Problem p = makeProblem(g, t % 2 == 0);
    const double s = std::pow(10.0, uniform(g, -12, 12));
    const double r = std::pow(10.0, uniform(g, -6, 6));
    CAPTURE(t, p.pd, p.M.rows(), p.A.rows(), s, r);
    const auto base = DenseSolver().solve(p.M, p.Q, p.A, p.b, p.C);
    const auto sol = DenseSolver().solve(s * p.M, s * p.Q, r * p.A, r * p.b, s * p.C);
    CHECK(sol.diagnosis.rankA == base.diagnosis.rankA);
    CHECK(sol.diagnosis.rankMA == base.diagnosis.rankMA);
    CHECK(sol.diagnosis.wellPosed);
    CHECK_THAT(col(sol.qdd), isApprox(col(base.qdd), kRelProperties, 1e-14 * base.qdd.norm()));
    const double fScale = s * forceScale(p, base.qdd, p.C);
    CHECK_THAT(col(sol.forceIdeal), isApprox(col(s * base.forceIdeal), kRelProperties, kRelProperties * fScale));
  }
}

// Ill-posed problems: PSD M of rank r and m < n - r constraints leave a null space of [M; A]
// of dimension n - r - m. Q is projected so that the null directions are in force balance,
// which keeps the stacked system consistent: then q'' is the minimum-norm solution
// (orthogonal to the null space) and still satisfies A q'' = b and the projected dynamics.
TEST_CASE("properties: ill-posed problems report the null space of [M; A]", "[dense_solver][properties]") {
  std::mt19937 g(29);
  for (int t = 0; t < kTrials; ++t) {
    const int n = uniformInt(g, 4, 12);
    const int r = uniformInt(g, 1, n - 2);
    const int k = n - r;  // nullity of M
    const int m = uniformInt(g, 1, k - 1);
    const MatrixXd U = orthonormal(g, n, n);
    VectorXd e(r);
    for (int i = 0; i < r; ++i) e(i) = std::exp(uniform(g, std::log(1e-1), std::log(1e1)));
    MatrixXd M = U.leftCols(r) * e.asDiagonal() * U.leftCols(r).transpose();
    M = 0.5 * (M + M.transpose());
    MatrixXd A;
    do {
      A = withSingularValues(g, m, n, 0.3, 3.0);
    } while (Eigen::JacobiSVD<MatrixXd>(A * U.rightCols(k)).singularValues().minCoeff() < 0.05);
    MatrixXd MA(n + m, n);
    MA << M, A;
    Eigen::JacobiSVD<MatrixXd> svd(MA, Eigen::ComputeFullV);
    const int dim = n - r - m;
    const MatrixXd Wref = svd.matrixV().rightCols(dim);
    const VectorXd C = randn(g, n, 1);
    VectorXd Q = 3.0 * randn(g, n, 1);
    Q -= Wref * (Wref.transpose() * (Q + C));  // force balance along every null direction
    const VectorXd b = A * randn(g, n, 1);
    CAPTURE(t, n, r, m, dim);

    const auto sol = DenseSolver().solve(M, Q, A, b, C);
    const auto& d = sol.diagnosis;
    CHECK(d.rankA == m);
    CHECK(d.rankMA == n - dim);
    CHECK_FALSE(d.fullRank);
    CHECK_FALSE(d.wellPosed);
    CHECK(d.consistent);
    CHECK(d.status == joinery::Posedness::IllPosed);
    REQUIRE(d.nullBasis.rows() == n);
    REQUIRE(d.nullBasis.cols() == dim);
    REQUIRE(static_cast<int>(d.indeterminate.size()) == dim);
    const MatrixXd& Nb = d.nullBasis;
    // Orthonormal, and spans the same space as the reference null space.
    CHECK_THAT(MatrixXd(Nb.transpose() * Nb), isApprox(MatrixXd::Identity(dim, dim), 0, 1e-10));
    CHECK_THAT(MatrixXd(Nb - Wref * (Wref.transpose() * Nb)), isApprox(MatrixXd::Zero(n, dim), 0, 1e-8));
    for (const auto& dir : d.indeterminate) {
      CHECK(dir.direction.norm() == Approx(1.0).epsilon(1e-10));
      CHECK(dir.direction.maxCoeff() >= dir.direction.cwiseAbs().maxCoeff() * (1 - 1e-12));
      CHECK(dir.netForce == Approx(dir.direction.dot(Q + C)).margin(1e-10 * (Q + C).norm()));
      CHECK(dir.forceBalanced);
      CHECK_FALSE(dir.coordinates.empty());
    }
    std::set<int> all;
    for (const auto& dir : d.indeterminate) all.insert(dir.coordinates.begin(), dir.coordinates.end());
    CHECK(d.indeterminateCoordinates == std::vector<int>(all.begin(), all.end()));
    // Minimum norm: no component along the null space. Still a solution.
    REQUIRE(sol.qdd.allFinite());
    const double qScale = sol.qdd.norm() + 1.0;
    CHECK_THAT(col(Wref.transpose() * sol.qdd), isApprox(col(VectorXd::Zero(dim)), 0, kRelProperties * qScale));
    CHECK_THAT(col(A * sol.qdd), isApprox(col(b), 0, kRelProperties * (A.norm() * qScale + b.norm())));
    const MatrixXd P = MatrixXd::Identity(n, n) - pinv(A) * A;
    const double fScale = M.norm() * qScale + Q.norm() + C.norm();
    CHECK_THAT(col(P * (M * sol.qdd - Q - C)), isApprox(col(VectorXd::Zero(n)), 0, kRelProperties * fScale));
  }
}
