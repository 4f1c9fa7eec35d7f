// BandLu (integrators/include/joinery/integrators/band_lu.hpp): the banded LU with partial
// pivoting of radau5's sparse KKT path. Checked against Eigen's dense LU on
// random banded matrices, real and complex, with zero diagonals that need row interchanges
// (as the KKT matrix's multiplier block does), and for allocations.
#include <catch2/catch.hpp>
#include <complex>
#include <random>
#include <tuple>
#include <type_traits>

#include <Eigen/LU>

#include "joinery/integrators/band_lu.hpp"
#include "allocation_counter.hpp"

namespace joinery {
namespace {

template <class Scalar>
Scalar draw(std::mt19937& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (std::is_same_v<Scalar, double>) return u(g);
  else return Scalar(u(g), u(g));
}

template <class Scalar>
double solveError(int n, int kl, int ku, bool zeroDiagonal, unsigned seed) {
  using Mat = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using Vec = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  std::mt19937 g(seed);
  Mat A = Mat::Zero(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = std::max(0, j - ku); i <= std::min(n - 1, j + kl); ++i) A(i, j) = draw<Scalar>(g);
  if (zeroDiagonal)  // pivots must come from below the diagonal (every third: still regular)
    for (int i = 0; i < n; i += 3) A(i, i) = Scalar(0);
  BandLu<Scalar> lu;
  lu.reset(n, kl, ku);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (lu.inBand(i, j)) lu.data()[lu.index(i, j)] = A(i, j);
  Vec b(n);
  for (int i = 0; i < n; ++i) b(i) = draw<Scalar>(g);
  Vec x = b;
  REQUIRE(lu.factorize());
  lu.solveInPlace(x);
  const Vec ref = Eigen::PartialPivLU<Mat>(A).solve(b);
  // backward stable: a residual at round-off of |A| |x|; and the dense LU's solution to the
  // round-off the condition number allows
  const double residual = (A * x - b).cwiseAbs().maxCoeff() /
                          (A.cwiseAbs().rowwise().sum().maxCoeff() * x.cwiseAbs().maxCoeff() + b.cwiseAbs().maxCoeff());
  CHECK(residual < 1e-14);
  return (x - ref).cwiseAbs().maxCoeff() / std::max(1.0, ref.cwiseAbs().maxCoeff());
}

TEST_CASE("banded LU: the dense LU's solution, real and complex, with row interchanges", "[integrators][radau5][sparse]") {
  unsigned seed = 1;
  for (const bool zeroDiagonal : {false, true})
    for (const auto& [n, kl, ku] : {std::tuple{1, 0, 0}, std::tuple{7, 1, 1}, std::tuple{40, 3, 3}, std::tuple{60, 2, 5},
                                    std::tuple{60, 5, 2}, std::tuple{30, 29, 29}}) {
      if (n == 1 && zeroDiagonal) continue;
      INFO("n " << n << ", kl " << kl << ", ku " << ku << ", zero diagonal " << zeroDiagonal);
      CHECK(solveError<double>(n, kl, ku, zeroDiagonal, seed++) < 1e-8);
      CHECK(solveError<std::complex<double>>(n, kl, ku, zeroDiagonal, seed++) < 1e-8);
    }
}

TEST_CASE("banded LU: a zero pivot is reported", "[integrators][radau5][sparse]") {
  BandLu<double> lu;
  lu.reset(3, 1, 1);
  lu.data()[lu.index(0, 0)] = 1;
  lu.data()[lu.index(2, 2)] = 1;  // (1, 1) and its column below are zero
  CHECK_FALSE(lu.factorize());
}

TEST_CASE("banded LU: refactorizing and solving allocate nothing", "[integrators][radau5][sparse][allocation]") {
  const int n = 200;
  BandLu<std::complex<double>> lu;
  lu.reset(n, 4, 4);
  Eigen::VectorXcd b = Eigen::VectorXcd::Ones(n);
  const long before = test::heapAllocations(), mBefore = test::mallocCount();
  for (int rep = 0; rep < 3; ++rep) {
    lu.setZero();
    for (int i = 0; i < n; ++i) {
      lu.data()[lu.index(i, i)] = std::complex<double>(4 + rep, 1);
      if (i > 0) lu.data()[lu.index(i, i - 1)] = -1;
      if (i + 1 < n) lu.data()[lu.index(i, i + 1)] = -1;
    }
    REQUIRE(lu.factorize());
    lu.solveInPlace(b);
  }
  CHECK(test::heapAllocations() - before == 0);
  CHECK(test::mallocCount() - mBefore == 0);
  CHECK(b.allFinite());
}

}  // namespace
}  // namespace joinery
