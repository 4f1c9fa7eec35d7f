#pragma once
// Private to joinery::joints. Pieces shared by the spatial joints (revolute3d, universal,
// cylindrical, prismatic3d, weld3d, planar3d, point_on_line, point_on_plane): reading axes and
// held orientations, the body-1 basis perpendicular to an axis, and the row blocks "axes stay
// parallel", "point on a line" and "no relative rotation" written with the primitives of
// marker_access.hpp.

#include <string>
#include <string_view>
#include <utility>

#include <Eigen/Geometry>

#include "primitive_joint.hpp"

namespace joinery::detail {

/// Two unit vectors p, q with (a, p, q) right-handed orthonormal, a = axis.normalized()
/// (p built from the world axis least aligned with a).
std::pair<Vector3d, Vector3d> perpendicularBasis(const Vector3d& axis);

/// A non-zero direction field. @throws InputError at the field for a zero-length axis.
Vector3d parseAxis(const JsonCursor& c, const FactoryContext& ctx);

/// The orientation of body2's frame relative to body1's that a joint holds: the field
/// `orientation` of `c` in any form (orientation.hpp), else the relative orientation
/// R1^T R2 of the bodies' initial states.
Eigen::Quaterniond parseHeldOrientation(const JsonCursor& c, const FactoryContext& ctx,
                                        const TwoBodyInput& in);

/// R1^T R2 of the bodies' initial states (both have frames).
Eigen::Quaterniond initialRelativeOrientation(const Body& body1, const Body& body2);

/// The unit quaternion as scene JSON [e0, e1, e2, e3].
nlohmann::json quaternionJson(const Eigen::Quaterniond& q);

using RowBlocks = std::vector<std::unique_ptr<const RowPrimitive>>;

/// 2 rows keeping R2 axis2 parallel to R1 axis1: (R1 p).(R2 axis2) = 0 and
/// (R1 q).(R2 axis2) = 0, with p, q = perpendicularBasis(axis1).
RowBlocks parallelAxesRows(const BodyFrame& f1, const Vector3d& axis1, const BodyFrame& f2,
                           const Vector3d& axis2);

/// 2 rows keeping p2 on the line through p1 along R1 axis1: (R1 p).(r2 - r1) = 0 and
/// (R1 q).(r2 - r1) = 0. f1 and p1 belong to the same body.
RowBlocks pointOnLineRows(const BodyFrame& f1, const BodyPoint& p1, const BodyPoint& p2,
                          const Vector3d& axis1);

/// 3 rows holding R1^T R2 = C: with R2' = R2 C^T (equal to R1 when the rows hold),
/// (R1 ex).(R2' ey) = 0, (R1 ey).(R2' ez) = 0, (R1 ez).(R2' ex) = 0. Near the solution they
/// are the components z, x, y of the relative rotation vector (sign reversed), so the rows are
/// independent there; they also vanish at the half-turns about a body axis of R1 (a far,
/// spurious solution that assembly from a nearby state does not reach).
RowBlocks fixedOrientationRows(const BodyFrame& f1, const BodyFrame& f2, const Eigen::Quaterniond& C);

/// The fields of a named coupling whose sides may be coordinates or joints (gear: coordinate1 /
/// joint1, coordinate2 / joint2, ratio; rack_pinion: pinion / pinion_joint, rack / rack_joint,
/// radius). Side 1 of a joint is its turn; side 2 its turn, or its travel when `travel2`.
struct AxisCouplingKeys {
  std::string coordinate1, joint1, coordinate2, joint2, factor;
  bool travel2 = false;
};

/// gear / rack_pinion with a joint on one side or both (axial_joints.cpp): the row
/// Q2 - factor Q1 - offset, Q the turn or travel of a joint written earlier (read through
/// FactoryContext::findConstraint) or a body coordinate; offset by default from the initial state.
std::unique_ptr<Constraint> makeAxisCoupling(const JsonCursor& c, const FactoryContext& ctx, std::string_view type,
                                             const AxisCouplingKeys& keys);

}  // namespace joinery::detail
