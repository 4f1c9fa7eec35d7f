// Radau IIA 5 (three-stage collocation, L-stable) with simplified Newton, a forward-difference
// Jacobian reused across steps, RADAU5's error estimate and step-size control.
// Method and controller: Hairer & Wanner, Solving Ordinary Differential Equations II, 2nd ed.,
// §IV.8 and the code RADAU5.
#include "joinery/integrators/radau5.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <spdlog/spdlog.h>

#include "joinery/core/errors.hpp"

namespace joinery {

namespace {

/// The method's constants: nodes, the transformation T with T^-1 A^-1 T =
/// [gamma 0 0; 0 alpha -beta; 0 beta alpha], and the error-estimate weights.
struct Coefficients {
  double c[3];
  Eigen::Matrix3d T, Ti;
  double gamma, alpha, beta;
  double dd[3];
};

const Coefficients& coefficients() {
  static const Coefficients k = [] {
    Coefficients r{};
    const double s6 = std::sqrt(6.0);
    r.c[0] = (4 - s6) / 10;
    r.c[1] = (4 + s6) / 10;
    r.c[2] = 1;
    Eigen::Matrix3d A;
    A << (88 - 7 * s6) / 360, (296 - 169 * s6) / 1800, (-2 + 3 * s6) / 225,
        (296 + 169 * s6) / 1800, (88 + 7 * s6) / 360, (-2 - 3 * s6) / 225,
        (16 - s6) / 36, (16 + s6) / 36, 1.0 / 9;
    const Eigen::Matrix3d Ainv = A.inverse();
    Eigen::EigenSolver<Eigen::Matrix3d> es(Ainv);
    int real = 0, cplx = 0;
    for (int i = 0; i < 3; ++i) {
      if (std::abs(es.eigenvalues()(i).imag()) < 1e-12) real = i;
      else if (es.eigenvalues()(i).imag() > 0) cplx = i;
    }
    r.T.col(0) = es.eigenvectors().col(real).real();
    r.T.col(1) = es.eigenvectors().col(cplx).real();
    r.T.col(2) = -es.eigenvectors().col(cplx).imag();
    r.Ti = r.T.inverse();
    const Eigen::Matrix3d L = r.Ti * Ainv * r.T;
    r.gamma = L(0, 0);
    r.alpha = L(1, 1);
    r.beta = L(2, 1);
    r.dd[0] = -(13 + 7 * s6) / 3;
    r.dd[1] = (-13 + 7 * s6) / 3;
    r.dd[2] = -1.0 / 3;
    return r;
  }();
  return k;
}

constexpr double kSafe = 0.9, kFacl = 5.0, kFacr = 1.0 / 8, kUround = 1e-16;
constexpr double kQuot1 = 1.0, kQuot2 = 1.2, kFailShrink = 0.25;

/// Lagrange basis on the nodes {0, c1, c2, 1} at tau, for the stage values (value 0 at 0).
void lagrange(double tau, double w[3]) {
  const auto& k = coefficients();
  const double x[4] = {0, k.c[0], k.c[1], k.c[2]};
  for (int i = 1; i < 4; ++i) {
    double l = 1;
    for (int j = 0; j < 4; ++j)
      if (j != i) l *= (tau - x[j]) / (x[i] - x[j]);
    w[i - 1] = l;
  }
}

}  // namespace

Radau5Integrator::Radau5Integrator(DynamicSystem& system, Radau5Options opt, Baumgarte stab)
    : Integrator(system, stab), opt_(opt) {
  if (!opt_.fixedStep && !(opt_.rtol > 0))
    throw SimulationError("radau5: rtol must be > 0");
  if (opt_.fixedStep && !(opt_.initialStep > 0))
    throw SimulationError("radau5: a fixed step needs initialStep > 0");
  if (!(opt_.atol >= 0)) throw SimulationError("radau5: atol must be >= 0");
  // RADAU5's tolerance transformation
  const double quot = opt_.atol / std::max(opt_.rtol, 1e-300);
  rtol_ = 0.1 * std::pow(std::max(opt_.rtol, 1e-300), 2.0 / 3.0);
  atol_ = rtol_ * quot;
  // Newton stops at 3 % of the (transformed) tolerance: RADAU5's largest default, measured
  // cheapest on the stiff benchmarks (docs/performance.md) with no visible loss of accuracy
  fnewt_ = std::max(10 * kUround / rtol_, 0.03);
  const int N = 2 * n_;
  if (!opt_.useForceLinearization || !opt_.sparseLinearization) allocateDifferenced();  // else on first use (or never)
  for (MatrixXd* m : {&Z_, &W_, &F_, &dW_, &Zlast_}) *m = MatrixXd::Zero(N, 3);
  for (VectorXd* v : {&y0_, &y1_, &yt_, &ft_, &scal_, &r1_, &f2_}) *v = VectorXd::Zero(N);
  rc_ = VectorXc::Zero(N);
  tmpN_ = xqR_ = tmpRe_ = tmpIm_ = VectorXd::Zero(n_);
  tmpNc_ = xqC_ = VectorXc::Zero(n_);
}

void Radau5Integrator::allocateDifferenced() {
  // the finite-difference Jacobian's n x n buffers: not made for a model that gives its force
  // linearization (a chain of 1000 rods would hold 4 n^2 doubles it never uses)
  Jq_ = MatrixXd::Zero(n_, n_);
  Jv_ = MatrixXd::Zero(n_, n_);
  Er_ = MatrixXd::Zero(n_, n_);
  Ec_ = MatrixXc::Zero(n_, n_);
  luR_ = Eigen::PartialPivLU<MatrixXd>(n_);
  luC_ = Eigen::PartialPivLU<MatrixXc>(n_);
}

bool Radau5Integrator::computeJacobian() {
  // y_ and k1_ hold the current state and its derivative
  if (opt_.useForceLinearization) {
    linState_.t = state_.t;
    linState_.q = y_.head(n_);
    linState_.v = y_.tail(n_);
    // the sparse form (element by element, no n x n storage) where the KKT matrix is
    // factorized sparsely
    lin_.wantSparse = opt_.sparseLinearization && opt_.sparseFrom > 0 &&
                      n_ + system_.numConstraintRows() >= opt_.sparseFrom;
    if (system_.calcForceLinearization(linState_, lin_)) {
      stats_.forceEvaluations += lin_.forceEvaluations;
      kkt_ = true;
      ++rstats_.jacobians;
      ++rstats_.linearizations;
      haveJac_ = jacFresh_ = true;
      haveLu_ = false;
      return true;
    }
  }
  kkt_ = false;
  if (Jq_.rows() != n_) allocateDifferenced();
  for (int j = 0; j < 2 * n_; ++j) {
    const double yj = y_(j);
    const double delta = std::sqrt(kUround * std::max(1e-5, std::abs(yj)));
    yt_ = y_;
    yt_(j) = yj + delta;
    const AccelerationStatus st = evaluate(state_.t, yt_, ft_);
    ++stats_.jacobianEvaluations;
    if (!st.ok()) return false;
    auto col = (ft_.tail(n_) - k1_.tail(n_)) / delta;
    if (j < n_) Jq_.col(j) = col;
    else Jv_.col(j - n_) = col;
  }
  ++rstats_.jacobians;
  haveJac_ = jacFresh_ = true;
  haveLu_ = false;
  if (Er_.rows() != n_ || Er_.cols() != n_) {  // back from the KKT form
    Er_.resize(n_, n_);
    Ec_.resize(n_, n_);
    luR_ = Eigen::PartialPivLU<MatrixXd>(n_);
    luC_ = Eigen::PartialPivLU<MatrixXc>(n_);
  }
  return true;
}

void Radau5Integrator::factorizeKkt(double h) {
  // [c^2 M - c dQdv - dQdq, s As^T; As, -eps I] with the rows of A scaled to unit norm (As)
  // and the multipliers scaled by s = (gamma / h)^2 max M_ii so both blocks have one scale;
  // eps = 1e-10 makes redundant rows harmless (their multiplier combination does not move x)
  const auto& k = coefficients();
  const auto m = kktRows_ = lin_.sparse ? lin_.As.rows() : lin_.A.rows();
  const auto N = n_ + m;
  const bool sparse = lin_.sparse || (opt_.sparseFrom > 0 && N >= opt_.sparseFrom);
  if (Er_.rows() != N || sparse != sparse_) {  // first use, or the other form before: sized once
    if (!sparse) {
      Er_ = MatrixXd::Zero(N, N);
      Ec_ = MatrixXc::Zero(N, N);
      luR_ = Eigen::PartialPivLU<MatrixXd>(N);
      luC_ = Eigen::PartialPivLU<MatrixXc>(N);
    } else {
      Er_.resize(N, 0);  // the dense form is not used (its rows mark the size)
      Ec_.resize(0, 0);
    }
    rowScale_ = VectorXd::Ones(m);
    kR_ = VectorXd::Zero(n_);
    kRc_ = VectorXc::Zero(n_);
    kRhs_ = kSol_ = VectorXd::Zero(N);
    kRhsc_ = kSolc_ = VectorXc::Zero(N);
  }
  double rho = 0;
  if (lin_.sparse) {
    rho = lin_.Ms.diagonal().cwiseAbs().maxCoeff();
    rowScale_.setZero();  // squared row norms first
    for (int j = 0; j < lin_.As.outerSize(); ++j)
      for (SparseD::InnerIterator it(lin_.As, j); it; ++it) rowScale_(it.row()) += it.value() * it.value();
    for (Eigen::Index i = 0; i < m; ++i) rowScale_(i) = rowScale_(i) > 0 ? 1 / std::sqrt(rowScale_(i)) : 1;
  } else {
    rho = lin_.M.diagonal().cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < m; ++i) {
      const double r = lin_.A.row(i).norm();
      rowScale_(i) = r > 0 ? 1 / r : 1;
    }
  }
  if (!(rho > 0)) rho = 1;
  const double c = k.gamma / h, eps = 1e-10;
  kktScale_ = c * c * rho;
  sparse_ = sparse;
  if (sparse_) {
    // the banded LU on the pattern fixed once where the linearization is sparse and the
    // band narrow (no allocation); else the general sparse LU
    if (!lin_.sparse || opt_.maxBand <= 0) {
      band_ = false;
      patM_.clear();
    } else if (!samePattern()) {
      band_ = setBandPattern();
    }
    if (band_) {
      factorizeKktBand(c, std::complex<double>(k.alpha / h, k.beta / h), eps);
      ++rstats_.bandFactorizations;
    } else {
      factorizeKktSparse(c, std::complex<double>(k.alpha / h, k.beta / h), eps);
    }
    ++rstats_.factorizations;
    ++rstats_.sparseFactorizations;
    luH_ = h;
    haveLu_ = true;
    return;
  }
  auto fill = [&](auto& E) {
    E.topRightCorner(n_, m) = kktScale_ * (rowScale_.asDiagonal() * lin_.A).transpose();
    E.bottomLeftCorner(m, n_) = rowScale_.asDiagonal() * lin_.A;
    E.bottomRightCorner(m, m).setZero();
    E.bottomRightCorner(m, m).diagonal().setConstant(-eps);
  };
  fill(Er_);
  Er_.topLeftCorner(n_, n_) = c * c * lin_.M - c * lin_.dQdv - lin_.dQdq;
  luR_.compute(Er_);
  fill(Ec_);
  const std::complex<double> cc(k.alpha / h, k.beta / h), cc2 = cc * cc;
  Ec_.topLeftCorner(n_, n_).real() = cc2.real() * lin_.M - cc.real() * lin_.dQdv - lin_.dQdq;
  Ec_.topLeftCorner(n_, n_).imag() = cc2.imag() * lin_.M - cc.imag() * lin_.dQdv;
  luC_.compute(Ec_);
  ++rstats_.factorizations;
  luH_ = h;
  haveLu_ = true;
}

