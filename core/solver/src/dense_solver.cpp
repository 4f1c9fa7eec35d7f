#include "joinery/core/format.hpp"
#include "joinery/core/dense_solver.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "joinery/core/errors.hpp"
#include "verified_svd.hpp"

namespace joinery {

const char* toString(Posedness p) noexcept {
  switch (p) {
    case Posedness::WellPosed: return "well_posed";
    case Posedness::IllPosed: return "ill_posed";
    case Posedness::Inconsistent: return "inconsistent";
  }
  return "unknown";
}

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using detail::computeSvd;
using detail::Svd;

std::string num(double v) { return formatNumber(v, 6); }

std::string coordName(const std::vector<std::string>& names, int i) {
  if (i >= 0 && i < static_cast<int>(names.size())) return names[i];
  return "q[" + std::to_string(i) + "]";
}

void requireFinite(const MatrixXd& X, const char* field) {
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    for (Eigen::Index i = 0; i < X.rows(); ++i)
      if (!std::isfinite(X(i, j))) {
        std::ostringstream os;
        os << field << "(" << i << "," << j << ") is " << X(i, j) << "; expected a finite number";
        throw NonFiniteError(os.str(), field, static_cast<int>(i), static_cast<int>(j));
      }
}

void requireFinite(const VectorXd& x, const char* field) {
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (!std::isfinite(x(i))) {
      std::ostringstream os;
      os << field << "[" << i << "] is " << x(i) << "; expected a finite number";
      throw NonFiniteError(os.str(), field, static_cast<int>(i), -1);
    }
}

/// Scales each row of X to unit Euclidean norm. Rows whose norm is below
/// `zeroTol * maxRowNorm` become exact zero rows (they carry only round-off).
/// Returns the scale factors (0 for zero rows); `y` is scaled alongside. `unit` (optional,
/// one per row): the factor that brings row i's norm to the units of the others before that
/// comparison (denseRowUnits).
VectorXd scaleRows(MatrixXd& X, Eigen::Ref<MatrixXd> y, double zeroTol, const VectorXd* unit = nullptr) {
  VectorXd s = VectorXd::Zero(X.rows());
  if (X.rows() == 0) return s;
  VectorXd norms = X.rowwise().norm();
  if (unit) norms.array() *= unit->array();
  const double maxNorm = norms.maxCoeff();
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    if (maxNorm > 0 && norms(i) > zeroTol * maxNorm) {
      s(i) = 1.0 / X.row(i).norm();
    }
    X.row(i) *= s(i);
    y.row(i) *= s(i);
  }
  return s;
}

/// With a column scale D (angles as arcs of radius 1/D_j, D_j != 1; lengths and the user's
/// units D_j = 1), the units of the rows of A D: a row on some length coordinate is a length
/// (factor 1); a row only on angles (a driver of an angle, a quaternion's norm) is an angle,
/// and 1/min D_j of its coordinates (the largest radius) takes it to an arc. Only the
/// zero-row test compares rows with one another; this puts them in one unit for it.
VectorXd denseRowUnits(const MatrixXd& A, const VectorXd& D) {
  VectorXd u = VectorXd::Ones(A.rows());
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    bool length = false;
    double dmin = 0;
    for (Eigen::Index j = 0; j < A.cols(); ++j) {
      if (A(i, j) == 0) continue;
      if (D(j) == 1.0) length = true;
      else dmin = dmin == 0 ? D(j) : std::min(dmin, D(j));
    }
    if (!length && dmin > 0) u(i) = 1.0 / dmin;
  }
  return u;
}

int numericalRank(const VectorXd& sigma, double rtol) {
  if (sigma.size() == 0) return 0;
  const double smax = sigma(0);
  if (smax <= 0) return 0;
  int r = 0;
  for (Eigen::Index i = 0; i < sigma.size(); ++i)
    if (sigma(i) > rtol * smax) ++r;
  return r;
}

/// Applies the pseudo-inverse given by an SVD (rank r) to the columns of rhs.
MatrixXd applyPinv(const Svd& svd, int r, const MatrixXd& rhs) {
  const auto& U = svd.matrixU();
  const auto& V = svd.matrixV();
  const VectorXd& s = svd.singularValues();
  MatrixXd t = U.leftCols(r).transpose() * rhs;
  for (int i = 0; i < r; ++i) t.row(i) /= s(i);
  return V.leftCols(r) * t;
}

}  // namespace

