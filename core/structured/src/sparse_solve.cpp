// Structured path, numeric part 2: the solves with the factor, the residual and the
// iterated refinement (sparse_path.hpp explains the equations).
#include "sparse_path.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "joinery/core/assert.hpp"
#include "sparse_kernels.hpp"

namespace joinery::detail {

void BlockKkt::solveInPlace(VectorXd& z, bool forwardDone) const {
  JOINERY_ASSERT(z.size() == model_->numCoordinates() + model_->numConstraintRows(), "KKT vector of the wrong size");
  double* zd = z.data();
  for (std::size_t p = 0; !forwardDone && p < order_.size(); ++p) {  // forward: L w = z
    const int k = order_[p];
    if (anyFailed_ && compFailed_[static_cast<std::size_t>(nodeComp_[static_cast<std::size_t>(k)])]) continue;
    const Node& nd = nodes_[static_cast<std::size_t>(k)];
    const int s = nd.size();
    const double* D = val_.data() + nd.diag;
    double* zk = zd + nd.varOffset;
    withSize(s, [&](auto SC) {
      constexpr int S = decltype(SC)::value;
      unitLowerSolve<S>(D, s, zk);
      const bool zeroK = zeroNode_[static_cast<std::size_t>(k)] != 0;  // its blocks: zero
      for (int l = 0; !zeroK && l < nd.numLater; ++l) {
        const Later& la = later_[static_cast<std::size_t>(nd.firstLater + l)];
        if (zeroNode_[static_cast<std::size_t>(la.node)]) continue;
        const Node& ni = nodes_[static_cast<std::size_t>(la.node)];
        const int si = ni.size();
        withSize(si, [&](auto SIC) {
          subtractProduct<S, decltype(SIC)::value>(val_.data() + la.block, s, si, dinv_.data() + nd.varOffset, zk,
                                                   zd + ni.varOffset);
        });
      }
    });
  }
  if (anyFailed_) {  // a failed component's variables are not solved: zero (x = 0, y = 0)
    for (const Node& nd : nodes_)
      if (compFailed_[static_cast<std::size_t>(nodeComp_[static_cast<std::size_t>(&nd - nodes_.data())])])
        for (int j = 0; j < nd.size(); ++j) zd[nd.varOffset + j] = 0.0;
  }
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {  // backward: L^T x = D^-1 w
    const Node& nd = nodes_[static_cast<std::size_t>(*it)];
    if (anyFailed_ && compFailed_[static_cast<std::size_t>(nodeComp_[static_cast<std::size_t>(*it)])]) continue;
    const int s = nd.size();
    const double* D = val_.data() + nd.diag;
    double* zk = zd + nd.varOffset;
    const double* dinv = dinv_.data() + nd.varOffset;
    withSize(s, [&](auto SC) {
      constexpr int S = decltype(SC)::value;
      // x_k = L_kk^-T D^-1 (w_k - B'^T x_i) (L_ik^T = D^-1 B'^T), D^-1 node by node
      const bool zeroK = zeroNode_[static_cast<std::size_t>(*it)] != 0;  // its blocks: zero
      for (int l = 0; !zeroK && l < nd.numLater; ++l) {
        const Later& la = later_[static_cast<std::size_t>(nd.firstLater + l)];
        if (zeroNode_[static_cast<std::size_t>(la.node)]) continue;
        const Node& ni = nodes_[static_cast<std::size_t>(la.node)];
        const int si = ni.size();
        withSize(si, [&](auto SIC) {
          subtractTransposedProduct<S, decltype(SIC)::value>(val_.data() + la.block, s, si, zd + ni.varOffset, zk);
        });
      }
      for (int j = 0; j < fixedOr<S>(s); ++j) zk[j] *= dinv[j];
      unitUpperSolve<S>(D, s, zk);
    });
  }
}

SparseOutcome BlockKkt::solve(const ModelWorkspace& ws, const VectorXd& b, double regularization,
                              int maxIterations, VecRef x) {
  JOINERY_ASSERT(analyzed_, "BlockKkt::solve before analyze");
  JOINERY_ASSERT(b.size() == model_->numConstraintRows() && x.size() == model_->numCoordinates(),
                 "right side or answer of the wrong size");
  // factor() and iterate() with the first forward substitution done during the factorization
  // (one pass over the factor less)
  SparseOutcome out = factor(ws, nullptr, regularization, &ws.Q, &b);
  if (out.solvable) iterate(ws, &ws.Q, b, maxIterations, x, out, true);
  return out;
}

SparseOutcome BlockKkt::solveFactored(const ModelWorkspace& ws, const VectorXd& b, int maxIterations, VecRef x) {
  JOINERY_ASSERT(analyzed_ && !anyFailed_, "BlockKkt::solveFactored without a whole factorization");
  JOINERY_ASSERT(b.size() == model_->numConstraintRows() && x.size() == model_->numCoordinates(),
                 "right side or answer of the wrong size");
  SparseOutcome out;  // what factor() reported for this factorization (the caller checked it)
  out.factorized = true;
  out.solvable = true;
  iterate(ws, &ws.Q, b, maxIterations, x, out, false);
  return out;
}

SparseOutcome BlockKkt::factor(const ModelWorkspace& ws, const std::vector<char>* rowMask,
                               double regularization, const VectorXd* q, const VectorXd* b) {
  SparseOutcome out;
  // max M_ii, from the evaluation of the blocks (another pass over every mass block here)
  double rho = ws.largestMassDiagonal();
  if (!(rho > 0) || !std::isfinite(rho)) rho = 1;
  const double delta = regularization / rho;
  lastRho_ = rho;
  lastDelta_ = delta;
  if (fusedAssembly_)
    scaleRows(ws, rowMask);  // the blocks are assembled inside factorize()
  else
    assemble(ws, rowMask, rho, 0.0);
  double* z = nullptr;
  if (b) {  // the right-hand side [q; bs] in elimination order, forward-substituted below
    if (fusedAssembly_) {  // loaded node by node by the diagonal blocks' jobs (runJobs)
      jobQ_ = q;
      jobB_ = b;
    } else {
      loadRhs(q, *b);
    }
    z = z_.data();
  }
  int released = 0, dependent = 0;
  out.failedComponents = factorize(rho, delta, released, dependent, z, fusedAssembly_ ? &ws : nullptr);
  jobQ_ = jobB_ = nullptr;
  out.dependent = dependent;
  anyFailed_ = out.failedComponents > 0;
  out.factorized = out.failedComponents == 0;
  out.solvable = out.failedComponents < numComps_;
  out.released = released;
  out.zeroRows = zeroRows_;
  return out;
}

double BlockKkt::smallestRowPivot() const {
  double smallest = HUGE_VAL;
  for (const Node& nd : nodes_) {
    const double* dp = dpiv_.data() + nd.varOffset + (nd.body ? nd.nq : 0);
    for (int i = 0; i < nd.nr; ++i) smallest = std::min(smallest, std::abs(dp[i]));
  }
  return smallest;
}

double BlockKkt::scaledMaxAbs(const VectorXd& r) const {
  double worst = 0;
  for (Eigen::Index i = 0; i < rowScale_.size(); ++i) worst = std::max(worst, std::abs(r(i)) * rowScale_(i));
  return worst;
}

template <class Store>
void BlockKkt::forEachRowProduct(const ModelWorkspace& ws, const VectorXd& x, Store&& store) const {
  const Model& model = *model_;
  const auto& rows = model.rowBlocks();
  const auto& slots = model.bodySlots();
  const double* xd = x.data();
  const std::size_t ahead = rows.size() >= kPrefetchMinBlocks ? rows.size() - kPrefetchAhead : 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r < ahead) {
      const auto Ap = ws.rowBlockRows(r + kPrefetchAhead);
      prefetchLines(Ap.data(), Ap.size());
    }
    const auto Ar = ws.rowBlockRows(r);
    const int k = rows[r].size;
    const int row0 = rows[r].row;
    // column by column (the rows are column-major), the sums in locals for blocks of up to 3
    // rows (a row at a time through memory chained every addition on a store-to-load forward)
    auto accumulate = [&](auto KC) {
      constexpr int K = decltype(KC)::value;
      double v[K > 0 ? K : 1] = {};
      const double* a = Ar.data();
      for (int bi : model.rowBlockBodies(r)) {
        if (bi < 0) continue;
        const BodySlot& sl = slots[static_cast<std::size_t>(bi)];
        const double* xs = xd + sl.offset;
        auto columns = [&](auto NCC) {  // rigid3d's 7 coordinates fully unrolled
          constexpr int NC = decltype(NCC)::value;
          JOINERY_UNROLL
          for (int c = 0; c < (NC > 0 ? NC : sl.size); ++c, a += K) {
            const double xc = xs[c];
            JOINERY_UNROLL
            for (int i = 0; i < K; ++i) v[i] += a[i] * xc;
          }
        };
        if (sl.size == 7)
          columns(std::integral_constant<int, 7>{});
        else
          columns(std::integral_constant<int, 0>{});
      }
      for (int i = 0; i < K; ++i) store(row0 + i, v[i]);
    };
    if (detail::withUnrolledRowCount(k, accumulate)) continue;
    for (int i = 0; i < k; ++i) {
      double v = 0;
      int col = 0;
      for (int bi : model.rowBlockBodies(r)) {
        if (bi < 0) continue;
        const BodySlot& sl = slots[static_cast<std::size_t>(bi)];
        for (int c = 0; c < sl.size; ++c) v += Ar(i, col + c) * xd[sl.offset + c];
        col += sl.size;
      }
      store(row0 + i, v);
    }
  }
}

