// Forward dynamics of a Model through the dense reference solver (forward_dynamics.hpp).
#include "joinery/core/forward_dynamics.hpp"

#include <Eigen/Dense>

namespace joinery {

VectorXd idealForceMagnitudes(const Model& model, const ModelWorkspace& ws, const VectorXd& forceIdeal) {
  const auto constraints = model.constraints();
  VectorXd Fi = VectorXd::Zero(static_cast<Eigen::Index>(constraints.size()));
  if (model.numConstraintRows() == 0) return Fi;
  // minimum-norm multipliers: A^T lambda = forceIdeal (forceIdeal lies in range(A^T))
  Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod(ws.A.transpose());
  cod.setThreshold(1e-10);
  const VectorXd lambda = cod.solve(forceIdeal);
  std::size_t j = 0;
  for (const RowBlock& rb : model.rowBlocks()) {
    if (!rb.constraint) continue;
    while (j < constraints.size() && constraints[j] != rb.constraint) ++j;
    if (j >= constraints.size()) break;
    Fi(static_cast<Eigen::Index>(j)) =
        (ws.A.middleRows(rb.row, rb.size).transpose() * lambda.segment(rb.row, rb.size)).norm();
  }
  return Fi;
}

Solution solveForwardDynamics(const Model& model, const State& s, ModelWorkspace& ws,
                              const DenseSolver& solver) {
  model.calcMassAndForces(s, ws);
  model.calcConstraints(s, ws);
  const auto& names = model.coordinateNames();
  if (!model.hasNonideal()) return solver.solve(ws.M, ws.Q, ws.A, ws.b, VectorXd(), names);
  // ideal solve first, then C from the ideal force magnitudes, then the full solve
  const Solution ideal = solver.solve(ws.M, ws.Q, ws.A, ws.b, VectorXd(), names);
  const VectorXd Fi = idealForceMagnitudes(model, ws, ideal.forceIdeal);
  model.calcNonidealWork(s, ws, Fi);
  return solver.solve(ws.M, ws.Q, ws.A, ws.b, ws.C, names);
}

}  // namespace joinery
