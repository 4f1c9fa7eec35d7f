// Structured fast path of ModelSystem (sparse_path.hpp explains the equations).
#include "sparse_path.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace joinery::detail {

void BlockKkt::setup(const Model& model, double zeroRow, double pivotTolerance) {
  model_ = &model;
  zeroRow_ = zeroRow;
  pivotTol_ = pivotTolerance;
  analyzed_ = false;
  nodes_.clear();
  const auto& slots = model.bodySlots();
  bodyNode_.assign(slots.size(), -1);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].size == 0) continue;
    Node nd;
    nd.body = true;
    nd.index = static_cast<int>(i);
    nd.nq = slots[i].size;
    nd.qOffset = slots[i].offset;
    bodyNode_[i] = static_cast<int>(nodes_.size());
    nodes_.push_back(nd);
  }
  const auto& rows = model.rowBlocks();
  rowNode_.assign(rows.size(), -1);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowBlock& rb = rows[r];
    if (rb.size == 0) continue;
    if (!rb.constraint) {  // internal rows join their body's node
      const int bi = model.rowBlockBodies(r)[0];
      Node& nd = nodes_[static_cast<std::size_t>(bodyNode_[static_cast<std::size_t>(bi)])];
      nd.nr = rb.size;
      nd.rowOffset = rb.row;
      nd.internalBlock = static_cast<int>(r);
      rowNode_[r] = bodyNode_[static_cast<std::size_t>(bi)];
      continue;
    }
    Node nd;
    nd.body = false;
    nd.index = static_cast<int>(r);
    nd.nr = rb.size;
    nd.rowOffset = rb.row;
    rowNode_[r] = static_cast<int>(nodes_.size());
    nodes_.push_back(nd);
  }
  const int n = model.numCoordinates(), m = model.numConstraintRows();
  rowScale_ = VectorXd::Zero(m);
  bs_ = VectorXd::Zero(m);
  y_ = VectorXd::Zero(m);
  res_ = VectorXd::Zero(m);
  mu_ = VectorXd::Zero(m);
  rx_ = VectorXd::Zero(n);
  xk_ = VectorXd::Zero(n);
  z_ = VectorXd::Zero(n + m);
}

