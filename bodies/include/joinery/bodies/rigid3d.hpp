#pragma once
/// @file rigid3d.hpp
/// A rigid body in space described by its centre of mass and a unit quaternion
/// (scene type "rigid3d"). The full derivation is in docs/bodies.md.
///
/// Coordinates: `x y z` (m) — world position of the centre of mass; `e0 e1 e2 e3` — Euler
/// parameters (scalar first) of the rotation R(e) taking body-frame vectors to the world
/// frame. Conventions of G (body) and H (world): see joinery/bodies/quaternion.hpp.
///
/// - Mass matrix `M = diag(m I3, 4 G^T J G)`: the 4x4 rotational block has rank 3 (e spans
///   its null space), so M has rank 6.
/// - `Q = (0, -8 G(e')^T J G(e) e')`: the velocity-product (gyroscopic) term from Lagrange's
///   equations, which with the norm constraint reproduces Euler's equations
///   `J w' + w x J w = tau` (w, tau body frame). A body torque `tau_b` has generalized force
///   `2 G^T tau_b`; torques come from force elements through the point markers.
/// - Internal constraint (1 row): `e.e - 1 = 0`; `A = [0 0 0, 2 e^T]`, `b = -2 e'.e'`.
///   Together with it `[M; A]` has full rank 7 for m > 0 and J positive definite.
/// - Point marker (body point p): `r = x + R(e/|e|) p`, its exact Jacobian
///   `[I3, -2 [R p]x H(e) / |e|^2]` and bias `w x (w x R p) - (2 e.e'/|e|^2) w x R p` with
///   `w = 2 H(e) e' / |e|^2` (exact for any non-zero e; for unit e, e.e' = 0 the familiar
///   `-2 [R p]x H` and `w x (w x R p)`).
/// - Frame marker: `R(e/|e|)`, `Jw = [0, 2 H(e) / |e|^2]`, bias `-(2 e.e'/|e|^2) w` (0 on
///   the constraint manifold).
/// - Gravity adds `m g` to x, y, z. Kinetic energy `1/2 m v.v + 1/2 w_b^T J w_b`.
#include <string>
#include <vector>

#include "joinery/core/body.hpp"

namespace joinery {

class Rigid3d final : public Body, public PointMarker, public FrameMarker {
 public:
  using Vector7d = Eigen::Matrix<double, 7, 1>;
  /// @param mass kg (>= 0); @param inertia body-frame inertia about the centre of mass
  /// (kg m^2, symmetric positive semi-definite); @param position world (m);
  /// @param orientation unit quaternion (renormalized; |e| must be within 1e-6 of 1);
  /// @param velocity of the centre of mass (world, m/s); @param angularVelocity world (rad/s).
  /// @throws ModelError on invalid values.
  Rigid3d(std::string name, double mass, const Matrix3d& inertia, const Vector3d& position,
          const Eigen::Vector4d& orientation, const Vector3d& velocity,
          const Vector3d& angularVelocity);

  double mass() const noexcept { return mass_; }
  const Matrix3d& inertia() const noexcept { return inertia_; }

  std::string_view typeName() const override { return "rigid3d"; }
  const std::vector<std::string>& coordinateNames() const override;
  void getInitialState(VecRef q0, VecRef v0) const override;
  void calcMassMatrix(double t, CVecRef q, MatRef M) const override;
  void calcForces(double t, CVecRef q, CVecRef v, VecRef Q) const override;
  void addGravityForce(CVecRef q, const Vector3d& g, VecRef Q) const override;
  bool providesForceJacobians() const override { return true; }
  /// The exact Jacobians of the velocity-product term of calcForces().
  void addForceJacobians(double t, CVecRef q, CVecRef v, const Vector3d& g, MatRef dQdq,
                         MatRef dQdv) const override;
  double calcGravityPotential(CVecRef q, const Vector3d& g) const override;
  double calcKineticEnergy(double t, CVecRef q, CVecRef v) const override;

  int numInternalConstraints() const override { return 1; }
  void calcInternalConstraints(double t, CVecRef q, CVecRef v, MatRef A, VecRef b) const override;
  void calcInternalPositionError(double t, CVecRef q, VecRef phi) const override;
  void normalizeCoordinates(VecRef q) const override;

  const PointMarker* points() const override { return this; }
  const FrameMarker* frames() const override { return this; }
  /// x, y, z lengths, e0..e3 a quaternion; mass m, inertia J, 3 translations, 3 rotations.
  CoordinateKind coordinateKind(int k) const override { return k < 3 ? CoordinateKind::Length : CoordinateKind::Quaternion; }
  std::optional<MassProperties> massProperties() const override;
  /// e' = 1/2 G(e)^T e_axis: a unit body-frame angular velocity about `axis`.
  void calcRotationRates(CVecRef q, int axis, VecRef u) const override;
  /// Fields `position`, `orientation`, `velocity` and the world `angular_velocity` (from e').
  void writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const override;
  nlohmann::json toJson() const override;

  Vector3d calcPointPosition(CVecRef q, const Vector3d& local) const override;
  void calcPointJacobian(CVecRef q, const Vector3d& local, MatRef J) const override;
  Vector3d calcPointBias(CVecRef q, CVecRef v, const Vector3d& local) const override;
  Vector3d calcPointJacobianAndBias(CVecRef q, CVecRef v, const Vector3d& local, MatRef J) const override;
  /// Adds the 3 x 3 identity's diagonal and the 3 x 4 rotation block straight into A (no
  /// scratch, no zeros): the joints' hot path (a spherical joint calls it twice per evaluation).
  Vector3d addPointJacobianRows(CVecRef q, CVecRef v, const Vector3d& local, double sign, MatRef A) const override;
  /// x' + w x R p with w = 2 H(e) e' / |e|^2 (J q' without forming J).
  Vector3d calcPointVelocity(CVecRef q, CVecRef v, const Vector3d& local) const override;

  Matrix3d calcOrientation(CVecRef q) const override;
  void calcAngularJacobian(CVecRef q, MatRef Jw) const override;
  Vector3d calcAngularBias(CVecRef q, CVecRef v) const override;

  /// Quaternion rate of a world angular velocity at a unit quaternion: e' = 1/2 H(e)^T w.
  static Eigen::Vector4d quaternionRate(const Eigen::Vector4d& e, const Vector3d& wWorld);

 private:
  double mass_;
  Matrix3d inertia_;
  Vector3d position_, velocity_, angularVelocity_;
  Eigen::Vector4d orientation_;
};

}  // namespace joinery
