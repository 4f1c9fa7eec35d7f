#pragma once
/// @file rigid2d.hpp
/// A rigid body moving in the world x-y plane (scene type "rigid2d").
///
/// Coordinates: `x y` (m) — world position of the centre of mass; `theta` (rad) — angle from
/// the world x axis to the body x axis, positive counter-clockwise about +z.
/// Mass matrix `M = diag(m, m, I)` with `I` the inertia about the centre of mass (kg m^2);
/// `m = 0` and/or `I = 0` are allowed. `Q = 0`: in these coordinates the kinetic energy
/// `1/2 m (x'^2 + y'^2) + 1/2 I theta'^2` has a constant mass matrix, so there are no
/// velocity-product terms. Gravity adds `m g_x, m g_y` (g_z is ignored).
///
/// Point marker, body-frame point `p = (px, py)` (pz ignored): `r = [x, y] + R(theta) p`,
/// `z = 0`. With `(a, b) = R(theta) p`:  `J = [[1, 0, -b], [0, 1, a], [0, 0, 0]]` and
/// `bias = -theta'^2 (a, b, 0)`.
/// Frame marker: `R = Rz(theta)`, `Jw = [[0,0,0],[0,0,0],[0,0,1]]`, bias 0.
#include <string>
#include <vector>

#include "joinery/core/body.hpp"

namespace joinery {

class Rigid2d final : public Body, public PointMarker, public FrameMarker {
 public:
  /// @param mass kg (>= 0); @param inertia kg m^2 about the centre of mass (>= 0);
  /// @param q0 (x, y, theta); @param v0 (vx, vy, omega). @throws ModelError.
  Rigid2d(std::string name, double mass, double inertia, const Eigen::Vector3d& q0,
          const Eigen::Vector3d& v0);

  double mass() const noexcept { return mass_; }
  double inertia() const noexcept { return inertia_; }

  std::string_view typeName() const override { return "rigid2d"; }
  const std::vector<std::string>& coordinateNames() const override;
  void getInitialState(VecRef q0, VecRef v0) const override;
  void calcMassMatrix(double t, CVecRef q, MatRef M) const override;
  void calcForces(double t, CVecRef q, CVecRef v, VecRef Q) const override;
  void addGravityForce(CVecRef q, const Vector3d& g, VecRef Q) const override;
  /// Q (gravity) does not depend on the state: zero Jacobians.
  bool providesForceJacobians() const override { return true; }
  SymbolicVector symbolicForces(const SymbolicNames& names) const override;
  SymbolicVector symbolicGravityForce(const Vector3d& g, const SymbolicNames& names) const override;
  double calcGravityPotential(CVecRef q, const Vector3d& g) const override;
  double calcKineticEnergy(double t, CVecRef q, CVecRef v) const override;
  const PointMarker* points() const override { return this; }
  const FrameMarker* frames() const override { return this; }
  bool isPlanar() const override { return true; }
  /// x, y lengths, theta an angle; mass m, inertia I about z, 2 translations, 1 rotation.
  CoordinateKind coordinateKind(int k) const override { return k < 2 ? CoordinateKind::Length : CoordinateKind::Angle; }
  std::optional<MassProperties> massProperties() const override;
  /// axis 2 (z): theta' = 1.
  void calcRotationRates(CVecRef q, int axis, VecRef u) const override;
  /// Fields `position`, `angle`, `velocity`, `angular_velocity`.
  void writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const override;
  nlohmann::json toJson() const override;

  Vector3d calcPointPosition(CVecRef q, const Vector3d& local) const override;
  void calcPointJacobian(CVecRef q, const Vector3d& local, MatRef J) const override;
  Vector3d calcPointBias(CVecRef q, CVecRef v, const Vector3d& local) const override;
  SymbolicPoint symbolicPointPosition(const Vector3d& local, const std::vector<std::string>& q) const override;

  Matrix3d calcOrientation(CVecRef q) const override;
  void calcAngularJacobian(CVecRef q, MatRef Jw) const override;
  Vector3d calcAngularBias(CVecRef q, CVecRef v) const override;

 private:
  double mass_, inertia_;
  Eigen::Vector3d q0_, v0_;
};

}  // namespace joinery
