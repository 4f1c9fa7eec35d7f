#pragma once
/// @file state.hpp
/// The state of a second-order system: time, coordinates and their velocities.

#include "joinery/core/types.hpp"

namespace joinery {

/// The state of a model: time, coordinates and their velocities (global layout).
struct State {
  double t = 0;
  VectorXd q;
  VectorXd v;
};

}  // namespace joinery
