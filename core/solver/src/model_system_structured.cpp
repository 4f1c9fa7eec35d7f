// ModelSystem's structured path (model_system_parts.hpp): block elimination over the body-joint
// graph (sparse_path.hpp), with the checks that send a state, or some connected components of
// it, to the dense reference solver; non-ideal joints on the same factorization; the
// multipliers of the last solve for joint results.
#include <algorithm>
#include <cmath>
#include <string>

#include "model_system_parts.hpp"

namespace joinery::detail {

void StructuredPath::setup(const SystemContext& ctx) {
  const int n = ctx.model.numCoordinates();
  const int m = ctx.model.numConstraintRows();
  kkt_.setup(ctx.model, ctx.solver.tolerances().zeroRow, ctx.options.fastPathRcond);
  lambda_ = VectorXd::Zero(m);
  for (VectorXd* v : {&lamIdeal_, &lamTotal_}) *v = VectorXd::Zero(m);
  for (VectorXd* v : {&lastQ_, &lastV_, &factorQ_, &factorV_}) *v = VectorXd::Zero(n);
  // the Jacobian of a position-level row is phi_q(q, t) (a body's internal rows are holonomic):
  // only other rows may depend on the velocities
  rowsNeedV_ = false;
  for (const RowBlock& rb : ctx.model.rowBlocks())
    if (rb.size > 0 && rb.constraint && rb.constraint->level() != ConstraintLevel::Position) rowsNeedV_ = true;
}

void StructuredPath::noteFactor(const State& s, bool reusable, bool allRows, const SparseOutcome& out,
                                double lambda) {
  chordReady_ = allRows && out.factorized && out.released == 0;
  // a replaced pivot depends on the threshold (and makes the answer iterate): not reused
  factorReady_ = reusable && out.factorized && out.released == 0;
  if (!factorReady_) return;
  factorT_ = s.t;
  factorQ_ = s.q;
  if (rowsNeedV_) factorV_ = s.v;
  factorLambda_ = lambda;
}

bool StructuredPath::factorFits(const State& s, double lambda) const {
  // no pivot replaced at the noted threshold lambda / rho: none at a smaller one either (rho
  // comes from the same M)
  return factorReady_ && lambda <= factorLambda_ && s.t == factorT_ && s.q == factorQ_ &&
         (!rowsNeedV_ || s.v == factorV_);
}

bool StructuredPath::chordFits(double lambda) const {
  return chordReady_ && kkt_.smallestRowPivot() >= 2 * lambda / kkt_.lastRho();
}

void StructuredPath::validateBlocks(const SystemContext& ctx, const VectorXd& b) {
  if (validated_) return;
  const ModelWorkspace& ws = ctx.ws;
  const SolverTolerances& tol = ctx.solver.tolerances();
  if (!ws.Q.allFinite() || !b.allFinite()) return;
  for (std::size_t i = 0; i < ctx.model.bodySlots().size(); ++i) {
    const auto Mb = ws.bodyMass(i);
    if (Mb.size() == 0) continue;
    const double scale = std::max(1e-300, Mb.cwiseAbs().maxCoeff());
    if (!Mb.allFinite() || (Mb - Mb.transpose()).cwiseAbs().maxCoeff() > tol.symmetry * scale) return;
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(Mb, Eigen::EigenvaluesOnly);
    if (es.eigenvalues().minCoeff() < -tol.psd * scale) return;
  }
  validated_ = true;
}

void StructuredPath::prepare(const SystemContext& ctx, const VectorXd& b) {
  validateBlocks(ctx, b);
  if (!validated_ || kkt_.analyzed()) return;
  kkt_.analyze(ctx.ws);
  denseComps_.reserve(static_cast<std::size_t>(kkt_.numComponents()));
}

StructuredPath::Outcome StructuredPath::solve(const SystemContext& ctx, const State& s,
                                              const VectorXd& b, VecRef qdd, AccelerationStatus& st) {
  const int m = ctx.model.numConstraintRows();
  const ModelSystemOptions& opt = ctx.options;
  if (!kkt_.analyzed()) {
    kkt_.analyze(ctx.ws);
    denseComps_.reserve(static_cast<std::size_t>(kkt_.numComponents()));
  }
  // the blocks in ctx.ws are those of `s` (evaluateStructured); when the factorization is
  // already theirs, only the substitutions and the residual are left
  SparseOutcome out;
  if (factorFits(s, opt.regularization)) {
    out = kkt_.solveFactored(ctx.ws, b, opt.regularizationIterations, qdd);
    ++reused_;
  } else {
    out = kkt_.solve(ctx.ws, b, opt.regularization, opt.regularizationIterations, qdd);
    noteFactor(s, true, true, out, opt.regularization);
  }
  if (!out.solvable || !out.finite) return Outcome::Failed;
  const int nc = kkt_.numComponents();
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
  denseComps_.clear();
  double worst = 0;
  for (int c = 0; c < nc; ++c) {
    const double r = kkt_.failedComponent(c) ? HUGE_VAL : kkt_.componentResidual(c);
    const double scale = std::max(kkt_.componentScale(c), 1e-300);
    if (r <= ctx.solver.tolerances().consistency * scale) continue;
    if (r <= opt.singularInconsistency * scale) {
      worst = std::max(worst, r / scale);
      continue;
    }
    denseComps_.push_back(c);
  }
  if (worst > 0) {
    st.leastSquares = true;
    st.inconsistency = worst;
  }
  if (ctx.model.hasNonideal()) {
    // the dense solver answers models with non-ideal joints as a whole (their work C needs the
    // ideal forces of every joint), and where the multipliers are not unique (released rows:
    // the magnitudes Fi are those of the minimum-norm multipliers there; zero rows, e.g. an
    // inactive contact or a slipping point's tangential row, are not: SparseOutcome)
    if (!denseComps_.empty() || out.releasedNonzero() > 0) return Outcome::Failed;
    return addNonidealWork(ctx, s, b, qdd, out, bsNorm) ? Outcome::Solved : Outcome::Failed;
  }
  if (denseComps_.empty()) {
    // unique multipliers (no row released but zero rows, e.g. inactive one-sided rows, whose
    // multiplier is 0): read from kkt_ on demand
    if (out.releasedNonzero() == 0) {
      multPending_ = true;
      multReady_ = true;
    }
    return Outcome::Solved;
  }
  // one component: the whole model goes to the dense solver (which also validates M)
  if (nc == 1) return Outcome::Failed;
  solveComponentsDense(ctx, s, b, qdd, st);
  return Outcome::SolvedInPart;
}

bool StructuredPath::addNonidealWork(const SystemContext& ctx, const State& s, const VectorXd& b,
                                     VecRef qdd, const SparseOutcome& ideal, double bsNorm) {
  // Non-ideal joints (docs/joints.md): C = sum_j C_j(state, Fi_j), Fi_j = |A_j^T lambda_j| of the
  // ideal solve's multipliers (unique here: no row released), then the same factorization with
  // Q + C on the right-hand side, as the dense solver does with its two solves.
  kkt_.lastMultipliers(lambda_);
  ctx.model.calcNonidealWork(s, ctx.ws, lambda_);
  qc_ = ctx.ws.Q + ctx.ws.C;
  SparseOutcome out = ideal;
  kkt_.iterate(ctx.ws, &qc_, b, ctx.options.regularizationIterations, qdd, out);
  if (!out.finite) return false;
  if (out.residual > ctx.solver.tolerances().consistency * bsNorm) return false;
  lamIdeal_ = lambda_;
  kkt_.lastMultipliers(lamTotal_);
  multPending_ = false;
  multReady_ = true;
  return true;
}

void StructuredPath::keepMultipliersOf(const State& s, bool stabilized) {
  if (!multReady_) return;
  if (stabilized) {  // not the model's multipliers: nothing to keep (no copy of the state)
    multReady_ = false;
    return;
  }
  lastT_ = s.t;
  lastQ_ = s.q;
  lastV_ = s.v;
}

void StructuredPath::holdMultipliers() {
  if (!multPending_) return;
  kkt_.lastMultipliers(lamIdeal_);
  lamTotal_ = lamIdeal_;
  multPending_ = false;
}

bool StructuredPath::cachedMultipliers(const State& s, JointMultipliers& out) const {
  if (!(multReady_ && s.t == lastT_ && s.q == lastQ_ && s.v == lastV_)) return false;
  if (multPending_) {  // kkt_ still holds the solve (every other use went through kkt())
    kkt_.lastMultipliers(out.ideal);
    out.total = out.ideal;
  } else {
    out.ideal = lamIdeal_;
    out.total = lamTotal_;
  }
  std::fill(out.redundant.begin(), out.redundant.end(), 0);
  out.valid = true;
  return true;
}

void StructuredPath::solveComponentsDense(const SystemContext& ctx, const State& s,
                                          const VectorXd& b, VecRef qdd, AccelerationStatus& st) {
  // The components in denseComps_, gathered from the blocks into a dense problem of their own
  // (their coordinates and rows only: nothing couples them to the rest of the model)
  const Model& model = ctx.model;
  auto chosen = [&](int c) {
    return c >= 0 && std::find(denseComps_.begin(), denseComps_.end(), c) != denseComps_.end();
  };
  const auto& slots = model.bodySlots();
  const auto& allNames = model.coordinateNames();
  std::vector<int> local(static_cast<std::size_t>(model.numCoordinates()), -1), coords;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!chosen(kkt_.bodyComponent(static_cast<int>(i)))) continue;
    for (int k = 0; k < slots[i].size; ++k) {
      local[static_cast<std::size_t>(slots[i].offset + k)] = static_cast<int>(coords.size());
      coords.push_back(slots[i].offset + k);
      names.push_back(allNames[static_cast<std::size_t>(slots[i].offset + k)]);
    }
  }
  const auto& blocks = model.rowBlocks();
  int mc = 0;
  for (const RowBlock& rb : blocks)
    if (rb.size > 0 && chosen(kkt_.rowComponent(rb.row))) mc += rb.size;
  const auto nc = static_cast<Eigen::Index>(coords.size());
  MatrixXd M = MatrixXd::Zero(nc, nc), A = MatrixXd::Zero(mc, nc);
  VectorXd Q(nc), bc(mc);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!chosen(kkt_.bodyComponent(static_cast<int>(i)))) continue;
    const int o = local[static_cast<std::size_t>(slots[i].offset)];
    M.block(o, o, slots[i].size, slots[i].size) = ctx.ws.bodyMass(i);
    Q.segment(o, slots[i].size) = ctx.ws.Q.segment(slots[i].offset, slots[i].size);
  }
  int row = 0;
  for (std::size_t r = 0; r < blocks.size(); ++r) {
    const RowBlock& rb = blocks[r];
    if (rb.size == 0 || !chosen(kkt_.rowComponent(rb.row))) continue;
    const auto Ar = ctx.ws.rowBlockRows(r);
    int col = 0;
    for (int bi : model.rowBlockBodies(r)) {
      if (bi < 0) continue;
      const BodySlot& sl = slots[static_cast<std::size_t>(bi)];
      A.block(row, local[static_cast<std::size_t>(sl.offset)], rb.size, sl.size) += Ar.middleCols(col, sl.size);
      col += sl.size;
    }
    bc.segment(row, rb.size) = b.segment(rb.row, rb.size);
    row += rb.size;
  }
  VectorXd scale(nc);  // the model's column scale on these coordinates
  for (Eigen::Index k = 0; k < nc; ++k) scale(k) = ctx.columnScale(coords[static_cast<std::size_t>(k)]);
  Solution sol;
  try {
    sol = ctx.solver.solve(M, Q, A, bc, VectorXd(), names, scale);
  } catch (const NonFiniteError& e) {
    reportNonFinite(ctx.model, s, e, st);
    return;
  }
  for (Eigen::Index k = 0; k < nc; ++k) qdd(coords[static_cast<std::size_t>(k)]) = sol.qdd(k);
  st.denseComponents = static_cast<int>(denseComps_.size());
  // rank and redundancy: the dense decision on these components, the released count elsewhere
  const int structuredRank = st.rankA;
  AccelerationStatus part;
  describeDenseSolution(ctx, s, sol, A, bc, part, scale);
  st.posedness = part.posedness;
  st.rankA = part.rankA < 0 ? -1 : structuredRank - mc + part.rankA;
  st.redundant += part.redundant;
  if (part.leastSquares) {
    st.leastSquares = true;
    st.inconsistency = std::max(st.inconsistency, part.inconsistency);
  }
  st.message = part.message;
  if (!st.message.empty())
    st.message += "\n  (the dense solver examined " + std::to_string(denseComps_.size()) + " of " +
                  std::to_string(kkt_.numComponents()) +
                  " connected components of the model; the others were solved through the structure)";
  st.finite = st.finite && part.finite;
}

}  // namespace joinery::detail
