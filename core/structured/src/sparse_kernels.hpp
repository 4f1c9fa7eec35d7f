#pragma once
// Private to the structured path: the dense kernels on the blocks of BlockKkt (LDL^T of a
// diagonal block, triangular solves, Schur updates), specialised at compile time for the
// common block sizes. Shared by sparse_factor.cpp and sparse_solve.cpp.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "joinery/core/unroll.hpp"

namespace joinery::detail {
/// How far ahead (blocks, or elimination positions) the passes over the workspace's blocks
/// prefetch them. Those blocks were written a whole pass earlier and, on a large model, have
/// left the cache; the passes that read them in elimination order jump between the bodies'
/// and the joints' parts of the store, out of the hardware prefetcher's sight.
inline constexpr std::size_t kPrefetchAhead = 4;
/// Passes over fewer blocks than this do not prefetch: their blocks (about 3 MB for 1024, at a
/// rigid3d chain's sizes) are still in the cache, and the hints would only cost instructions
/// (+6.6 % per evaluation of the 256-link chain with them).
inline constexpr std::size_t kPrefetchMinBlocks = 1024;
/// Requests every cache line of `count` doubles from `a` (a hint; no effect on the results).
inline void prefetchLines(const double* a, long count) {
  const char* c = reinterpret_cast<const char*>(a);
  const char* end = reinterpret_cast<const char*>(a + count);
  for (; c < end; c += 64) __builtin_prefetch(c, 0, 3);
}

/// Calls f(std::integral_constant<int, N>) for the common coordinate counts of a body (rigid2d 3,
/// rigid3d 7), f(integral_constant<int, 0>) (run-time count) otherwise.
template <class F>
inline void withCoords(int n, F&& f) {
  switch (n) {
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 7: f(std::integral_constant<int, 7>{}); break;
    default: f(std::integral_constant<int, 0>{}); break;
  }
}

// Kernels of the block LDL^T with the block sizes as template parameters (0: run-time size).
// The common nodes have fixed sizes (rigid3d: 7 coordinates + 1 internal row = 8; a spherical
// joint: 3 rows; rigid2d: 3; revolute2d: 2), and with the sizes known at compile time the
// compiler unrolls and vectorizes the short loops that dominate a structured evaluation.
template <int N>
inline int fixedOr(int n) {
  return N > 0 ? N : n;
}

/// Calls f(std::integral_constant<int, S>) for the common sizes, f(integral_constant<int, 0>)
/// (run-time size) otherwise.
template <class F>
inline void withSize(int s, F&& f) {
  switch (s) {
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 8: f(std::integral_constant<int, 8>{}); break;
    default: f(std::integral_constant<int, 0>{}); break;
  }
}


/// The diagonal blocks are stored packed: the lower triangle only, column by column (column j
/// holds rows j .. s-1), entry (i, j), i >= j, at lowerCol(j, s) + i. A factor's diagonal
/// block is read whole by every substitution, and the upper triangle was never read: packed,
/// an 8 x 8 block is 36 numbers (4.5 cache lines) instead of 64 (8 lines).
constexpr int lowerCol(int j, int s) { return j * s - j * (j + 1) / 2; }
constexpr int packedSize(int s) { return s * (s + 1) / 2; }

/// In-place LDL^T of the s x s diagonal block D (packed lower; L unit lower in the strict lower
/// triangle). Coordinate pivots (the first ncoord) must exceed minCoordPivot; a row pivot above
/// -tau is replaced by -tau and counted. False: a non-finite or non-positive coordinate pivot.
/// `work`: s numbers of scratch (run-time sizes only).
template <int S>
inline bool ldltDiagonal(double* D, int sRun, int ncoord, double minCoordPivot, double tau, double* dp,
                  double* dinv, int& released, int& dependent, double* work) {
  const int s = fixedOr<S>(sRun);
  JOINERY_UNROLL
  for (int j = 0; j < s; ++j) {
    // column j: w_t = L(j, t) d_t, then D(i, j) -= L(i, t) w_t for i >= j (the pivot first),
    // t in order. Fixed sizes keep w in locals and each entry's sum in a register; run-time
    // sizes keep w in `work` and update the column by whole segments. The same operations in
    // the same order per entry either way.
    double* __restrict__ col = D + lowerCol(j, s);
    if constexpr (S > 0) {  // w in locals, each entry's sum in a register (same order per entry)
      double w[S];
      JOINERY_UNROLL
      for (int t = 0; t < j; ++t) w[t] = D[lowerCol(t, S) + j] * dp[t];
      JOINERY_UNROLL
      for (int i = j; i < S; ++i) {
        double acc = col[i];
        JOINERY_UNROLL
        for (int t = 0; t < j; ++t) acc -= D[lowerCol(t, S) + i] * w[t];
        col[i] = acc;
      }
    } else {
      for (int t = 0; t < j; ++t) work[t] = D[lowerCol(t, s) + j] * dp[t];
      for (int t = 0; t < j; ++t) {
        const double wt = work[t];
        const double* Lt = D + lowerCol(t, s);
        for (int i = j; i < s; ++i) col[i] -= Lt[i] * wt;
      }
    }
    double dj = col[j];
    if (!std::isfinite(dj)) return false;
    if (j < ncoord) {
      if (!(dj > minCoordPivot)) return false;
    } else if (!(dj <= -tau)) {
      // |pivot| within 1e-2 tau of zero: the row depends on earlier ones to round-off (a
      // redundant row); between that and tau: nearly dependent (near a singular position)
      if (!(dj <= -1e-2 * tau)) ++dependent;
      dj = -tau;
      ++released;
    }
    dp[j] = dj;
    dinv[j] = 1.0 / dj;
    // L(i, j) = (D(i, j) - sum_t L(i, t) w_t) / d_j
    JOINERY_UNROLL
    for (int i = j + 1; i < s; ++i) col[i] *= dinv[j];
  }
  return true;
}

/// B <- B L^-T in place for one later neighbour (B: si x s, column-major, ld = si): the factor
/// keeps B' = L_ik D (what the Schur updates and the substitutions need) instead of L_ik, so no
/// pass scales it by D^-1.
template <int S, int SI>
void lowerSolveInPlace(double* B, int sRun, int siRun, const double* __restrict__ D) {
  const int s = fixedOr<S>(sRun), si = fixedOr<SI>(siRun);
  if constexpr (SI > 0) {  // the column in registers
    JOINERY_UNROLL
    for (int j = 0; j < s; ++j) {
      double acc[SI];
      JOINERY_UNROLL
      for (int r = 0; r < SI; ++r) acc[r] = B[r + j * SI];
      JOINERY_UNROLL
      for (int t = 0; t < j; ++t) {
        const double l = D[lowerCol(t, s) + j];
        if (l == 0) continue;
        const double* prev = B + t * SI;
        JOINERY_UNROLL
        for (int r = 0; r < SI; ++r) acc[r] -= prev[r] * l;
      }
      double* out = B + j * SI;
      JOINERY_UNROLL
      for (int r = 0; r < SI; ++r) out[r] = acc[r];
    }
    return;
  }
  for (int j = 0; j < s; ++j) {
    double* out = B + j * si;
    for (int t = 0; t < j; ++t) {
      const double l = D[lowerCol(t, s) + j];
      if (l == 0) continue;
      const double* prev = B + t * si;
      for (int r = 0; r < si; ++r) out[r] -= prev[r] * l;
    }
  }
}

/// T (si x sj, ld) -= A D^-1 B^T with A = B' of one neighbour (si x s), B of another (sj x s),
/// each column-major with its own row count as leading dimension.
/// Lower: a diagonal block (A = B; T packed lower, ld its size), whose lower triangle alone
/// is stored (r >= c).
template <int S, int SI, int SJ, bool Lower>
void schurUpdate(double* __restrict__ T, int ld, const double* A, const double* B,
                 const double* __restrict__ dinv, int sRun, int siRun, int sjRun) {
  const int s = fixedOr<S>(sRun), si = fixedOr<SI>(siRun), sj = fixedOr<SJ>(sjRun);
  if constexpr (S > 0) {
    // each entry's sum in a register (T read and written once, not once per t); the same
    // operations in the same order per entry
    JOINERY_UNROLL
    for (int c = 0; c < sj; ++c) {
      double w[S];
      JOINERY_UNROLL
      for (int t = 0; t < S; ++t) w[t] = B[c + t * sj] * dinv[t];
      // column c: entry r at Tc[r] (packed: only r >= c exists)
      double* __restrict__ Tc = T + (Lower ? lowerCol(c, ld) : c * ld);
      if constexpr (SI > 0) {  // the column in a local array: contiguous in r, vectorizable
        // a lower block from the pair of rows holding the diagonal (c rounded down to even:
        // whole pairs for SSE2); only r >= c is stored
        const int r0 = Lower ? c : 0, rp = Lower ? (c & ~1) : 0;
        double acc[SI];
        JOINERY_UNROLL
        for (int r = rp; r < SI; ++r) acc[r] = r >= r0 ? Tc[r] : 0.0;
        JOINERY_UNROLL
        for (int t = 0; t < S; ++t)
          JOINERY_UNROLL
          for (int r = rp; r < SI; ++r) acc[r] -= A[r + t * SI] * w[t];
        JOINERY_UNROLL
        for (int r = r0; r < SI; ++r) Tc[r] = acc[r];
      } else {
        JOINERY_UNROLL
        for (int r = Lower ? c : 0; r < si; ++r) {
          double acc = Tc[r];
          JOINERY_UNROLL
          for (int t = 0; t < S; ++t) acc -= A[r + t * si] * w[t];
          Tc[r] = acc;
        }
      }
    }
    return;
  }
  for (int c = 0; c < sj; ++c) {
    double* __restrict__ Tc = T + (Lower ? lowerCol(c, ld) : c * ld);
    for (int t = 0; t < s; ++t) {
      const double w = B[c + t * sj] * dinv[t];
      const double* At = A + t * si;
      for (int r = Lower ? c : 0; r < si; ++r) Tc[r] -= At[r] * w;
    }
  }
}

/// Forward substitution of one node: zk <- L_kk^-1 zk, then zi -= L_ik zk for a neighbour.
// (each sum in a local: through zk, which may alias D for the compiler, every step was a store
// and a dependent load)
template <int S>
void unitLowerSolve(const double* __restrict__ D, int sRun, double* __restrict__ zk) {
  const int s = fixedOr<S>(sRun);
  JOINERY_UNROLL
  for (int j = 1; j < s; ++j) {
    double v = zk[j];
    JOINERY_UNROLL
    for (int t = 0; t < j; ++t) v -= D[lowerCol(t, s) + j] * zk[t];
    zk[j] = v;
  }
}
template <int S>
void unitUpperSolve(const double* __restrict__ D, int sRun, double* __restrict__ zk) {  // L_kk^T zk = zk
  const int s = fixedOr<S>(sRun);
  JOINERY_UNROLL
  for (int j = s - 2; j >= 0; --j) {
    double v = zk[j];
    JOINERY_UNROLL
    for (int t = j + 1; t < s; ++t) v -= D[lowerCol(j, s) + t] * zk[t];
    zk[j] = v;
  }
}
/// zi -= L_ik zk with L_ik = B' D^-1 (B' and dinv of node k).
template <int S, int SI>
void subtractProduct(const double* __restrict__ B, int sRun, int siRun, const double* __restrict__ dinv,
                     const double* __restrict__ zk, double* __restrict__ zi) {
  const int s = fixedOr<S>(sRun), si = fixedOr<SI>(siRun);
  JOINERY_UNROLL
  for (int j = 0; j < s; ++j) {
    const double w = zk[j] * dinv[j];
    JOINERY_UNROLL
    for (int r = 0; r < si; ++r) zi[r] -= B[r + j * si] * w;
  }
}
/// zk -= B'^T zi (the backward pass applies D^-1 to zk afterwards: L_ik^T = D^-1 B'^T).
template <int S, int SI>
void subtractTransposedProduct(const double* __restrict__ L, int sRun, int siRun, const double* __restrict__ zi,
                               double* __restrict__ zk) {
  const int s = fixedOr<S>(sRun), si = fixedOr<SI>(siRun);
  JOINERY_UNROLL
  for (int j = 0; j < s; ++j) {
    double v = 0;
    JOINERY_UNROLL
    for (int r = 0; r < si; ++r) v += L[r + j * si] * zi[r];
    zk[j] -= v;
  }
}

}  // namespace joinery::detail