void BlockKkt::analyze(const ModelWorkspace& ws) {
  const Model& model = *model_;
  const auto& rows = model.rowBlocks();
  const auto nn = static_cast<int>(nodes_.size());
  // ---- penalized rows ---------------------------------------------------------------------
  double rho = 0;
  for (const Node& nd : nodes_)
    if (nd.body) rho = std::max(rho, ws.bodyMass(static_cast<std::size_t>(nd.index)).diagonal().cwiseAbs().maxCoeff());
  if (!(rho > 0)) rho = 1;
  penalized_.assign(rows.size(), 0);
  std::vector<char> singularBody(nodes_.size(), 0);
  for (int k = 0; k < nn; ++k) {
    const Node& nd = nodes_[static_cast<std::size_t>(k)];
    if (!nd.body) continue;
    MatrixXd Wb = ws.bodyMass(static_cast<std::size_t>(nd.index));
    if (nd.internalBlock >= 0) {
      const MatrixXd& Ai = ws.rowBlockRows(static_cast<std::size_t>(nd.internalBlock));
      for (Eigen::Index i = 0; i < Ai.rows(); ++i) {
        const double nr = Ai.row(i).norm();
        if (nr > 0) Wb += rho * Ai.row(i).transpose() * Ai.row(i) / (nr * nr);
      }
    }
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(0.5 * (Wb + Wb.transpose()), Eigen::EigenvaluesOnly);
    const double lmax = es.eigenvalues().cwiseAbs().maxCoeff();
    // a body whose own metric is (nearly) singular relies on its joints for a full-rank
    // [M; A]: its joint rows enter W (coupling its neighbours' blocks)
    if (!(es.eigenvalues().minCoeff() > 1e-8 * std::max(lmax, rho))) singularBody[static_cast<std::size_t>(k)] = 1;
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r].constraint) {
      penalized_[r] = 1;
      continue;
    }
    for (int bi : model.rowBlockBodies(r))
      if (bi >= 0 && bodyNode_[static_cast<std::size_t>(bi)] >= 0 &&
          singularBody[static_cast<std::size_t>(bodyNode_[static_cast<std::size_t>(bi)])])
        penalized_[r] = 1;
  }
  // ---- graph ----------------------------------------------------------------------------------
  std::vector<std::vector<int>> adj(nodes_.size());
  auto link = [&](int a, int b) {
    if (a == b) return;
    auto& va = adj[static_cast<std::size_t>(a)];
    if (std::find(va.begin(), va.end(), b) == va.end()) va.push_back(b);
    auto& vb = adj[static_cast<std::size_t>(b)];
    if (std::find(vb.begin(), vb.end(), a) == vb.end()) vb.push_back(a);
  };
  // a row node becomes eligible once every one of its rows has a non-zero entry on an
  // eliminated body (its pivot is then -(d + As W_b^-1 As^T), well scaled, not -d)
  std::vector<int> uncovered(nodes_.size(), 0);   // row nodes: rows not yet covered
  std::vector<int> pendingBodies(nodes_.size(), 0);
  std::vector<std::vector<char>> covered(nodes_.size());
  struct Cover {
    int row;                 // row node
    std::vector<char> rows;  // rows of it this body has entries in
  };
  std::vector<std::vector<Cover>> coverOf(nodes_.size());  // body node -> its row nodes
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int rn = rowNode_[r];
    if (rn < 0 || nodes_[static_cast<std::size_t>(rn)].body) continue;
    const MatrixXd& Ar = ws.rowBlockRows(r);
    std::vector<int> bn;
    int col = 0;
    for (int bi : model.rowBlockBodies(r)) {
      if (bi < 0) continue;
      const int b = bodyNode_[static_cast<std::size_t>(bi)];
      const int nq = nodes_[static_cast<std::size_t>(b)].nq;
      std::vector<char> has(static_cast<std::size_t>(rows[r].size), 0);
      for (int i = 0; i < rows[r].size; ++i)
        for (int c = 0; c < nq; ++c)
          if (Ar(i, col + c) != 0) has[static_cast<std::size_t>(i)] = 1;
      col += nq;
      bn.push_back(b);
      auto& co = coverOf[static_cast<std::size_t>(b)];
      auto it = std::find_if(co.begin(), co.end(), [&](const Cover& cv) { return cv.row == rn; });
      if (it == co.end()) {
        co.push_back(Cover{rn, has});
      } else {
        for (std::size_t i = 0; i < has.size(); ++i) it->rows[i] = static_cast<char>(it->rows[i] | has[i]);
      }
    }
    std::sort(bn.begin(), bn.end());
    bn.erase(std::unique(bn.begin(), bn.end()), bn.end());
    for (int b : bn) link(rn, b);
    pendingBodies[static_cast<std::size_t>(rn)] = static_cast<int>(bn.size());
    uncovered[static_cast<std::size_t>(rn)] = rows[r].size;
    covered[static_cast<std::size_t>(rn)].assign(static_cast<std::size_t>(rows[r].size), 0);
    if (penalized_[r])
      for (std::size_t a = 0; a < bn.size(); ++a)
        for (std::size_t c = a + 1; c < bn.size(); ++c) link(bn[a], bn[c]);
  }
  auto eligible = [&](int k) {
    const auto ku = static_cast<std::size_t>(k);
    return nodes_[ku].body || uncovered[ku] <= 0 || pendingBodies[ku] <= 0;
  };
  // ---- elimination order: minimum degree among eligible nodes; a row node is eligible once
  // every body it touches is eliminated (its pivot is then -(d + As W^-1 As^T), well scaled);
  // ties go to row nodes, then to the lower index. Trees and chains: zero fill-in.
  using Key = std::tuple<int, int, int>;
  std::set<Key> pq;
  auto key = [&](int k) {
    return Key{static_cast<int>(adj[static_cast<std::size_t>(k)].size()),
               nodes_[static_cast<std::size_t>(k)].body ? 1 : 0, k};
  };
  std::vector<char> eliminated(nodes_.size(), 0), inQueue(nodes_.size(), 0);
  for (int k = 0; k < nn; ++k)
    if (eligible(k)) {
      pq.insert(key(k));
      inQueue[static_cast<std::size_t>(k)] = 1;
    }
  order_.clear();
  std::vector<std::vector<int>> laterOf(nodes_.size());
  fillBlocks_ = 0;
  while (!pq.empty()) {
    const int k = std::get<2>(*pq.begin());
    pq.erase(pq.begin());
    inQueue[static_cast<std::size_t>(k)] = 0;
    eliminated[static_cast<std::size_t>(k)] = 1;
    order_.push_back(k);
    std::vector<int> nb = adj[static_cast<std::size_t>(k)];
    laterOf[static_cast<std::size_t>(k)] = nb;
    for (int i : nb)
      if (inQueue[static_cast<std::size_t>(i)]) pq.erase(key(i));
    for (int i : nb) {
      auto& vi = adj[static_cast<std::size_t>(i)];
      vi.erase(std::find(vi.begin(), vi.end(), k));
    }
    for (std::size_t a = 0; a < nb.size(); ++a)
      for (std::size_t c = a + 1; c < nb.size(); ++c) {
        auto& va = adj[static_cast<std::size_t>(nb[a])];
        if (std::find(va.begin(), va.end(), nb[c]) == va.end()) {
          link(nb[a], nb[c]);
          ++fillBlocks_;
        }
      }
    if (nodes_[static_cast<std::size_t>(k)].body)
      for (const Cover& cv : coverOf[static_cast<std::size_t>(k)]) {
        const auto ru = static_cast<std::size_t>(cv.row);
        --pendingBodies[ru];
        for (std::size_t i = 0; i < cv.rows.size(); ++i)
          if (cv.rows[i] && !covered[ru][i]) {
            covered[ru][i] = 1;
            --uncovered[ru];
          }
      }
    for (int i : nb) {
      const auto iu = static_cast<std::size_t>(i);
      if (eligible(i)) {
        pq.insert(key(i));
        inQueue[iu] = 1;
      }
    }
  }
  // ---- numeric layout ---------------------------------------------------------------------------
  int var = 0, off = 0;
  for (std::size_t p = 0; p < order_.size(); ++p) {
    Node& nd = nodes_[static_cast<std::size_t>(order_[p])];
    nd.pos = static_cast<int>(p);
    nd.varOffset = var;
    var += nd.size();
    nd.diag = off;
    off += nd.size() * nd.size();
  }
  totalVars_ = var;
  later_.clear();
  std::size_t maxScratch = 1;
  for (int k : order_) {
    Node& nd = nodes_[static_cast<std::size_t>(k)];
    auto& lo = laterOf[static_cast<std::size_t>(k)];
    std::sort(lo.begin(), lo.end(), [&](int a, int b) {
      return nodes_[static_cast<std::size_t>(a)].pos < nodes_[static_cast<std::size_t>(b)].pos;
    });
    nd.firstLater = static_cast<int>(later_.size());
    nd.numLater = static_cast<int>(lo.size());
    int srow = 0;
    for (int i : lo) {
      const int si = nodes_[static_cast<std::size_t>(i)].size();
      later_.push_back(Later{i, off, srow});
      off += si * nd.size();
      srow += si;
    }
    maxScratch = std::max(maxScratch, static_cast<std::size_t>(srow * nd.size()));
  }
  val_.assign(static_cast<std::size_t>(off), 0.0);
  dinv_.assign(static_cast<std::size_t>(totalVars_), 0.0);
  dpiv_.assign(static_cast<std::size_t>(totalVars_), 0.0);
  scratch_.assign(maxScratch, 0.0);
  updates_.clear();
  updFirst_.assign(order_.size() + 1, 0);
  for (std::size_t p = 0; p < order_.size(); ++p) {
    const Node& nd = nodes_[static_cast<std::size_t>(order_[p])];
    updFirst_[p] = static_cast<int>(updates_.size());
    for (int a = 0; a < nd.numLater; ++a)
      for (int b = 0; b <= a; ++b) {
        const Later& la = later_[static_cast<std::size_t>(nd.firstLater + a)];
        const Later& lb = later_[static_cast<std::size_t>(nd.firstLater + b)];
        const Node& ni = nodes_[static_cast<std::size_t>(la.node)];
        const int target = a == b ? ni.diag : blockOf(lb.node, la.node);
        updates_.push_back(Update{nd.firstLater + a, nd.firstLater + b, target, ni.size()});
      }
  }
  updFirst_[order_.size()] = static_cast<int>(updates_.size());
  analyzed_ = true;
}

