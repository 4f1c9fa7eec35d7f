#pragma once
// Private to joinery::integrators: the iteration matrices of radau5's simplified Newton method
// behind one interface (NewtonMatrix), with the method's constants. The integrator
// (radau5.cpp) sees only factorize() and the two solves; the back-ends are
//   - DifferencedMatrix: J = [0 I; Jq Jv] from forward differences of q'' (the integrator fills
//     Jq, Jv), reduced to n x n, dense LU;
//   - KktMatrix (radau5_kkt.cpp): the KKT matrix of the system's force linearization
//     (M, A, dQ/dq, dQ/dq'), factorized densely, by Eigen's SparseLU, or by the banded LU on a
//     pattern fixed once (BandLu), by size and bandwidth.
// Hairer & Wanner, Solving Ordinary Differential Equations II, 2nd ed., §IV.8, code RADAU5.
#include <Eigen/LU>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <complex>
#include <vector>

#include "joinery/core/dynamic_system.hpp"
#include "joinery/integrators/band_lu.hpp"
#include "joinery/integrators/radau5.hpp"

namespace joinery::detail {

using MatrixXc = Eigen::MatrixXcd;
using VectorXc = Eigen::VectorXcd;

/// The method's constants: nodes, the transformation T with T^-1 A^-1 T =
/// [gamma 0 0; 0 alpha -beta; 0 beta alpha], and the error-estimate weights.
struct Radau5Coefficients {
  double c[3];
  Eigen::Matrix3d T, Ti;
  double gamma, alpha, beta;
  double dd[3];
};
const Radau5Coefficients& radau5Coefficients();

/// The two iteration matrices of a step h, gamma / h I - J (real) and (alpha + i beta) / h I - J
/// (complex), J = dy'/dy = [0 I; dq''/dq dq''/dq'], each solved reduced to n x n by the
/// second-order structure: (c I - J) x = r is (c^2 - c Jv - Jq) x_q = r_v + c r_q - Jv r_q,
/// x_v = c x_q - r_q.
class NewtonMatrix {
 public:
  virtual ~NewtonMatrix() = default;
  /// Factorizes both matrices for the step h (counted in `stats`).
  virtual void factorize(double h, Radau5Stats& stats) = 0;
  /// (gamma / h I - J) x = r, in place on r (size 2n), h the last factorize()'s.
  virtual void solveReal(VectorXd& r) = 0;
  /// ((alpha + i beta) / h I - J) x = r, in place.
  virtual void solveComplex(VectorXc& r) = 0;
  /// The step of the last factorization.
  double step() const noexcept { return h_; }

 protected:
  double h_ = 0;
};

/// J from forward differences of q'': the integrator fills Jq = dq''/dq and Jv = dq''/dq'.
class DifferencedMatrix final : public NewtonMatrix {
 public:
  explicit DifferencedMatrix(int n);
  void factorize(double h, Radau5Stats& stats) override;
  void solveReal(VectorXd& r) override;
  void solveComplex(VectorXc& r) override;
  MatrixXd Jq, Jv;  // n x n

 private:
  int n_;
  MatrixXd Er_;  // c^2 I - c Jv - Jq
  MatrixXc Ec_;
  Eigen::PartialPivLU<MatrixXd> luR_;
  Eigen::PartialPivLU<MatrixXc> luC_;
  VectorXd tmpN_, xqR_, tmpRe_, tmpIm_;
  VectorXc tmpNc_, xqC_;
};

/// The KKT iteration matrix of the force linearization (radau5_kkt.cpp):
/// [c^2 M - c dQdv - dQdq, s As^T; As, -eps I] with the rows of A scaled to unit norm (As) and
/// the multipliers scaled by s = c^2 max M_ii so both blocks have one scale; eps = 1e-10 makes
/// redundant rows harmless (their multiplier combination does not move x).
class KktMatrix final : public NewtonMatrix {
 public:
  KktMatrix(int n, int sparseFrom, int maxBand);
  /// The linearization factorize() reads (the integrator fills it).
  ForceLinearization lin;
  void factorize(double h, Radau5Stats& stats) override;
  void solveReal(VectorXd& r) override;
  void solveComplex(VectorXc& r) override;

 private:
  using SparseD = Eigen::SparseMatrix<double>;
  using SparseC = Eigen::SparseMatrix<std::complex<double>>;
  /// (c^2 M - c dQdv - dQdq) x + A^T lambda = M R - dQdv r_q, A x = A R / c^2, R = r_v + c r_q.
  template <class Vec, class Scalar, class Lu, class SparseLu, class Band>
  void solve(Vec& r, Scalar c, Lu& lu, SparseLu& slu, const Band& band, Vec& R, Vec& rhs, Vec& sol);
  void factorizeSparse(double c, std::complex<double> cc, double eps);
  /// Whether the linearization's sparse pattern is the one the band maps were made for.
  bool samePattern() const;
  /// Sets the pattern, the ordering and the maps (allocates); false: the band is too wide.
  bool setBandPattern();
  void factorizeBand(double c, std::complex<double> cc, double eps);

  int n_, sparseFrom_, maxBand_;
  VectorXd rowScale_;  // 1 / |A_i|
  double kktScale_ = 1;
  Eigen::Index kktRows_ = 0;  // m of the linearization factorized
  VectorXd kR_, kRhs_, kSol_;
  VectorXc kRc_, kRhsc_, kSolc_;
  // the dense form
  MatrixXd Er_;  // (n + m) x (n + m); in the sparse form only its rows mark the size
  MatrixXc Ec_;
  Eigen::PartialPivLU<MatrixXd> luR_;
  Eigen::PartialPivLU<MatrixXc> luC_;
  // the sparse form (sparse_): the matrices and their LU
  bool sparse_ = false;
  SparseD Msp_, Dsp_, Asp_, Esp_;
  SparseC Ecsp_;
  Eigen::SparseLU<SparseD> sluR_;
  Eigen::SparseLU<SparseC> sluC_;
  std::vector<Eigen::Triplet<double>> trip_;
  // the banded form of the sparse path (band_): the pattern of [M, D, K; A, A^T] fixed once
  // (checked against the linearization's at each factorization), a symmetric reordering
  // (perm_[old] = new), and for each value of Ms, dQdvS, dQdqS, As its place in the band
  // (As: bottom left, then top right): values refilled in place, nothing allocated
  bool band_ = false;
  std::vector<int> patM_, patD_, patK_, patA_;  // outer then inner indices of the pattern set
  std::vector<int> perm_;
  std::vector<Eigen::Index> mapM_, mapD_, mapK_, mapA_, mapAt_, mapEps_;
  BandLu<double> bandR_;
  BandLu<std::complex<double>> bandC_;
};

}  // namespace joinery::detail
