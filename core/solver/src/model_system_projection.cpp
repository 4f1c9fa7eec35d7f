// ModelSystem's projector: drift control of positions and velocities by Gauss–Newton steps of
// least W-norm (docs/integrators.md, "Drift control"), through the structured path when it
// serves the model and the dense metric otherwise; and the constraint residuals.
#include <algorithm>
#include <cmath>

#include "model_system_buffers.hpp"

namespace joinery {

using detail::maxAbsRows;
using detail::MetricSolve;

namespace {

/// Row-scaled gather: out.row(k) = J.row(rows[k]) / |J.row(rows[k])|, rhs likewise (negated:
/// the step solves J dx = -r). Rows that are zero (within round-off of the largest) stay zero.
void gatherScaled(const MatrixXd& J, const VectorXd& r, const std::vector<int>& rows,
                  MatrixXd& out, VectorXd& rhs) {
  double maxNorm = 0;
  for (int i : rows) maxNorm = std::max(maxNorm, J.row(i).norm());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    const double nr = J.row(rows[k]).norm();
    const double s = (maxNorm > 0 && nr > 1e-13 * maxNorm) ? 1.0 / nr : 0.0;
    out.row(kk) = s * J.row(rows[k]);
    rhs(kk) = -s * r(rows[k]);
  }
}

}  // namespace

ProjectionReport ModelSystem::projectPositions(State& s, const ProjectionOptions& opt) {
  return project(s, opt, true);
}

ProjectionReport ModelSystem::projectVelocities(State& s, const ProjectionOptions& opt) {
  return project(s, opt, false);
}

namespace {

/// How a Gauss-Newton projection loop ended.
struct GaussNewton {
  int iterations = 0;            ///< steps taken
  bool firstStepFailed = false;  ///< no step could be computed at the starting point
};

/// The Gauss-Newton loop of the projections, written once for the structured and the dense
/// solves: `step()` writes the correction into `dx` (false: no step possible), x += dx, and
/// the best iterate is kept (Gauss-Newton may overshoot far from the manifold) in `bestX`,
/// `best`, until the residual is within `tol`, not finite, or maxIterations steps are done.
template <class Residual, class Step>
GaussNewton gaussNewton(VectorXd& x, const VectorXd& dx, VectorXd& bestX, double& best, double tol,
                        int maxIterations, Residual&& residual, Step&& step) {
  GaussNewton out;
  for (int it = 1; it <= maxIterations; ++it) {
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

}  // namespace

ProjectionReport ModelSystem::project(State& s, const ProjectionOptions& opt, bool positions) {
  // positions: s.q onto phi(q, t) = 0 (holonomic rows, A = phi_q);
  // velocities: s.v onto phi' = 0 / psi = 0 (A holds phi_q on holonomic rows and psi_v on
  // non-holonomic rows; psi_v depends on v when psi is nonlinear in the velocities, so A is
  // re-evaluated at every iterate in both cases)
  ProjectionReport rep;
  Buffers& b = *buf_;
  const std::vector<int>& rows = positions ? b.holonomic : b.velocity;
  if (rows.empty()) return rep;
  VectorXd& x = positions ? s.q : s.v;
  VectorXd& r = positions ? b.phi : b.psi;
  auto residual = [&] {
    if (positions)
      model_.calcPositionErrors(s, ws_, r);
    else
      model_.calcVelocityErrors(s, ws_, r);
    return maxAbsRows(r, rows);
  };
  const double res = residual();
  rep.residualBefore = res;
  rep.residualAfter = res;
  const double tol = opt.tolerance * std::max(1.0, x.cwiseAbs().maxCoeff());
  if (res <= tol) return rep;
  if (!std::isfinite(res)) {
    rep.converged = false;
    return rep;
  }
  b.x0 = x;
  b.best = x;
  double best = res;
  // velocities: nearly dependent rows released earlier (see projectionRegularization)
  const double projectionLambda =
      positions ? options_.regularization : std::max(options_.regularization, options_.projectionRegularization);
  // and twice the iterations, so that well-conditioned rows still converge to round-off
  const int projectionIterations = positions ? options_.regularizationIterations : 2 * options_.regularizationIterations;
  // Structured: each Gauss-Newton step solves [W As^T; As -dI] on the selected rows (the others
  // masked out), W = M + rho As_P^T As_P with M taken at the starting point; any failure goes
  // to the dense projection below.
  if (resolvedPath() == EvaluationPath::Structured && b.blocksValidated && b.kkt.analyzed()) {
    model_.calcBodyBlocks(s, ws_);
    const GaussNewton gn = gaussNewton(x, b.dx, b.best, best, tol, opt.maxIterations, residual, [&] {
      model_.calcRowBlocks(s, ws_);
      detail::SparseOutcome out = b.kkt.factor(ws_, positions ? &b.maskH : &b.maskV, projectionLambda);
      if (!out.factorized) return false;
      b.rhsRows = -r;
      b.kkt.iterate(ws_, nullptr, b.rhsRows, projectionIterations, b.dx, out);
      return out.finite;
    });
    rep.iterations = gn.iterations;
    if (!gn.firstStepFailed) {
      x = b.best;
      rep.residualAfter = best;
      rep.converged = best <= tol;
      rep.correction = (x - b.x0).cwiseAbs().maxCoeff();
      return rep;
    }
    x = b.x0;
    (void)residual();  // r at the starting point again: the dense steps read it
  }
  // the metric is taken at the starting point and kept over the iterations
  ensureDense();
  model_.calcMassAndForces(s, ws_);
  model_.calcConstraints(s, ws_);
  if (!factorizeMetric()) {
    rep.converged = false;
    return rep;
  }
  MatrixXd& J = positions ? b.rowsH : b.rowsV;
  VectorXd& rhs = positions ? b.rhsH : b.rhsV;
  MetricSolve& solve = positions ? b.hol : b.vel;
  bool first = true;
  rep.iterations = gaussNewton(x, b.dx, b.best, best, tol, opt.maxIterations, residual, [&] {
                     if (!first) model_.calcConstraints(s, ws_);  // the rows at the current iterate
                     first = false;
                     gatherScaled(ws_.A, r, rows, J, rhs);
                     return solve.solve(b.llt, J, rhs, projectionLambda, projectionIterations, b.dx);
                   }).iterations;
  x = b.best;
  rep.residualAfter = best;
  rep.converged = best <= tol;
  rep.correction = (x - b.x0).cwiseAbs().maxCoeff();
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