void validateProblem(const MatrixXd& M, const VectorXd& Q, const MatrixXd& A, const VectorXd& b,
                     const VectorXd& C, const SolverTolerances& tol) {
  const Eigen::Index n = M.rows();
  auto dim = [](const std::string& msg, const char* field) { throw DimensionError(msg, field); };
  if (M.cols() != n)
    dim("M is " + std::to_string(M.rows()) + "x" + std::to_string(M.cols()) +
            "; expected a square matrix",
        "M");
  if (Q.size() != n)
    dim("Q has " + std::to_string(Q.size()) + " entries; expected " + std::to_string(n) +
            " (one per coordinate)",
        "Q");
  if (A.rows() > 0 && A.cols() != n)
    dim("A has " + std::to_string(A.cols()) + " columns; expected " + std::to_string(n) +
            " (one per coordinate)",
        "A");
  if (b.size() != A.rows())
    dim("b has " + std::to_string(b.size()) + " entries; expected " + std::to_string(A.rows()) +
            " (one per row of A)",
        "b");
  if (C.size() != 0 && C.size() != n)
    dim("C has " + std::to_string(C.size()) + " entries; expected " + std::to_string(n) +
            " (one per coordinate) or none",
        "C");
  requireFinite(M, "M");
  requireFinite(Q, "Q");
  requireFinite(A, "A");
  requireFinite(b, "b");
  requireFinite(C, "C");
  if (n == 0) return;

  const double scale = M.cwiseAbs().maxCoeff();
  Eigen::Index ai = 0, aj = 0;
  const double asym = (M - M.transpose()).cwiseAbs().maxCoeff(&ai, &aj);
  if (ai > aj) std::swap(ai, aj);  // name the upper-triangle entry
  if (asym > tol.symmetry * scale) {
    std::ostringstream os;
    os << "M is not symmetric: M(" << ai << "," << aj << ") = " << M(ai, aj) << " but M(" << aj
       << "," << ai << ") = " << M(aj, ai) << "; expected a symmetric mass matrix";
    throw AsymmetricMassError(os.str(), "M", static_cast<int>(ai), static_cast<int>(aj));
  }
  if (scale > 0) {
    const MatrixXd Ms = 0.5 * (M + M.transpose());
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(Ms, Eigen::EigenvaluesOnly);
    const double lmin = es.eigenvalues()(0);
    const double lmax = es.eigenvalues().cwiseAbs().maxCoeff();
    if (lmin < -tol.psd * lmax) {
      std::ostringstream os;
      os << "M has a negative eigenvalue " << lmin << " (largest |eigenvalue| " << lmax
         << "); expected a positive semi-definite mass matrix";
      throw IndefiniteMassError(os.str(), "M");
    }
  }
}

