// ModelSystem's projector (model_system_parts.hpp): drift control of positions and velocities
// by Gauss–Newton steps of least W-norm (docs/integrators.md, "Drift control"), through the
// structured path when it serves the model and the dense metric otherwise.
#include <algorithm>
#include <cmath>

#include "model_system_parts.hpp"

namespace joinery::detail {

namespace {

/// Row-scaled gather in the scaled coordinates q = D q~: out.row(k) = (J D).row(rows[k]) over
/// its norm, rhs likewise (negated:
/// the step solves J dx = -r). Rows that are zero (within round-off of the largest) stay zero.
void gatherScaled(const MatrixXd& J, const VectorXd& r, const std::vector<int>& rows, const VectorXd& D,
                  MatrixXd& out, VectorXd& rhs) {
  double maxNorm = 0;
  for (int i : rows) maxNorm = std::max(maxNorm, rowUnitFactor(J.row(i), D) * J.row(i).cwiseProduct(D.transpose()).norm());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    const double nr = J.row(rows[k]).cwiseProduct(D.transpose()).norm();
    const double s = (maxNorm > 0 && rowUnitFactor(J.row(rows[k]), D) * nr > 1e-13 * maxNorm) ? 1.0 / nr : 0.0;
    out.row(kk) = s * J.row(rows[k]).cwiseProduct(D.transpose());
    rhs(kk) = -s * r(rows[k]);
  }
}

/// How a Gauss-Newton projection loop ended.
struct GaussNewton {
  int iterations = 0;            ///< steps taken
  bool firstStepFailed = false;  ///< no step could be computed at the starting point
  bool interrupted = false;      ///< the interrupt flag was set before a step
};

/// The Gauss-Newton loop of the projections, written once for the structured and the dense
/// solves: `step()` writes the correction into `dx` (false: no step possible), x += dx, and
/// the best iterate is kept (Gauss-Newton may overshoot far from the manifold) in `bestX`,
/// `best`, until the residual is within `tol`, not finite, or maxIterations steps are done,
/// or the interrupt flag of `opt` is set.
template <class Residual, class Step>
GaussNewton gaussNewton(VectorXd& x, const VectorXd& dx, VectorXd& bestX, double& best, double tol,
                        const ProjectionOptions& opt, Residual&& residual, Step&& step) {
  GaussNewton out;
  for (int it = 1; it <= opt.maxIterations; ++it) {
    if (opt.interrupt && *opt.interrupt != 0) {
      out.interrupted = true;
      break;
    }
    if (!step()) {
      out.firstStepFailed = it == 1;
      break;
    }
    x += dx;
    out.iterations = it;
    const double res = residual();
    if (res < best) {
      best = res;
      bestX = x;
    }
    if (res <= tol || !std::isfinite(res)) break;
  }
  return out;
}

/// The coordinates a run projects: positions s.q, or velocities s.v.
VectorXd& coordinates(Projector::Run& run) { return run.positions ? run.s.q : run.s.v; }

}  // namespace

void Projector::setup(const SystemContext& ctx) {
  const int n = ctx.model.numCoordinates();
  const int m = ctx.model.numConstraintRows();
  for (const RowBlock& rb : ctx.model.rowBlocks()) {
    const ConstraintLevel level = rb.constraint ? rb.constraint->level() : ConstraintLevel::Position;
    for (int k = 0; k < rb.size; ++k) {
      if (level == ConstraintLevel::Position) holonomic_.push_back(rb.row + k);
      if (level != ConstraintLevel::Acceleration) velocity_.push_back(rb.row + k);
    }
  }
  maskH_.assign(static_cast<std::size_t>(m), 0);
  maskV_.assign(static_cast<std::size_t>(m), 0);
  for (int i : holonomic_) maskH_[static_cast<std::size_t>(i)] = 1;
  for (int i : velocity_) maskV_[static_cast<std::size_t>(i)] = 1;
  for (VectorXd* v : {&x0_, &best_, &dx_}) *v = VectorXd::Zero(n);
  rhsRows_ = VectorXd::Zero(m);
  for (VectorXd* v : {&impulseSum_, &impulseBest_, &stepImpulse_}) *v = VectorXd::Zero(m);
  rhsH_ = VectorXd::Zero(static_cast<Eigen::Index>(holonomic_.size()));
  rhsV_ = VectorXd::Zero(static_cast<Eigen::Index>(velocity_.size()));
}

void Projector::allocate(Eigen::Index n) {
  const auto mh = static_cast<Eigen::Index>(holonomic_.size());
  const auto mv = static_cast<Eigen::Index>(velocity_.size());
  rowsH_ = MatrixXd::Zero(mh, n);
  rowsV_ = MatrixXd::Zero(mv, n);
  hol_.resize(n, mh);
  vel_.resize(n, mv);
}