int BlockKkt::blockOf(int k, int i) const {
  const Node& nd = nodes_[static_cast<std::size_t>(k)];
  for (int l = 0; l < nd.numLater; ++l)
    if (later_[static_cast<std::size_t>(nd.firstLater + l)].node == i)
      return later_[static_cast<std::size_t>(nd.firstLater + l)].block;
  return -1;  // not reached: the pattern is closed under elimination
}

void BlockKkt::assemble(const ModelWorkspace& ws, const std::vector<char>* rowMask, double rho,
                        double delta) {
  const Model& model = *model_;
  const auto& rows = model.rowBlocks();
  std::fill(val_.begin(), val_.end(), 0.0);
  // row scaling to unit norm (zero rows, within round-off of the largest, stay zero)
  double maxRow = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const MatrixXd& Ar = ws.rowBlockRows(r);
    for (Eigen::Index i = 0; i < Ar.rows(); ++i) {
      const double nr = Ar.row(i).norm();
      rowScale_(rows[r].row + i) = nr;
      maxRow = std::max(maxRow, nr);
    }
  }
  for (Eigen::Index i = 0; i < rowScale_.size(); ++i) {
    const double nr = rowScale_(i);
    rowScale_(i) = (maxRow > 0 && nr > zeroRow_ * maxRow) ? 1.0 / nr : 0.0;
    if (rowMask && !(*rowMask)[static_cast<std::size_t>(i)]) rowScale_(i) = 0.0;
  }
  // bodies: M_b, internal rows
  for (const Node& nd : nodes_) {
    if (!nd.body) continue;
    double* D = val_.data() + nd.diag;
    const int s = nd.size();
    const MatrixXd& Mb = ws.bodyMass(static_cast<std::size_t>(nd.index));
    for (int c = 0; c < nd.nq; ++c)
      for (int r = 0; r < nd.nq; ++r) D[r + c * s] = Mb(r, c);
    if (nd.internalBlock >= 0) {
      const MatrixXd& Ai = ws.rowBlockRows(static_cast<std::size_t>(nd.internalBlock));
      for (int i = 0; i < nd.nr; ++i) {
        const double sc = rowScale_(nd.rowOffset + i);
        for (int c = 0; c < nd.nq; ++c) {
          const double a = sc * Ai(i, c);
          D[(nd.nq + i) + c * s] = a;
          D[c + (nd.nq + i) * s] = a;
        }
        D[(nd.nq + i) * (s + 1)] = -delta;
        for (int c = 0; c < nd.nq; ++c) {
          const double ac = rho * sc * Ai(i, c);
          if (ac == 0) continue;
          for (int r = 0; r < nd.nq; ++r) D[r + c * s] += ac * sc * Ai(i, r);
        }
      }
    }
  }
  // joint rows
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int rn = rowNode_[r];
    if (rn < 0 || nodes_[static_cast<std::size_t>(rn)].body) continue;
    const Node& rnd = nodes_[static_cast<std::size_t>(rn)];
    const int sr = rnd.size();
    double* Dr = val_.data() + rnd.diag;
    for (int i = 0; i < sr; ++i) Dr[i * (sr + 1)] = -delta;
    const MatrixXd& Ar = ws.rowBlockRows(r);
    const auto& bodies = model.rowBlockBodies(r);
    int col = 0;
    for (std::size_t t = 0; t < bodies.size(); ++t) {
      if (bodies[t] < 0) continue;
      const int bn = bodyNode_[static_cast<std::size_t>(bodies[t])];
      const Node& bnd = nodes_[static_cast<std::size_t>(bn)];
      if (bnd.pos < rnd.pos) {  // block (row node, body node) in the body's column
        double* B = val_.data() + blockOf(bn, rn);
        for (int c = 0; c < bnd.nq; ++c)
          for (int i = 0; i < sr; ++i) B[i + c * sr] += rowScale_(rnd.rowOffset + i) * Ar(i, col + c);
      } else {  // block (body node, row node) in the row node's column
        double* B = val_.data() + blockOf(rn, bn);
        const int sb = bnd.size();
        for (int i = 0; i < sr; ++i)
          for (int c = 0; c < bnd.nq; ++c) B[c + i * sb] += rowScale_(rnd.rowOffset + i) * Ar(i, col + c);
      }
      if (penalized_[r]) {
        int col2 = 0;
        for (std::size_t t2 = 0; t2 < bodies.size(); ++t2) {
          if (bodies[t2] < 0) continue;
          const int bn2 = bodyNode_[static_cast<std::size_t>(bodies[t2])];
          const Node& bnd2 = nodes_[static_cast<std::size_t>(bn2)];
          double* T = nullptr;
          int ld = 0;
          if (bn2 == bn) {
            T = val_.data() + bnd.diag;
            ld = bnd.size();
          } else if (bnd.pos > bnd2.pos) {
            T = val_.data() + blockOf(bn2, bn);
            ld = bnd.size();
          }
          if (T) {
            // T(a, c) += rho sum_i As(i, col + a) As(i, col2 + c)
            for (int c = 0; c < bnd2.nq; ++c)
              for (int i = 0; i < sr; ++i) {
                const double sc = rowScale_(rnd.rowOffset + i);
                const double w = rho * sc * sc * Ar(i, col2 + c);
                if (w == 0) continue;
                for (int a = 0; a < bnd.nq; ++a) T[a + c * ld] += w * Ar(i, col + a);
              }
          }
          col2 += bnd2.nq;
        }
      }
      col += bnd.nq;
    }
  }
}