namespace {

/// Step 1 of DenseSolver::solve: rank and range of the row-scaled constraints `As` (right
/// side `bs`) into d.rankA and d.inconsistency, the part of bs outside the range into
/// `rOutside`; returns an orthonormal basis of the null space of As (n x (n - rank A)).
MatrixXd constraintNullSpace(const MatrixXd& As, const MatrixXd& bs, int n, const SolverTolerances& tol,
                             VectorXd& rOutside, Diagnosis& d) {
  if (As.rows() == 0) return MatrixXd::Identity(n, n);
  const Svd svdA = computeSvd(As, true);
  d.rankA = numericalRank(svdA.singularValues(), tol.rank);
  const MatrixXd Ur = svdA.matrixU().leftCols(d.rankA);
  const VectorXd r = bs.col(0) - Ur * (Ur.transpose() * bs.col(0));
  d.inconsistency = r.norm();
  rOutside = r;
  return svdA.matrixV().rightCols(n - d.rankA);
}

/// Step 3 of DenseSolver::solve: the row-scaled stack [M; A] whose rank decides posedness.
MatrixXd stackRowScaled(const MatrixXd& M, const MatrixXd& As, const SolverTolerances& tol) {
  const Eigen::Index n = M.rows();
  MatrixXd S(n + As.rows(), n);
  MatrixXd Ms = M;
  MatrixXd dummy = MatrixXd::Zero(n, 1);
  scaleRows(Ms, dummy, tol.zeroRow);
  S.topRows(n) = Ms;
  S.bottomRows(As.rows()) = As;
  return S;
}

/// Step 2 of DenseSolver::solve: scales the first k rows of H (the mass rows N^T M) and of
/// rhs to unit norm; the zero-row threshold is relative to the size of M, not of N^T M.
void scaleMassRows(const MatrixXd& M, int k, const SolverTolerances& tol, MatrixXd& H, MatrixXd& rhs) {
  const double mscale = M.size() ? M.cwiseAbs().maxCoeff() : 0.0;
  for (int i = 0; i < k; ++i) {
    const double rn = H.row(i).norm();
    const double s = (mscale > 0 && rn > tol.zeroRow * mscale) ? 1.0 / rn : 0.0;
    H.row(i) *= s;
    rhs.row(i) *= s;
  }
}

/// Step 4 of DenseSolver::solve: consistent when the part of bs outside the range of A is
/// within the tolerance of the size of the terms (|bs|, |q''|, and |Q| / max|M|: a mechanism
/// locked at rest has b and q'' both at round-off, and the acceleration the applied forces
/// alone would give is then the scale; found by tests/peers); names the rows in conflict.
void decideConsistency(const VectorXd& bs, const VectorXd& qddIdeal, double forceScale, const VectorXd& rOutside,
                       const SolverTolerances& tol, Diagnosis& d) {
  const Eigen::Index m = bs.size();
  const double scale = std::max({bs.norm(), qddIdeal.norm(), forceScale, 1e-300});
  const double limit = tol.consistency * scale;
  d.consistent = d.inconsistency <= limit;
  if (!d.consistent)
    for (Eigen::Index i = 0; i < m; ++i)
      if (std::abs(rOutside(i)) > limit / std::sqrt(static_cast<double>(m)))
        d.inconsistentRows.push_back(static_cast<int>(i));
}

/// Step 5 of DenseSolver::solve: the indeterminate directions from the null space `V0` of
/// [M; A] (its last n - rank columns), rotated so that the first carries all the net force
/// w^T (Q + C), with the coordinates each moves and its force balance.
void describeIndeterminate(const MatrixXd& V0, const VectorXd& QC, const SolverTolerances& tol, int n,
                           Diagnosis& d) {
  if (d.fullRank) {
    d.nullBasis = MatrixXd(n, 0);
    return;
  }
  MatrixXd W = V0;
  VectorXd f = W.transpose() * QC;
  const double fscale = QC.size() ? QC.norm() : 0.0;
  const bool netForce = f.norm() > tol.forceBalance * fscale && f.norm() > 0;
  if (netForce) {
    // rotate the basis so that its first vector carries all the net force
    Eigen::HouseholderQR<MatrixXd> qr(f / f.norm());
    MatrixXd R = qr.householderQ();
    W = W * R;
  }
  d.nullBasis = W;
  std::vector<bool> moved(n, false);
  for (int c = 0; c < W.cols(); ++c) {
    IndeterminateDirection dir;
    dir.direction = W.col(c);
    Eigen::Index imax = 0;
    dir.direction.cwiseAbs().maxCoeff(&imax);
    if (dir.direction(imax) < 0) dir.direction = -dir.direction;
    const double wmax = dir.direction.cwiseAbs().maxCoeff();
    for (int i = 0; i < n; ++i)
      if (std::abs(dir.direction(i)) > 1e-8 * wmax) {
        dir.coordinates.push_back(i);
        moved[i] = true;
      }
    dir.netForce = dir.direction.dot(QC);
    dir.forceBalanced = std::abs(dir.netForce) <= tol.forceBalance * fscale;
    dir.noForce = std::all_of(dir.coordinates.begin(), dir.coordinates.end(), [&](int i) { return QC(i) == 0; });
    d.indeterminate.push_back(std::move(dir));
  }
  for (int i = 0; i < n; ++i)
    if (moved[i]) d.indeterminateCoordinates.push_back(i);
}

/// Step 5 with a column scale D: the directions found in the scaled coordinates (which
/// coordinates move, and whether the force balances, are decided there, in comparable units)
/// as unit vectors of the given coordinates, w = D w~ / |D w~|, their net force w^T (Q + C) in
/// the given units, and an orthonormal basis of the same null space.
void unscaleIndeterminate(const VectorXd& D, const VectorXd& QC, Diagnosis& d) {
  if (d.nullBasis.cols() == 0) return;
  const MatrixXd W = D.asDiagonal() * d.nullBasis;
  d.nullBasis = Eigen::HouseholderQR<MatrixXd>(W).householderQ() * MatrixXd::Identity(W.rows(), W.cols());
  for (Eigen::Index c = 0; c < W.cols(); ++c) {
    IndeterminateDirection& dir = d.indeterminate[static_cast<std::size_t>(c)];
    dir.direction = W.col(c) / W.col(c).norm();
    Eigen::Index imax = 0;
    dir.direction.cwiseAbs().maxCoeff(&imax);
    if (dir.direction(imax) < 0) dir.direction = -dir.direction;
    dir.netForce = dir.direction.dot(QC);
  }
}

/// Step 6 of DenseSolver::solve: the readable explanations of the diagnosis `d` (m rows).
void addMessages(Diagnosis& d, int m, const std::vector<std::string>& names) {
  if (!d.consistent) {
    std::ostringstream os;
    os << "inconsistent constraints: A q'' = b has no solution (part of b outside the range of A: "
       << num(d.inconsistency) << " in row-scaled units; residual |A q'' - b| = "
       << num(d.residual) << "). Rows in conflict:";
    for (int i : d.inconsistentRows) os << " " << i;
    os << ". Check for constraints that contradict each other (e.g. two drivers on one coordinate).";
    d.messages.push_back(os.str());
  }
  for (const auto& dir : d.indeterminate) {
    std::ostringstream os;
    os << "ill posed: the acceleration along w = (";
    bool first = true;
    for (int i : dir.coordinates) {
      os << (first ? "" : ", ") << num(dir.direction(i)) << " " << coordName(names, i);
      first = false;
    }
    os << ") is not determined: this motion has no mass and no constraint acts on it "
          "(null space of [M; A]). Coordinates: ";
    first = true;
    for (int i : dir.coordinates) {
      os << (first ? "" : ", ") << coordName(names, i);
      first = false;
    }
    os << ". ";
    if (dir.noForce) {
      os << "No force acts on these coordinates either, so no force balance can determine this "
            "motion: give these coordinates mass or constrain them.";
    } else if (dir.forceBalanced) {
      os << "The massless motion is in force balance (w^T (Q + C) = 0 at this state): an "
            "equilibrium constraint is missing. Add w^T (Q + C) = 0 (differentiated to the "
            "acceleration level) as a constraint, constrain these coordinates, or give them mass.";
    } else {
      os << "A net force w^T (Q + C) = " << num(dir.netForce)
         << " acts along this massless direction: the model is contradictory (it would need "
            "infinite acceleration). Give these coordinates mass or add a constraint that carries the force.";
    }
    d.messages.push_back(os.str());
  }
  if (d.redundant > 0) {
    d.messages.push_back(std::to_string(d.redundant) +
                         " redundant constraint row(s) (rank A = " + std::to_string(d.rankA) +
                         " < m = " + std::to_string(m) +
                         "): legal, the accelerations are unaffected; the constraint forces "
                         "are the minimum-norm ones.");
  }
}

}  // namespace