double Projector::residual(const SystemContext& ctx, Run& run) {
  if (run.positions)
    ctx.model.calcPositionErrors(run.s, ctx.ws, run.r);
  else
    ctx.model.calcVelocityErrors(run.s, ctx.ws, run.r);
  return maxAbsRows(run.r, run.positions ? holonomic_ : velocity_);
}

bool Projector::begin(const SystemContext& ctx, const ProjectionOptions& opt, Run& run) {
  // positions: s.q onto phi(q, t) = 0 (holonomic rows, A = phi_q);
  // velocities: s.v onto phi' = 0 / psi = 0 (A holds phi_q on holonomic rows and psi_v on
  // non-holonomic rows; psi_v depends on v when psi is nonlinear in the velocities, so A is
  // re-evaluated at every iterate in both cases)
  if ((run.positions ? holonomic_ : velocity_).empty()) return false;
  const VectorXd& x = coordinates(run);
  const double res = residual(ctx, run);
  run.rep.residualBefore = res;
  run.rep.residualAfter = res;
  run.tol = opt.tolerance * std::max(1.0, x.cwiseAbs().maxCoeff());
  if (res <= run.tol) return false;
  if (!std::isfinite(res)) {
    run.rep.converged = false;
    return false;
  }
  x0_ = x;
  best_ = x;
  run.best = res;
  const ModelSystemOptions& o = ctx.options;
  // velocities: nearly dependent rows released earlier (see projectionRegularization)
  run.lambda = run.positions ? o.regularization : std::max(o.regularization, o.projectionRegularization);
  // and twice the iterations, so that well-conditioned rows still converge to round-off
  run.iterations = run.positions ? o.regularizationIterations : 2 * o.regularizationIterations;
  return true;
}

bool Projector::structuredSteps(const SystemContext& ctx, const ProjectionOptions& opt, StructuredPath& sp,
                                Run& run) {
  // Each Gauss-Newton step solves [W As^T; As -dI] on the selected rows (the others masked
  // out), W = M + rho As_P^T As_P with M taken at the starting point; a failed first step
  // goes to the dense steps.
  VectorXd& x = coordinates(run);
  BlockKkt& kkt = sp.kkt();
  // the factorization is that of an evaluation at the current state when it holds every row and
  // M was taken at this q: always for velocities (q does not move), the first step for positions
  const bool allRows =
      (run.positions ? holonomic_.size() : velocity_.size()) == static_cast<std::size_t>(ctx.model.numConstraintRows());
  bool firstStep = true;
  // Chord steps: a step after the first reuses the factorization (and the rows it was made
  // from) while the residual falls at least kChordContraction per step; a slower fall factorizes
  // again at the current iterate (a Newton step). Near the manifold, where drift control
  // works, the rows hardly change over a projection and one factorization serves every step.
  constexpr double kChordContraction = 0.25;
  constexpr double kRefineFraction = 0.1;
  SparseOutcome factored;  // the last factorization's outcome (factorized: chord steps possible)
  // Positions after a step: the factorization in kkt is usually the step's last evaluation's, at
  // the unprojected end of the step (or its last stage), of every row: the first step is a chord
  // step on it when no row would be released at this run's regularization (chordFits); the
  // residual must then fall as for any chord step, or the next step factorizes. Velocities
  // factorize at the projected positions as before: the evaluation that follows reuses that
  // factorization (noteFactor), so a chord there would save nothing.
  bool chordStart = run.positions && allRows && sp.chordFits(run.lambda);
  if (chordStart) {
    factored.factorized = factored.solvable = true;
    factored.released = 0;
  }
  // M at the starting point; a chord start needs none (its solves do not read M), and should
  // it not converge, M is taken where the first factorization is made
  bool haveM = false;
  const auto needM = [&] {
    if (haveM) return;
    ctx.model.calcBodyBlocks(run.s, ctx.ws);
    haveM = true;
  };
  if (!chordStart) needM();
  // Velocities: the factorization is first made at the accelerations' regularization, and its
  // step kept unless a row is released there or the step amplifies the residual beyond
  // projectionAmplification (max |dv| against the largest residual of the unit-norm rows): the
  // mark of rows becoming dependent, which the larger projectionRegularization then releases
  // (docs/integrators.md, "Drift control near a singular position"). Elsewhere every row is so
  // enforced in one solve, and the evaluation that follows reuses the factorization. (On a long
  // chain the larger regularization also released rows whose pivots are small for another
  // reason, the mass beyond them, and refined each step with many solves.)
  const double smallLambda = ctx.options.regularization;
  bool unreleased = !run.positions && run.lambda > smallLambda && ctx.options.projectionAmplification > 0;
  const auto factorAt = [&](double lambda) {
    needM();
    factored = kkt.factor(ctx.ws, run.positions ? &maskH_ : &maskV_, lambda);
    ++run.rep.factorizations;
    sp.noteFactor(run.s, allRows && (firstStep || !run.positions), allRows, factored, lambda);
  };
  const auto solveStep = [&] {
    SparseOutcome out = factored;
    rhsRows_ = -run.r;
    // the refinement (released rows: up to run.iterations solves) stops once the rows'
    // linear residual is well within the projection's tolerance
    kkt.iterate(ctx.ws, nullptr, rhsRows_, run.iterations, dx_, out, false, kRefineFraction * run.tol);
    run.rep.solves += out.iterations;
    return out.finite;
  };
  double previous = run.best, latest = run.best;
  // velocities: the steps' multipliers, M dx = A^T lambda on the rows (BlockKkt::lastMultipliers
  // with no force), summed as gaussNewton sums the steps; unique only when no row is released
  impulsesValid_ = !run.positions;
  if (impulsesValid_) {
    impulseSum_.setZero();
    impulseBest_.setZero();
  }
  const GaussNewton gn = gaussNewton(
      x, dx_, best_, run.best, run.tol, opt,
      [&] {
        previous = latest;
        latest = residual(ctx, run);
        if (impulsesValid_ && latest < run.best) impulseBest_ = impulseSum_;  // (gaussNewton keeps this iterate)
        return latest;
      },
      [&] {
        bool fresh = false;
        if (!(factored.factorized && (chordStart || latest <= kChordContraction * previous))) {
          ctx.model.calcRowBlocks(run.s, ctx.ws);
          fresh = true;
          if (unreleased) {
            factorAt(smallLambda);
            if (factored.factorized && factored.releasedNonzero() > 0) unreleased = false;
          }
          if (!unreleased) factorAt(run.lambda);
          if (!factored.factorized) return false;
        }
        chordStart = false;
        if (!solveStep()) return false;
        if (unreleased && fresh) {
          const double amplified = dx_.cwiseAbs().maxCoeff();
          if (!(amplified <= ctx.options.projectionAmplification * kkt.scaledMaxAbs(run.r))) {
            unreleased = false;  // rows near dependence: the larger regularization from here on
            factorAt(run.lambda);
            if (!factored.factorized) return false;
            if (!solveStep()) return false;
          }
        }
        firstStep = false;
        if (impulsesValid_) {
          if (factored.releasedNonzero() != 0) {
            impulsesValid_ = false;
          } else {
            kkt.lastMultipliers(stepImpulse_);
            impulseSum_ += stepImpulse_;
          }
        }
        return true;
      });
  run.rep.iterations = gn.iterations;
  run.rep.interrupted = gn.interrupted;
  if (gn.interrupted) impulsesValid_ = false;
  if (!gn.firstStepFailed) return true;
  impulsesValid_ = false;
  x = x0_;
  (void)residual(ctx, run);  // r at the starting point again: the dense steps read it
  return false;
}