bool BlockKkt::factorize(double rho, double delta, int& released) {
  released = 0;
  const double minCoordPivot = pivotTol_ * rho;
  // static pivoting: a row pivot above -tau (a row dependent, or nearly so, on the rows
  // eliminated before it) is replaced by -tau; the refinement in iterate() then meets the
  // rows exactly where they are consistent and releases them where they are not
  const double tau = delta;
  for (std::size_t p = 0; p < order_.size(); ++p) {
    const Node& nd = nodes_[static_cast<std::size_t>(order_[p])];
    const int s = nd.size();
    double* D = val_.data() + nd.diag;
    double* dinv = dinv_.data() + nd.varOffset;
    double* dp = dpiv_.data() + nd.varOffset;
    const int ncoord = nd.body ? nd.nq : 0;
    // in-place LDL^T of the (updated) diagonal block; L unit lower in D's lower triangle
    for (int j = 0; j < s; ++j) {
      double dj = D[j + j * s];
      for (int t = 0; t < j; ++t) dj -= D[j + t * s] * D[j + t * s] * dp[t];
      if (!std::isfinite(dj)) return false;
      if (j < ncoord) {
        if (!(dj > minCoordPivot)) return false;
      } else {
        if (!(dj <= -tau)) {
          dj = -tau;
          ++released;
        }
      }
      dp[j] = dj;
      dinv[j] = 1.0 / dj;
      // w_t = L(j, t) d_t, then L(i, j) = (D(i, j) - sum_t L(i, t) w_t) / d_j
      for (int i = j + 1; i < s; ++i) {
        double v = D[i + j * s];
        for (int t = 0; t < j; ++t) v -= D[i + t * s] * D[j + t * s] * dp[t];
        D[i + j * s] = v * dinv[j];
      }
    }
    if (nd.numLater == 0) continue;
    // B'_i = B_i L^-T for every later neighbour, stacked in scratch (column-major, ld = rows)
    int ldS = 0;
    for (int l = 0; l < nd.numLater; ++l)
      ldS += nodes_[static_cast<std::size_t>(later_[static_cast<std::size_t>(nd.firstLater + l)].node)].size();
    double* S = scratch_.data();
    for (int l = 0; l < nd.numLater; ++l) {
      const Later& la = later_[static_cast<std::size_t>(nd.firstLater + l)];
      const int si = nodes_[static_cast<std::size_t>(la.node)].size();
      const double* B = val_.data() + la.block;
      for (int j = 0; j < s; ++j)
        for (int r = 0; r < si; ++r) {
          double v = B[r + j * si];
          for (int t = 0; t < j; ++t) v -= S[(la.scratchRow + r) + t * ldS] * D[j + t * s];
          S[(la.scratchRow + r) + j * ldS] = v;
        }
    }
    // Schur updates: block(i, j) -= B'_i D^-1 B'_j^T
    for (int u = updFirst_[p]; u < updFirst_[p + 1]; ++u) {
      const Update& up = updates_[static_cast<std::size_t>(u)];
      const Later& la = later_[static_cast<std::size_t>(up.a)];
      const Later& lb = later_[static_cast<std::size_t>(up.b)];
      const int si = nodes_[static_cast<std::size_t>(la.node)].size();
      const int sj = nodes_[static_cast<std::size_t>(lb.node)].size();
      double* T = val_.data() + up.target;
      for (int t = 0; t < s; ++t) {
        const double* Ai = S + la.scratchRow + t * ldS;
        const double* Bj = S + lb.scratchRow + t * ldS;
        const double dt = dinv[t];
        for (int c = 0; c < sj; ++c) {
          const double w = Bj[c] * dt;
          if (w == 0) continue;
          double* Tc = T + c * up.ld;
          for (int r = 0; r < si; ++r) Tc[r] -= Ai[r] * w;
        }
      }
    }
    // L_ik = B'_i D^-1
    for (int l = 0; l < nd.numLater; ++l) {
      const Later& la = later_[static_cast<std::size_t>(nd.firstLater + l)];
      const int si = nodes_[static_cast<std::size_t>(la.node)].size();
      double* B = val_.data() + la.block;
      for (int j = 0; j < s; ++j)
        for (int r = 0; r < si; ++r) B[r + j * si] = S[(la.scratchRow + r) + j * ldS] * dinv[j];
    }
  }
  return true;
}

