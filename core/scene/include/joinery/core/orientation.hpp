#pragma once
/// @file orientation.hpp
/// Orientation fields of scene files (docs/scene-format.md, "Orientations"): wherever an
/// orientation is given (rigid3d `orientation`, a placement's `orientation`, the
/// `orientation` of prismatic3d and weld3d joints) it is one of
///   [e0, e1, e2, e3]                                  unit quaternion, scalar first
///   {"axis": [x, y, z], "angle": a}                   rotation by a about the axis
///   {"matrix": [[..], [..], [..]]}                    rotation matrix (columns: body axes)
///   {"euler": {"sequence": "ZYX", "angles": [a1, a2, a3]}}  intrinsic rotations in that order
/// Angles are radians; "unit": "deg" beside `angle` / `angles` makes them degrees.

#include <functional>
#include <string>

#include <Eigen/Geometry>

#include "joinery/core/json_input.hpp"

namespace joinery {

/// Evaluates a numeric field (a number, or an expression over the parameters in scope).
using NumberReader = std::function<double(const JsonCursor&)>;

/// Reads the orientation field `c` (any of the forms above).
/// @param quaternionTolerance largest accepted | |e| - 1 | of a quaternion (it is then
///        normalised).
/// @throws InputError at the offending field: a quaternion that is not of unit norm, a
///         zero-length axis, a matrix that is not orthonormal (|R^T R - I| > 1e-6) or is a
///         reflection, an unknown Euler sequence, an unknown unit, an unknown form.
Eigen::Quaterniond parseOrientation(const JsonCursor& c, const NumberReader& number,
                                    double quaternionTolerance);

/// The rotation matrix of the intrinsic Euler sequence `sequence` (e.g. "ZYX": about z, then
/// the new y, then the newest x): R = R_a1(angles[0]) R_a2(angles[1]) R_a3(angles[2]).
/// `sequence` must satisfy isEulerSequence().
Eigen::Matrix3d eulerRotation(const std::string& sequence, const Eigen::Vector3d& angles);

/// True for the twelve sequences of three axes X, Y, Z with no axis repeated twice in a row.
bool isEulerSequence(const std::string& sequence);

}  // namespace joinery
