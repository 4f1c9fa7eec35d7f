#pragma once
// Private to joinery::core: what the two halves of ModelSystem share — the evaluation
// (model_system.cpp: the structured, dense-metric and dense paths) and the projector
// (model_system_projection.cpp: drift control) — the buffers sized once for the model and
// the regularized least-W-norm solve.
#include <Eigen/Dense>
#include <sstream>
#include <string>
#include <optional>
#include <vector>

#include "joinery/core/errors.hpp"
#include "joinery/core/model_system.hpp"
#include "sparse_path.hpp"

namespace joinery {

namespace detail {

/// A non-finite model value met by the dense solver: the status says so, naming the entry.
inline void reportNonFinite(const State& s, const NonFiniteError& e, AccelerationStatus& st) {
  st.finite = false;
  st.rankA = -1;
  std::ostringstream os;
  os << "non-finite model value at t = " << s.t << ": " << e.what();
  st.message = os.str();
}

/// Models with more entries than this in M and A (n^2 + m n) get their dense matrices only when
/// the dense solver or a projection first needs them (80 MB of doubles).
constexpr double kDenseLimit = 1e7;

/// Max |x_i| over the listed rows; `at` receives the row (or -1).
inline double maxAbsRows(const VectorXd& x, const std::vector<int>& rows, int& at) {
  double r = 0;
  at = -1;
  for (int i : rows) {
    const double a = std::abs(x(i));
    if (!(a <= r)) {  // also catches NaN
      r = a;
      at = i;
    }
  }
  return r;
}

inline double maxAbsRows(const VectorXd& x, const std::vector<int>& rows) {
  int at = -1;
  return maxAbsRows(x, rows, at);
}

/// Least-W-norm solution of J x = g for row-scaled J (k x n), given the Cholesky factor of W:
///     x = Y mu,  Y = W^-1 J^T,  S mu = g,  S = J Y,
/// with S mu = g solved by K steps of iterated Tikhonov regularization
///     mu_0 = 0,  mu_{j+1} = mu_j + (S + lambda I)^-1 (g - S mu_j),  lambda = reg * max S_ii.
/// On an eigen-direction of S with eigenvalue s the error factor is (lambda / (s + lambda))^K:
/// exact to round-off where the rows are well conditioned, smoothly released where a
/// combination of rows becomes dependent (s << lambda). Buffers sized once.
class MetricSolve {
 public:
  void resize(Eigen::Index n, Eigen::Index k) {
    Y = MatrixXd::Zero(n, k);
    S = MatrixXd::Zero(k, k);
    Sr = MatrixXd::Zero(k, k);
    mu = VectorXd::Zero(k);
    dmu = VectorXd::Zero(k);
    // (the factorization allocates its k x k storage on first use; Eigen's decompositions are
    // not assigned here: their status members start uninitialized)
  }
  /// Returns false if the regularized factorization fails (non-finite input).
  bool solve(const Eigen::LLT<MatrixXd>& W, const MatrixXd& J, const VectorXd& g, double reg,
             int iterations, VectorXd& x) {
    Y = J.transpose();
    W.solveInPlace(Y);
    S.noalias() = J * Y;
    double smax = 0;
    for (Eigen::Index i = 0; i < S.rows(); ++i) smax = std::max(smax, S(i, i));
    Sr = S;
    Sr.diagonal().array() += reg * (smax > 0 ? smax : 1.0);
    llt.compute(Sr);
    if (llt.info() != Eigen::Success) return false;
    mu.setZero();
    dmu = g;
    for (int j = 0; j < std::max(1, iterations); ++j) {
      llt.solveInPlace(dmu);
      mu += dmu;
      dmu = g;
      dmu.noalias() -= S * mu;
    }
    x.noalias() = Y * mu;
    return x.allFinite();
  }

  MatrixXd Y, S, Sr;
  VectorXd mu, dmu;
  Eigen::LLT<MatrixXd> llt;
};

}  // namespace detail

/// Buffers sized once for the model: no allocation in the evaluation itself (the dense
/// solver allocates internally).
struct ModelSystem::Buffers {
  std::vector<int> holonomic;  // rows with a position-level residual (phi)
  std::vector<int> velocity;   // rows with a velocity-level residual (phi' or psi)
  VectorXd phi, psi, bmod;     // m
  VectorXd x0, best, dx, z;    // n
  MatrixXd As;                 // m x n: rows of A scaled to unit norm
  VectorXd rowScale, bs, g, res;  // m
  MatrixXd W;                  // n x n metric M + rho As^T As
  Eigen::LLT<MatrixXd> llt;
  MatrixXd rowsH, rowsV;       // mh x n, mv x n (scaled rows for the projections)
  VectorXd rhsH, rhsV;         // mh, mv
  detail::MetricSolve all, hol, vel;   // on all rows / holonomic rows / velocity-level rows
  Eigen::CompleteOrthogonalDecomposition<MatrixXd> rankS;  // rank report of the dense fast path
  detail::BlockKkt kkt;        // the structured path
  std::vector<int> denseComps; // components the structured path hands to the dense solver
  VectorXd lambda, Fi, qc, localForce;  // non-ideal joints on the structured path
  std::vector<int> blockConstraint;     // row block -> index in Model::constraints() (-1: internal)
  // multipliers of the last structured evaluation (calcMultipliers), at state (t, q, v)
  VectorXd lamIdeal, lamTotal, lastQ, lastV;
  double lastT = 0;
  bool multReady = false;
  std::optional<ModelWorkspace> multWs;  // calcMultipliers' dense fallback (created when needed)
  bool blocksValidated = false;
  std::vector<char> maskH, maskV;  // holonomic / velocity-level rows (structured projections)
  VectorXd rhsRows;                // m
};

}  // namespace joinery
