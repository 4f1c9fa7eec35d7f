#pragma once
/// @file floating_beam.hpp
/// `flexible2d`: a planar Euler–Bernoulli beam in a floating frame of reference (docs/flexible.md).
///
/// The body's coordinates are the frame's position `x`, `y` (m) and angle `theta` (rad), then
/// the elastic displacements of the beam's nodes *in the frame*: `n<i>_u` (along the beam),
/// `n<i>_v` (across it, m) and `n<i>_rz` (rad). The frame's reference conditions remove three of
/// them: `chord` (pinned–pinned: the frame's origin is node 0 and its x axis passes through the
/// last node; removes n0_u, n0_v, n<ne>_v) or `clamped` (the frame is node 0's tangent; removes
/// n0_u, n0_v, n0_rz). A material point at `s` along the beam is at
///
///     r(s) = R + A(theta) (u0(s) + S(s) q_f),   u0(s) = (s, 0),
///
/// with the element shape functions S (linear axial, cubic Hermite bending). Large rotation and
/// translation are exact; the elasticity is linear in the frame (small strains, no geometric
/// stiffening). A body point [s, h] is the point of the cross-section at s, offset h across the
/// beam (it turns with the slope dv/ds). The mass matrix couples frame and deformation through the inertia invariants
/// (integrals of rho S over the beam, computed once by Gauss quadrature); the velocity-product
/// terms are the exact ones of that mass matrix, so energy is conserved.
#include <string>
#include <vector>

#include "joinery/bodies/flexible.hpp"
#include "joinery/core/body.hpp"

namespace joinery {

class FloatingBeam2d final : public Body {
 public:
  enum class Frame { Chord, Clamped };

  /// `beam.start` and `beam.angle` are ignored: the frame's initial pose is `q0` (x, y, theta).
  FloatingBeam2d(std::string name, const BeamSpec& beam, Frame frame, Vector3d q0, Vector3d v0,
                 double rayleighMass = 0, double rayleighStiffness = 0);

  std::string_view typeName() const override { return "flexible2d"; }
  const std::vector<std::string>& coordinateNames() const override { return names_; }
  void getInitialState(VecRef q0, VecRef v0) const override;
  void calcMassMatrix(double t, CVecRef q, MatRef M) const override;
  void calcForces(double t, CVecRef q, CVecRef v, VecRef Q) const override;
  void addGravityForce(CVecRef q, const Vector3d& g, VecRef Q) const override;
  double calcGravityPotential(CVecRef q, const Vector3d& g) const override;
  double calcPotentialEnergy(double t, CVecRef q) const override;
  /// Exact d(Q)/dq and d(Q)/dq' of calcForces() + addGravityForce() (for radau5's Newton).
  bool providesForceJacobians() const override { return true; }
  void addForceJacobians(double t, CVecRef q, CVecRef v, const Vector3d& g, MatRef dQdq, MatRef dQdv) const override;
  const PointMarker* points() const override { return &pointMarker_; }
  const FrameMarker* frames() const override { return &frameMarker_; }
  bool isPlanar() const override { return true; }
  /// Fields `position`, `angle`, `velocity`, `angular_velocity` of the frame; a ModelError
  /// when the elastic coordinates or their rates are not zero (the scene has no field for them).
  void writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const override;
  /// The beam's axis: 4 points per element (at most 401) from s = 0 to the length.
  std::vector<Vector3d> drawingCurve() const override;
  nlohmann::json toJson() const override;

  int numElastic() const { return static_cast<int>(Mff_.rows()); }
  double mass() const { return mass_; }
  double length() const { return beam_.length; }
  /// Elastic mass and stiffness matrices of the kept coordinates (consistent FE matrices).
  const MatrixXd& elasticMass() const { return Mff_; }
  const MatrixXd& elasticStiffness() const { return Kff_; }
  /// Shape functions S (2 x numElastic()) of the material point at s along the beam and
  /// `offset` across it (a point of the cross-section at s, which turns with the slope).
  void shape(double s, MatRef S, double offset = 0) const;

 private:
  class Points final : public PointMarker {
   public:
    explicit Points(const FloatingBeam2d& b) : b_(b) {}
    Vector3d calcPointPosition(CVecRef q, const Vector3d& local) const override;
    void calcPointJacobian(CVecRef q, const Vector3d& local, MatRef J) const override;
    Vector3d calcPointBias(CVecRef q, CVecRef v, const Vector3d& local) const override;

   private:
    const FloatingBeam2d& b_;
  };
  class Orientation final : public FrameMarker {
   public:
    Matrix3d calcOrientation(CVecRef q) const override;
    void calcAngularJacobian(CVecRef q, MatRef Jw) const override;
    Vector3d calcAngularBias(CVecRef q, CVecRef v) const override;
  };
  /// The axial position s of a body point [s, h]; an error for a point beyond the beam's ends.
  double axialPosition(const Vector3d& local) const;

  BeamSpec beam_;
  Frame frame_;
  Vector3d q0_, v0_;
  double rayleighMass_, rayleighStiffness_;
  std::vector<std::string> names_;
  std::vector<int> kept_;  // the kept nodal coordinates (indices into 3 (ne + 1))
  // inertia invariants (body frame)
  double mass_ = 0, inertia0_ = 0;  // m, integral rho u0.u0
  Eigen::Vector2d s0_;              // integral rho u0
  MatrixXd Sbar_;                   // 2 x nf: integral rho S
  Eigen::RowVectorXd u0S_, u0IS_;   // integral rho u0^T S, integral rho (I~ u0)^T S
  MatrixXd Mff_, Kff_, Dff_, Sk_;   // integral rho S^T S, stiffness, damping, integral rho S^T I~ S
  Points pointMarker_{*this};
  Orientation frameMarker_;
};

}  // namespace joinery
