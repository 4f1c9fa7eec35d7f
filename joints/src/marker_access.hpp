#pragma once
// Private to joinery::joints. Access to the markers of an element's bodies ("point p of body
// k", "frame of body k") in the element's local coordinate layout, and the geometric row
// primitives every joint is built from:
//
//   CoincidentPoints    S (r2 - r1) = 0                    revolute2d, weld2d, spherical, revolute3d
//   PointDistance       (|r2 - r1|^2 - L^2) / 2 = 0        distance
//   PlanarRelativeAngle wrap(theta2 - theta1 - theta0) = 0 prismatic2d, weld2d
//   PointOnLine         (R1 n) . (r2 - r1) = 0             prismatic2d
//   PerpendicularAxes   (R1 u) . (R2 w) = 0                revolute3d
//   LinearCombination   sum c_i q_i - f(t) = 0             coupling, driver (coordinate)
//   PointPath           S (r - f(t)) = 0                   driver (point)
//
// Each primitive writes its position error phi, its velocity error phi_q q' + phi_t, and its
// acceleration rows A q'' = b with b = -(phi_q q')_q q' - 2 phi_qt q' - phi_tt
// (docs/joints.md derives every b). Nothing here allocates for bodies with at most
// kInlineColumns coordinates.

#include <array>
#include <memory>
#include <vector>

#include "joinery/core/assert.hpp"
#include "joinery/core/constraint.hpp"
#include "joinery/core/expression.hpp"
#include "joinery/core/jacobian_scratch.hpp"  // Jacobian3Scratch, kInlineColumns

namespace joinery::detail {

/// Offsets of each body's coordinates in the local vector (concatenation in bodies() order).
std::vector<int> localOffsets(const std::vector<const Body*>& bodies);

/// A point fixed in body `index` of an element (`local` in the body frame; world for ground).
/// The body must offer points (checked by the factories before construction).
class BodyPoint {
 public:
  BodyPoint(const std::vector<const Body*>& bodies, int index, const Vector3d& local);

  int index() const noexcept { return index_; }
  const Vector3d& local() const noexcept { return local_; }

  Vector3d calcPosition(const LocalState& s) const;
  Vector3d calcVelocity(const LocalState& s) const;  ///< J q' (the marker's calcPointVelocity())
  Vector3d calcBias(const LocalState& s) const;      ///< J' q'

  /// A.middleCols(this body) += sign * W J, W of size rows(A) x 3.
  template <class Weights>
  void addJacobian(const LocalState& s, const Eigen::MatrixBase<Weights>& W, double sign,
                   MatRef A) const {
    if (n_ == 0) return;
    JOINERY_ASSERT(index_ < static_cast<int>(s.bodies.size()) && s.bodies[index_].n == n_, "point of a body not in the state");
    JOINERY_ASSERT(A.cols() >= offset_ + n_, "point Jacobian block size");
    Jacobian3Scratch scratch(n_);
    Eigen::Map<MatrixXd> J = scratch.map();
    marker_->calcPointJacobian(s.bodies[index_].coords(), local_, J);
    A.middleCols(offset_, n_).noalias() += (sign * W).lazyProduct(J);
  }
  /// A.middleCols(this body).topRows(dim) += sign * (first dim rows of J), the selection rows
  /// of CoincidentPoints and PointPath without a general product (through the marker's
  /// addPointJacobianRows(): fixed-size for rigid3d); returns the bias J' q'.
  Vector3d addJacobianRows(const LocalState& s, int dim, double sign, MatRef A) const;
  /// Q(this body) += J^T F: the generalized force of the world force F applied at the point.
  void addForce(const LocalState& s, const Vector3d& F, VecRef Q) const;
  /// H(this body's block) += d(J^T F)/dq at fixed F = sum_k F_k d2r_k/dq2 (the geometric part
  /// of a force Jacobian). From the marker's bias J' q' = d2r/dq2 [q', q'] by polarization.
  void addForceHessian(const LocalState& s, const Vector3d& F, MatRef H) const;
  /// W.middleCols(this body) += sign * d(J q')/dq (3 x n), by polarization of the bias.
  void addVelocityJacobian(const LocalState& s, double sign, MatRef W) const;

 private:
  const PointMarker* marker_;
  int index_, offset_, n_;
  Vector3d local_;
};

/// The frame (orientation) of body `index` of an element. The body must offer frames.
class BodyFrame {
 public:
  BodyFrame(const std::vector<const Body*>& bodies, int index);

  int index() const noexcept { return index_; }
  Matrix3d calcOrientation(const LocalState& s) const;
  Vector3d calcAngularVelocity(const LocalState& s) const;  ///< Jw q' (world)
  Vector3d calcAngularBias(const LocalState& s) const;      ///< Jw' q'

  /// A.middleCols(this body) += sign * W Jw, W of size rows(A) x 3.
  template <class Weights>
  void addJacobian(const LocalState& s, const Eigen::MatrixBase<Weights>& W, double sign,
                   MatRef A) const {
    if (n_ == 0) return;
    JOINERY_ASSERT(index_ < static_cast<int>(s.bodies.size()) && s.bodies[index_].n == n_, "frame of a body not in the state");
    JOINERY_ASSERT(A.cols() >= offset_ + n_, "angular Jacobian block size");
    Jacobian3Scratch scratch(n_);
    Eigen::Map<MatrixXd> J = scratch.map();
    marker_->calcAngularJacobian(s.bodies[index_].coords(), J);
    A.middleCols(offset_, n_).noalias() += (sign * W).lazyProduct(J);
  }
  /// Q(this body) += Jw^T T: the generalized force of the world torque T.
  void addTorque(const LocalState& s, const Vector3d& T, VecRef Q) const;
  /// For a planar frame (w_z the rate of an angle theta(q), its bias d2theta/dq2 [q', q']):
  /// H(this body's block) += tau d2theta/dq2 and W.middleCols(this body) (1 row) += sign *
  /// d(w_z)/dq, by polarization of the z component of the angular bias.
  void addAngleHessian(const LocalState& s, double tau, MatRef H) const;
  void addAngleRateJacobian(const LocalState& s, double sign, MatRef W) const;

