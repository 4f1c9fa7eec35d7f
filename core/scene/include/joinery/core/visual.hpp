#pragma once
/// @file visual.hpp
/// The optional body field `visual` (docs/viewer.md): a list of shapes drawn by `joinery view`
/// in the body's frame. It has no effect on the dynamics.
///
///   {"type": "box", "size": [a, b, c]}
///   {"type": "sphere", "radius": r}
///   {"type": "cylinder", "radius": r, "length": l, "axis": [x, y, z]}   (axis default [0, 0, 1])
///   {"type": "capsule", "point1": [..], "point2": [..], "radius": r}  (between two body points)
/// each with optional "position" (offset in the body frame, default 0) and "color"
/// ("#rrggbb" or [r, g, b] with entries in [0, 1]).

#include <nlohmann/json.hpp>

#include "joinery/core/json_input.hpp"
#include "joinery/core/registry.hpp"

namespace joinery {

/// Reads and checks a `visual` field; numbers may be parameter expressions. Returns it with
/// every number evaluated, points as 3-vectors and defaults filled in.
/// @throws InputError naming the JSON path of the offending shape or field.
nlohmann::json readVisual(const JsonCursor& c, const FactoryContext& ctx);

}  // namespace joinery
