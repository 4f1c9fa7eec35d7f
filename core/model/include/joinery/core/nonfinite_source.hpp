#pragma once
// Where a non-finite model value comes from: the element of the model (a body's
// mass matrix, its own forces or gravity on it, a force element, a joint's rows) that gives
// NaN or Inf at a state, named as the scene names it.
#include <string>

#include "joinery/core/model.hpp"

namespace joinery {

/// Evaluates each element of `model` alone at `s` and describes the first that is not
/// finite, e.g. "force 'push' (generalized), which gives -nan on p.x"; "" when every element is
/// finite there. For error messages only: it allocates, and costs one evaluation of the model.
std::string describeNonFiniteSource(const Model& model, const State& s);

}  // namespace joinery