 private:
  const FrameMarker* marker_;
  int index_, offset_, n_;
};

/// A scalar function of time with its exact first and second derivatives (parsed with the
/// single variable `t` in slot 0).
class TimeFunction {
 public:
  explicit TimeFunction(Expression f);
  double value(double t) const { return f_.evaluate(&t); }
  double rate(double t) const { return df_.evaluate(&t); }
  double acceleration(double t) const { return ddf_.evaluate(&t); }
  bool isConstant() const { return f_.isConstant(); }

 private:
  Expression f_, df_, ddf_;
};

/// A block of constraint rows over an element's local coordinates.
class RowPrimitive {
 public:
  virtual ~RowPrimitive() = default;
  virtual int numRows() const = 0;
  virtual void calcPositionError(const LocalState& s, VecRef phi) const = 0;
  /// phi_q q' + phi_t.
  virtual void calcVelocityError(const LocalState& s, VecRef psi) const = 0;
  /// Adds the rows' A (numRows x local, zeroed by the caller) and writes b.
  virtual void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const = 0;
};

/// The first `dim` (2 or 3) world components of r2 - r1 vanish.
class CoincidentPoints final : public RowPrimitive {
 public:
  CoincidentPoints(BodyPoint p1, BodyPoint p2, int dim) : p1_(p1), p2_(p2), dim_(dim) {}
  int numRows() const override { return dim_; }
  void calcPositionError(const LocalState& s, VecRef phi) const override;
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;

 private:
  BodyPoint p1_, p2_;
  int dim_;
};

/// (|r2 - r1|^2 - L^2) / 2 = 0.
class PointDistance final : public RowPrimitive {
 public:
  PointDistance(BodyPoint p1, BodyPoint p2, double length) : p1_(p1), p2_(p2), length_(length) {}
  int numRows() const override { return 1; }
  void calcPositionError(const LocalState& s, VecRef phi) const override;
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;

 private:
  BodyPoint p1_, p2_;
  double length_;
};

/// The angle of R1^T R2 about z, minus theta0, wrapped into [-pi, pi].
class PlanarRelativeAngle final : public RowPrimitive {
 public:
  PlanarRelativeAngle(BodyFrame f1, BodyFrame f2, double theta0) : f1_(f1), f2_(f2), theta0_(theta0) {}
  int numRows() const override { return 1; }
  void calcPositionError(const LocalState& s, VecRef phi) const override;
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;
  /// theta2 - theta1 (about z, in [-pi, pi]) and its rate.
  double calcAngle(const LocalState& s) const;
  double calcAngleRate(const LocalState& s) const;

 private:
  BodyFrame f1_, f2_;
  double theta0_;
};

/// (R1 n) . (r2 - r1) = 0: point p2 stays on the line through p1 (both world positions) that
/// is perpendicular to the body-1 direction n. f1 and p1 belong to the same body.
class PointOnLine final : public RowPrimitive {
 public:
  PointOnLine(BodyFrame f1, BodyPoint p1, BodyPoint p2, const Vector3d& normalLocal)
      : f1_(f1), p1_(p1), p2_(p2), n_(normalLocal) {}
  int numRows() const override { return 1; }
  void calcPositionError(const LocalState& s, VecRef phi) const override;
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;

 private:
  BodyFrame f1_;
  BodyPoint p1_, p2_;
  Vector3d n_;
};

/// (R1 u) . (R2 w) = 0 for body-fixed directions u (body 1) and w (body 2).
class PerpendicularAxes final : public RowPrimitive {
 public:
  PerpendicularAxes(BodyFrame f1, const Vector3d& u, BodyFrame f2, const Vector3d& w)
      : f1_(f1), f2_(f2), u_(u), w_(w) {}
  int numRows() const override { return 1; }
  void calcPositionError(const LocalState& s, VecRef phi) const override;
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;

 private:
  BodyFrame f1_, f2_;
  Vector3d u_, w_;
};

/// One term c * q of a linear combination: coordinate `coordinate` of body `body` (index in
/// the element's bodies()), at local column `column`.
struct LinearTerm {
  int body = 0;
  int coordinate = 0;
  int column = 0;
  double coefficient = 1;
};

/// sum_i c_i q_i - f(t) = 0.
class LinearCombination final : public RowPrimitive {
 public:
  LinearCombination(std::vector<LinearTerm> terms, TimeFunction f)
      : terms_(std::move(terms)), f_(std::move(f)) {}
  int numRows() const override { return 1; }
  void calcPositionError(const LocalState& s, VecRef phi) const override;
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;

 private:
  std::vector<LinearTerm> terms_;
  TimeFunction f_;
};

/// The first dim (2 or 3) world components of r - f(t) vanish: a point following a path.
class PointPath final : public RowPrimitive {
 public:
  PointPath(BodyPoint p, std::vector<TimeFunction> path) : p_(p), path_(std::move(path)) {}
  int numRows() const override { return static_cast<int>(path_.size()); }
  void calcPositionError(const LocalState& s, VecRef phi) const override;
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;

 private:
  BodyPoint p_;
  std::vector<TimeFunction> path_;
};

}  // namespace joinery::detail