void BlockKkt::applyAs(const ModelWorkspace& ws, const VectorXd& x, VectorXd& u) const {
  const double* sc = rowScale_.data();
  double* ud = u.data();
  forEachRowProduct(ws, x, [&](int g, double v) { ud[g] = sc[g] * v; });
}

void BlockKkt::residual(const ModelWorkspace& ws, const VectorXd* q) {
  // r_y = bs - As x, r_x = q - M x - As^T (y + rho [P] As x)
  const Model& model = *model_;
  const auto& rows = model.rowBlocks();
  const int m = model.numConstraintRows();
  applyAs(ws, xk_, res_);
    for (int i = 0; i < m; ++i) {
      const double u = res_(i);
      res_(i) = bs_(i) - u;
      mu_(i) = y_(i);
    }
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (penalized_[r])
        for (int i = 0; i < rows[r].size; ++i) {
          const int g = rows[r].row + i;
          mu_(g) += lastRho_ * (bs_(g) - res_(g));
        }
    if (q) rx_ = *q; else rx_.setZero();
    for (const Node& nd : nodes_) {
      if (!nd.body) continue;
      const auto Mb = ws.bodyMass(static_cast<std::size_t>(nd.index));
      for (int c = 0; c < nd.nq; ++c) {
        const double xc = xk_(nd.qOffset + c);
        if (xc == 0) continue;
        for (int r = 0; r < nd.nq; ++r) rx_(nd.qOffset + r) -= Mb(r, c) * xc;
      }
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto Ar = ws.rowBlockRows(r);
      const auto& bodies = model.rowBlockBodies(r);
      for (int i = 0; i < rows[r].size; ++i) {
        const int g = rows[r].row + i;
        const double w = rowScale_(g) * mu_(g);
        if (w == 0) continue;
        int col = 0;
        for (int bi : bodies) {
          if (bi < 0) continue;
          const BodySlot& sl = model.bodySlots()[static_cast<std::size_t>(bi)];
          for (int c = 0; c < sl.size; ++c) rx_(sl.offset + c) -= Ar(i, col + c) * w;
          col += sl.size;
        }
      }
    }
}