Solution DenseSolver::solve(const MatrixXd& M, const VectorXd& Q, const MatrixXd& Ain,
                            const VectorXd& b, const VectorXd& Cin,
                            const std::vector<std::string>& names, const VectorXd& columnScale) const {
  validateProblem(M, Q, Ain, b, Cin, tol_);
  const int n = static_cast<int>(M.rows());
  const int m = static_cast<int>(Ain.rows());
  const MatrixXd A = m > 0 ? Ain : MatrixXd(0, n);
  const bool hasC = Cin.size() == n && n > 0 && Cin.cwiseAbs().maxCoeff() > 0;
  const VectorXd C = Cin.size() == n ? Cin : VectorXd::Zero(n);

  // The decisions are taken in the scaled coordinates q = D q~ (M~ = D M D, A~ = A D,
  // Q~ = D Q): with D = 1 (no scale given) the problem as given.
  const bool scaled = columnScale.size() == n && n > 0 && (columnScale.array() != 1.0).any();
  if (scaled && !(columnScale.array() > 0).all()) {
    throw DimensionError("the column scale of the dense solver has an entry that is not positive", "columnScale");
  }
  const VectorXd D = scaled ? columnScale : VectorXd::Ones(n);
  const MatrixXd Mw = scaled ? MatrixXd(D.asDiagonal() * M * D.asDiagonal()) : M;
  const MatrixXd Aw = scaled ? MatrixXd(A * D.asDiagonal()) : A;
  const VectorXd Qw = scaled ? VectorXd(D.cwiseProduct(Q)) : Q;
  const VectorXd Cw = scaled ? VectorXd(D.cwiseProduct(C)) : C;

  Solution sol;
  Diagnosis& d = sol.diagnosis;
  d.n = n;
  d.m = m;

  // --- 1. Constraints alone: rank, range, null space (row-scaled A) ---------------
  MatrixXd As = Aw;
  MatrixXd bs = b;  // m x 1
  const VectorXd rowUnits = scaled ? denseRowUnits(A, D) : VectorXd();
  scaleRows(As, bs, tol_.zeroRow, scaled ? &rowUnits : nullptr);
  VectorXd rOutside = VectorXd::Zero(m);  // part of b_scaled outside the range of A
  const MatrixXd N = constraintNullSpace(As, bs, n, tol_, rOutside, d);  // n x (n - rankA)
  d.redundant = m - d.rankA;

  // --- 2. Stacked system [N^T M; A] q'' = [N^T (Q + C); b] --------------------------
  // N N^T = I - A+A, and N^T has full row rank, so these rows carry exactly the
  // information of (I - A+A) M q'' = (I - A+A)(Q + C). Rows are scaled to unit norm so
  // that mass rows and constraint rows of any units compare in the rank decision.
  const int k = n - d.rankA;
  MatrixXd H(k + m, n);
  MatrixXd rhs(k + m, 2);  // column 0: ideal (C = 0), column 1: with C
  H.topRows(k) = N.transpose() * Mw;
  rhs.block(0, 0, k, 1) = N.transpose() * Qw;
  rhs.block(0, 1, k, 1) = N.transpose() * (Qw + Cw);
  scaleMassRows(Mw, k, tol_, H, rhs);
  H.bottomRows(m) = As;
  rhs.block(k, 0, m, 1) = bs;
  rhs.block(k, 1, m, 1) = bs;

  // --- 3. Rank of [M; A] and its null space, from the row-scaled stack itself -------
  // (not from H: near a singular position A has a tiny but genuine singular value, and two
  // separate rank decisions on A and on H could then disagree; M alone decides here)
  const Svd svdS = computeSvd(stackRowScaled(Mw, As, tol_), false);
  d.rankMA = numericalRank(svdS.singularValues(), tol_.rank);
  d.fullRank = d.rankMA == n;

  // --- 4. Accelerations: pseudo-inverse of H --------------------------------------------
  // When [M; A] has full rank, H has full column rank exactly (span N contains null A), so
  // every singular value of H is kept but those at round-off level (a guard against 1/0);
  // otherwise H is truncated at the rank tolerance and gives the minimum-norm answer.
  const Svd svdH = computeSvd(H, true);
  const int rankH = numericalRank(svdH.singularValues(), d.fullRank ? tol_.roundoff : tol_.rank);
  const MatrixXd X = n > 0 ? applyPinv(svdH, rankH, rhs) : MatrixXd(0, 2);
  const VectorXd qddIdealW = X.col(0);  // in the scaled coordinates
  const VectorXd qddIdeal = D.cwiseProduct(qddIdealW);
  sol.qdd = hasC ? VectorXd(D.cwiseProduct(X.col(1))) : qddIdeal;
  sol.forceIdeal = M * qddIdeal - Q;
  sol.forceNonideal = hasC ? VectorXd(M * sol.qdd - Q - sol.forceIdeal) : VectorXd::Zero(n);
  d.residual = m > 0 ? (A * sol.qdd - b).norm() : 0.0;

  // Consistency: the part of b outside the range of A, against the size of the terms of
  // A q'' = b in row-scaled units (rows of A_s have unit norm, so |A_s q''| <= |q''|). Near
  // a singular position b can be tiny while round-off is not, so |b| alone is no scale.
  if (m > 0) {
    const double mmax = Mw.size() ? Mw.cwiseAbs().maxCoeff() : 0.0;
    decideConsistency(bs.col(0), qddIdealW, mmax > 0 ? Qw.norm() / mmax : 0.0, rOutside, tol_, d);
  }

  // --- 5. Indeterminate directions ---
  describeIndeterminate(svdS.matrixV().rightCols(n - d.rankMA), Qw + Cw, tol_, n, d);
  if (scaled) unscaleIndeterminate(D, Q + C, d);

  d.wellPosed = d.fullRank && d.consistent;
  d.status = !d.consistent ? Posedness::Inconsistent
                           : (d.fullRank ? Posedness::WellPosed : Posedness::IllPosed);

  // --- 6. Messages ---
  addMessages(d, m, names);
  spdlog::debug("dense solve: n={} m={} rankA={} rankMA={} status={}", n, m, d.rankA, d.rankMA,
                toString(d.status));
  return sol;
}

}  // namespace joinery
