// ModelSystem: a Model seen as a generic DynamicSystem (dynamic_system.hpp).
//
// Every evaluation checks well-posedness. The structured fast path (sparse_path.hpp) solves
// the same equations by block elimination over the body-joint graph. The dense fast path
// factorizes the metric
//     W = M + rho As^T As      (As: rows of A scaled to unit norm, rho = max M_ii)
// which is positive definite exactly when [M; A] has full column rank, and solves for the
// constraint multipliers on S = As W^-1 As^T by iterated Tikhonov regularization; any state
// that fails a check goes to the dense reference solver, which decides and explains.
// Drift control (model_system_projection.cpp) projects positions and velocities with
// Gauss–Newton steps of least W-norm, through the same regularized solve.
// docs/integrators.md explains the choices.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_map>

#include "joinery/core/model_system.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "model_system_buffers.hpp"
#include "sparse_path.hpp"

namespace joinery {

using detail::maxAbsRows;
using detail::reportNonFinite;
using detail::kDenseLimit;

const std::vector<std::string>& DynamicSystem::constraintRowNames() const {
  static const std::vector<std::string> kNone;
  return kNone;
}

ModelSystem::ModelSystem(const Model& model, ModelSystemOptions options, DenseSolver solver)
    : model_(model), options_(options), solver_(solver),
      ws_(model.makeWorkspace(static_cast<double>(model.numCoordinates()) *
                                  (model.numCoordinates() + model.numConstraintRows()) <=
                              kDenseLimit)),
      buf_(std::make_unique<Buffers>()) {
  const int n = model.numCoordinates();
  const int m = model.numConstraintRows();
  Buffers& b = *buf_;
  b.kkt.setup(model, solver_.tolerances().zeroRow, options_.fastPathRcond);
  b.maskH.assign(static_cast<std::size_t>(m), 0);
  b.maskV.assign(static_cast<std::size_t>(m), 0);
  b.rhsRows = VectorXd::Zero(m);
  b.lambda = VectorXd::Zero(m);
  for (VectorXd* v : {&b.lamIdeal, &b.lamTotal}) *v = VectorXd::Zero(m);
  for (VectorXd* v : {&b.lastQ, &b.lastV}) *v = VectorXd::Zero(n);
  const bool dense = ws_.hasDenseMatrices();
  for (const RowBlock& rb : model.rowBlocks()) {
    const ConstraintLevel level = rb.constraint ? rb.constraint->level() : ConstraintLevel::Position;
    for (int k = 0; k < rb.size; ++k) {
      if (level == ConstraintLevel::Position) b.holonomic.push_back(rb.row + k);
      if (level != ConstraintLevel::Acceleration) b.velocity.push_back(rb.row + k);
    }
  }
  for (int i : b.holonomic) b.maskH[static_cast<std::size_t>(i)] = 1;
  for (int i : b.velocity) b.maskV[static_cast<std::size_t>(i)] = 1;
  const auto mh = static_cast<Eigen::Index>(b.holonomic.size());
  const auto mv = static_cast<Eigen::Index>(b.velocity.size());
  for (VectorXd* v : {&b.phi, &b.psi, &b.bmod, &b.rowScale, &b.bs, &b.g, &b.res}) *v = VectorXd::Zero(m);
  for (VectorXd* v : {&b.x0, &b.best, &b.dx, &b.z}) *v = VectorXd::Zero(n);
  b.rhsH = VectorXd::Zero(mh);
  b.rhsV = VectorXd::Zero(mv);
  if (dense) {
    b.As = MatrixXd::Zero(m, n);
    b.W = MatrixXd::Zero(n, n);
    b.rowsH = MatrixXd::Zero(mh, n);
    b.rowsV = MatrixXd::Zero(mv, n);
    b.all.resize(n, m);
    b.hol.resize(n, mh);
    b.vel.resize(n, mv);
  }
  // a combination of rows whose eigenvalue in S is below `regularization` of the largest is
  // the one the regularized solve releases: report it as redundant
  b.rankS.setThreshold(options_.regularization);
}

ModelSystem::~ModelSystem() = default;

bool ModelSystem::hasDenseMatrices() const noexcept { return ws_.hasDenseMatrices(); }

void ModelSystem::ensureDense() {
  if (ws_.hasDenseMatrices()) return;
  const int n = model_.numCoordinates();
  const int m = model_.numConstraintRows();
  spdlog::debug("allocating the dense matrices of a model with {} coordinates and {} rows", n, m);
  ws_ = model_.makeWorkspace(true);
  Buffers& b = *buf_;
  const auto mh = static_cast<Eigen::Index>(b.holonomic.size());
  const auto mv = static_cast<Eigen::Index>(b.velocity.size());
  b.As = MatrixXd::Zero(m, n);
  b.W = MatrixXd::Zero(n, n);
  b.rowsH = MatrixXd::Zero(mh, n);
  b.rowsV = MatrixXd::Zero(mv, n);
  b.all.resize(n, m);
  b.hol.resize(n, mh);
  b.vel.resize(n, mv);
}

EvaluationPath ModelSystem::resolvedPath() const noexcept {
  if (options_.path == EvaluationPath::Dense) return EvaluationPath::Dense;
  if (options_.path == EvaluationPath::DenseMetric) return EvaluationPath::DenseMetric;
  return EvaluationPath::Structured;
}

int ModelSystem::numCoordinates() const { return model_.numCoordinates(); }
const std::vector<std::string>& ModelSystem::coordinateNames() const { return model_.coordinateNames(); }
State ModelSystem::initialState() const { return model_.initialState(); }
int ModelSystem::numConstraintRows() const { return model_.numConstraintRows(); }
const std::vector<std::string>& ModelSystem::constraintRowNames() const { return model_.rowNames(); }
void ModelSystem::normalizeCoordinates(VecRef q) { model_.normalizeCoordinates(q); }

bool ModelSystem::factorizeMetric() {
  // ws_.M and ws_.A hold the current state. Rows scaled to unit norm (zero rows stay zero),
  // rho = max M_ii so that both parts of W carry the same units.
  Buffers& b = *buf_;
  const int m = model_.numConstraintRows();
  if (!ws_.M.allFinite() || !ws_.A.allFinite()) return false;
  double maxRow = 0;
  for (int i = 0; i < m; ++i) maxRow = std::max(maxRow, ws_.A.row(i).norm());
  for (int i = 0; i < m; ++i) {
    const double nr = ws_.A.row(i).norm();
    b.rowScale(i) = (maxRow > 0 && nr > solver_.tolerances().zeroRow * maxRow) ? 1.0 / nr : 0.0;
    b.As.row(i) = b.rowScale(i) * ws_.A.row(i);
  }
  double mmax = 0;
  for (Eigen::Index i = 0; i < ws_.M.rows(); ++i) mmax = std::max(mmax, std::abs(ws_.M(i, i)));
  const double rho = mmax > 0 ? mmax : 1.0;
  b.W = ws_.M;
  if (m > 0) b.W.noalias() += rho * b.As.transpose() * b.As;
  b.llt.compute(b.W);
  return b.llt.info() == Eigen::Success && b.llt.rcond() > options_.fastPathRcond;
}

namespace {
/// The status of a state the structured path cannot answer, without the dense fallback.
AccelerationStatus undecided() {
  AccelerationStatus st;
  st.posedness = Posedness::IllPosed;  // not ok(), and `structured` false: undecided
  st.message = "the structured path cannot decide this state";
  return st;
}
}  // namespace

AccelerationStatus ModelSystem::calcAccelerations(const State& s, VecRef qdd, const Baumgarte& stab) {
  AccelerationStatus st;
  Buffers& b = *buf_;
  const int m = model_.numConstraintRows();
  b.multReady = false;
  if (stab.active() && m > 0) {
    model_.calcPositionErrors(s, ws_, b.phi);
    model_.calcVelocityErrors(s, ws_, b.psi);
  }
  const EvaluationPath path = resolvedPath();
  // Baumgarte: A q'' = b - 2 alpha e_v - beta^2 e_p  (e_p = 0 on non-holonomic rows,
  // e_v = 0 on acceleration-level rows, so one formula serves every row)
  auto modifyRhs = [&] {
    b.bmod = ws_.b;
    if (stab.active() && m > 0) b.bmod -= 2.0 * stab.alpha * b.psi + stab.beta * stab.beta * b.phi;
  };
  if (path == EvaluationPath::Structured) {
    model_.calcBodyBlocks(s, ws_);
    model_.calcRowBlocks(s, ws_);
    modifyRhs();
    // The first evaluation validates M (symmetric, positive semi-definite), which the fast
    // paths take for granted, block by block (O(n); a failing block sends the evaluation to the
    // dense solver, which names the entry and throws). Validating through the dense solver
    // instead cost O(n^3) at the start of every run: 50-80 s for a 256-link chain.
    if (!b.blocksValidated) {
      bool valid = ws_.Q.allFinite() && b.bmod.allFinite();
      const SolverTolerances& tol = solver_.tolerances();
      for (std::size_t i = 0; valid && i < model_.bodySlots().size(); ++i) {
        const MatrixXd& Mb = ws_.bodyMass(i);
        if (Mb.size() == 0) continue;
        const double scale = std::max(1e-300, Mb.cwiseAbs().maxCoeff());
        if (!Mb.allFinite() || (Mb - Mb.transpose()).cwiseAbs().maxCoeff() > tol.symmetry * scale) {
          valid = false;
          break;
        }
        Eigen::SelfAdjointEigenSolver<MatrixXd> es(Mb, Eigen::EigenvaluesOnly);
        if (es.eigenvalues().minCoeff() < -tol.psd * scale) valid = false;
      }
      if (valid) b.blocksValidated = true;
    }
    if (b.blocksValidated && solveStructured(s, qdd, st)) {
      ++fastCount_;
      ++structuredCount_;
      if (b.multReady) {  // calcMultipliers at this state needs no new solve
        b.multReady = !stab.active();
        b.lastT = s.t;
        b.lastQ = s.q;
        b.lastV = s.v;
      }
      return st;
    }
    if (!options_.denseFallback) return undecided();  // the caller weighs the dense cost
    ensureDense();
    model_.calcMassAndForces(s, ws_);
    model_.calcConstraints(s, ws_);
    solveDense(s, qdd, st);
    if (st.finite) b.blocksValidated = true;  // the dense solver validated M (it throws otherwise)
    return st;
  }
  ensureDense();
  model_.calcMassAndForces(s, ws_);
  model_.calcConstraints(s, ws_);
  modifyRhs();
  // The first evaluation always goes through the dense solver: it validates M (symmetric,
  // positive semi-definite), which the fast path takes for granted. Non-finite values go
  // there too (it names the entry), and so do models with non-ideal joints.
  const bool finiteInput =
      ws_.M.allFinite() && ws_.Q.allFinite() && ws_.A.allFinite() && b.bmod.allFinite();
  if (path != EvaluationPath::Dense && denseCount_ > 0 && finiteInput && !model_.hasNonideal() &&
      solveFast(qdd, st)) {
    ++fastCount_;
    return st;
  }
  solveDense(s, qdd, st);
  return st;
}

bool ModelSystem::solveStructured(const State& s, VecRef qdd, AccelerationStatus& st) {
  Buffers& b = *buf_;
  const int m = model_.numConstraintRows();
  if (!b.kkt.analyzed()) {
    b.kkt.analyze(ws_);
    b.denseComps.reserve(static_cast<std::size_t>(b.kkt.numComponents()));
  }
  const detail::SparseOutcome out =
      b.kkt.solve(ws_, b.bmod, options_.regularization, options_.regularizationIterations, qdd);
  if (!out.solvable || !out.finite) return false;
  const int nc = b.kkt.numComponents();
  st.structured = true;
  st.released = out.released;
  st.redundant = out.dependent;
  st.rankA = m - out.dependent;
  // per connected component: a failed factorization, or a residual |As x - bs| beyond the
  // consistency tolerance, goes to the dense solver. A residual up to singularInconsistency is
  // drift at or near a singular position (a combination of rows nearly dependent at this state,
  // released by the regularization), not a contradiction: least squares.
  // The residual's scale is |bs| + 1e-4 |x| of the component (SparseOutcome::scale): at rest
  // (b = 0) the round-off of As x scales with the accelerations, and comparing it with |bs|
  // alone sent every state at rest to the dense solver (O(n^3) on a large chain).
  const double bsNorm = std::max(out.scale, 1e-300);
  b.denseComps.clear();
  double worst = 0;
  for (int c = 0; c < nc; ++c) {
    const double r = b.kkt.failedComponent(c) ? HUGE_VAL : b.kkt.componentResidual(c);
    const double scale = std::max(b.kkt.componentScale(c), 1e-300);
    if (r <= solver_.tolerances().consistency * scale) continue;
    if (r <= options_.singularInconsistency * scale) {
      worst = std::max(worst, r / scale);
      continue;
    }
    b.denseComps.push_back(c);
  }
  if (worst > 0) {
    st.leastSquares = true;
    st.inconsistency = worst;
  }
  if (model_.hasNonideal()) {
    // the dense solver answers models with non-ideal joints as a whole (their work C needs the
    // ideal forces of every joint), and where the multipliers are not unique (released rows:
    // the magnitudes Fi are those of the minimum-norm multipliers there)
    if (!b.denseComps.empty() || out.released > 0) return false;
    return addNonidealWork(s, qdd, out, bsNorm);
  }
  if (b.denseComps.empty()) {
    if (out.released == 0) {  // unique multipliers (no row released)
      b.kkt.lastMultipliers(b.lamIdeal);
      b.lamTotal = b.lamIdeal;
      b.multReady = true;
    }
    return true;
  }
  // one component: the whole model goes to the dense solver (which also validates M)
  if (nc == 1) return false;
  solveComponentsDense(s, qdd, st);
  return true;
}

bool ModelSystem::addNonidealWork(const State& s, VecRef qdd, const detail::SparseOutcome& ideal,
                                  double bsNorm) {
  // Non-ideal joints (docs/joints.md): C = sum_j C_j(state, Fi_j), Fi_j = |A_j^T lambda_j| of the
  // ideal solve's multipliers (unique here: no row released), then the same factorization with
  // Q + C on the right-hand side, as the dense solver does with its two solves.
  Buffers& b = *buf_;
  b.kkt.lastMultipliers(b.lambda);
  model_.calcNonidealWork(s, ws_, b.lambda);
  b.qc = ws_.Q + ws_.C;
  detail::SparseOutcome out = ideal;
  b.kkt.iterate(ws_, &b.qc, b.bmod, options_.regularizationIterations, qdd, out);
  if (!out.finite) return false;
  if (out.residual > solver_.tolerances().consistency * bsNorm) return false;
  b.lamIdeal = b.lambda;
  b.kkt.lastMultipliers(b.lamTotal);
  b.multReady = true;
  return true;
}

bool ModelSystem::calcMultipliers(const State& s, JointMultipliers& out) {
  Buffers& b = *buf_;
  const int m = model_.numConstraintRows();
  if (out.ideal.size() != m || out.total.size() != m ||
      out.redundant.size() != static_cast<std::size_t>(m))
    out.resize(m);
  if (b.multReady && s.t == b.lastT && s.q == b.lastQ && s.v == b.lastV) {
    out.ideal = b.lamIdeal;
    out.total = b.lamTotal;
    std::fill(out.redundant.begin(), out.redundant.end(), 0);
    out.valid = true;
    return true;
  }
  if (!b.multWs) b.multWs.emplace(model_.makeWorkspace(true));
  solveJointMultipliers(model_, s, *b.multWs, out, solver_);
  return false;
}

void ModelSystem::solveComponentsDense(const State& s, VecRef qdd, AccelerationStatus& st) {
  // The components in buf_->denseComps, gathered from the blocks into a dense problem of their
  // own (their coordinates and rows only: nothing couples them to the rest of the model)
  Buffers& b = *buf_;
  const detail::BlockKkt& kkt = b.kkt;
  auto chosen = [&](int c) {
    return c >= 0 && std::find(b.denseComps.begin(), b.denseComps.end(), c) != b.denseComps.end();
  };
  const auto& slots = model_.bodySlots();
  const auto& allNames = model_.coordinateNames();
  std::vector<int> local(static_cast<std::size_t>(model_.numCoordinates()), -1), coords;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!chosen(kkt.bodyComponent(static_cast<int>(i)))) continue;
    for (int k = 0; k < slots[i].size; ++k) {
      local[static_cast<std::size_t>(slots[i].offset + k)] = static_cast<int>(coords.size());
      coords.push_back(slots[i].offset + k);
      names.push_back(allNames[static_cast<std::size_t>(slots[i].offset + k)]);
    }
  }
  const auto& blocks = model_.rowBlocks();
  int mc = 0;
  for (const RowBlock& rb : blocks)
    if (rb.size > 0 && chosen(kkt.rowComponent(rb.row))) mc += rb.size;
  const auto nc = static_cast<Eigen::Index>(coords.size());
  MatrixXd M = MatrixXd::Zero(nc, nc), A = MatrixXd::Zero(mc, nc);
  VectorXd Q(nc), bc(mc);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!chosen(kkt.bodyComponent(static_cast<int>(i)))) continue;
    const int o = local[static_cast<std::size_t>(slots[i].offset)];
    M.block(o, o, slots[i].size, slots[i].size) = ws_.bodyMass(i);
    Q.segment(o, slots[i].size) = ws_.Q.segment(slots[i].offset, slots[i].size);
  }
  int row = 0;
  for (std::size_t r = 0; r < blocks.size(); ++r) {
    const RowBlock& rb = blocks[r];
    if (rb.size == 0 || !chosen(kkt.rowComponent(rb.row))) continue;
    const MatrixXd& Ar = ws_.rowBlockRows(r);
    int col = 0;
    for (int bi : model_.rowBlockBodies(r)) {
      if (bi < 0) continue;
      const BodySlot& sl = slots[static_cast<std::size_t>(bi)];
      A.block(row, local[static_cast<std::size_t>(sl.offset)], rb.size, sl.size) += Ar.middleCols(col, sl.size);
      col += sl.size;
    }
    bc.segment(row, rb.size) = b.bmod.segment(rb.row, rb.size);
    row += rb.size;
  }
  ++denseCount_;
  Solution sol;
  try {
    sol = solver_.solve(M, Q, A, bc, VectorXd(), names);
  } catch (const NonFiniteError& e) {
    reportNonFinite(s, e, st);
    return;
  }
  for (Eigen::Index k = 0; k < nc; ++k) qdd(coords[static_cast<std::size_t>(k)]) = sol.qdd(k);
  st.denseComponents = static_cast<int>(b.denseComps.size());
  // rank and redundancy: the dense decision on these components, the released count elsewhere
  const int structuredRank = st.rankA;
  AccelerationStatus part;
  describeDense(s, sol, A, bc, part);
  st.posedness = part.posedness;
  st.rankA = part.rankA < 0 ? -1 : structuredRank - mc + part.rankA;
  st.redundant += part.redundant;
  if (part.leastSquares) {
    st.leastSquares = true;
    st.inconsistency = std::max(st.inconsistency, part.inconsistency);
  }
  st.message = part.message;
  if (!st.message.empty())
    st.message += "\n  (the dense solver examined " + std::to_string(b.denseComps.size()) + " of " +
                  std::to_string(kkt.numComponents()) +
                  " connected components of the model; the others were solved through the structure)";
  st.finite = st.finite && part.finite;
}

