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
};

ModelSystem::ModelSystem(const Model& model, DenseSolver solver)
    : model_(model), solver_(solver), ws_(model.makeWorkspace()), buf_(std::make_unique<Buffers>()) {
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
  // the same rank threshold as the dense solver, on row-scaled matrices
  b.codH.setThreshold(solver_.tolerances().rank);
  b.codV.setThreshold(solver_.tolerances().rank);
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
  const auto& names = model_.coordinateNames();
  try {
    if (stab.active() && m > 0) {
      // errors first: calcVelocityErrors rewrites the internal rows of ws_.A and ws_.b
      model_.calcPositionErrors(s, ws_, b.phi);
      model_.calcVelocityErrors(s, ws_, b.psi);
    }
    model_.calcMassAndForces(s, ws_);
    model_.calcConstraints(s, ws_);
    // Baumgarte: A q'' = b - 2 alpha e_v - beta^2 e_p  (e_p = 0 on non-holonomic rows,
    // e_v = 0 on acceleration-level rows, so one formula serves every row)
    b.bmod = ws_.b;
    if (stab.active() && m > 0) b.bmod -= 2.0 * stab.alpha * b.psi + stab.beta * stab.beta * b.phi;
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
    return st;
  }
  const Diagnosis& d = last_.diagnosis;
  st.posedness = d.status;
  st.rankA = d.rankA;
  st.redundant = d.redundant;
  qdd = last_.qdd;
  if (!d.wellPosed) {
    std::ostringstream os;
    os << toString(d.status) << " at t = " << s.t << " (rank [M; A] = " << d.rankMA << " of n = "
       << d.n << ", rank A = " << d.rankA << " of m = " << d.m << ")";
    for (const auto& msg : d.messages) os << "\n  " << msg;
    st.message = os.str();
  } else if (!qdd.allFinite()) {
    st.finite = false;
    st.message = "non-finite accelerations at t = " + std::to_string(s.t);
  }
  return st;
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