void BlockKkt::loadNodeRhs(const Node& nd) {
  double* __restrict__ zk = z_.data() + nd.varOffset;
  if (nd.body) {
    if (jobQ_)
      std::copy_n(jobQ_->data() + nd.qOffset, nd.nq, zk);
    else
      std::fill_n(zk, nd.nq, 0.0);
    zk += nd.nq;
  }
  const double* __restrict__ sc = rowScale_.data() + nd.rowOffset;
  const double* __restrict__ b = jobB_->data() + nd.rowOffset;
  double* __restrict__ bs = bs_.data() + nd.rowOffset;
  for (int i = 0; i < nd.nr; ++i) zk[i] = bs[i] = sc[i] * b[i];
}

void BlockKkt::loadRhs(const VectorXd* q, const VectorXd& b) {
  const int m = model_->numConstraintRows();
  for (int i = 0; i < m; ++i) bs_(i) = rowScale_(i) * b(i);
  for (const Node& nd : nodes_) {
    double* zk = z_.data() + nd.varOffset;
    if (nd.body)
      for (int c = 0; c < nd.nq; ++c) zk[c] = q ? (*q)(nd.qOffset + c) : 0.0;
    const int r0 = nd.body ? nd.nq : 0;
    for (int i = 0; i < nd.nr; ++i) zk[r0 + i] = bs_(nd.rowOffset + i);
  }
}