void Radau5Integrator::factorizeKktSparse(double c, std::complex<double> cc, double eps) {
  // the same KKT matrices as factorizeKkt: from the system's sparse linearization (assembled
  // element by element: O(entries)), or from the non-zero entries of dense blocks (a system
  // that gives only those: O(n^2) to scan); O(entries) and the fill of the LU to factorize
  const auto m = kktRows_;
  const auto N = n_ + m;
  auto sparse = [&](const MatrixXd& D, SparseD& S) {
    trip_.clear();
    for (Eigen::Index j = 0; j < D.cols(); ++j)
      for (Eigen::Index i = 0; i < D.rows(); ++i)
        if (D(i, j) != 0) trip_.emplace_back(static_cast<int>(i), static_cast<int>(j), D(i, j));
    S.resize(D.rows(), D.cols());
    S.setFromTriplets(trip_.begin(), trip_.end());
  };
  SparseD K;
  if (lin_.sparse) {
    Msp_ = lin_.Ms;
    Dsp_ = lin_.dQdvS;
    Asp_ = rowScale_.asDiagonal() * lin_.As;  // rows of unit norm
    K = lin_.dQdqS;
  } else {
    sparse(lin_.M, Msp_);
    sparse(lin_.dQdv, Dsp_);
    sparse(lin_.A, Asp_);
    Asp_ = rowScale_.asDiagonal() * Asp_;  // rows of unit norm
    sparse(lin_.dQdq, K);
  }
  const SparseD At = Asp_.transpose();
  auto assemble = [&](const SparseD& top, std::vector<Eigen::Triplet<double>>& t) {
    t.clear();
    for (int j = 0; j < top.outerSize(); ++j)
      for (SparseD::InnerIterator it(top, j); it; ++it) t.emplace_back(static_cast<int>(it.row()), j, it.value());
    for (int j = 0; j < At.outerSize(); ++j)  // kktScale As^T (top right), As (bottom left)
      for (SparseD::InnerIterator it(At, j); it; ++it) {
        t.emplace_back(static_cast<int>(it.row()), static_cast<int>(n_) + j, kktScale_ * it.value());
        t.emplace_back(static_cast<int>(n_) + j, static_cast<int>(it.row()), it.value());
      }
    for (Eigen::Index i = 0; i < m; ++i) t.emplace_back(static_cast<int>(n_ + i), static_cast<int>(n_ + i), -eps);
  };
  const SparseD topR = (c * c) * Msp_ - c * Dsp_ - K;
  assemble(topR, trip_);
  Esp_.resize(N, N);
  Esp_.setFromTriplets(trip_.begin(), trip_.end());
  sluR_.analyzePattern(Esp_);
  sluR_.factorize(Esp_);
  // complex: (cc^2 M - cc D - K) on the same pattern
  const std::complex<double> cc2 = cc * cc;
  std::vector<Eigen::Triplet<std::complex<double>>> tc;
  tc.reserve(trip_.size());
  const SparseD topRe = cc2.real() * Msp_ - cc.real() * Dsp_ - K, topIm = cc2.imag() * Msp_ - cc.imag() * Dsp_;
  for (int j = 0; j < topRe.outerSize(); ++j)
    for (SparseD::InnerIterator it(topRe, j); it; ++it) tc.emplace_back(static_cast<int>(it.row()), j, it.value());
  for (int j = 0; j < topIm.outerSize(); ++j)
    for (SparseD::InnerIterator it(topIm, j); it; ++it)
      tc.emplace_back(static_cast<int>(it.row()), j, std::complex<double>(0, it.value()));
  for (const auto& t : trip_)
    if (t.row() >= n_ || t.col() >= n_) tc.emplace_back(t.row(), t.col(), t.value());
  Ecsp_.resize(N, N);
  Ecsp_.setFromTriplets(tc.begin(), tc.end());
  sluC_.analyzePattern(Ecsp_);
  sluC_.factorize(Ecsp_);
}