void Projector::denseSteps(const SystemContext& ctx, const ProjectionOptions& opt,
                           const Eigen::LLT<MatrixXd>& metric, Run& run) {
  // ctx.ws.A holds the rows at the starting point (so does the metric, kept over the steps)
  const std::vector<int>& rows = run.positions ? holonomic_ : velocity_;
  MatrixXd& J = run.positions ? rowsH_ : rowsV_;
  VectorXd& rhs = run.positions ? rhsH_ : rhsV_;
  MetricSolve& solve = run.positions ? hol_ : vel_;
  bool first = true;
  const GaussNewton gn =
      gaussNewton(coordinates(run), dx_, best_, run.best, run.tol, opt,
                  [&] { return residual(ctx, run); },
                  [&] {
                    if (!first) ctx.model.calcConstraints(run.s, ctx.ws);  // the rows at the current iterate
                    first = false;
                    // in the scaled coordinates of the metric (DensePath::factorizeMetric)
                    gatherScaled(ctx.ws.A, run.r, rows, ctx.columnScale, J, rhs);
                    const bool ok = solve.solve(metric, J, rhs, run.lambda, run.iterations, dx_);
                    dx_.array() *= ctx.columnScale.array();
                    return ok;
                  });
  run.rep.iterations = gn.iterations;
  run.rep.interrupted = gn.interrupted;
}

bool Projector::correctionMultipliers(VectorXd& P) const {
  if (!impulsesValid_) return false;
  P = impulseBest_;
  return true;
}

ProjectionReport Projector::finish(Run& run) {
  VectorXd& x = coordinates(run);
  x = best_;
  run.rep.residualAfter = run.best;
  run.rep.converged = run.best <= run.tol;
  run.rep.correction = (x - x0_).cwiseAbs().maxCoeff();
  return run.rep;
}

}  // namespace joinery::detail
