#pragma once
// Internal to joinery (core and joints): scratch space for a marker's 3 x n point Jacobian,
// without allocation for bodies of up to kInlineColumns coordinates. Used by the default
// PointMarker methods (core/model/src/body.cpp) and the joints' row primitives
// (joints/src/marker_access.hpp).
#include <array>
#include <cstddef>
#include <vector>

#include "joinery/core/types.hpp"

namespace joinery::detail {

/// Bodies with up to this many coordinates get their 3 x n Jacobians on the stack.
inline constexpr int kInlineColumns = 32;

/// Scratch space for a 3 x n Jacobian: on the stack for n <= kInlineColumns, on the heap beyond
/// (only large `linear` bodies go there).
class Jacobian3Scratch {
 public:
  explicit Jacobian3Scratch(Eigen::Index n) : n_(n) {
    if (n > kInlineColumns) heap_.resize(static_cast<std::size_t>(3 * n));
  }
  /// The 3 x n scratch, zeroed (the markers write only their non-zero entries).
  Eigen::Map<MatrixXd> map() {
    Eigen::Map<MatrixXd> m(n_ > kInlineColumns ? heap_.data() : inline_.data(), 3, n_);
    m.setZero();
    return m;
  }

 private:
  Eigen::Index n_;
  std::array<double, 3 * kInlineColumns> inline_;  // not value-initialized: map() zeroes 3 x n
  std::vector<double> heap_;
};

}  // namespace joinery::detail
