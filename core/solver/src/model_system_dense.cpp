// ModelSystem's dense paths (model_system_parts.hpp): the metric fast path
//     W = M + rho As^T As      (As: rows of A scaled to unit norm, rho = max M_ii),
// positive definite exactly when [M; A] has full column rank, with the constraint multipliers
// on S = As W^-1 As^T by iterated Tikhonov regularization; and the dense reference solver,
// which decides and explains. docs/integrators.md explains the choices.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/joint_results.hpp"
#include "model_system_parts.hpp"

namespace joinery::detail {

void DensePath::allocate(Eigen::Index n, Eigen::Index m, double regularization) {
  As_ = MatrixXd::Zero(m, n);
  W_ = MatrixXd::Zero(n, n);
  for (VectorXd* v : {&rowScale_, &bs_, &g_, &res_}) *v = VectorXd::Zero(m);
  for (VectorXd* v : {&z_, &dx_}) *v = VectorXd::Zero(n);
  all_.resize(n, m);
  // a combination of rows whose eigenvalue in S is below `regularization` of the largest is
  // the one the regularized solve releases: report it as redundant
  rankS_.setThreshold(regularization);
}

bool DensePath::factorizeMetric(const SystemContext& ctx) {
  // ws.M and ws.A hold the current state. In the scaled coordinates q = D q~ (D: the
  // model's coordinateScales), rows of A D scaled to unit norm (zero rows stay zero),
  // rho = max (D M D)_ii so that both parts of W carry the same units.
  const ModelWorkspace& ws = ctx.ws;
  const int m = ctx.model.numConstraintRows();
  const VectorXd& D = ctx.columnScale;
  if (!ws.M.allFinite() || !ws.A.allFinite()) return false;
  // (the zero-row test with each row in the units of the others: rowUnitFactor)
  double maxRow = 0;
  for (int i = 0; i < m; ++i)
    maxRow = std::max(maxRow, rowUnitFactor(ws.A.row(i), D) * ws.A.row(i).cwiseProduct(D.transpose()).norm());
  for (int i = 0; i < m; ++i) {
    const double nr = ws.A.row(i).cwiseProduct(D.transpose()).norm();
    rowScale_(i) = (maxRow > 0 && rowUnitFactor(ws.A.row(i), D) * nr > ctx.solver.tolerances().zeroRow * maxRow) ? 1.0 / nr : 0.0;
    As_.row(i) = rowScale_(i) * ws.A.row(i).cwiseProduct(D.transpose());
  }
  W_ = ws.M;
  W_.array().colwise() *= D.array();
  W_.array().rowwise() *= D.transpose().array();
  double mmax = 0;
  for (Eigen::Index i = 0; i < W_.rows(); ++i) mmax = std::max(mmax, std::abs(W_(i, i)));
  const double rho = mmax > 0 ? mmax : 1.0;
  if (m > 0) W_.noalias() += rho * As_.transpose() * As_;
  llt_.compute(W_);
  return llt_.info() == Eigen::Success && llt_.rcond() > ctx.options.fastPathRcond;
}

bool DensePath::solveMetric(const SystemContext& ctx, const VectorXd& b, VecRef qdd,
                            AccelerationStatus& st) {
  // M q'' = Q + As^T lambda and As q'' = bs give, with mu = lambda + rho bs,
  //   W q'' = Q + As^T mu,   (As W^-1 As^T) mu = bs - As W^-1 Q,
  // i.e. q'' = z + x with z = W^-1 Q and x the least-W-norm solution of As x = bs - As z:
  // the unique q'' of a well-posed model (equations.md §4), redundant rows included.
  const int m = ctx.model.numConstraintRows();
  const ModelSystemOptions& opt = ctx.options;
  if (!factorizeMetric(ctx)) return false;
  const VectorXd& D = ctx.columnScale;
  z_ = ctx.ws.Q.cwiseProduct(D);
  llt_.solveInPlace(z_);
  if (m == 0) {
    qdd = z_.cwiseProduct(D);
    st.rankA = 0;
    return qdd.allFinite();
  }
  bs_ = rowScale_.cwiseProduct(b);
  g_ = bs_;
  g_.noalias() -= As_ * z_;
  if (!all_.solve(llt_, As_, g_, opt.regularization, opt.regularizationIterations, dx_)) return false;
  qdd = z_ + dx_;  // scaled here; in the model's coordinates before each return below
  if (!qdd.allFinite()) return false;
  rankS_.compute(all_.S);
  st.rankA = static_cast<int>(rankS_.rank());
  st.redundant = m - st.rankA;
  st.released = st.redundant;
  res_ = bs_;
  res_.noalias() -= As_ * qdd;
  // the residual's scale as on the structured path: |bs| + 1e-4 |x| (a floor of 1e-12 made the
  // verdict depend on units: a contradiction of 1e-30 m/s^2 passed as round-off)
  const double bsNorm = std::max(bs_.norm() + 1e-4 * qdd.norm(), 1e-300);
  const double resNorm = res_.norm();
  qdd.array() *= D.array();
  if (resNorm <= ctx.solver.tolerances().consistency * bsNorm) return true;
  // A combination of rows (nearly) dependent at this state: the regularized solve released it;
  // a small residual there is drift at or near a singular position, not a contradiction.
  if (resNorm <= opt.singularInconsistency * bsNorm) {
    st.leastSquares = true;
    st.inconsistency = resNorm / bsNorm;
    return true;
  }
  return false;  // the dense solver decides and explains
}

void DensePath::solveReference(const SystemContext& ctx, const State& s, const VectorXd& b,
                               VecRef qdd, AccelerationStatus& st) {
  const ModelWorkspace& ws = ctx.ws;
  const auto& names = ctx.model.coordinateNames();
  try {
    if (!ctx.model.hasNonideal()) {
      last_ = ctx.solver.solve(ws.M, ws.Q, ws.A, b, VectorXd(), names, ctx.columnScale);
    } else {
      // ideal solve first, C from the ideal force magnitudes, then the full solve
      const Solution ideal = ctx.solver.solve(ws.M, ws.Q, ws.A, b, VectorXd(), names, ctx.columnScale);
      VectorXd lambda = VectorXd::Zero(ctx.model.numConstraintRows());
      minimumNormMultipliers(ws.A, ideal.forceIdeal, lambda, nullptr, ctx.solver.tolerances().rank);
      ctx.model.calcNonidealWork(s, ctx.ws, lambda);
      last_ = ctx.solver.solve(ws.M, ws.Q, ws.A, b, ws.C, names, ctx.columnScale);
    }
  } catch (const NonFiniteError& e) {
    reportNonFinite(ctx.model, s, e, st);
    return;
  }
  qdd = last_.qdd;
  describeDenseSolution(ctx, s, last_, ws.A, b, st, ctx.columnScale);
}

void DensePath::referenceMultipliers(const SystemContext& ctx, const State& s, JointMultipliers& out) {
  if (!multWs_) multWs_.emplace(ctx.model.makeWorkspace(true));
  solveJointMultipliers(ctx.model, s, *multWs_, out, ctx.solver, &ctx.columnScale);
}

void describeDenseSolution(const SystemContext& ctx, const State& s, const Solution& sol,
                           const MatrixXd& A, const VectorXd& bmod, AccelerationStatus& st,
                           const VectorXd& columnScale) {
  const Diagnosis& d = sol.diagnosis;
  st.posedness = d.status;
  st.rankA = d.rankA;
  st.redundant = d.redundant;
  if (!d.consistent) {
    // relative to |b| in the solver's row scaling (rows of A D)
    const bool scaled = columnScale.size() == A.cols();
    const auto rowNorm = [&](Eigen::Index i) {
      return scaled ? A.row(i).cwiseProduct(columnScale.transpose()).norm() : A.row(i).norm();
    };
    const auto unitOf = [&](Eigen::Index i) { return scaled ? rowUnitFactor(A.row(i), columnScale) : 1.0; };
    double bs2 = 0, maxRow = 0;
    for (Eigen::Index i = 0; i < A.rows(); ++i) maxRow = std::max(maxRow, unitOf(i) * rowNorm(i));
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
      const double nr = rowNorm(i);
      if (maxRow > 0 && unitOf(i) * nr > ctx.solver.tolerances().zeroRow * maxRow)
        bs2 += (bmod(i) / nr) * (bmod(i) / nr);
    }
    st.inconsistency = d.inconsistency / std::max(std::sqrt(bs2), std::numeric_limits<double>::min());
    if (d.fullRank && d.redundant > 0 && st.inconsistency <= ctx.options.singularInconsistency) {
      // a singular position passed with a little drift: least squares, not a contradiction
      st.posedness = Posedness::WellPosed;
      st.leastSquares = true;
      spdlog::debug("t = {}: singular position (rank A = {} < m = {}), relative inconsistency {} "
                    "tolerated: least-squares accelerations", s.t, d.rankA, d.m, st.inconsistency);
    }
  }
  if (st.posedness != Posedness::WellPosed) {
    std::ostringstream os;
    os << toString(d.status) << " at t = " << s.t << " (rank [M; A] = " << d.rankMA << " of n = "
       << d.n << ", rank A = " << d.rankA << " of m = " << d.m << ")";
    for (const auto& msg : d.messages) os << "\n  " << msg;
    st.message = os.str();
  } else if (!sol.qdd.allFinite()) {
    st.finite = false;
    st.message = "non-finite accelerations at t = " + std::to_string(s.t);
  }
}

}  // namespace joinery::detail
