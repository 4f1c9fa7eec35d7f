#pragma once
/// @file radau5.hpp
/// Radau IIA of order 5 (three stages, L-stable, stiffly accurate): the implicit method for
/// stiff models (`"integrator": "implicit"` or `"radau5"`, docs/integrators.md).
///
/// Applied, like the explicit methods, to the first-order system y = (q, q'),
/// y' = (q', q''(t, q, q')) where q'' comes from DynamicSystem::calcAccelerations (the
/// singular-mass equation resolves every constraint at acceleration level, redundant rows
/// included); drift control stays in the simulation loop. The stage equations are solved by
/// simplified Newton iterations with the transformation of Hairer & Wanner (Solving ODEs II,
/// §IV.8, code RADAU5): one real and one complex linear system per iteration, each reduced to
/// n x n by the second-order structure of y' (dy_q = dy_v), with the Jacobian dq''/d(q, q')
/// by forward differences (2n evaluations), kept across steps while Newton converges fast.
/// Error estimate, step-size controller (Gustafsson's predictive controller) and the
/// tolerance transformation as in RADAU5. Dense output: the collocation polynomial.

#include <Eigen/LU>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <complex>
#include <limits>

#include "joinery/integrators/band_lu.hpp"
#include "joinery/integrators/integrator.hpp"

namespace joinery {

/// Options of Radau IIA 5.
struct Radau5Options {
  /// Tolerances as for dopri5 (the error is rms(e_i / (atol + rtol |y_i|))); internally
  /// transformed as in RADAU5 (rtol' = 0.1 rtol^(2/3), atol' = rtol' atol / rtol) so that a
  /// given rtol gives an accuracy comparable to the explicit methods'.
  double rtol = 1e-6;
  double atol = 1e-9;
  double initialStep = 0;  ///< first trial step; 0: 1e-6 * max(1, span)
  double minStep = 0;      ///< below this the run fails; 0: 1e-12 * max(1, |t|)
  double maxStep = 0;      ///< 0: no limit
  int maxNewton = 7;       ///< Newton iterations per step before the step is retried smaller
  /// The Jacobian is re-evaluated after an accepted step only when the Newton contraction
  /// rate exceeded this (RADAU5's THET, there 0.001; 0.5 here because a Jacobian costs 2n
  /// evaluations: measured cheapest on the stiff benchmarks, docs/performance.md).
  double jacobianReuse = 0.5;
  /// The same threshold when the system gives its force linearization (the iteration matrix
  /// is then the KKT matrix of M, A, dQ/dq, dQ/dq': no acceleration solve, a few evaluations
  /// of Q): cheap, so re-evaluated far more often (measured, docs/performance.md).
  double linearizedJacobianReuse = 0.1;
  /// Use DynamicSystem::calcForceLinearization when the system provides it (false: always
  /// the finite-difference Jacobian of q'', 2n evaluations).
  bool useForceLinearization = true;
  /// With the force linearization: the KKT iteration matrix (n + m unknowns) is factorized
  /// sparsely from this many unknowns on, densely below (docs/performance.md, "Stiff
  /// models": where each pays). 0: always dense. Sparsely: on its pattern, fixed once, in
  /// the reverse Cuthill-McKee order by a banded LU with partial pivoting (BandLu: chains
  /// and trees of few branches give narrow bands; no allocation once the pattern is set),
  /// or where the band is wider than maxBand by Eigen::SparseLU (COLAMD; allocates).
  int sparseFrom = 120;
  /// Widest half-bandwidth (after the reordering) factorized by the banded LU; wider: the
  /// general sparse LU.
  int maxBand = 64;
  /// Where the KKT matrix is sparse: ask the system for its linearization in sparse form
  /// (ForceLinearization::wantSparse; ModelSystem assembles it element by element, O(n) on
  /// chains and trees). false: the dense n x n form, scanned into the sparse matrices (the
  /// previous behaviour, O(n^2) per linearization; kept for comparison, docs/performance.md).
  bool sparseLinearization = true;
  /// Fixed step `initialStep`, no error control (for convergence studies only).
  bool fixedStep = false;
};

/// Counters beyond IntegratorStats.
struct Radau5Stats {
  long long jacobians = 0;       ///< Jacobians (finite differences of q'': 2n evaluations each; or force linearizations)
  long long linearizations = 0;  ///< of these, force linearizations (KKT iteration matrix)
  long long factorizations = 0;  ///< LU factorizations (one real + one complex n x n each)
  long long sparseFactorizations = 0;  ///< of these, sparse (Radau5Options::sparseFrom)
  long long bandFactorizations = 0;    ///< of these, by the banded LU (Radau5Options::maxBand)
  long long newtonIterations = 0;
  long long newtonFailures = 0;  ///< trial steps retried smaller because Newton did not converge
  long long errorRejections = 0; ///< trial steps rejected by the error estimate
};

class Radau5Integrator final : public Integrator {
 public:
  Radau5Integrator(DynamicSystem& system, Radau5Options opt, Baumgarte stab = {});
  const char* name() const override { return "radau5"; }
  StepResult advance(double tLimit) override;
  bool hasDenseOutput() const override { return true; }
  /// After a discontinuity of the state or of the model's rows (an event of one-sided rows,
  /// events.hpp): the next step neither extrapolates the last step's stages across it nor
  /// reuses its Jacobian.
  void forgetHistory() noexcept { haveZ_ = haveJac_ = haveLu_ = false; }
  void interpolate(double t, State& out) override;
  const Radau5Stats& radauStats() const noexcept { return rstats_; }

