#pragma once
/// @file forces.hpp
/// Typed constructors of force elements, for building a model in C++ without JSON. Each
/// returns the element the scene type of its name makes (the scene loader builds it through
/// this function), ready for ModelBuilder::addForce(). Points are in the body's own frame (m);
/// see docs/joints.md under the scene type for the force law.
/// @throws ModelError when a body lacks a point marker, the bodies are the same, or a value is
/// out of range (a negative stiffness, damping or free length).
#include <string>

#include "joinery/core/constraint.hpp"

namespace joinery::forces {

/// Linear spring-damper (scene type "spring") between point1 of body1 and point2 of body2:
/// tension F = stiffness (|d| - freeLength) + damping d|d|/dt along d = r2 - r1, with
/// stiffness in N/m, damping in N s/m and freeLength in m (all >= 0); potential energy
/// stiffness (|d| - freeLength)^2 / 2.
ForceElementPtr spring(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                       const Vector3d& point2, double stiffness, double damping, double freeLength);

}  // namespace joinery::forces
