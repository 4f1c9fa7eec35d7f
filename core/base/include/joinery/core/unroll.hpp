#pragma once
// JOINERY_UNROLL: full unrolling of a short loop whose trip count is known at compile time
// (block kernels of fixed size). GCC's own heuristics leave the nested loops of an 8 x 8 block
// rolled, with as many loop-control instructions as arithmetic ones. Internal to joinery's
// sources; other compilers get no hint.
#if defined(__GNUC__) && !defined(__clang__)
#define JOINERY_UNROLL _Pragma("GCC unroll 8")
#else
#define JOINERY_UNROLL
#endif

#include <type_traits>
#include <utility>

namespace joinery::detail {
/// Calls f(std::integral_constant<int, K>{}) with K = k when k is 1, 2 or 3 -- the row count of
/// most joint blocks, made a compile-time size that the block kernels unroll -- and returns
/// true; returns false for any other k (the caller's run-time-size loop).
template <class F>
inline bool withUnrolledRowCount(int k, F&& f) {
  switch (k) {
    case 1: f(std::integral_constant<int, 1>{}); return true;
    case 2: f(std::integral_constant<int, 2>{}); return true;
    case 3: f(std::integral_constant<int, 3>{}); return true;
    default: return false;
  }
}

/// Calls f(std::integral_constant<int, NC>{}) with NC = nc when 1 <= nc <= kMaxUnrolledColumns
/// -- the column count of a joint block between one or two bodies of up to 7 coordinates each
/// (every body family of the library, and any other of that size), made a compile-time size
/// -- and returns true; returns false for a wider block (the caller's run-time-size loop).
/// Nothing here knows a body type: a body type added outside the library gets the same.
inline constexpr int kMaxUnrolledColumns = 14;
template <class F, int... I>
inline bool withUnrolledColumnCountImpl(int nc, F& f, std::integer_sequence<int, I...>) {
  return ((nc == I + 1 ? (f(std::integral_constant<int, I + 1>{}), true) : false) || ...);
}
template <class F>
inline bool withUnrolledColumnCount(int nc, F&& f) {
  return withUnrolledColumnCountImpl(nc, f, std::make_integer_sequence<int, kMaxUnrolledColumns>{});
}
}  // namespace joinery::detail