void BlockKkt::solveInPlace(VectorXd& z) const {
  double* zd = z.data();
  for (int k : order_) {  // forward: L w = z
    const Node& nd = nodes_[static_cast<std::size_t>(k)];
    const int s = nd.size();
    const double* D = val_.data() + nd.diag;
    double* zk = zd + nd.varOffset;
    for (int j = 1; j < s; ++j)
      for (int t = 0; t < j; ++t) zk[j] -= D[j + t * s] * zk[t];
    for (int l = 0; l < nd.numLater; ++l) {
      const Later& la = later_[static_cast<std::size_t>(nd.firstLater + l)];
      const Node& ni = nodes_[static_cast<std::size_t>(la.node)];
      const int si = ni.size();
      const double* L = val_.data() + la.block;
      double* zi = zd + ni.varOffset;
      for (int j = 0; j < s; ++j) {
        const double w = zk[j];
        if (w == 0) continue;
        for (int r = 0; r < si; ++r) zi[r] -= L[r + j * si] * w;
      }
    }
  }
  for (int i = 0; i < totalVars_; ++i) zd[i] *= dinv_[static_cast<std::size_t>(i)];
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {  // backward: L^T x = w
    const Node& nd = nodes_[static_cast<std::size_t>(*it)];
    const int s = nd.size();
    const double* D = val_.data() + nd.diag;
    double* zk = zd + nd.varOffset;
    for (int l = 0; l < nd.numLater; ++l) {
      const Later& la = later_[static_cast<std::size_t>(nd.firstLater + l)];
      const Node& ni = nodes_[static_cast<std::size_t>(la.node)];
      const int si = ni.size();
      const double* L = val_.data() + la.block;
      const double* zi = zd + ni.varOffset;
      for (int j = 0; j < s; ++j) {
        double v = 0;
        for (int r = 0; r < si; ++r) v += L[r + j * si] * zi[r];
        zk[j] -= v;
      }
    }
    for (int j = s - 2; j >= 0; --j)
      for (int t = j + 1; t < s; ++t) zk[j] -= D[t + j * s] * zk[t];
  }
}

