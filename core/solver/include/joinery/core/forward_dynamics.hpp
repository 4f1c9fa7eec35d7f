#pragma once
/// @file forward_dynamics.hpp
/// Forward dynamics of a Model through the dense reference solver (dense_solver.hpp): the
/// solver-side entry point, so that the model (model.hpp) does not depend on a solver.

#include "joinery/core/dense_solver.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

/// Accelerations, constraint forces and diagnosis of a model at a state, through the dense
/// reference solver: ideal solve, then (if any joint is non-ideal) the minimum-norm ideal
/// multipliers, C from each joint's law, and the full solve. Coordinates are named "body.coord" in the diagnosis.
Solution solveForwardDynamics(const Model& model, const State& s, ModelWorkspace& ws,
                              const DenseSolver& solver = DenseSolver());

}  // namespace joinery
