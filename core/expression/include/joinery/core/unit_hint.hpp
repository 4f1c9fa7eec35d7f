#pragma once
/// @file unit_hint.hpp
/// A unit written into an expression ("100 mm", "90 deg") is an unknown name: what to say.

#include <string>

namespace joinery {

/// For a name that is a common unit (mm, cm, km, deg, degrees, rpm, ms): "a unit? numbers in
/// joinery are SI and written without units (mm is 0.001 m: ...)"; otherwise empty.
std::string unitHint(const std::string& name);

}  // namespace joinery
