#pragma once
/// @file band_lu.hpp
/// LU factorization with partial pivoting of a banded matrix in preallocated storage (the
/// layout and algorithm of LAPACK's dgbtf2/dgbtrs): radau5's sparse KKT path
/// (docs/integrators.md) factorizes its Newton matrices, reordered once by reverse
/// Cuthill-McKee, with it. Storage is sized once by reset(); setZero(), factorize() and
/// solveInPlace() never allocate. Partial pivoting on a banded matrix only looks below the
/// diagonal within the lower bandwidth (the rest of the column is zero), so this is Gaussian
/// elimination with partial pivoting of the whole matrix; row interchanges widen U's band
/// to kl + ku, which the storage holds.

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "joinery/core/assert.hpp"

namespace joinery {

template <class Scalar>
class BandLu {
 public:
  /// n x n with kl sub- and ku super-diagonals (allocates: once per pattern).
  void reset(Eigen::Index n, Eigen::Index kl, Eigen::Index ku) {
    JOINERY_ASSERT(n >= 0 && kl >= 0 && ku >= 0, "BandLu: a size and bandwidths >= 0");
    n_ = n;
    kl_ = kl;
    ku_ = ku;
    ld_ = 2 * kl + ku + 1;
    ab_.assign(static_cast<std::size_t>(ld_ * n), Scalar(0));
    piv_.assign(static_cast<std::size_t>(n), 0);
  }
  Eigen::Index size() const noexcept { return n_; }
  Eigen::Index lower() const noexcept { return kl_; }
  Eigen::Index upper() const noexcept { return ku_; }
  /// Whether (r, c) lies in the band of the matrix to factorize.
  bool inBand(Eigen::Index r, Eigen::Index c) const noexcept { return r - c <= kl_ && c - r <= ku_; }
  /// Position of (r, c) in data() (r, c in the band, or in U's widened band after factorize).
  Eigen::Index index(Eigen::Index r, Eigen::Index c) const noexcept {
    JOINERY_ASSERT(r >= 0 && r < n_ && c >= 0 && c < n_, "BandLu: (r, c) inside the matrix");
    JOINERY_ASSERT(r - c <= kl_ && c - r <= kl_ + ku_, "BandLu: (r, c) inside the (widened) band");
    return c * ld_ + kl_ + ku_ + r - c;
  }
  Scalar* data() noexcept { return ab_.data(); }
  void setZero() { std::fill(ab_.begin(), ab_.end(), Scalar(0)); }

  /// In place; false when a pivot is exactly zero (the factorization goes on as LAPACK's
  /// does, and a solve then gives non-finite values).
  bool factorize() {
    bool ok = true;
    const Eigen::Index kv = kl_ + ku_;
    Eigen::Index ju = 0;  // last column touched by the row interchanges so far
    Scalar* a = ab_.data();
    for (Eigen::Index j = 0; j < n_; ++j) {
      const Eigen::Index km = std::min(kl_, n_ - 1 - j);
      Scalar* col = a + j * ld_ + kv;  // col[i] = (j + i, j)
      Eigen::Index p = 0;
      double best = std::abs(col[0]);
      for (Eigen::Index i = 1; i <= km; ++i)
        if (std::abs(col[i]) > best) best = std::abs(col[i]), p = i;
      piv_[static_cast<std::size_t>(j)] = static_cast<int>(j + p);
      if (best == 0) {
        ok = false;
        continue;
      }
      ju = std::max(ju, std::min(j + ku_ + p, n_ - 1));
      if (p != 0)
        for (Eigen::Index k = j; k <= ju; ++k) std::swap(a[index(j, k)], a[index(j + p, k)]);
      const Scalar inv = Scalar(1) / col[0];
      for (Eigen::Index i = 1; i <= km; ++i) col[i] *= inv;
      for (Eigen::Index k = j + 1; k <= ju; ++k) {
        Scalar* ck = a + index(j, k);  // ck[i] = (j + i, k)
        const Scalar u = ck[0];
        if (u == Scalar(0)) continue;
        for (Eigen::Index i = 1; i <= km; ++i) ck[i] -= col[i] * u;
      }
    }
    return ok;
  }

  /// b := A^-1 b for the factorized A (b of size n).
  template <class Vec>
  void solveInPlace(Vec& b) const {
    JOINERY_ASSERT(b.size() == n_, "BandLu: a right-hand side of n entries");
    const Scalar* a = ab_.data();
    const Eigen::Index kv = kl_ + ku_;
    for (Eigen::Index j = 0; j + 1 < n_; ++j) {  // L (unit, with the interchanges)
      const Eigen::Index km = std::min(kl_, n_ - 1 - j);
      const Eigen::Index p = piv_[static_cast<std::size_t>(j)];
      if (p != j) std::swap(b(j), b(p));
      const auto bj = b(j);
      const Scalar* col = a + j * ld_ + kv;
      for (Eigen::Index i = 1; i <= km; ++i) b(j + i) -= col[i] * bj;
    }
    for (Eigen::Index j = n_ - 1; j >= 0; --j) {  // U, bandwidth kl + ku
      const Scalar* col = a + j * ld_ + kv;  // col[-d] = (j - d, j)
      b(j) /= col[0];
      const auto bj = b(j);
      const Eigen::Index top = std::min(kv, j);
      for (Eigen::Index d = 1; d <= top; ++d) b(j - d) -= col[-d] * bj;
    }
  }

 private:
  Eigen::Index n_ = 0, kl_ = 0, ku_ = 0, ld_ = 1;
  std::vector<Scalar> ab_;
  std::vector<int> piv_;
};

}  // namespace joinery
