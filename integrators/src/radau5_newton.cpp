// The iteration matrices of radau5's simplified Newton method (radau5_newton.hpp): the
// finite-difference form (J = [0 I; Jq Jv], dense LU) and the KKT form of the force
// linearization, factorized densely, by Eigen's SparseLU or by the banded LU on a pattern
// fixed once in the reverse Cuthill-McKee order (docs/performance.md, "Stiff models").
#include "radau5_newton.hpp"

#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "joinery/core/assert.hpp"

namespace joinery::detail {

DifferencedMatrix::DifferencedMatrix(int n)
    : Jq(MatrixXd::Zero(n, n)), Jv(MatrixXd::Zero(n, n)), n_(n), Er_(MatrixXd::Zero(n, n)),
      Ec_(MatrixXc::Zero(n, n)), luR_(n), luC_(n) {
  // the buffers are made once (a model that gives its force linearization never makes them:
  // a chain of 1000 rods would hold 4 n^2 doubles it never uses)
  tmpN_ = xqR_ = tmpRe_ = tmpIm_ = VectorXd::Zero(n_);
  tmpNc_ = xqC_ = VectorXc::Zero(n_);
}

void DifferencedMatrix::factorize(double h, Radau5Stats& stats) {
  const auto& k = radau5Coefficients();
  const double c = k.gamma / h;
  // (c I - J) reduced to n x n: (c^2 I - c Jv - Jq); buffers and LU storage reused (no allocation)
  Er_.noalias() = -c * Jv;
  Er_ -= Jq;
  Er_.diagonal().array() += c * c;
  luR_.compute(Er_);
  const std::complex<double> cc(k.alpha / h, k.beta / h);
  Ec_.real() = -cc.real() * Jv - Jq;
  Ec_.imag() = -cc.imag() * Jv;
  Ec_.diagonal().array() += cc * cc;
  luC_.compute(Ec_);
  ++stats.factorizations;
  h_ = h;
}

void DifferencedMatrix::solveReal(VectorXd& r) {
  JOINERY_ASSERT(r.size() == 2 * n_, "radau5: a real right-hand side of 2n entries");
  const double c = radau5Coefficients().gamma / h_;
  tmpN_ = r.tail(n_) + c * r.head(n_);
  tmpN_.noalias() -= Jv * r.head(n_);
  xqR_ = luR_.solve(tmpN_);
  r.tail(n_) = c * xqR_ - r.head(n_);
  r.head(n_) = xqR_;
}

void DifferencedMatrix::solveComplex(VectorXc& r) {
  JOINERY_ASSERT(r.size() == 2 * n_, "radau5: a complex right-hand side of 2n entries");
  const auto& k = radau5Coefficients();
  const std::complex<double> c(k.alpha / h_, k.beta / h_);
  tmpNc_ = r.tail(n_) + c * r.head(n_);
  tmpRe_.noalias() = Jv * r.head(n_).real();
  tmpIm_.noalias() = Jv * r.head(n_).imag();
  tmpNc_.real() -= tmpRe_;
  tmpNc_.imag() -= tmpIm_;
  xqC_ = luC_.solve(tmpNc_);
  r.tail(n_) = c * xqC_ - r.head(n_);
  r.head(n_) = xqC_;
}

KktMatrix::KktMatrix(int n, int sparseFrom, int maxBand) : n_(n), sparseFrom_(sparseFrom), maxBand_(maxBand) {}

void KktMatrix::factorize(double h, Radau5Stats& stats) {
  // [c^2 M - c dQdv - dQdq, s As^T; As, -eps I] with the rows of A scaled to unit norm (As)
  // and the multipliers scaled by s = (gamma / h)^2 max M_ii so both blocks have one scale;
  // eps = 1e-10 makes redundant rows harmless (their multiplier combination does not move x)
  const auto& k = radau5Coefficients();
  const auto m = kktRows_ = lin.sparse ? lin.As.rows() : lin.A.rows();
  const auto N = n_ + m;
  const bool sparse = lin.sparse || (sparseFrom_ > 0 && N >= sparseFrom_);
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
  if (lin.sparse) {
    rho = lin.Ms.diagonal().cwiseAbs().maxCoeff();
    rowScale_.setZero();  // squared row norms first
    for (int j = 0; j < lin.As.outerSize(); ++j)
      for (SparseD::InnerIterator it(lin.As, j); it; ++it) rowScale_(it.row()) += it.value() * it.value();
    for (Eigen::Index i = 0; i < m; ++i) rowScale_(i) = rowScale_(i) > 0 ? 1 / std::sqrt(rowScale_(i)) : 1;
  } else {
    rho = lin.M.diagonal().cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < m; ++i) {
      const double r = lin.A.row(i).norm();
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
    if (!lin.sparse || maxBand_ <= 0) {
      band_ = false;
      patM_.clear();
    } else if (!samePattern()) {
      band_ = setBandPattern();
    }
    if (band_) {
      factorizeBand(c, std::complex<double>(k.alpha / h, k.beta / h), eps);
      ++stats.bandFactorizations;
    } else {
      factorizeSparse(c, std::complex<double>(k.alpha / h, k.beta / h), eps);
    }
    ++stats.factorizations;
    ++stats.sparseFactorizations;
    h_ = h;
    return;
  }
  auto fill = [&](auto& E) {
    E.topRightCorner(n_, m) = kktScale_ * (rowScale_.asDiagonal() * lin.A).transpose();
    E.bottomLeftCorner(m, n_) = rowScale_.asDiagonal() * lin.A;
    E.bottomRightCorner(m, m).setZero();
    E.bottomRightCorner(m, m).diagonal().setConstant(-eps);
  };
  fill(Er_);
  Er_.topLeftCorner(n_, n_) = c * c * lin.M - c * lin.dQdv - lin.dQdq;
  luR_.compute(Er_);
  fill(Ec_);
  const std::complex<double> cc(k.alpha / h, k.beta / h), cc2 = cc * cc;
  Ec_.topLeftCorner(n_, n_).real() = cc2.real() * lin.M - cc.real() * lin.dQdv - lin.dQdq;
  Ec_.topLeftCorner(n_, n_).imag() = cc2.imag() * lin.M - cc.imag() * lin.dQdv;
  luC_.compute(Ec_);
  ++stats.factorizations;
  h_ = h;
}

void KktMatrix::factorizeSparse(double c, std::complex<double> cc, double eps) {
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
  if (lin.sparse) {
    Msp_ = lin.Ms;
    Dsp_ = lin.dQdvS;
    Asp_ = rowScale_.asDiagonal() * lin.As;  // rows of unit norm
    K = lin.dQdqS;
  } else {
    sparse(lin.M, Msp_);
    sparse(lin.dQdv, Dsp_);
    sparse(lin.A, Asp_);
    Asp_ = rowScale_.asDiagonal() * Asp_;  // rows of unit norm
    sparse(lin.dQdq, K);
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

bool KktMatrix::samePattern() const {
  return patternIs(lin.Ms, patM_) && patternIs(lin.dQdvS, patD_) && patternIs(lin.dQdqS, patK_) &&
         patternIs(lin.As, patA_);
}

bool KktMatrix::setBandPattern() {
  // once per pattern (the linearization keeps its pattern from step to step: ModelSystem
  // refills its matrices in place): the graph of the KKT matrix, its RCM order, the band
  // and the place of every source value in it
  for (SparseD* S : {&lin.Ms, &lin.dQdvS, &lin.dQdqS, &lin.As}) S->makeCompressed();
  keepPattern(lin.Ms, patM_);
  keepPattern(lin.dQdvS, patD_);
  keepPattern(lin.dQdqS, patK_);
  keepPattern(lin.As, patA_);
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
  for (const SparseD* S : {&lin.Ms, &lin.dQdvS, &lin.dQdqS}) edges(*S, 0, [&](int r, int c, int) { link(r, c); });
  edges(lin.As, n, [&](int r, int c, int) { link(r, c); });
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  perm_ = reverseCuthillMcKee(adj);
  int bw = 0;
  for (int v = 0; v < N; ++v)
    for (int w : adj[static_cast<std::size_t>(v)])
      bw = std::max(bw, std::abs(perm_[static_cast<std::size_t>(v)] - perm_[static_cast<std::size_t>(w)]));
  if (bw > maxBand_) {
    spdlog::debug("radau5: KKT half-bandwidth {} after reordering > {}: general sparse LU", bw, maxBand_);
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
  map(lin.Ms, 0, mapM_);
  map(lin.dQdvS, 0, mapD_);
  map(lin.dQdqS, 0, mapK_);
  map(lin.As, n, mapA_);
  mapAt_.resize(mapA_.size());
  edges(lin.As, n, [&](int r, int c, int p) { mapAt_[static_cast<std::size_t>(p)] = at(c, r); });
  mapEps_.resize(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) mapEps_[static_cast<std::size_t>(i)] = at(n + i, n + i);
  spdlog::debug("radau5: KKT matrix of {} unknowns, half-bandwidth {} after reordering: banded LU", N, bw);
  return true;
}

void KktMatrix::factorizeBand(double c, std::complex<double> cc, double eps) {
  // the values of [c^2 M - c D - K, s As^T; As, -eps I] written into the band in place
  const auto fill = [&](auto& B, auto c2, auto c1) {
    B.setZero();
    auto* ab = B.data();
    const double* v = lin.Ms.valuePtr();
    for (std::size_t k = 0; k < mapM_.size(); ++k) ab[mapM_[k]] += c2 * v[k];
    v = lin.dQdvS.valuePtr();
    for (std::size_t k = 0; k < mapD_.size(); ++k) ab[mapD_[k]] -= c1 * v[k];
    v = lin.dQdqS.valuePtr();
    for (std::size_t k = 0; k < mapK_.size(); ++k) ab[mapK_[k]] -= v[k];
    v = lin.As.valuePtr();
    const int* row = lin.As.innerIndexPtr();
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
void KktMatrix::solve(Vec& r, Scalar c, Lu& lu, SparseLu& slu, const Band& band, Vec& R, Vec& rhs, Vec& sol) {
  const auto m = kktRows_;
  R = r.tail(n_) + c * r.head(n_);
  if (sparse_ && band_) {  // in the band's order; nothing allocated
    rhs.head(n_).noalias() = lin.Ms * R;
    rhs.head(n_).noalias() -= lin.dQdvS * r.head(n_);
    rhs.tail(m).noalias() = lin.As * R;
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
  rhs.head(n_).noalias() = lin.M * R;
  rhs.head(n_).noalias() -= lin.dQdv * r.head(n_);
  rhs.tail(m).noalias() = lin.A * R;
  rhs.tail(m) = rhs.tail(m).cwiseProduct(rowScale_) / (c * c);
  sol = lu.solve(rhs);
  r.tail(n_) = c * sol.head(n_) - r.head(n_);
  r.head(n_) = sol.head(n_);
}
void KktMatrix::solveReal(VectorXd& r) {
  JOINERY_ASSERT(r.size() == 2 * n_, "radau5: a real right-hand side of 2n entries");
  const double c = radau5Coefficients().gamma / h_;
  solve(r, c, luR_, sluR_, bandR_, kR_, kRhs_, kSol_);
}

void KktMatrix::solveComplex(VectorXc& r) {
  JOINERY_ASSERT(r.size() == 2 * n_, "radau5: a complex right-hand side of 2n entries");
  const auto& k = radau5Coefficients();
  solve(r, std::complex<double>(k.alpha / h_, k.beta / h_), luC_, sluC_, bandC_, kRc_, kRhsc_, kSolc_);
}

}  // namespace joinery::detail