SparseOutcome BlockKkt::solve(const ModelWorkspace& ws, const VectorXd& b, double regularization,
                              int maxIterations, VecRef x) {
  SparseOutcome out = factor(ws, nullptr, regularization);
  if (out.factorized) iterate(ws, &ws.Q, b, maxIterations, x, out);
  return out;
}

SparseOutcome BlockKkt::factor(const ModelWorkspace& ws, const std::vector<char>* rowMask,
                               double regularization) {
  SparseOutcome out;
  double rho = 0;
  for (const Node& nd : nodes_)
    if (nd.body) {
      const MatrixXd& Mb = ws.bodyMass(static_cast<std::size_t>(nd.index));
      for (Eigen::Index i = 0; i < Mb.rows(); ++i) rho = std::max(rho, std::abs(Mb(i, i)));
    }
  if (!(rho > 0) || !std::isfinite(rho)) rho = 1;
  const double delta = regularization / rho;
  lastRho_ = rho;
  lastDelta_ = delta;
  assemble(ws, rowMask, rho, 0.0);
  int released = 0;
  if (!factorize(rho, delta, released)) return out;
  out.factorized = true;
  out.released = released;
  return out;
}

void BlockKkt::applyAs(const ModelWorkspace& ws, const VectorXd& x, VectorXd& u) const {
  const Model& model = *model_;
  const auto& rows = model.rowBlocks();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const MatrixXd& Ar = ws.rowBlockRows(r);
    const auto& bodies = model.rowBlockBodies(r);
    for (int i = 0; i < rows[r].size; ++i) {
      double v = 0;
      int col = 0;
      for (int bi : bodies) {
        if (bi < 0) continue;
        const BodySlot& sl = model.bodySlots()[static_cast<std::size_t>(bi)];
        for (int c = 0; c < sl.size; ++c) v += Ar(i, col + c) * x(sl.offset + c);
        col += sl.size;
      }
      u(rows[r].row + i) = rowScale_(rows[r].row + i) * v;
    }
  }
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
      const MatrixXd& Mb = ws.bodyMass(static_cast<std::size_t>(nd.index));
      for (int c = 0; c < nd.nq; ++c) {
        const double xc = xk_(nd.qOffset + c);
        if (xc == 0) continue;
        for (int r = 0; r < nd.nq; ++r) rx_(nd.qOffset + r) -= Mb(r, c) * xc;
      }
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const MatrixXd& Ar = ws.rowBlockRows(r);
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

