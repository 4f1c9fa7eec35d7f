// Forward dynamics of a Model through the dense reference solver (forward_dynamics.hpp).
#include "joinery/core/forward_dynamics.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "joinery/core/joint_results.hpp"

namespace joinery {

Eigen::VectorXd coordinateScales(const Model& model) {
  const auto& slots = model.bodySlots();
  std::vector<double> radius(slots.size(), 0.0);
  double largest = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::optional<MassProperties> mp = slots[i].body->massProperties();
    if (!mp || mp->rotations == 0 || !(mp->mass > 0)) continue;
    const double inertia = mp->inertia.diagonal().cwiseAbs().maxCoeff();
    const double r = std::sqrt(inertia / mp->mass);
    if (std::isfinite(r) && r > 0) {
      radius[i] = r;
      largest = std::max(largest, r);
    }
  }
  // a rigid body without a radius of its own: the largest of the others, else the model's size
  if (!(largest > 0)) {
    bool rotating = false;
    for (const BodySlot& sl : slots)
      for (int k = 0; k < sl.size && !rotating; ++k) {
        const CoordinateKind kind = sl.body->coordinateKind(k);
        rotating = kind == CoordinateKind::Angle || kind == CoordinateKind::Quaternion;
      }
    if (rotating) largest = modelLengthScale(model, model.initialState().q);
  }
  Eigen::VectorXd scale = Eigen::VectorXd::Ones(model.numCoordinates());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Body& b = *slots[i].body;
    const double r = radius[i] > 0 ? radius[i] : largest;
    if (!(r > 0)) continue;
    for (int k = 0; k < slots[i].size; ++k) {
      const CoordinateKind kind = b.coordinateKind(k);
      if (kind == CoordinateKind::Angle || kind == CoordinateKind::Quaternion) scale(slots[i].offset + k) = 1.0 / r;
    }
  }
  // 1/r overflows for r below 1/DBL_MAX (a radius of 1e-310 m): such a coordinate keeps 1
  for (Eigen::Index k = 0; k < scale.size(); ++k)
    if (!std::isfinite(scale(k))) scale(k) = 1.0;
  return scale;
}

double modelLengthScale(const Model& model, const Eigen::VectorXd& q) {
  Eigen::Vector3d lo = Eigen::Vector3d::Zero(), hi = Eigen::Vector3d::Zero();  // the world origin
  double size = 0;
  for (const BodySlot& sl : model.bodySlots()) {
    const std::optional<MassProperties> mp = sl.body->massProperties();
    if (!mp || mp->translations <= 0 || mp->translations > sl.size || sl.offset + sl.size > q.size()) continue;
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    for (int k = 0; k < mp->translations && k < 3; ++k) c(k) = q(sl.offset + k);
    if (!c.allFinite()) continue;
    lo = lo.cwiseMin(c);
    hi = hi.cwiseMax(c);
    if (mp->mass > 0) {
      const double r = std::sqrt(mp->inertia.diagonal().cwiseAbs().maxCoeff() / mp->mass);
      if (std::isfinite(r)) size = std::max(size, r);
    }
  }
  return std::max(size, (hi - lo).norm());
}

Solution solveForwardDynamics(const Model& model, const State& s, ModelWorkspace& ws,
                              const DenseSolver& solver) {
  model.calcMassAndForces(s, ws);
  model.calcConstraints(s, ws);
  const auto& names = model.coordinateNames();
  const VectorXd scale = coordinateScales(model);
  if (!model.hasNonideal()) return solver.solve(ws.M, ws.Q, ws.A, ws.b, VectorXd(), names, scale);
  // ideal solve first, then C from the ideal multipliers (each law gets its joint's
  // A_j^T lambda_j and Fi), then the full solve
  const Solution ideal = solver.solve(ws.M, ws.Q, ws.A, ws.b, VectorXd(), names, scale);
  VectorXd lambda = VectorXd::Zero(model.numConstraintRows());
  minimumNormMultipliers(ws.A, ideal.forceIdeal, lambda, nullptr, solver.tolerances().rank);
  model.calcNonidealWork(s, ws, lambda);
  return solver.solve(ws.M, ws.Q, ws.A, ws.b, ws.C, names, scale);
}

}  // namespace joinery
