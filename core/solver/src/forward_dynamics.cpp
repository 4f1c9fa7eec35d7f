// Forward dynamics of a Model through the dense reference solver (forward_dynamics.hpp).
#include "joinery/core/forward_dynamics.hpp"

#include <Eigen/Dense>

#include "joinery/core/joint_results.hpp"

namespace joinery {

Solution solveForwardDynamics(const Model& model, const State& s, ModelWorkspace& ws,
                              const DenseSolver& solver) {
  model.calcMassAndForces(s, ws);
  model.calcConstraints(s, ws);
  const auto& names = model.coordinateNames();
  if (!model.hasNonideal()) return solver.solve(ws.M, ws.Q, ws.A, ws.b, VectorXd(), names);
  // ideal solve first, then C from the ideal multipliers (each law gets its joint's
  // A_j^T lambda_j and Fi), then the full solve
  const Solution ideal = solver.solve(ws.M, ws.Q, ws.A, ws.b, VectorXd(), names);
  VectorXd lambda = VectorXd::Zero(model.numConstraintRows());
  minimumNormMultipliers(ws.A, ideal.forceIdeal, lambda, nullptr, solver.tolerances().rank);
  model.calcNonidealWork(s, ws, lambda);
  return solver.solve(ws.M, ws.Q, ws.A, ws.b, ws.C, names);
}

}  // namespace joinery
