#pragma once
/// @file posedness.hpp
/// The three answers of the well-posedness diagnosis (equations.md §4).

namespace joinery {

/// What the stacked system says about the accelerations.
enum class Posedness {
  WellPosed,    ///< `[M; A]` has full column rank and `A q'' = b` is consistent: q'' unique
  IllPosed,     ///< `[M; A]` is rank deficient: some accelerations are not determined
  Inconsistent  ///< `A q'' = b` has no solution: the constraints contradict each other
};

/// Text of a Posedness value: "well_posed", "ill_posed", "inconsistent".
const char* toString(Posedness p) noexcept;

}  // namespace joinery