 private:
  using MatrixXc = Eigen::MatrixXcd;
  using VectorXc = Eigen::VectorXcd;
  /// Forward-difference Jacobian dq''/dq, dq''/dq' at the current state; false when a
  /// perturbed state is not usable.
  bool computeJacobian();
  /// The finite-difference path's n x n buffers (on first use).
  void allocateDifferenced();
  void factorize(double h);
  /// Solves (c I - J) x = r for the real c = gamma / h (in place on r, size 2n).
  void solveReal(VectorXd& r);
  /// Same with the complex c = (alpha + i beta) / h.
  void solveComplex(VectorXc& r);
  /// Stage values from the last step's collocation polynomial (or zero).
  void startValues(double h);
  /// Simplified Newton on the stage equations; 0 converged, 1 too slow (retry smaller),
  /// 2 a stage evaluation failed (status in failure).
  int newton(double t, double h, AccelerationStatus& failure, double& tFail);
  double errorEstimate(double t, double h, bool retry);
  /// Below the minimum step: the ill-posed state that kept rejecting the trial steps, or throws.
  StepResult collapse(double hmin, const AccelerationStatus* lastFailure, double tFailure);
  /// Accepts the converged step (t -> tNew), chooses the next step and the Jacobian's reuse.
  StepResult accept(double t, double h, double err, double fac, double hnew, double tNew, bool last, double hmax);

  Radau5Options opt_;
  double rtol_ = 0, atol_ = 0, fnewt_ = 0;
  double h_ = 0, hacc_ = 0, erracc_ = 1e-2, faccon_ = 1, theta_ = 1;
  bool first_ = true, lastRejected_ = false, jacFresh_ = false, haveJac_ = false,
       haveLu_ = false, haveStep_ = false, haveZ_ = false;
  double luH_ = 0;
  double hCap_ = std::numeric_limits<double>::infinity();  // step at which Newton last failed (grows slowly)
  double newtonShrink_ = 0.5;  // step factor after a Newton failure
  int newtonCount_ = 0;        // Newton iterations of the last attempt
  MatrixXd Jq_, Jv_;  // n x n
  Eigen::PartialPivLU<MatrixXd> luR_;
  Eigen::PartialPivLU<MatrixXc> luC_;
  MatrixXd Z_, W_, F_, dW_;  // 2n x 3
  VectorXd y0_, y1_, yt_, ft_, scal_, r1_, f2_;
  VectorXc rc_;
  VectorXd tmpN_, xqR_, tmpRe_, tmpIm_;
  VectorXc tmpNc_, xqC_;
  MatrixXd Er_;   // the real iteration matrix, reduced to n x n (or the (n + m) KKT matrix)
  MatrixXc Ec_;   // the complex one
  // force-linearization path (kkt_): M, A, dQ/dq, dQ/dq' and the KKT scaling
  bool kkt_ = false;
  ForceLinearization lin_;
  VectorXd rowScale_;  // 1 / |A_i|
  double kktScale_ = 1;
  Eigen::Index kktRows_ = 0;  // m of the linearization factorized
  State linState_;
  VectorXd kR_, kRhs_, kSol_;
  VectorXc kRc_, kRhsc_, kSolc_;
  void factorizeKkt(double h);
  /// (c^2 M - c dQdv - dQdq) x + A^T lambda = M R - dQdv r_q, A x = A R / c^2, R = r_v + c r_q.
  template <class Vec, class Scalar, class Lu, class SparseLu, class Band>
  void solveKkt(Vec& r, Scalar c, Lu& lu, SparseLu& slu, const Band& band, Vec& R, Vec& rhs, Vec& sol);
  // the sparse form of the KKT path (sparse_): the matrices and their LU
  using SparseD = Eigen::SparseMatrix<double>;
  using SparseC = Eigen::SparseMatrix<std::complex<double>>;
  bool sparse_ = false;
  SparseD Msp_, Dsp_, Asp_, Esp_;
  SparseC Ecsp_;
  Eigen::SparseLU<SparseD> sluR_;
  Eigen::SparseLU<SparseC> sluC_;
  std::vector<Eigen::Triplet<double>> trip_;
  void factorizeKktSparse(double c, std::complex<double> cc, double eps);
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
  /// Whether the linearization's sparse pattern is the one the band maps were made for.
  bool samePattern() const;
  /// Sets the pattern, the ordering and the maps (allocates); false: the band is too wide.
  bool setBandPattern();
  void factorizeKktBand(double c, std::complex<double> cc, double eps);
  MatrixXd Zlast_;  // stages of the last accepted step (dense output, start values)
  double tOld_ = 0, hLast_ = 0;
  Radau5Stats rstats_;
};

}  // namespace joinery
