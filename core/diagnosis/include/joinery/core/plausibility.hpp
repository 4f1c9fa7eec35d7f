#pragma once
/// @file plausibility.hpp
/// Plausibility warnings of a loaded scene (docs/diagnosis.md): input that is legal but almost
/// certainly not what was meant. Warnings, not errors (`check --strict` makes them errors):
/// - a point of a planar joint or force given a non-zero z (planar elements ignore it);
/// - lengths whose magnitudes suggest millimetres while gravity is in m/s^2 (or the reverse);
/// - a driver or coupling whose prescribed motion has no finite velocity or acceleration at
///   t = 0 (not twice differentiable there: sqrt(t), t^1.5, abs(t)).
/// A negative spring free length is an input error at load (docs/joints.md), not a warning.

#include <string>
#include <vector>

#include "joinery/core/scene.hpp"

namespace joinery {

/// One sentence per finding, cause first and then what to change.
std::vector<std::string> plausibilityWarnings(const Scene& scene);

}  // namespace joinery