// long: the iterated refinement loop (residual, right side, solve, convergence and
// release bookkeeping) of one solve, kept whole for the compiler.
void BlockKkt::iterate(const ModelWorkspace& ws, const VectorXd* q, const VectorXd& b,
                       int maxIterations, VecRef x, SparseOutcome& out, bool forwardDone,
                       double stopResidual) {
  // Iterative refinement of the unregularized system [W As^T; As 0] [x; y] = [q; bs] on the
  // factorization (exact where no pivot was replaced; there, 1 solve)
  const Model& model = *model_;
  const int m = model.numConstraintRows();
  if (!forwardDone)  // loadRhs() made bs_ from the same b
    for (int i = 0; i < m; ++i) bs_(i) = rowScale_(i) * b(i);
  out.rhsNorm = bs_.norm();
  // |q| for the convergence test of the refinement (without a replaced pivot there is none)
  // A zero row (an inactive one-sided row, a masked one) is decoupled: its pivot, exactly 0,
  // replaced by -tau gives its multiplier 0 and changes no other equation. Only the other
  // replaced pivots need the refinement (a chain with 100 contacts not touching refined every
  // evaluation: 94 against 66 us per evaluation, bench/contact_chain). With a failed component
  // (not factorized to its end: its zero rows' pivots may not be among the released) as before.
  const bool refine = out.releasedNonzero() > 0 || out.failedComponents > 0;
  const double qNorm = q && refine ? q->norm() : 0.0;
  const int iters = std::max(2, maxIterations + 1);
  for (int it = 1; it <= iters; ++it) {
    if (it == 1) {  // x = 0, y = 0: the residual is the right-hand side
      if (!forwardDone) {
        res_ = bs_;
        if (q) rx_ = *q; else rx_.setZero();
      }
    } else {
      residual(ws, q);
      if (anyFailed_) {  // a failed component's residual is not this solve's to reduce
        for (int i = 0; i < m; ++i)
          if (compFailed_[static_cast<std::size_t>(rowComp_[static_cast<std::size_t>(i)])]) res_(i) = 0.0;
        for (const Node& nd : nodes_)
          if (nd.body && compFailed_[static_cast<std::size_t>(nodeComp_[static_cast<std::size_t>(&nd - nodes_.data())])])
            for (int c = 0; c < nd.nq; ++c) rx_(nd.qOffset + c) = 0.0;
      }
      double ry = 0, rxn = 0;
      for (int i = 0; i < m; ++i) ry = std::max(ry, std::abs(res_(i)));
      for (Eigen::Index i = 0; i < rx_.size(); ++i) rxn = std::max(rxn, std::abs(rx_(i)));
      // converged to round-off (relative to the right-hand sides)
      if (ry <= 1e-14 * std::max(1.0, out.rhsNorm) && rxn <= 1e-14 * std::max(1.0, qNorm)) break;
      // or, for a caller that needs only the rows' residual (a projection step), within its
      // tolerance in the rows' own units (res_ is row-scaled)
      if (stopResidual > 0) {
        double ru = 0;
        for (int i = 0; i < m; ++i)
          if (rowScale_(i) > 0) ru = std::max(ru, std::abs(res_(i)) / rowScale_(i));
        if (ru <= stopResidual) break;
      }
      if (it == iters) break;
    }
    const bool fused = forwardDone && it == 1;  // z_ holds the forward-substituted [q; bs]
    if (!fused)
      for (const Node& nd : nodes_) {
        double* zk = z_.data() + nd.varOffset;
        if (nd.body)
          for (int c = 0; c < nd.nq; ++c) zk[c] = rx_(nd.qOffset + c);
        const int r0 = nd.body ? nd.nq : 0;
        for (int i = 0; i < nd.nr; ++i) zk[r0 + i] = res_(nd.rowOffset + i);
      }
    solveInPlace(z_, fused);
    if (it == 1)  // from x = 0, y = 0
      for (const Node& nd : nodes_) {
        const double* zk = z_.data() + nd.varOffset;
        if (nd.body)
          for (int c = 0; c < nd.nq; ++c) xk_(nd.qOffset + c) = zk[c];
        const int r0 = nd.body ? nd.nq : 0;
        for (int i = 0; i < nd.nr; ++i) y_(nd.rowOffset + i) = zk[r0 + i];
      }
    else
      for (const Node& nd : nodes_) {
        const double* zk = z_.data() + nd.varOffset;
        if (nd.body)
          for (int c = 0; c < nd.nq; ++c) xk_(nd.qOffset + c) += zk[c];
        const int r0 = nd.body ? nd.nq : 0;
        for (int i = 0; i < nd.nr; ++i) y_(nd.rowOffset + i) += zk[r0 + i];
      }
    out.iterations = it;
    // no pivot replaced: the factorization is that of the system itself (backward stable for
    // this quasi-definite matrix), one solve is the answer
    if (!refine) break;
  }
  x = xk_;
  // residual As x - bs, explicitly, per component (a failed component's rows are left out: the
  // dense solver answers for it), in the one pass over the row blocks that forms As x
  std::fill(compResidual_.begin(), compResidual_.end(), 0.0);
  std::fill(compRhs_.begin(), compRhs_.end(), 0.0);
  std::fill(compX_.begin(), compX_.end(), 0.0);
  {
    const double* sc = rowScale_.data();
    const double* bs = bs_.data();
    const int* comp = rowComp_.data();
    double* res = res_.data();
    double* cr = compResidual_.data();
    double* cb = compRhs_.data();
    forEachRowProduct(ws, xk_, [&](int g, double v) {
      const double u = sc[g] * v;
      const double rg = u - bs[g];
      res[g] = rg;
      cr[comp[g]] += rg * rg;
      cb[comp[g]] += bs[g] * bs[g];
    });
  }
  const double invRho = 1.0 / lastRho_;
  for (std::size_t k = 0; k < nodes_.size(); ++k) {
    const Node& nd = nodes_[k];
    if (!nd.body) continue;
    // |x|^2 + |q / rho|^2: at exact rest (b = 0, x = 0 to round-off: a chain hanging still)
    // the round-off of As x scales with the free accelerations Q / rho, not with x; without
    // them every state at rest went to the dense solver (the dense solver's own consistency
    // scale also holds |Q| / max M_ii, docs/theory.md)
    double x2 = 0;
    for (int c = 0; c < nd.nq; ++c) {
      const double qc = q ? (*q)(nd.qOffset + c) * invRho : 0.0;
      x2 += xk_(nd.qOffset + c) * xk_(nd.qOffset + c) + qc * qc;
    }
    compX_[static_cast<std::size_t>(nodeComp_[k])] += x2;
  }
  double r2 = 0, b2 = 0, x2 = 0;
  for (std::size_t c = 0; c < compResidual_.size(); ++c) {
    if (compFailed_[c]) continue;
    r2 += compResidual_[c];
    b2 += compRhs_[c];
    x2 += compX_[c];
    compResidual_[c] = std::sqrt(compResidual_[c]);
    compRhs_[c] = std::sqrt(compRhs_[c]);
    compX_[c] = std::sqrt(compX_[c]);
  }
  out.residual = std::sqrt(r2);
  out.rhsNorm = std::sqrt(b2);
  out.scale = out.rhsNorm + kResidualScaleX * std::sqrt(x2);
  out.finite = x.allFinite() && std::isfinite(out.residual);
}

void BlockKkt::lastMultipliers(VecRef lambda) const {
  // W x + As^T y = Q with W = M + rho As_P^T As_P and As_P x = bs_P at convergence:
  // M x = Q + As^T (-y - rho [P] bs), and A^T lambda = As^T mu gives lambda_i = s_i mu_i.
  const auto& rows = model_->rowBlocks();
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (int i = 0; i < rows[r].size; ++i) {
      const int g = rows[r].row + i;
      const double mu = -y_(g) - (penalized_[r] ? lastRho_ * bs_(g) : 0.0);  // (As x = bs)
      lambda(g) = rowScale_(g) * mu;
    }
}

}  // namespace joinery::detail
