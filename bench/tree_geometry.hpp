#pragma once
// The turns of the benchmark tree (bench/chain_model.hpp, treeScene), shared by joinery's scene and
// the Simbody twin (bench/peers/simbody_models.hpp); no dependencies, so that the peer programs
// (built against Simbody alone, C++17) can include it.
#include <array>
#include <cmath>

namespace joinery::bench {

/// The rotation of body k (k >= 1, heap order) relative to its parent's frame, a unit quaternion
/// (w, x, y, z): the left child (k odd) is turned 0.5 rad about the parent's z axis, the right
/// child 0.5 rad about its y axis, so that the tree spreads in 3-D.
inline std::array<double, 4> treeTurn(int k) {
  const double a = 0.5, c = std::cos(a / 2), s = std::sin(a / 2);
  return k % 2 == 1 ? std::array<double, 4>{c, 0.0, 0.0, s} : std::array<double, 4>{c, 0.0, s, 0.0};
}

}  // namespace joinery::bench
