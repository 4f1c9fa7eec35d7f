// ModelSystem: a Model seen as a generic DynamicSystem (dynamic_system.hpp).
// Accelerations through the dense reference solver with the rank diagnosis at every call;
// drift control by Gauss–Newton projection in the metric W = M + A^T A.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "joinery/core/dynamic_system.hpp"
#include "joinery/core/errors.hpp"

namespace joinery {

const std::vector<std::string>& DynamicSystem::constraintRowNames() const {
  static const std::vector<std::string> kNone;
  return kNone;
}

namespace {

/// Relative singular value below which a combination of constraint rows counts as redundant
/// in the fast path and the projections (a singular position and its neighbourhood).
constexpr double kSingularThreshold = 1e-6;

/// Max |x_i| over the listed rows; `at` receives the row (or -1).
double maxAbsRows(const VectorXd& x, const std::vector<int>& rows, int& at) {
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

double maxAbsRows(const VectorXd& x, const std::vector<int>& rows) {
  int at = -1;
  return maxAbsRows(x, rows, at);
}

}  // namespace

/// Buffers sized once for the model: no allocation in the evaluation itself (the dense
/// solver and the decompositions of the projections allocate internally).
struct ModelSystem::Buffers {
  std::vector<int> holonomic;  // rows with a position-level residual (phi)
  std::vector<int> velocity;   // rows with a velocity-level residual (phi' or psi)
  VectorXd phi, psi, bmod;     // m
  VectorXd x0, best, dx, y;    // n
  MatrixXd W;                  // n x n
  Eigen::LLT<MatrixXd> llt;
  MatrixXd rowsH, rowsV;       // mh x n, mv x n (row-scaled Jacobians)
  VectorXd rhsH, rhsV;         // mh, mv
  MatrixXd BtH, BtV;           // (L^-1 rows^T)^T: mh x n, mv x n
  Eigen::CompleteOrthogonalDecomposition<MatrixXd> codH, codV;
  // fast path
  MatrixXd As, Y, S;           // m x n, n x m, m x m
  VectorXd bs, rhs, mu, res, z;
  Eigen::CompleteOrthogonalDecomposition<MatrixXd> codS;
  Eigen::LLT<MatrixXd> lltS;
};

ModelSystem::ModelSystem(const Model& model, ModelSystemOptions options, DenseSolver solver)
    : model_(model), options_(options), solver_(solver), ws_(model.makeWorkspace()), buf_(std::make_unique<Buffers>()) {
  const int n = model.numCoordinates();
  const int m = model.numConstraintRows();
  Buffers& b = *buf_;
  for (const RowBlock& rb : model.rowBlocks()) {
    const ConstraintLevel level = rb.constraint ? rb.constraint->level() : ConstraintLevel::Position;
    for (int k = 0; k < rb.size; ++k) {
      if (level == ConstraintLevel::Position) b.holonomic.push_back(rb.row + k);
      if (level != ConstraintLevel::Acceleration) b.velocity.push_back(rb.row + k);
    }
  }
  const auto mh = static_cast<Eigen::Index>(b.holonomic.size());
  const auto mv = static_cast<Eigen::Index>(b.velocity.size());
  b.phi = VectorXd::Zero(m);
  b.psi = VectorXd::Zero(m);
  b.bmod = VectorXd::Zero(m);
  b.x0 = VectorXd::Zero(n);
  b.best = VectorXd::Zero(n);
  b.dx = VectorXd::Zero(n);
  b.y = VectorXd::Zero(n);
  b.W = MatrixXd::Zero(n, n);
  b.llt = Eigen::LLT<MatrixXd>(n);
  b.rowsH = MatrixXd::Zero(mh, n);
  b.rowsV = MatrixXd::Zero(mv, n);
  b.rhsH = VectorXd::Zero(mh);
  b.rhsV = VectorXd::Zero(mv);
  b.BtH = MatrixXd::Zero(mh, n);
  b.BtV = MatrixXd::Zero(mv, n);
  b.codH = Eigen::CompleteOrthogonalDecomposition<MatrixXd>(mh, n);
  b.codV = Eigen::CompleteOrthogonalDecomposition<MatrixXd>(mv, n);
  // Projections: row-scaled Jacobians; directions with a singular value below 1e-6 of the
  // largest are left alone: near a singular position a Gauss-Newton step along them would be
  // huge for a residual that is round-off, and would kick the mechanism off its branch.
  b.codH.setThreshold(kSingularThreshold);
  b.codV.setThreshold(kSingularThreshold);
  b.As = MatrixXd::Zero(m, n);
  b.Y = MatrixXd::Zero(n, m);
  b.S = MatrixXd::Zero(m, m);
  b.bs = VectorXd::Zero(m);
  b.rhs = VectorXd::Zero(m);
  b.mu = VectorXd::Zero(m);
  b.res = VectorXd::Zero(m);
  b.z = VectorXd::Zero(n);
  b.codS = Eigen::CompleteOrthogonalDecomposition<MatrixXd>(m, m);
  b.lltS = Eigen::LLT<MatrixXd>(m);
  // As W^-1 As^T has eigenvalues sigma_i(As W^-1/2)^2: 1e-12 here is about 1e-6 on the
  // singular values of the scaled rows, the same regularization as the projections.
  b.codS.setThreshold(kSingularThreshold * kSingularThreshold);
}

ModelSystem::~ModelSystem() = default;

int ModelSystem::numCoordinates() const { return model_.numCoordinates(); }
const std::vector<std::string>& ModelSystem::coordinateNames() const { return model_.coordinateNames(); }
State ModelSystem::initialState() const { return model_.initialState(); }
int ModelSystem::numConstraintRows() const { return model_.numConstraintRows(); }
const std::vector<std::string>& ModelSystem::constraintRowNames() const { return model_.rowNames(); }
void ModelSystem::normalizeCoordinates(VecRef q) { model_.normalizeCoordinates(q); }

AccelerationStatus ModelSystem::calcAccelerations(const State& s, VecRef qdd, const Baumgarte& stab) {
  AccelerationStatus st;
  Buffers& b = *buf_;
  const int m = model_.numConstraintRows();
  try {
    if (stab.active() && m > 0) {
      // errors first: calcVelocityErrors rewrites the internal rows of ws_.A and ws_.b
      model_.calcPositionErrors(s, ws_, b.phi);
      model_.calcVelocityErrors(s, ws_, b.psi);
    }
    model_.calcMassAndForces(s, ws_);
    model_.calcConstraints(s, ws_);
  } catch (const NonFiniteError& e) {
    st.finite = false;
    st.rankA = -1;
    st.message = "non-finite model value at t = " + std::to_string(s.t) + ": " + e.what();
    return st;
  }
  // Baumgarte: A q'' = b - 2 alpha e_v - beta^2 e_p  (e_p = 0 on non-holonomic rows,
  // e_v = 0 on acceleration-level rows, so one formula serves every row)
  b.bmod = ws_.b;
  if (stab.active() && m > 0) b.bmod -= 2.0 * stab.alpha * b.psi + stab.beta * stab.beta * b.phi;
  if (!(ws_.M.allFinite() && ws_.Q.allFinite() && ws_.A.allFinite() && b.bmod.allFinite())) {
    solveDense(s, qdd, st);  // names the offending entry
    return st;
  }
  // the first evaluation always goes through the dense solver: it validates M (symmetric,
  // positive semi-definite), which the fast path takes for granted
  if (options_.fastPath && denseCount_ > 0 && !model_.hasNonideal() && solveFast(qdd, st)) {
    ++fastCount_;
    return st;
  }
  solveDense(s, qdd, st);
  return st;
}

bool ModelSystem::solveFast(VecRef qdd, AccelerationStatus& st) {
  // With rows scaled to unit norm (As, bs) and W = M + rho As^T As (positive definite exactly
  // when [M; A] has full column rank):  M q'' = Q + As^T lambda, As q'' = bs  gives
  //   W q'' = Q + As^T mu  (mu = lambda + rho bs),   (As W^-1 As^T) mu = bs - As W^-1 Q.
  // The unique q'' of a well-posed model; redundant rows make As W^-1 As^T singular, which the
  // complete orthogonal decomposition handles (minimum-norm mu, same q'').
  Buffers& b = *buf_;
  const int m = model_.numConstraintRows();
  double mmax = 0;
  for (Eigen::Index i = 0; i < ws_.M.rows(); ++i) mmax = std::max(mmax, std::abs(ws_.M(i, i)));
  const double rho = mmax > 0 ? mmax : 1.0;
  b.W = ws_.M;
  double bsNorm2 = 0;
  if (m > 0) {
    double maxRow = 0;
    for (int i = 0; i < m; ++i) maxRow = std::max(maxRow, ws_.A.row(i).norm());
    for (int i = 0; i < m; ++i) {
      const double nr = ws_.A.row(i).norm();
      const double sc = (maxRow > 0 && nr > solver_.tolerances().zeroRow * maxRow) ? 1.0 / nr : 0.0;
      b.As.row(i) = sc * ws_.A.row(i);
      b.bs(i) = sc * b.bmod(i);
      bsNorm2 += b.bs(i) * b.bs(i);
    }
    b.W.noalias() += rho * b.As.transpose() * b.As;
  }
  b.llt.compute(b.W);
  if (b.llt.info() != Eigen::Success || !(b.llt.rcond() > options_.fastPathRcond)) return false;
  b.z = ws_.Q;
  b.llt.solveInPlace(b.z);
  if (m == 0) {
    qdd = b.z;
    st.rankA = 0;
    return qdd.allFinite();
  }
  b.Y = b.As.transpose();
  b.llt.solveInPlace(b.Y);
  b.S.noalias() = b.As * b.Y;
  b.rhs = b.bs;
  b.rhs.noalias() -= b.As * b.z;
  // rank of the scaled rows (for the report), then the multipliers of the damped system
  // (S + lambda I) mu = rhs: exact to lambda / s on a direction of S with eigenvalue s, and
  // smoothly switched off (no constraint force) on directions that become singular, where
  // enforcing the rows would amplify drift without bound (a bifurcation of the constraints).
  b.codS.compute(b.S);
  double smax = 0;
  for (int i = 0; i < m; ++i) smax = std::max(smax, b.S(i, i));
  b.S.diagonal().array() += options_.regularization * smax;
  b.lltS.compute(b.S);
  if (b.lltS.info() != Eigen::Success) return false;
  b.mu = b.rhs;
  b.lltS.solveInPlace(b.mu);
  qdd = b.z;
  qdd.noalias() += b.Y * b.mu;
  b.res = b.bs;
  b.res.noalias() -= b.As * qdd;
  if (!qdd.allFinite()) return false;
  const double bsNorm = std::max(std::sqrt(bsNorm2), 1e-12);
  const double resNorm = b.res.norm();
  st.rankA = static_cast<int>(b.codS.rank());
  st.redundant = m - st.rankA;
  if (resNorm <= solver_.tolerances().consistency * bsNorm) return true;
  // Rows (nearly) dependent: the released combination is not enforced; a small residual there
  // is drift at or near a singular position, not a contradiction.
  if (resNorm <= options_.singularInconsistency * bsNorm) {
    st.leastSquares = true;
    st.inconsistency = resNorm / bsNorm;
    return true;
  }
  return false;  // the dense solver decides and explains
}

void ModelSystem::solveDense(const State& s, VecRef qdd, AccelerationStatus& st) {
  Buffers& b = *buf_;
  const auto& names = model_.coordinateNames();
  ++denseCount_;
  try {
    if (!model_.hasNonideal()) {
      last_ = solver_.solve(ws_.M, ws_.Q, ws_.A, b.bmod, VectorXd(), names);
    } else {
      // ideal solve first, C from the ideal force magnitudes, then the full solve
      const Solution ideal = solver_.solve(ws_.M, ws_.Q, ws_.A, b.bmod, VectorXd(), names);
      const VectorXd Fi = idealForceMagnitudes(model_, ws_, ideal.forceIdeal);
      model_.calcNonidealWork(s, ws_, Fi);
      last_ = solver_.solve(ws_.M, ws_.Q, ws_.A, b.bmod, ws_.C, names);
    }
  } catch (const NonFiniteError& e) {
    st.finite = false;
    st.rankA = -1;
    std::ostringstream os;
    os << "non-finite model value at t = " << s.t << ": " << e.what();
    st.message = os.str();
    return;
  }
  const Diagnosis& d = last_.diagnosis;
  st.posedness = d.status;
  st.rankA = d.rankA;
  st.redundant = d.redundant;
  qdd = last_.qdd;
  if (!d.consistent) {
    // relative to |b| in the solver's row scaling
    double bs2 = 0, maxRow = 0;
    for (Eigen::Index i = 0; i < ws_.A.rows(); ++i) maxRow = std::max(maxRow, ws_.A.row(i).norm());
    for (Eigen::Index i = 0; i < ws_.A.rows(); ++i) {
      const double nr = ws_.A.row(i).norm();
      if (maxRow > 0 && nr > solver_.tolerances().zeroRow * maxRow) bs2 += (b.bmod(i) / nr) * (b.bmod(i) / nr);
    }
    st.inconsistency = d.inconsistency / std::max(std::sqrt(bs2), 1e-12);
    if (d.fullRank && d.redundant > 0 && st.inconsistency <= options_.singularInconsistency) {
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
  } else if (!qdd.allFinite()) {
    st.finite = false;
    st.message = "non-finite accelerations at t = " + std::to_string(s.t);
  }
}

bool ModelSystem::factorizeMetric(const State& s) {
  Buffers& b = *buf_;
  model_.calcMassAndForces(s, ws_);
  model_.calcConstraints(s, ws_);
  if (!ws_.M.allFinite() || !ws_.A.allFinite()) return false;
  b.W = ws_.M;
  b.W.noalias() += ws_.A.transpose() * ws_.A;
  b.llt.compute(b.W);
  if (b.llt.info() == Eigen::Success) return true;
  // W is singular only for an ill-posed model; regularize slightly so the projection still
  // does something sensible (the acceleration check reports the ill-posedness).
  const double delta = 1e-12 * std::max(1.0, b.W.diagonal().cwiseAbs().maxCoeff());
  b.W.diagonal().array() += delta;
  b.llt.compute(b.W);
  if (b.llt.info() == Eigen::Success) {
    spdlog::debug("projection metric M + A^T A singular at t = {}: regularized by {}", s.t, delta);
    return true;
  }
  return false;
}

namespace {

/// Row-scaled gather: out.row(k) = J.row(rows[k]) / |J.row(rows[k])|, rhs likewise.
/// Rows that are zero (within round-off of the largest) become zero rows.
void gatherScaled(const MatrixXd& J, const VectorXd& r, const std::vector<int>& rows,
                  MatrixXd& out, VectorXd& rhs) {
  double maxNorm = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) maxNorm = std::max(maxNorm, J.row(rows[k]).norm());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    const double nr = J.row(rows[k]).norm();
    const double s = (maxNorm > 0 && nr > 1e-13 * maxNorm) ? 1.0 / nr : 0.0;
    out.row(kk) = s * J.row(rows[k]);
    rhs(kk) = s * r(rows[k]);
  }
}

/// The minimum-W-norm step dx with J dx = -r (rows already scaled): with W = L L^T,
/// y = L^T dx is the minimum-norm solution of (L^-1 J^T)^T y = -r.
template <class Cod>
void minimumMetricStep(const Eigen::LLT<MatrixXd>& llt, const MatrixXd& J, const VectorXd& r,
                       MatrixXd& Bt, Cod& cod, VectorXd& y, VectorXd& dx) {
  // Bt = J L^-T (so that Bt y = J dx): solve Bt L^T = J on the right
  Bt = J;
  llt.matrixU().template solveInPlace<Eigen::OnTheRight>(Bt);
  cod.compute(Bt);
  y = -cod.solve(r);
  dx = llt.matrixU().solve(y);
}

}  // namespace

ProjectionReport ModelSystem::projectPositions(State& s, const ProjectionOptions& opt) {
  ProjectionReport rep;
  Buffers& b = *buf_;
  if (b.holonomic.empty()) return rep;
  model_.calcPositionErrors(s, ws_, b.phi);
  double res = maxAbsRows(b.phi, b.holonomic);
  rep.residualBefore = res;
  rep.residualAfter = res;
  const double tol = opt.tolerance * std::max(1.0, s.q.cwiseAbs().maxCoeff());
  if (res <= tol) return rep;
  if (!std::isfinite(res) || !factorizeMetric(s)) {
    rep.converged = false;
    return rep;
  }
  // keep the best iterate: Gauss-Newton may overshoot far from the manifold
  b.x0 = s.q;
  b.best = s.q;
  double best = res;
  for (int it = 1; it <= opt.maxIterations; ++it) {
    // ws_.A holds A at s.q: from factorizeMetric on the first pass, recomputed below after
    model_.calcConstraints(s, ws_);
    gatherScaled(ws_.A, b.phi, b.holonomic, b.rowsH, b.rhsH);
    minimumMetricStep(b.llt, b.rowsH, b.rhsH, b.BtH, b.codH, b.y, b.dx);
    s.q += b.dx;
    rep.iterations = it;
    model_.calcPositionErrors(s, ws_, b.phi);
    res = maxAbsRows(b.phi, b.holonomic);
    if (res < best) {
      best = res;
      b.best = s.q;
    }
    if (res <= tol) break;
    if (!std::isfinite(res)) break;
  }
  s.q = b.best;
  rep.residualAfter = best;
  rep.converged = best <= tol;
  rep.correction = (s.q - b.x0).cwiseAbs().maxCoeff();
  return rep;
}

ProjectionReport ModelSystem::projectVelocities(State& s, const ProjectionOptions& opt) {
  ProjectionReport rep;
  Buffers& b = *buf_;
  if (b.velocity.empty()) return rep;
  model_.calcVelocityErrors(s, ws_, b.psi);
  double res = maxAbsRows(b.psi, b.velocity);
  rep.residualBefore = res;
  rep.residualAfter = res;
  const double tol = opt.tolerance * std::max(1.0, s.v.cwiseAbs().maxCoeff());
  if (res <= tol) return rep;
  if (!std::isfinite(res) || !factorizeMetric(s)) {
    rep.converged = false;
    return rep;
  }
  b.x0 = s.v;
  b.best = s.v;
  double best = res;
  for (int it = 1; it <= opt.maxIterations; ++it) {
    // A holds phi_q on holonomic rows and psi_v on non-holonomic rows (psi_v depends on v
    // when psi is nonlinear in the velocities: recompute it)
    model_.calcConstraints(s, ws_);
    gatherScaled(ws_.A, b.psi, b.velocity, b.rowsV, b.rhsV);
    minimumMetricStep(b.llt, b.rowsV, b.rhsV, b.BtV, b.codV, b.y, b.dx);
    s.v += b.dx;
    rep.iterations = it;
    model_.calcVelocityErrors(s, ws_, b.psi);
    res = maxAbsRows(b.psi, b.velocity);
    if (res < best) {
      best = res;
      b.best = s.v;
    }
    if (res <= tol || !std::isfinite(res)) break;
  }
  s.v = b.best;
  rep.residualAfter = best;
  rep.converged = best <= tol;
  rep.correction = (s.v - b.x0).cwiseAbs().maxCoeff();
  return rep;
}

ConstraintResiduals ModelSystem::calcConstraintResiduals(const State& s) {
  ConstraintResiduals r;
  Buffers& b = *buf_;
  if (model_.numConstraintRows() == 0) return r;
  model_.calcPositionErrors(s, ws_, b.phi);
  model_.calcVelocityErrors(s, ws_, b.psi);
  r.position = maxAbsRows(b.phi, b.holonomic, r.positionRow);
  r.velocity = maxAbsRows(b.psi, b.velocity, r.velocityRow);
  return r;
}

std::optional<double> ModelSystem::calcEnergy(const State& s) {
  return model_.calcKineticEnergy(s) + model_.calcPotentialEnergy(s);
}

}  // namespace joinery