void BlockKkt::iterate(const ModelWorkspace& ws, const VectorXd* q, const VectorXd& b,
                       int maxIterations, VecRef x, SparseOutcome& out) {
  // Iterative refinement of the unregularized system [W As^T; As 0] [x; y] = [q; bs] on the
  // factorization (exact where no pivot was replaced; there, 1 solve)
  const Model& model = *model_;
  const int m = model.numConstraintRows();
  for (int i = 0; i < m; ++i) bs_(i) = rowScale_(i) * b(i);
  out.rhsNorm = bs_.norm();
  const double qNorm = q ? q->norm() : 0.0;
  y_.setZero();
  xk_.setZero();
  const int iters = std::max(2, maxIterations + 1);
  for (int it = 1; it <= iters; ++it) {
    if (it == 1) {  // x = 0, y = 0: the residual is the right-hand side
      res_ = bs_;
      if (q) rx_ = *q; else rx_.setZero();
    } else {
      residual(ws, q);
      double ry = 0, rxn = 0;
      for (int i = 0; i < m; ++i) ry = std::max(ry, std::abs(res_(i)));
      for (Eigen::Index i = 0; i < rx_.size(); ++i) rxn = std::max(rxn, std::abs(rx_(i)));
      // converged to round-off (relative to the right-hand sides)
      if (ry <= 1e-14 * std::max(1.0, out.rhsNorm) && rxn <= 1e-14 * std::max(1.0, qNorm)) break;
      if (it == iters) break;
    }
    for (const Node& nd : nodes_) {
      double* zk = z_.data() + nd.varOffset;
      if (nd.body)
        for (int c = 0; c < nd.nq; ++c) zk[c] = rx_(nd.qOffset + c);
      const int r0 = nd.body ? nd.nq : 0;
      for (int i = 0; i < nd.nr; ++i) zk[r0 + i] = res_(nd.rowOffset + i);
    }
    solveInPlace(z_);
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
    if (out.released == 0) break;
  }
  x = xk_;
  // residual As x - bs, explicitly
  applyAs(ws, xk_, res_);
  res_ -= bs_;
  out.residual = res_.norm();
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
