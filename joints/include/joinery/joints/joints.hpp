#pragma once
/// @file joints.hpp
/// Typed constructors of the common joints, for building a model in C++ without JSON
/// (examples/cpp/four_bar.cpp, examples/cpp/spatial_pendulum.cpp). Each returns the same joint
/// the scene type of its name makes (the scene loader builds these types through them), ready
/// for ModelBuilder::addConstraint(); the bodies must outlive the model.
///
/// Units: points are in the body's own frame, in m (for planar bodies z is ignored; for the
/// ground a point is a world position); axes are directions in the body's frame (any non-zero
/// length); lengths in m. A joint's rows are documented in docs/joints.md under its scene type.
///
/// Every constructor checks what the scene loader checks: @throws ModelError when a body lacks
/// the marker the joint needs (a point, a frame, planar motion), when body1 and body2 are the
/// same body, or on an invalid value (a zero axis, a length <= 0).
#include <string>

#include "joinery/core/constraint.hpp"

namespace joinery::joints {

/// Planar pin (scene type "revolute2d"): point1 of body1 and point2 of body2 coincide in the
/// world x-y plane (2 rows). Both bodies planar with point markers (rigid2d, particle dim 2,
/// flexible2d, ground).
ConstraintPtr revolute2d(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                         const Vector3d& point2);

/// Ball joint (scene type "spherical"): point1 of body1 and point2 of body2 coincide in space
/// (3 rows). Both bodies with point markers.
ConstraintPtr spherical(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                        const Vector3d& point2);

/// Spatial hinge (scene type "revolute3d"), as Drake's RevoluteJoint(name, frame_on_parent,
/// frame_on_child, axis): point1 and point2 coincide and R2 axis2 stays parallel to R1 axis1
/// (5 rows); body 2 turns about the axis. Both bodies with point and frame markers.
ConstraintPtr revolute3d(std::string name, const Body& body1, const Vector3d& point1, const Vector3d& axis1,
                         const Body& body2, const Vector3d& point2, const Vector3d& axis2);

/// Rod (scene type "distance"): point1 of body1 and point2 of body2 stay `length` (m, > 0)
/// apart (1 row, phi = (|r2 - r1|^2 - length^2) / 2). Both bodies with point markers.
ConstraintPtr distance(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                       const Vector3d& point2, double length);

}  // namespace joinery::joints
