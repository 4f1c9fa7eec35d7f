#pragma once
/// @file forward_dynamics.hpp
/// Forward dynamics of a Model through the dense reference solver (dense_solver.hpp): the
/// solver-side entry point, so that the model (model.hpp) does not depend on a solver.

#include "joinery/core/dense_solver.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

/// The units the dense solver decides rank and consistency in (DenseSolver::solve's
/// `columnScale`), one per coordinate of the model: 1 for a length and for a coordinate of
/// the user's own units; 1/r for a rigid body's angle or quaternion, r its radius of gyration
/// (sqrt of its largest principal inertia over its mass). An angle then counts as the arc length
/// r theta, and its inertia as the mass I / r^2, so that the translational and rotational
/// rows and columns of a rigid body compare at every scale of length and mass: a pendulum of
/// 1e-12 m or 1e12 m is as well posed as one of 1 m. A rigid body without that radius
/// (massless, or with no inertia) takes the largest radius of the model's other bodies, or
/// when none has one the model's size at its initial state (modelLengthScale), or 1.
Eigen::VectorXd coordinateScales(const Model& model);

/// The size of a model at the state `q` (m): the diagonal of the box that holds the centres of
/// mass of its bodies (particle, rigid2d, rigid3d) and the world origin, and at least the
/// largest radius of gyration; 0 when no body has a centre of mass. A run's constraint drift is
/// judged against it (kDriftTolerance).
double modelLengthScale(const Model& model, const Eigen::VectorXd& q);

/// A run whose worst position residual passes this fraction of modelLengthScale() at its start
/// (and the run's absolute tolerance atol) has drifted off its constraints (joints a thousandth of the model's size apart): `joinery
/// simulate` warns and says so in its summary (`constraint_drift`). Projection keeps residuals
/// near the integrator's tolerance, far below; "stabilization": "none" on a chaotic model
/// passes it within seconds.
constexpr double kDriftTolerance = 1e-3;

/// Accelerations, constraint forces and diagnosis of a model at a state, through the dense
/// reference solver: ideal solve, then (if any joint is non-ideal) the minimum-norm ideal
/// multipliers, C from each joint's law, and the full solve. Coordinates are named "body.coord" in the diagnosis.
Solution solveForwardDynamics(const Model& model, const State& s, ModelWorkspace& ws,
                              const DenseSolver& solver = DenseSolver());

}  // namespace joinery
