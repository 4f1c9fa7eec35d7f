#pragma once
/// @file dense_solver.hpp
/// Dense reference solver for the singular-mass equation of motion
/// (Udwadia & Phohomsiri, Proc. R. Soc. A 462 (2006), eq. 2.13):
///
///     q'' = [ (I - A+A) M ; A ]+ [ (I - A+A)(Q + C) ; b ]
///
/// together with a diagnosis of the stacked system: ranks of `A` and `[M; A]`,
/// redundancy, well-posedness, consistency, and the coordinates that nothing determines.
/// See docs/theory.md for the derivation and the tolerances.

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "joinery/core/posedness.hpp"

namespace joinery {

/// Tolerances of the rank and consistency decisions. All are relative; see docs/theory.md.
struct SolverTolerances {
  /// A singular value of a row-scaled matrix counts as zero below `rank * sigma_max`.
  double rank = 1e-10;
  /// When `[M; A]` has full rank, singular values of the projected stack below
  /// `roundoff * sigma_max` are still dropped (a guard against dividing by round-off).
  double roundoff = 1e-15;
  /// A row whose norm is below `zeroRow` times the largest row norm of its block is a zero row.
  double zeroRow = 1e-13;
  /// `A q'' = b` is consistent when the part of the row-scaled `b` outside the range of
  /// `A` has norm below `consistency * max(|b_scaled|, |q''|, |Q| / max|M|)` (see docs/theory.md).
  double consistency = 1e-9;
  /// An indeterminate direction `w` is in force balance when
  /// `|w^T (Q + C)| <= forceBalance * |Q + C|`.
  double forceBalance = 1e-9;
  /// `M` is symmetric when `max|M - M^T| <= symmetry * max|M|`.
  double symmetry = 1e-10;
  /// `M` is positive semi-definite when its smallest eigenvalue is `>= -psd * max|eig|`.
  double psd = 1e-10;
};

/// One direction of the null space of `[M; A]`: a motion with no mass and no constraint.
struct IndeterminateDirection {
  Eigen::VectorXd direction;     ///< unit vector in coordinate space (largest entry positive)
  std::vector<int> coordinates;  ///< indices of the coordinates it moves
  double netForce = 0;           ///< `w^T (Q + C)`
  bool forceBalanced = true;     ///< `|netForce|` within tolerance of zero
  /// No force at all acts on the coordinates it moves (Q + C is exactly 0 there): no force
  /// balance can determine it (a free massless point), only mass or a constraint.
  bool noForce = false;
};

/// Diagnosis of one solve.
struct Diagnosis {
  int n = 0;                     ///< number of coordinates
  int m = 0;                     ///< number of constraint rows
  int rankA = 0;                 ///< numerical rank of `A`
  int rankMA = 0;                ///< numerical rank of `[M; A]`
  int redundant = 0;             ///< `m - rankA`: redundant rows (legal; do not change q'')
  bool fullRank = false;         ///< `rankMA == n`
  bool consistent = true;        ///< `b` lies in the range of `A`
  bool wellPosed = false;        ///< `fullRank && consistent`: q'' exists and is unique
  Posedness status = Posedness::WellPosed;
  double residual = 0;           ///< `|A q'' - b|` of the returned q''
  double inconsistency = 0;      ///< `|(I - A A+) b|` in row-scaled units (0 when consistent)
  std::vector<int> inconsistentRows;  ///< rows of `A` most violated when inconsistent
  Eigen::MatrixXd nullBasis;     ///< n x d orthonormal basis of the null space of `[M; A]`
  std::vector<IndeterminateDirection> indeterminate;  ///< one per column of nullBasis
  std::vector<int> indeterminateCoordinates;          ///< union of their coordinates, sorted
  std::vector<std::string> messages;                  ///< readable findings, most important first
};

/// Result of a solve: accelerations, constraint forces, diagnosis.
struct Solution {
  Eigen::VectorXd qdd;            ///< accelerations (minimum-norm solution when not unique)
  Eigen::VectorXd forceIdeal;     ///< ideal constraint force (the force with C = 0; in range(A^T))
  Eigen::VectorXd forceNonideal;  ///< total constraint force minus the ideal one
  Diagnosis diagnosis;
};

/// Checks sizes, finiteness, symmetry and positive semi-definiteness of a problem.
/// `C` may be empty (zero). @throws DimensionError, NonFiniteError, AsymmetricMassError,
/// IndefiniteMassError with the field, entry and value named.
void validateProblem(const Eigen::MatrixXd& M, const Eigen::VectorXd& Q, const Eigen::MatrixXd& A,
                     const Eigen::VectorXd& b, const Eigen::VectorXd& C,
                     const SolverTolerances& tol = {});

/// The dense reference solver. Stateless apart from its tolerances; independent of how the
/// matrices were produced. Cost O((n+m) n^2) per solve (SVDs); use it for small models and
/// for every diagnosis.
class DenseSolver {
 public:
  explicit DenseSolver(SolverTolerances tol = {}) : tol_(tol) {}
  const SolverTolerances& tolerances() const noexcept { return tol_; }

  /// Solves and diagnoses. `A` is m x n (m may be 0), `C` is empty or an n-vector.
  /// `names` (optional, size n) name coordinates in the diagnosis messages.
  /// `columnScale` (optional, size n, positive): the units the rank and consistency decisions
  /// are taken in, q = diag(columnScale) q~ (coordinateScales() of a model: a rigid body's
  /// angles as arc lengths, so that rows and columns of mixed units compare). Any positive
  /// scale gives the same q'' of a well-posed problem; it decides what "round-off" means.
  /// Never returns NaN: an ill-posed or inconsistent problem gets the minimum-norm
  /// least-squares answer (minimum norm in the scaled coordinates) and a diagnosis saying so.
  /// @throws InvalidProblemError (and subclasses) for invalid input, see validateProblem().
  Solution solve(const Eigen::MatrixXd& M, const Eigen::VectorXd& Q, const Eigen::MatrixXd& A,
                 const Eigen::VectorXd& b, const Eigen::VectorXd& C = Eigen::VectorXd(),
                 const std::vector<std::string>& names = {},
                 const Eigen::VectorXd& columnScale = Eigen::VectorXd()) const;

 private:
  SolverTolerances tol_;
};

}  // namespace joinery
