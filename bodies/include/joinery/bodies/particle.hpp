#pragma once
/// @file particle.hpp
/// A point mass moving on a line, in a plane or in space (scene type "particle").
///
/// Coordinates (m): `x` (dim 1), `x y` (dim 2), `x y z` (dim 3) — world-frame position.
/// Mass matrix `M = m I` (dim x dim); `m = 0` is allowed (a massless connection point, whose
/// acceleration the constraints must determine). `Q = 0`: a particle has no velocity-product
/// terms and no own forces. Gravity adds `m g` (the components the particle has).
///
/// Point marker: the world position `(x, 0, 0)`, `(x, y, 0)` or `(x, y, z)`. A particle is a
/// point: the local offset a joint asks for is ignored (every "point of the particle" is the
/// particle). No frame marker (a particle has no orientation).
#include <string>
#include <vector>

#include "joinery/core/body.hpp"

namespace joinery {

class Particle final : public Body, public PointMarker {
 public:
  /// @param dim 1, 2 or 3; @param mass kg, >= 0; @param position, velocity world frame, `dim` entries.
  /// @throws ModelError on a bad dim, negative mass or wrong vector sizes.
  Particle(std::string name, int dim, double mass, const VectorXd& position, const VectorXd& velocity);

  int dim() const noexcept { return dim_; }
  double mass() const noexcept { return mass_; }
  const VectorXd& initialPosition() const noexcept { return q0_; }
  const VectorXd& initialVelocity() const noexcept { return v0_; }

  std::string_view typeName() const override { return "particle"; }
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
  bool isPlanar() const override { return dim_ <= 2; }
  /// Every coordinate is a length; mass m, no inertia, dim() translations, no rotation.
  CoordinateKind coordinateKind(int) const override { return CoordinateKind::Length; }
  std::optional<MassProperties> massProperties() const override;
  /// Fields `position` and `velocity`.
  void writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const override;
  nlohmann::json toJson() const override;

  // PointMarker: `local` is ignored (a particle is a point).
  Vector3d calcPointPosition(CVecRef q, const Vector3d& local) const override;
  void calcPointJacobian(CVecRef q, const Vector3d& local, MatRef J) const override;
  Vector3d calcPointBias(CVecRef q, CVecRef v, const Vector3d& local) const override;
  SymbolicPoint symbolicPointPosition(const Vector3d& local, const std::vector<std::string>& q) const override;

 private:
  int dim_;
  double mass_;
  VectorXd q0_, v0_;
};

}  // namespace joinery
