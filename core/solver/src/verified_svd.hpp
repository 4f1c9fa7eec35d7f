#pragma once
// The SVD every rank decision of the dense solver and of the joint multipliers uses: divide
// and conquer, verified, with the Jacobi SVD where the check fails (verified_svd.cpp).
#include <Eigen/Dense>

namespace joinery::detail {

/// A singular value decomposition X = U diag(s) V^T (U thin, V full).
struct Svd {
  Eigen::MatrixXd U, V;
  Eigen::VectorXd s;
  const Eigen::MatrixXd& matrixU() const { return U; }
  const Eigen::MatrixXd& matrixV() const { return V; }
  const Eigen::VectorXd& singularValues() const { return s; }
};

/// The SVD of X (U thin when `thinU`, else empty; V full), by divide and conquer, verified.
/// Eigen 3.4.0's BDCSVD can return wrong singular vectors: for a matrix with an exactly
/// redundant row (tests/peers/random_mechanisms: a null space with |X N| of order 1), and for
/// some full-rank row-scaled constraint matrices (U S V^T off X by 0.6). When U S V^T,
/// |X v_i| = s_i or X N = 0 misses by more than 1e-10 (X's rows have norm 1 or 0), the
/// Jacobi SVD (slower, reliable) is used instead.
Svd computeSvd(const Eigen::MatrixXd& X, bool thinU);

}  // namespace joinery::detail