namespace {

/// [rows, cols, outer indices, inner indices] of a compressed sparse matrix.
template <class Sparse>
bool patternIs(const Sparse& S, const std::vector<int>& p) {
  const auto cols = static_cast<std::size_t>(S.cols()), nnz = static_cast<std::size_t>(S.nonZeros());
  if (!S.isCompressed() || p.size() != 2 + cols + 1 + nnz || p[0] != S.rows() || p[1] != S.cols()) return false;
  return std::equal(S.outerIndexPtr(), S.outerIndexPtr() + cols + 1, p.begin() + 2) &&
         std::equal(S.innerIndexPtr(), S.innerIndexPtr() + nnz, p.begin() + 2 + static_cast<std::ptrdiff_t>(cols) + 1);
}

template <class Sparse>
void keepPattern(const Sparse& S, std::vector<int>& p) {
  const auto cols = static_cast<std::size_t>(S.cols()), nnz = static_cast<std::size_t>(S.nonZeros());
  p.assign({static_cast<int>(S.rows()), static_cast<int>(S.cols())});
  p.insert(p.end(), S.outerIndexPtr(), S.outerIndexPtr() + cols + 1);
  p.insert(p.end(), S.innerIndexPtr(), S.innerIndexPtr() + nnz);
}

/// Reverse Cuthill-McKee order of a symmetric graph (adjacency lists without the diagonal),
/// each component from a pseudo-peripheral node; perm[old] = new.
std::vector<int> reverseCuthillMcKee(const std::vector<std::vector<int>>& adj) {
  const int N = static_cast<int>(adj.size());
  std::vector<int> order, level(static_cast<std::size_t>(N), -1), stamp(static_cast<std::size_t>(N), -1);
  order.reserve(static_cast<std::size_t>(N));
  const auto deg = [&](int v) { return adj[static_cast<std::size_t>(v)].size(); };
  std::vector<int> queue, nb;
  queue.reserve(static_cast<std::size_t>(N));
  // breadth-first from s over the unplaced nodes; returns the depth, fills queue
  int pass = 0;
  const auto bfs = [&](int s) {
    ++pass;
    queue.clear();
    queue.push_back(s);
    stamp[static_cast<std::size_t>(s)] = pass;
    level[static_cast<std::size_t>(s)] = 0;
    for (std::size_t h = 0; h < queue.size(); ++h) {
      const int v = queue[h];
      nb.clear();
      for (int w : adj[static_cast<std::size_t>(v)])
        if (stamp[static_cast<std::size_t>(w)] != pass && level[static_cast<std::size_t>(w)] != -2) nb.push_back(w);
      std::sort(nb.begin(), nb.end(), [&](int a, int b) { return deg(a) < deg(b) || (deg(a) == deg(b) && a < b); });
      for (int w : nb) {
        stamp[static_cast<std::size_t>(w)] = pass;
        level[static_cast<std::size_t>(w)] = level[static_cast<std::size_t>(v)] + 1;
        queue.push_back(w);
      }
    }
    return level[static_cast<std::size_t>(queue.back())];
  };
  while (static_cast<int>(order.size()) < N) {
    int s = -1;  // an unplaced node of least degree
    for (int v = 0; v < N; ++v)
      if (level[static_cast<std::size_t>(v)] != -2 && (s < 0 || deg(v) < deg(s))) s = v;
    int depth = bfs(s);
    for (int tries = 0; tries < 4; ++tries) {  // move to a node of the last level (least degree)
      int e = -1;
      for (int v : queue)
        if (level[static_cast<std::size_t>(v)] == depth && (e < 0 || deg(v) < deg(e))) e = v;
      const int d = bfs(e);
      if (d <= depth) {
        bfs(s);
        break;
      }
      s = e;
      depth = d;
    }
    for (int v : queue) {
      order.push_back(v);
      level[static_cast<std::size_t>(v)] = -2;  // placed
    }
  }
  std::vector<int> perm(static_cast<std::size_t>(N));
  for (int k = 0; k < N; ++k) perm[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = N - 1 - k;
  return perm;
}

}  // namespace

bool Radau5Integrator::samePattern() const {
  return patternIs(lin_.Ms, patM_) && patternIs(lin_.dQdvS, patD_) && patternIs(lin_.dQdqS, patK_) &&
         patternIs(lin_.As, patA_);
}

bool Radau5Integrator::setBandPattern() {
  // once per pattern (the linearization keeps its pattern from step to step: ModelSystem
  // refills its matrices in place): the graph of the KKT matrix, its RCM order, the band
  // and the place of every source value in it
  for (SparseD* S : {&lin_.Ms, &lin_.dQdvS, &lin_.dQdqS, &lin_.As}) S->makeCompressed();
  keepPattern(lin_.Ms, patM_);
  keepPattern(lin_.dQdvS, patD_);
  keepPattern(lin_.dQdqS, patK_);
  keepPattern(lin_.As, patA_);
  const int n = n_, m = static_cast<int>(kktRows_), N = n + m;
  std::vector<std::vector<int>> adj(static_cast<std::size_t>(N));
  const auto link = [&](int r, int c) {
    if (r == c) return;
    adj[static_cast<std::size_t>(r)].push_back(c);
    adj[static_cast<std::size_t>(c)].push_back(r);
  };
  const auto edges = [&](const SparseD& S, int r0, auto&& f) {
    for (int j = 0; j < S.outerSize(); ++j)
      for (int p = S.outerIndexPtr()[j]; p < S.outerIndexPtr()[j + 1]; ++p) f(r0 + S.innerIndexPtr()[p], j, p);
  };
  for (const SparseD* S : {&lin_.Ms, &lin_.dQdvS, &lin_.dQdqS}) edges(*S, 0, [&](int r, int c, int) { link(r, c); });
  edges(lin_.As, n, [&](int r, int c, int) { link(r, c); });
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  perm_ = reverseCuthillMcKee(adj);
  int bw = 0;
  for (int v = 0; v < N; ++v)
    for (int w : adj[static_cast<std::size_t>(v)])
      bw = std::max(bw, std::abs(perm_[static_cast<std::size_t>(v)] - perm_[static_cast<std::size_t>(w)]));
  if (bw > opt_.maxBand) {
    spdlog::debug("radau5: KKT half-bandwidth {} after reordering > {}: general sparse LU", bw, opt_.maxBand);
    return false;
  }
  bandR_.reset(N, bw, bw);
  bandC_.reset(N, bw, bw);
  const auto at = [&](int r, int c) {
    return bandR_.index(perm_[static_cast<std::size_t>(r)], perm_[static_cast<std::size_t>(c)]);
  };
  const auto map = [&](const SparseD& S, int r0, std::vector<Eigen::Index>& out) {
    out.resize(static_cast<std::size_t>(S.nonZeros()));
    edges(S, r0, [&](int r, int c, int p) { out[static_cast<std::size_t>(p)] = at(r, c); });
  };
  map(lin_.Ms, 0, mapM_);
  map(lin_.dQdvS, 0, mapD_);
  map(lin_.dQdqS, 0, mapK_);
  map(lin_.As, n, mapA_);
  mapAt_.resize(mapA_.size());
  edges(lin_.As, n, [&](int r, int c, int p) { mapAt_[static_cast<std::size_t>(p)] = at(c, r); });
  mapEps_.resize(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) mapEps_[static_cast<std::size_t>(i)] = at(n + i, n + i);
  spdlog::debug("radau5: KKT matrix of {} unknowns, half-bandwidth {} after reordering: banded LU", N, bw);
  return true;
}

void Radau5Integrator::factorizeKktBand(double c, std::complex<double> cc, double eps) {
  // the values of [c^2 M - c D - K, s As^T; As, -eps I] written into the band in place
  const auto fill = [&](auto& B, auto c2, auto c1) {
    B.setZero();
    auto* ab = B.data();
    const double* v = lin_.Ms.valuePtr();
    for (std::size_t k = 0; k < mapM_.size(); ++k) ab[mapM_[k]] += c2 * v[k];
    v = lin_.dQdvS.valuePtr();
    for (std::size_t k = 0; k < mapD_.size(); ++k) ab[mapD_[k]] -= c1 * v[k];
    v = lin_.dQdqS.valuePtr();
    for (std::size_t k = 0; k < mapK_.size(); ++k) ab[mapK_[k]] -= v[k];
    v = lin_.As.valuePtr();
    const int* row = lin_.As.innerIndexPtr();
    for (std::size_t k = 0; k < mapA_.size(); ++k) {
      const double a = rowScale_(row[k]) * v[k];  // rows of unit norm
      ab[mapA_[k]] += a;
      ab[mapAt_[k]] += kktScale_ * a;
    }
    for (const Eigen::Index i : mapEps_) ab[i] -= eps;
    B.factorize();
  };
  fill(bandR_, c * c, c);
  fill(bandC_, cc * cc, cc);
}

template <class Vec, class Scalar, class Lu, class SparseLu, class Band>
void Radau5Integrator::solveKkt(Vec& r, Scalar c, Lu& lu, SparseLu& slu, const Band& band, Vec& R, Vec& rhs, Vec& sol) {
  const auto m = kktRows_;
  R = r.tail(n_) + c * r.head(n_);
  if (sparse_ && band_) {  // in the band's order; nothing allocated
    rhs.head(n_).noalias() = lin_.Ms * R;
    rhs.head(n_).noalias() -= lin_.dQdvS * r.head(n_);
    rhs.tail(m).noalias() = lin_.As * R;
    rhs.tail(m) = rhs.tail(m).cwiseProduct(rowScale_) / (c * c);
    for (Eigen::Index i = 0; i < rhs.size(); ++i) sol(perm_[static_cast<std::size_t>(i)]) = rhs(i);
    band.solveInPlace(sol);
    for (Eigen::Index i = 0; i < rhs.size(); ++i) rhs(i) = sol(perm_[static_cast<std::size_t>(i)]);
    r.tail(n_) = c * rhs.head(n_) - r.head(n_);
    r.head(n_) = rhs.head(n_);
    return;
  }
  if (sparse_) {
    rhs.head(n_) = Msp_ * R;
    rhs.head(n_) -= Dsp_ * r.head(n_);
    rhs.tail(m) = Asp_ * R;  // rows already scaled
    rhs.tail(m) /= c * c;
    sol = slu.solve(rhs);
    r.tail(n_) = c * sol.head(n_) - r.head(n_);
    r.head(n_) = sol.head(n_);
    return;
  }
  rhs.head(n_).noalias() = lin_.M * R;
  rhs.head(n_).noalias() -= lin_.dQdv * r.head(n_);
  rhs.tail(m).noalias() = lin_.A * R;
  rhs.tail(m) = rhs.tail(m).cwiseProduct(rowScale_) / (c * c);
  sol = lu.solve(rhs);
  r.tail(n_) = c * sol.head(n_) - r.head(n_);
  r.head(n_) = sol.head(n_);
}

void Radau5Integrator::factorize(double h) {
  if (kkt_) return factorizeKkt(h);
  const auto& k = coefficients();
  const double c = k.gamma / h;
  // (c I - J) reduced to n x n: (c^2 I - c Jv - Jq); buffers and LU storage reused (no allocation)
  Er_.noalias() = -c * Jv_;
  Er_ -= Jq_;
  Er_.diagonal().array() += c * c;
  luR_.compute(Er_);
  const std::complex<double> cc(k.alpha / h, k.beta / h);
  Ec_.real() = -cc.real() * Jv_ - Jq_;
  Ec_.imag() = -cc.imag() * Jv_;
  Ec_.diagonal().array() += cc * cc;
  luC_.compute(Ec_);
  ++rstats_.factorizations;
  luH_ = h;
  haveLu_ = true;
}

void Radau5Integrator::solveReal(VectorXd& r) {
  // (c I - J) x = r with J = [0 I; Jq Jv]: (c^2 - c Jv - Jq) x_q = r_v + c r_q - Jv r_q,
  // x_v = c x_q - r_q
  const double c = coefficients().gamma / luH_;
  if (kkt_) return solveKkt(r, c, luR_, sluR_, bandR_, kR_, kRhs_, kSol_);
  tmpN_ = r.tail(n_) + c * r.head(n_);
  tmpN_.noalias() -= Jv_ * r.head(n_);
  xqR_ = luR_.solve(tmpN_);
  r.tail(n_) = c * xqR_ - r.head(n_);
  r.head(n_) = xqR_;
}

void Radau5Integrator::solveComplex(VectorXc& r) {
  const auto& k = coefficients();
  const std::complex<double> c(k.alpha / luH_, k.beta / luH_);
  if (kkt_) return solveKkt(r, c, luC_, sluC_, bandC_, kRc_, kRhsc_, kSolc_);
  tmpNc_ = r.tail(n_) + c * r.head(n_);
  tmpRe_.noalias() = Jv_ * r.head(n_).real();
  tmpIm_.noalias() = Jv_ * r.head(n_).imag();
  tmpNc_.real() -= tmpRe_;
  tmpNc_.imag() -= tmpIm_;
  xqC_ = luC_.solve(tmpNc_);
  r.tail(n_) = c * xqC_ - r.head(n_);
  r.head(n_) = xqC_;
}

void Radau5Integrator::startValues(double h) {
  const auto& k = coefficients();
  if (!haveZ_ || first_) {
    Z_.setZero();
    W_.setZero();
    return;
  }
  // the last step's collocation polynomial, extrapolated, relative to its end value
  for (int i = 0; i < 3; ++i) {
    double w[3];
    lagrange(1 + k.c[i] * h / hLast_, w);
    Z_.col(i) = w[0] * Zlast_.col(0) + w[1] * Zlast_.col(1) + (w[2] - 1) * Zlast_.col(2);
  }
  W_.noalias() = Z_ * k.Ti.transpose();
}

int Radau5Integrator::newton(double t, double h, AccelerationStatus& failure, double& tFail) {
  const auto& k = coefficients();
  const double N = static_cast<double>(2 * n_);
  faccon_ = std::pow(std::max(faccon_, kUround), 0.8);
  // a step that converges in one iteration keeps the matrix (theta at the threshold)
  theta_ = std::abs(kkt_ ? opt_.linearizedJacobianReuse : opt_.jacobianReuse);
  double dynold = 1, thqold = 1;
  newtonShrink_ = 0.5;
  for (int newt = 0;; ++newt) {
    newtonCount_ = newt + 1;
    if (newt >= opt_.maxNewton) return 1;
    for (int i = 0; i < 3; ++i) {
      yt_ = y_ + Z_.col(i);
      const AccelerationStatus st = evaluate(t + k.c[i] * h, yt_, ft_);
      if (!st.ok()) {
        failure = st;
        tFail = t + k.c[i] * h;
        return 2;
      }
      F_.col(i) = ft_;
    }
    ++rstats_.newtonIterations;
    // transformed right-hand sides: T^-1 F - Lambda W / h
    dW_.noalias() = F_ * k.Ti.transpose();
    r1_ = dW_.col(0) - (k.gamma / h) * W_.col(0);
    rc_.real() = dW_.col(1) - (k.alpha * W_.col(1) - k.beta * W_.col(2)) / h;
    rc_.imag() = dW_.col(2) - (k.beta * W_.col(1) + k.alpha * W_.col(2)) / h;
    solveReal(r1_);
    solveComplex(rc_);
    dW_.col(0) = r1_;
    dW_.col(1) = rc_.real();
    dW_.col(2) = rc_.imag();
    double dyno = 0;
    for (int i = 0; i < 3; ++i) dyno += (dW_.col(i).array() / scal_.array()).square().sum();
    dyno = std::sqrt(dyno / (3 * N));
    if (!std::isfinite(dyno)) return 1;
    if (newt >= 1) {
      const double thq = dyno / dynold;
      theta_ = newt == 1 ? thq : std::sqrt(thq * thqold);
      thqold = thq;
      if (theta_ >= 0.99) return 1;
      faccon_ = theta_ / (1 - theta_);
      const double dyth =
          faccon_ * dyno * std::pow(theta_, opt_.maxNewton - 2 - newt) / fnewt_;
      if (dyth >= 1) {
        // RADAU5: retry with the step the predicted convergence allows
        newtonShrink_ = 0.8 * std::pow(std::clamp(dyth, 1e-4, 20.0), -1.0 / (4.0 + opt_.maxNewton - 2 - newt));
        return 1;
      }
    }
    dynold = std::max(dyno, kUround);
    W_ += dW_;
    Z_.noalias() = W_ * k.T.transpose();
    if (faccon_ * dyno <= fnewt_) return 0;
  }
}

double Radau5Integrator::errorEstimate(double t, double h, bool retry) {
  const auto& k = coefficients();
  const double N = static_cast<double>(2 * n_);
  f2_ = (k.dd[0] * Z_.col(0) + k.dd[1] * Z_.col(1) + k.dd[2] * Z_.col(2)) / h;
  r1_ = k1_ + f2_;
  solveReal(r1_);
  double err = std::sqrt((r1_.array() / scal_.array()).square().sum() / N);
  if (err >= 1 && retry) {
    yt_ = y_ + r1_;
    const AccelerationStatus st = evaluate(t, yt_, ft_);
    if (st.ok()) {
      r1_ = ft_ + f2_;
      solveReal(r1_);
      err = std::sqrt((r1_.array() / scal_.array()).square().sum() / N);
    }
  }
  return std::max(err, 1e-10);
}

StepResult Radau5Integrator::collapse(double hmin, const AccelerationStatus* lastFailure, double tFailure) {
  const double t = state_.t;
  if (lastFailure && lastFailure->finite && lastFailure->posedness != Posedness::WellPosed) {
    // the trial steps keep meeting an ill-posed or inconsistent state: that is the answer
    StepResult r;
    r.ok = false;
    r.status = *lastFailure;
    r.tOld = r.tNew = t;
    r.t = tFailure;
    return r;
  }
  std::ostringstream os;
  os << "radau5: step-size collapse at t = " << t << ": step " << h_ << " s below the minimum " << hmin << " s";
  if (lastFailure && !lastFailure->message.empty()) os << "; last rejected trial step: " << lastFailure->message;
  else os << " (Newton does not converge or the error cannot be met)";
  throw SimulationError(os.str());
}

StepResult Radau5Integrator::accept(double t, double h, double err, double fac, double hnew, double tNew,
                                    bool last, double hmax) {
  double quot = h / hnew;
  if (!first_ && !opt_.fixedStep) {
    double facgus = (hacc_ / h) * std::pow(err * err / erracc_, 0.25) / fac;
    facgus = std::max(kFacr, std::min(kFacl, facgus));
    quot = std::max(quot, facgus);
    hnew = h / quot;
  }
  hacc_ = h;
  erracc_ = std::max(1e-2, err);
  first_ = false;
  // accept
  y0_ = y_;
  tOld_ = t;
  hLast_ = h;
  Zlast_ = Z_;
  haveZ_ = haveStep_ = true;
  y_ += Z_.col(2);
  storeY(tNew);
  noteStep(h);
  haveDerivative_ = false;
  jacFresh_ = false;
  if (lastRejected_) hnew = std::min(hnew, h);
  lastRejected_ = false;
  const double reuse = kkt_ ? opt_.linearizedJacobianReuse : opt_.jacobianReuse;
  if (!opt_.fixedStep && !(last && h < h_)) {
    if (theta_ < 0.3) hCap_ *= 1.2;
    hnew = std::min(hnew, hCap_);
    const double qt = hnew / h;
    if (theta_ <= reuse && qt >= kQuot1 && qt <= kQuot2) hnew = h;
    h_ = std::min(hnew, hmax);
  }
  // a fresh Jacobian at the new state when Newton contracted slowly
  if (theta_ > reuse) haveJac_ = false;
  StepResult r;
  r.tOld = t;
  r.ok = true;
  r.tNew = state_.t;
  return r;
}

// long: one step in the order of the method (Jacobian, Newton iteration, error estimate,
// acceptance, step-size control), each commented.
StepResult Radau5Integrator::advance(double tLimit) {
  StepResult r;
  r.tOld = state_.t;
  const AccelerationStatus st0 = ensureDerivative();
  if (!st0.finite) failNonFinite(state_.t, st0, "at an accepted state");
  if (!st0.ok()) {
    r.ok = false;
    r.status = st0;
    r.t = r.tNew = state_.t;
    return r;
  }
  loadY();
  const double hmax = opt_.maxStep > 0 ? opt_.maxStep : std::numeric_limits<double>::infinity();
  if (opt_.fixedStep) h_ = opt_.initialStep;
  else if (!(h_ > 0)) h_ = opt_.initialStep > 0 ? opt_.initialStep : 1e-6 * std::max(1.0, tLimit - state_.t);
  if (!haveJac_ && !computeJacobian()) {
    r.ok = false;
    r.status = currentStatus_;
    r.status.posedness = Posedness::IllPosed;
    r.status.message = "radau5: the Jacobian could not be evaluated next to the state";
    r.t = r.tNew = state_.t;
    return r;
  }
  AccelerationStatus lastFailure;
  double tLastFailure = state_.t;
  bool haveFailure = false;
  for (;;) {
    const double t = state_.t;
    const double hmin = opt_.minStep > 0 ? opt_.minStep : 1e-12 * std::max(1.0, std::abs(t));
    if (!opt_.fixedStep && h_ < hmin) return collapse(hmin, haveFailure ? &lastFailure : nullptr, tLastFailure);
    double h = std::min(h_, hmax);
    bool last = false;
    if (t + 1.01 * h >= tLimit) {
      h = tLimit - t;
      last = true;
    }
    scal_ = (atol_ + rtol_ * y_.cwiseAbs().array()).matrix();
    if (!haveLu_ || h != luH_) factorize(h);
    startValues(h);
    AccelerationStatus failure;
    double tFail = t;
    const int nr = newton(t, h, failure, tFail);
    if (nr != 0) {
      if (opt_.fixedStep && nr == 2) {
        if (!failure.finite) failNonFinite(tFail, failure, "fixed-step radau5 stage");
        r.ok = false;
        r.status = failure;
        r.t = tFail;
        r.tNew = state_.t;
        return r;
      }
      ++stats_.rejected;
      ++rstats_.newtonFailures;
      if (nr == 2) {
        haveFailure = true;
        lastFailure = failure;
        tLastFailure = tFail;
      }
      h_ = h * (nr == 2 ? kFailShrink : newtonShrink_);
      // Newton, not the error, limits the step here: probe larger steps only slowly
      if (nr == 1) hCap_ = h_;
      lastRejected_ = true;
      if (!jacFresh_) {
        if (!computeJacobian()) h_ = h * kFailShrink;
      }
      if (opt_.fixedStep) throw SimulationError("radau5: Newton did not converge at a fixed step");
      continue;
    }
    const double err = opt_.fixedStep ? 0.0 : errorEstimate(t + h, h, first_ || lastRejected_);
    // RADAU5's safety factor: smaller when Newton needed many iterations
    const double nit = opt_.maxNewton;
    const double fac = std::min(kSafe, kSafe * (2 * nit + 1) / (newtonCount_ + 2 * nit));
    double quot = std::max(kFacr, std::min(kFacl, std::pow(err, 0.25) / fac));
    double hnew = h / quot;
    if (err < 1 || opt_.fixedStep) return accept(t, h, err, fac, hnew, last ? tLimit : t + h, last, hmax);
    ++stats_.rejected;
    ++rstats_.errorRejections;
    lastRejected_ = true;
    h_ = first_ ? h * 0.1 : hnew;
    if (!jacFresh_ && !computeJacobian()) h_ = h * kFailShrink;
  }
}

void Radau5Integrator::interpolate(double t, State& out) {
  if (!haveStep_) throw SimulationError("radau5: no step to interpolate in");
  const double tau = std::clamp((t - tOld_) / hLast_, 0.0, 1.0);
  double w[3];
  lagrange(tau, w);
  yt_ = y0_ + w[0] * Zlast_.col(0) + w[1] * Zlast_.col(1) + w[2] * Zlast_.col(2);
  out.t = t;
  out.q = yt_.head(n_);
  out.v = yt_.tail(n_);
}

}  // namespace joinery
