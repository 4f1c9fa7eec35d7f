#pragma once
// Private to joinery::joints. A quantity of a joint's axis (its turn about it or its travel
// along it), with its rate and its row of dQ/dq: the gear and rack_pinion rows between joints
// (axial_joints.cpp) and the joint_spring force element (joint_spring.cpp) use it.
#include <optional>

#include "element_input.hpp"
#include "marker_access.hpp"

namespace joinery::detail {

/// A quantity of a joint axis, measured on body 1 of the joint:
///   travel  s = (R1 a1).(r2 - r1)
///     s' = w1.(n x d) + n.d'                                    (PointOnLine, n = R1 a1)
///   turn    x = (R1 u).(R2 w), y = (R1 v).(R2 w), theta = atan2(y, x) (u = reference1, v = a1 x u)
///     x' = (w1 - w2).(u x w), y' = (w1 - w2).(v x w)            (PerpendicularAxes)
///     theta' = (x y' - y x') / r^2,  r^2 = x^2 + y^2
///     theta'' = (x y'' - y x'') / r^2 - 2 (x y' - y x')(x x' + y y') / r^4
/// The frames and points are placed in the columns of the element that owns the quantity (a
/// gear's may span the four bodies of two joints).
class AxisQuantity {
 public:
  enum class Kind { Travel, Turn };
  struct Geometry {
    Vector3d axis1, reference1, reference2;  // unit, reference1 perpendicular to axis1 (turns only)
  };
  AxisQuantity(Kind kind, BodyFrame f1, BodyFrame f2, BodyPoint p1, BodyPoint p2,
               const Geometry& g)
      : kind_(kind), f1_(f1), f2_(f2), p1_(p1), p2_(p2), a_(g.axis1), u_(g.reference1),
        v_(g.axis1.cross(g.reference1)), w_(g.reference2) {}
  bool isTurn() const { return kind_ == Kind::Turn; }

  /// s, or theta in [-pi, pi].
  double value(const LocalState& s) const {
    if (kind_ == Kind::Travel) return (f1_.calcOrientation(s) * a_).dot(p2_.calcPosition(s) - p1_.calcPosition(s));
    const Turn t = turn(s);
    return std::atan2(t.y, t.x);
  }

  double rate(const LocalState& s) const {
    if (kind_ == Kind::Travel) {
      const Vector3d n = f1_.calcOrientation(s) * a_;
      const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
      return f1_.calcAngularVelocity(s).dot(n.cross(d)) + n.dot(p2_.calcVelocity(s) - p1_.calcVelocity(s));
    }
    const Turn t = turn(s);
    const Vector3d w12 = f1_.calcAngularVelocity(s) - f2_.calcAngularVelocity(s);
    return t.r2 > 0 ? (t.x * w12.dot(t.vxw) - t.y * w12.dot(t.uxw)) / t.r2 : 0.0;
  }

  /// A += c dQ/dq (one row); returns c times the bias of Q'' (Q'' = dQ/dq q'' + bias).
  double addRow(const LocalState& s, double c, MatRef A) const {
    if (kind_ == Kind::Travel) {
      const Vector3d n = f1_.calcOrientation(s) * a_;
      const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
      const Vector3d dd = p2_.calcVelocity(s) - p1_.calcVelocity(s);
      const Vector3d w1 = f1_.calcAngularVelocity(s), nxd = n.cross(d), w1xn = w1.cross(n);
      f1_.addJacobian(s, nxd.transpose(), c, A);
      p1_.addJacobian(s, n.transpose(), -c, A);
      p2_.addJacobian(s, n.transpose(), c, A);
      return c * (f1_.calcAngularBias(s).dot(nxd) + w1.cross(w1xn).dot(d) + 2 * w1xn.dot(dd) +
                  n.dot(p2_.calcBias(s) - p1_.calcBias(s)));
    }
    const Turn t = turn(s);
    if (!(t.r2 > 0)) return 0.0;
    const Vector3d w1 = f1_.calcAngularVelocity(s), w2 = f2_.calcAngularVelocity(s), w12 = w1 - w2;
    const Vector3d g = (t.x * t.vxw - t.y * t.uxw) / t.r2;
    f1_.addJacobian(s, g.transpose(), c, A);
    f2_.addJacobian(s, g.transpose(), -c, A);
    const Vector3d bias12 = f1_.calcAngularBias(s) - f2_.calcAngularBias(s);
    const double xd = w12.dot(t.uxw), yd = w12.dot(t.vxw);
    const double bx = bias12.dot(t.uxw) + w12.dot(w1.cross(t.u).cross(t.w) + t.u.cross(w2.cross(t.w)));
    const double by = bias12.dot(t.vxw) + w12.dot(w1.cross(t.v).cross(t.w) + t.v.cross(w2.cross(t.w)));
    return c * ((t.x * by - t.y * bx) / t.r2 - 2 * (t.x * yd - t.y * xd) * (t.x * xd + t.y * yd) / (t.r2 * t.r2));
  }

 private:
  struct Turn {
    Vector3d u, v, w, uxw, vxw;
    double x, y, r2;
  };
  Turn turn(const LocalState& s) const {
    const Matrix3d R1 = f1_.calcOrientation(s);
    Turn t;
    t.u = R1 * u_;
    t.v = R1 * v_;
    t.w = f2_.calcOrientation(s) * w_;
    t.uxw = t.u.cross(t.w);
    t.vxw = t.v.cross(t.w);
    t.x = t.u.dot(t.w);
    t.y = t.v.dot(t.w);
    t.r2 = t.x * t.x + t.y * t.y;  // 0 only when R2 reference2 lies along R1 axis1
    return t;
  }

  Kind kind_;
  BodyFrame f1_, f2_;
  BodyPoint p1_, p2_;
  Vector3d a_, u_, v_, w_;
};

/// The bodies, points, axis and references of a joint's turn or travel, from its axisMotion()
/// (which must have the quantity), with the defaults the joint's own turn takes (reference2 from
/// the initial state, so that the turn starts at 0).
struct JointAxis {
  TwoBodyInput in;
  AxisQuantity::Geometry geometry;
};
JointAxis jointAxisOf(const Constraint& joint, AxisQuantity::Kind kind);

}  // namespace joinery::detail
