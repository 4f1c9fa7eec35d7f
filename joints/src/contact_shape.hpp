#pragma once
// Private to joinery::joints. The shapes of a contact and the checks of a pair of them, shared
// by the rigid contact (a one-sided joint, contact.cpp) and the compliant one (a force element,
// compliant_contact.cpp); docs/contact.md.

#include <string>
#include <vector>

#include "element_input.hpp"

namespace joinery::detail {

/// A contact shape in its body's frame.
struct ContactShape {
  enum class Kind { Plane, Sphere, Point, Points } kind = Kind::Point;
  Vector3d point = Vector3d::Zero();   // plane point, sphere centre, the point
  Vector3d normal = Vector3d::UnitZ(); // plane (unit)
  double radius = 0;                   // sphere
  std::vector<Vector3d> points;        // points (and the one point of Point / Sphere)
  nlohmann::json source;
};

/// The bodies and shapes of a contact, the pair checked: not two planes, points against a plane
/// only, not a point against a point, the plane's body with an orientation. point1 and point2
/// of `in` are the shapes' points (the first of `points`).
struct ContactInput {
  TwoBodyInput in;
  ContactShape shape1, shape2;
};

/// Reads `name`, `body1`, `shape1`, `body2`, `shape2` of a contact (rigid or compliant).
/// @throws InputError at the field at fault.
ContactInput parseContactInput(const JsonCursor& c, const FactoryContext& ctx);

}  // namespace joinery::detail