bool ModelSystem::solveFast(VecRef qdd, AccelerationStatus& st) {
  // M q'' = Q + As^T lambda and As q'' = bs give, with mu = lambda + rho bs,
  //   W q'' = Q + As^T mu,   (As W^-1 As^T) mu = bs - As W^-1 Q,
  // i.e. q'' = z + x with z = W^-1 Q and x the least-W-norm solution of As x = bs - As z:
  // the unique q'' of a well-posed model (equations.md §4), redundant rows included.
  Buffers& b = *buf_;
  const int m = model_.numConstraintRows();
  if (!factorizeMetric()) return false;
  b.z = ws_.Q;
  b.llt.solveInPlace(b.z);
  if (m == 0) {
    qdd = b.z;
    st.rankA = 0;
    return qdd.allFinite();
  }
  b.bs = b.rowScale.cwiseProduct(b.bmod);
  b.g = b.bs;
  b.g.noalias() -= b.As * b.z;
  if (!b.all.solve(b.llt, b.As, b.g, options_.regularization, options_.regularizationIterations, b.dx))
    return false;
  qdd = b.z + b.dx;
  if (!qdd.allFinite()) return false;
  b.rankS.compute(b.all.S);
  st.rankA = static_cast<int>(b.rankS.rank());
  st.redundant = m - st.rankA;
  st.released = st.redundant;
  b.res = b.bs;
  b.res.noalias() -= b.As * qdd;
  const double bsNorm = std::max(b.bs.norm(), 1e-12);
  const double resNorm = b.res.norm();
  if (resNorm <= solver_.tolerances().consistency * bsNorm) return true;
  // A combination of rows (nearly) dependent at this state: the regularized solve released it;
  // a small residual there is drift at or near a singular position, not a contradiction.
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
      VectorXd lambda = VectorXd::Zero(model_.numConstraintRows());
      minimumNormMultipliers(ws_.A, ideal.forceIdeal, lambda, nullptr, solver_.tolerances().rank);
      model_.calcNonidealWork(s, ws_, lambda);
      last_ = solver_.solve(ws_.M, ws_.Q, ws_.A, b.bmod, ws_.C, names);
    }
  } catch (const NonFiniteError& e) {
    reportNonFinite(s, e, st);
    return;
  }
  qdd = last_.qdd;
  describeDense(s, last_, ws_.A, b.bmod, st);
}

void ModelSystem::describeDense(const State& s, const Solution& sol, const MatrixXd& A,
                                const VectorXd& bmod, AccelerationStatus& st) const {
  const Diagnosis& d = sol.diagnosis;
  st.posedness = d.status;
  st.rankA = d.rankA;
  st.redundant = d.redundant;
  if (!d.consistent) {
    // relative to |b| in the solver's row scaling
    double bs2 = 0, maxRow = 0;
    for (Eigen::Index i = 0; i < A.rows(); ++i) maxRow = std::max(maxRow, A.row(i).norm());
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
      const double nr = A.row(i).norm();
      if (maxRow > 0 && nr > solver_.tolerances().zeroRow * maxRow) bs2 += (bmod(i) / nr) * (bmod(i) / nr);
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
  } else if (!sol.qdd.allFinite()) {
    st.finite = false;
    st.message = "non-finite accelerations at t = " + std::to_string(s.t);
  }
}

}  // namespace joinery
