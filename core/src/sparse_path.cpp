// Structured fast path of ModelSystem (sparse_path.hpp explains the equations).
#include "sparse_path.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <type_traits>

#include "joinery/core/model_system.hpp"

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
  // ---- connected components (joints to the ground do not connect): solved, and when a pivot
  // fails handed to the dense solver, apart
  nodeComp_.assign(nodes_.size(), -1);
  numComps_ = 0;
  for (int k0 = 0; k0 < nn; ++k0) {
    if (nodeComp_[static_cast<std::size_t>(k0)] >= 0) continue;
    std::vector<int> stack{k0};
    nodeComp_[static_cast<std::size_t>(k0)] = numComps_;
    while (!stack.empty()) {
      const int k = stack.back();
      stack.pop_back();
      for (int i : adj[static_cast<std::size_t>(k)])
        if (nodeComp_[static_cast<std::size_t>(i)] < 0) {
          nodeComp_[static_cast<std::size_t>(i)] = numComps_;
          stack.push_back(i);
        }
    }
    ++numComps_;
  }
  compFailed_.assign(static_cast<std::size_t>(numComps_), 0);
  compResidual_.assign(static_cast<std::size_t>(numComps_), 0.0);
  compRhs_.assign(static_cast<std::size_t>(numComps_), 0.0);
  compX_.assign(static_cast<std::size_t>(numComps_), 0.0);
  rowComp_.assign(static_cast<std::size_t>(model.numConstraintRows()), 0);
  for (const Node& nd : nodes_)
    for (int i = 0; i < nd.nr; ++i)
      rowComp_[static_cast<std::size_t>(nd.rowOffset + i)] = nodeComp_[static_cast<std::size_t>(&nd - nodes_.data())];
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
  // Each node's diagonal block is followed by the blocks of its column (its later neighbours),
  // in elimination order: assembly, factorization and the solves sweep the storage in order.
  int var = 0, off = 0;
  for (std::size_t p = 0; p < order_.size(); ++p) {
    Node& nd = nodes_[static_cast<std::size_t>(order_[p])];
    nd.pos = static_cast<int>(p);
    nd.varOffset = var;
    var += nd.size();
  }
  totalVars_ = var;
  later_.clear();
  std::size_t maxScratch = 1;
  for (int k : order_) {
    Node& nd = nodes_[static_cast<std::size_t>(k)];
    nd.diag = off;
    off += nd.size() * nd.size();
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
  // ---- assembly jobs, in storage order --------------------------------------------------------
  // Every block is written by exactly one job that first zeroes it (in cache, right before it
  // is filled): the diagonal blocks, the coupling blocks of a joint's rows with a body's
  // coordinates (copied from the joint's rows, scaled), and the blocks that only fill-in or
  // the penalized rows (added afterwards) write.
  jobs_.clear();
  for (int k : order_) {
    const Node& nd = nodes_[static_cast<std::size_t>(k)];
    jobs_.push_back(AsmJob{nd.body ? AsmJob::BodyDiagonal : AsmJob::RowDiagonal, nd.diag, k, -1, 0});
    for (int l = 0; l < nd.numLater; ++l) {
      const Later& la = later_[static_cast<std::size_t>(nd.firstLater + l)];
      const Node& ni = nodes_[static_cast<std::size_t>(la.node)];
      // a joint's rows against a body's coordinates: the row node and the body node of a row block
      const Node& rowNd = nd.body ? ni : nd;
      const Node& bodyNd = nd.body ? nd : ni;
      const int rowNode = nd.body ? la.node : k;
      const int bodyNode = nd.body ? k : la.node;
      bool copied = false;
      if (rowNd.body == false && bodyNd.body) {
        const auto& bodies = model.rowBlockBodies(static_cast<std::size_t>(rowNd.index));
        int col = 0, count = 0;
        for (int bi : bodies) {
          const int bn = bi < 0 ? -1 : bodyNode_[static_cast<std::size_t>(bi)];
          if (bn < 0) continue;
          if (bn == bodyNode) {
            // the first copy zeroes the block; a body listed twice adds its second columns
            jobs_.push_back(AsmJob{nd.body ? AsmJob::RowBlockOfBody : AsmJob::BodyBlockOfRow, la.block,
                                   rowNode, bodyNode, col, count == 0});
            ++count;
            copied = true;
          }
          col += nodes_[static_cast<std::size_t>(bn)].nq;
        }
      }
      if (!copied) jobs_.push_back(AsmJob{AsmJob::Zero, la.block, k, la.node, 0});
    }
  }
  analyzed_ = true;
}

int BlockKkt::blockOf(int k, int i) const {
  const Node& nd = nodes_[static_cast<std::size_t>(k)];
  for (int l = 0; l < nd.numLater; ++l)
    if (later_[static_cast<std::size_t>(nd.firstLater + l)].node == i)
      return later_[static_cast<std::size_t>(nd.firstLater + l)].block;
  return -1;  // not reached: the pattern is closed under elimination
}

namespace {
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
}  // namespace

void BlockKkt::assemble(const ModelWorkspace& ws, const std::vector<char>* rowMask, double rho,
                        double delta) {
  const Model& model = *model_;
  const auto& rows = model.rowBlocks();
  // row scaling to unit norm (zero rows, within round-off of the largest, stay zero); the norms
  // accumulate column by column (the rows are column-major)
  double maxRow = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const MatrixXd& Ar = ws.rowBlockRows(r);
    const auto k = static_cast<int>(Ar.rows()), nc = static_cast<int>(Ar.cols());
    double* sc = rowScale_.data() + rows[r].row;
    for (int i = 0; i < k; ++i) sc[i] = 0.0;
    const double* a = Ar.data();
    for (int c = 0; c < nc; ++c, a += k)
      for (int i = 0; i < k; ++i) sc[i] += a[i] * a[i];
    for (int i = 0; i < k; ++i) {
      sc[i] = std::sqrt(sc[i]);
      maxRow = std::max(maxRow, sc[i]);
    }
  }
  for (Eigen::Index i = 0; i < rowScale_.size(); ++i) {
    const double nr = rowScale_(i);
    rowScale_(i) = (maxRow > 0 && nr > zeroRow_ * maxRow) ? 1.0 / nr : 0.0;
    if (rowMask && !(*rowMask)[static_cast<std::size_t>(i)]) rowScale_(i) = 0.0;
  }
  // the blocks, in storage order (analyze() made the jobs)
  for (const AsmJob& job : jobs_) {
    double* T = val_.data() + job.target;
    switch (job.kind) {
      case AsmJob::BodyDiagonal: {  // M_b, the internal rows, rho As_i^T As_i, -delta
        const Node& nd = nodes_[static_cast<std::size_t>(job.node)];
        const int s = nd.size();
        std::fill_n(T, s * s, 0.0);
        const MatrixXd& Mb = ws.bodyMass(static_cast<std::size_t>(nd.index));
        withCoords(nd.nq, [&](auto NQC) {
          constexpr int NQ = decltype(NQC)::value;
          const int nq = NQ > 0 ? NQ : nd.nq;
          const double* mb = Mb.data();
          for (int c = 0; c < nq; ++c)
            for (int r = c; r < nq; ++r) T[r + c * s] = mb[r + c * nq];  // lower triangle is read
          if (nd.internalBlock < 0) return;
          const MatrixXd& Ai = ws.rowBlockRows(static_cast<std::size_t>(nd.internalBlock));
          const int ni = nd.nr;
          for (int i = 0; i < ni; ++i) {
            const double sci = rowScale_(nd.rowOffset + i);
            for (int c = 0; c < nq; ++c) {
              const double a = sci * Ai(i, c);
              T[(nq + i) + c * s] = a;
              if (a == 0) continue;
              const double w = rho * a;
              for (int r = c; r < nq; ++r) T[r + c * s] += w * sci * Ai(i, r);
            }
            T[(nq + i) * (s + 1)] = -delta;
          }
        });
        break;
      }
      case AsmJob::RowDiagonal: {
        const Node& nd = nodes_[static_cast<std::size_t>(job.node)];
        const int s = nd.size();
        std::fill_n(T, s * s, 0.0);
        for (int i = 0; i < s; ++i) T[i * (s + 1)] = -delta;
        break;
      }
      case AsmJob::RowBlockOfBody:    // block (row node, body node): sr x (nq + nr), ld = sr
      case AsmJob::BodyBlockOfRow: {  // block (body node, row node): (nq + nr) x sr, ld = nq + nr
        const Node& rnd = nodes_[static_cast<std::size_t>(job.node)];
        const Node& bnd = nodes_[static_cast<std::size_t>(job.other)];
        const int sr = rnd.size(), sb = bnd.size();
        if (job.zero) std::fill_n(T, sr * sb, 0.0);
        const MatrixXd& Ar = ws.rowBlockRows(static_cast<std::size_t>(rnd.index));
        const double* sc = rowScale_.data() + rnd.rowOffset;
        const auto ldA = static_cast<int>(Ar.rows());
        const double* a0 = Ar.data() + static_cast<std::ptrdiff_t>(job.col) * ldA;
        withCoords(bnd.nq, [&](auto NQC) {
          constexpr int NQ = decltype(NQC)::value;
          const int nq = NQ > 0 ? NQ : bnd.nq;
          if (job.kind == AsmJob::RowBlockOfBody) {
            for (int c = 0; c < nq; ++c)
              for (int i = 0; i < sr; ++i) T[i + c * sr] += sc[i] * a0[i + c * ldA];
          } else {
            for (int i = 0; i < sr; ++i)
              for (int c = 0; c < nq; ++c) T[c + i * sb] += sc[i] * a0[i + c * ldA];
          }
        });
        break;
      }
      case AsmJob::Zero: {
        const int si = nodes_[static_cast<std::size_t>(job.other)].size();
        const int sk = nodes_[static_cast<std::size_t>(job.node)].size();
        std::fill_n(T, si * sk, 0.0);
        break;
      }
    }
  }
  // penalized joint rows (the rows of bodies whose own metric is singular): rho As^T As into the
  // blocks of their bodies
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int rn = rowNode_[r];
    if (!penalized_[r] || rn < 0 || nodes_[static_cast<std::size_t>(rn)].body) continue;
    const Node& rnd = nodes_[static_cast<std::size_t>(rn)];
    const int sr = rnd.size();
    const MatrixXd& Ar = ws.rowBlockRows(r);
    const auto& bodies = model.rowBlockBodies(r);
    int col = 0;
    for (std::size_t t = 0; t < bodies.size(); ++t) {
      if (bodies[t] < 0) continue;
      const int bn = bodyNode_[static_cast<std::size_t>(bodies[t])];
      const Node& bnd = nodes_[static_cast<std::size_t>(bn)];
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
      col += bnd.nq;
    }
  }
}

namespace {
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

/// In-place LDL^T of the s x s diagonal block D (column-major; L unit lower in the strict lower
/// triangle). Coordinate pivots (the first ncoord) must exceed minCoordPivot; a row pivot above
/// -tau is replaced by -tau and counted. False: a non-finite or non-positive coordinate pivot.
template <int S>
bool ldltDiagonal(double* D, int sRun, int ncoord, double minCoordPivot, double tau, double* dp,
                  double* dinv, int& released, int& dependent) {
  const int s = fixedOr<S>(sRun);
  for (int j = 0; j < s; ++j) {
    // w_t = L(j, t) d_t, kept in the (otherwise unused) upper triangle: D(t, j)
    double* __restrict__ w = D + j * s;
    const double* __restrict__ Lj = D + j;  // L(j, t) = Lj[t * s]
    double dj = D[j + j * s];
    for (int t = 0; t < j; ++t) {
      w[t] = Lj[t * s] * dp[t];
      dj -= Lj[t * s] * w[t];
    }
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
    for (int i = j + 1; i < s; ++i) {
      double v = D[i + j * s];
      for (int t = 0; t < j; ++t) v -= D[i + t * s] * w[t];
      D[i + j * s] = v * dinv[j];
    }
  }
  return true;
}

/// B' = B L^-T for one later neighbour: B (si x s, column-major) into Sc (ld = ldS).
template <int S, int SI>
void lowerSolveRows(const double* __restrict__ B, int sRun, int siRun, const double* __restrict__ D,
                    double* __restrict__ Sc, int ldS) {
  const int s = fixedOr<S>(sRun), si = fixedOr<SI>(siRun);
  for (int j = 0; j < s; ++j) {
    double* out = Sc + j * ldS;
    for (int r = 0; r < si; ++r) out[r] = B[r + j * si];
    for (int t = 0; t < j; ++t) {
      const double l = D[j + t * s];
      if (l == 0) continue;
      const double* prev = Sc + t * ldS;
      for (int r = 0; r < si; ++r) out[r] -= prev[r] * l;
    }
  }
}

/// T (si x sj, ld) -= A D^-1 B^T with A = rows of one neighbour, B of another (both in the
/// scratch, ld = ldS).
/// Lower: a diagonal block (A = B), whose lower triangle alone is read (r >= c).
template <int S, int SI, int SJ, bool Lower>
void schurUpdate(double* __restrict__ T, int ld, const double* A, const double* B, int ldS,
                 const double* __restrict__ dinv, int sRun, int siRun, int sjRun) {
  const int s = fixedOr<S>(sRun), si = fixedOr<SI>(siRun), sj = fixedOr<SJ>(sjRun);
  for (int c = 0; c < sj; ++c) {
    double* __restrict__ Tc = T + c * ld;
    for (int t = 0; t < s; ++t) {
      const double w = B[c + t * ldS] * dinv[t];
      const double* At = A + t * ldS;
      for (int r = Lower ? c : 0; r < si; ++r) Tc[r] -= At[r] * w;
    }
  }
}

/// L_ik = B' D^-1 (si x s) from the scratch.
template <int S, int SI>
void scaleColumns(double* __restrict__ B, const double* __restrict__ Sc, int ldS, const double* __restrict__ dinv,
                  int sRun, int siRun) {
  const int s = fixedOr<S>(sRun), si = fixedOr<SI>(siRun);
  for (int j = 0; j < s; ++j)
    for (int r = 0; r < si; ++r) B[r + j * si] = Sc[r + j * ldS] * dinv[j];
}

/// Forward substitution of one node: zk <- L_kk^-1 zk, then zi -= L_ik zk for a neighbour.
template <int S>
void unitLowerSolve(const double* D, int sRun, double* zk) {
  const int s = fixedOr<S>(sRun);
  for (int j = 1; j < s; ++j)
    for (int t = 0; t < j; ++t) zk[j] -= D[j + t * s] * zk[t];
}
template <int S>
void unitUpperSolve(const double* D, int sRun, double* zk) {  // L_kk^T zk = zk
  const int s = fixedOr<S>(sRun);
  for (int j = s - 2; j >= 0; --j)
    for (int t = j + 1; t < s; ++t) zk[j] -= D[t + j * s] * zk[t];
}
template <int S, int SI>
void subtractProduct(const double* __restrict__ L, int sRun, int siRun, const double* __restrict__ zk,
                     double* __restrict__ zi) {  // zi -= L zk
  const int s = fixedOr<S>(sRun), si = fixedOr<SI>(siRun);
  for (int j = 0; j < s; ++j) {
    const double w = zk[j];
    for (int r = 0; r < si; ++r) zi[r] -= L[r + j * si] * w;
  }
}
template <int S, int SI>
void subtractTransposedProduct(const double* __restrict__ L, int sRun, int siRun, const double* __restrict__ zi,
                               double* __restrict__ zk) {  // zk -= L^T zi
  const int s = fixedOr<S>(sRun), si = fixedOr<SI>(siRun);
  for (int j = 0; j < s; ++j) {
    double v = 0;
    for (int r = 0; r < si; ++r) v += L[r + j * si] * zi[r];
    zk[j] -= v;
  }
}
}  // namespace

int BlockKkt::factorize(double rho, double delta, int& released, int& dependent, double* z) {
  released = 0;
  dependent = 0;
  int failed = 0;
  std::fill(compFailed_.begin(), compFailed_.end(), 0);
  const double minCoordPivot = pivotTol_ * rho;
  // static pivoting: a row pivot above -tau (a row dependent, or nearly so, on the rows
  // eliminated before it) is replaced by -tau; the refinement in iterate() then meets the
  // rows exactly where they are consistent and releases them where they are not
  const double tau = delta;
  for (std::size_t p = 0; p < order_.size(); ++p) {
    const Node& nd = nodes_[static_cast<std::size_t>(order_[p])];
    const auto comp = static_cast<std::size_t>(nodeComp_[static_cast<std::size_t>(order_[p])]);
    if (compFailed_[comp]) continue;  // the rest of a failed component is not factorized
    const int s = nd.size();
    double* D = val_.data() + nd.diag;
    double* dinv = dinv_.data() + nd.varOffset;
    double* dp = dpiv_.data() + nd.varOffset;
    const int ncoord = nd.body ? nd.nq : 0;
    bool ok = true;
    withSize(s, [&](auto SC) {
      constexpr int S = decltype(SC)::value;
      // in-place LDL^T of the (updated) diagonal block
      ok = ldltDiagonal<S>(D, s, ncoord, minCoordPivot, tau, dp, dinv, released, dependent);
      if (!ok) return;
      if (nd.numLater == 0) {
        if (z) unitLowerSolve<S>(D, s, z + nd.varOffset);
        return;
      }
      const Later* later = later_.data() + nd.firstLater;
      // B'_i = B_i L^-T for every later neighbour, stacked in the scratch (ld = ldS)
      int ldS = 0;
      for (int l = 0; l < nd.numLater; ++l) ldS += nodes_[static_cast<std::size_t>(later[l].node)].size();
      double* Sc = scratch_.data();
      for (int l = 0; l < nd.numLater; ++l) {
        const int si = nodes_[static_cast<std::size_t>(later[l].node)].size();
        withSize(si, [&](auto SIC) {
          lowerSolveRows<S, decltype(SIC)::value>(val_.data() + later[l].block, s, si, D,
                                                  Sc + later[l].scratchRow, ldS);
        });
      }
      // Schur updates: block(i, j) -= B'_i D^-1 B'_j^T
      for (int u = updFirst_[p]; u < updFirst_[p + 1]; ++u) {
        const Update& up = updates_[static_cast<std::size_t>(u)];
        const Later& la = later_[static_cast<std::size_t>(up.a)];
        const Later& lb = later_[static_cast<std::size_t>(up.b)];
        const int si = nodes_[static_cast<std::size_t>(la.node)].size();
        const int sj = nodes_[static_cast<std::size_t>(lb.node)].size();
        if (up.a == up.b) {  // a diagonal block: its lower triangle
          withSize(si, [&](auto SIC) {
            constexpr int SI = decltype(SIC)::value;
            schurUpdate<S, SI, SI, true>(val_.data() + up.target, up.ld, Sc + la.scratchRow, Sc + la.scratchRow,
                                         ldS, dinv, s, si, si);
          });
        } else {
          withSize(si, [&](auto SIC) {
            withSize(sj, [&](auto SJC) {
              schurUpdate<S, decltype(SIC)::value, decltype(SJC)::value, false>(
                  val_.data() + up.target, up.ld, Sc + la.scratchRow, Sc + lb.scratchRow, ldS, dinv, s, si, sj);
            });
          });
        }
      }
      // L_ik = B'_i D^-1
      for (int l = 0; l < nd.numLater; ++l) {
        const int si = nodes_[static_cast<std::size_t>(later[l].node)].size();
        withSize(si, [&](auto SIC) {
          scaleColumns<S, decltype(SIC)::value>(val_.data() + later[l].block, Sc + later[l].scratchRow, ldS,
                                                dinv, s, si);
        });
      }
      // forward substitution of the right-hand side, fused: zk <- L_kk^-1 zk, zi -= L_ik zk
      if (z) {
        double* zk = z + nd.varOffset;
        unitLowerSolve<S>(D, s, zk);
        for (int l = 0; l < nd.numLater; ++l) {
          const Node& ni = nodes_[static_cast<std::size_t>(later[l].node)];
          withSize(ni.size(), [&](auto SIC) {
            subtractProduct<S, decltype(SIC)::value>(val_.data() + later[l].block, s, ni.size(), zk,
                                                     z + ni.varOffset);
          });
        }
      }
    });
    if (!ok) {
      compFailed_[comp] = 1;
      ++failed;
    }
  }
  return failed;
}

void BlockKkt::solveInPlace(VectorXd& z, bool forwardDone) const {
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
      for (int l = 0; l < nd.numLater; ++l) {
        const Later& la = later_[static_cast<std::size_t>(nd.firstLater + l)];
        const Node& ni = nodes_[static_cast<std::size_t>(la.node)];
        const int si = ni.size();
        withSize(si, [&](auto SIC) {
          subtractProduct<S, decltype(SIC)::value>(val_.data() + la.block, s, si, zk, zd + ni.varOffset);
        });
      }
    });
  }
  if (anyFailed_) {  // a failed component's variables are not solved: zero (x = 0, y = 0)
    for (const Node& nd : nodes_)
      if (compFailed_[static_cast<std::size_t>(nodeComp_[static_cast<std::size_t>(&nd - nodes_.data())])])
        for (int j = 0; j < nd.size(); ++j) zd[nd.varOffset + j] = 0.0;
  }
  for (int i = 0; i < totalVars_; ++i) zd[i] *= dinv_[static_cast<std::size_t>(i)];
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {  // backward: L^T x = w
    const Node& nd = nodes_[static_cast<std::size_t>(*it)];
    if (anyFailed_ && compFailed_[static_cast<std::size_t>(nodeComp_[static_cast<std::size_t>(*it)])]) continue;
    const int s = nd.size();
    const double* D = val_.data() + nd.diag;
    double* zk = zd + nd.varOffset;
    withSize(s, [&](auto SC) {
      constexpr int S = decltype(SC)::value;
      for (int l = 0; l < nd.numLater; ++l) {
        const Later& la = later_[static_cast<std::size_t>(nd.firstLater + l)];
        const Node& ni = nodes_[static_cast<std::size_t>(la.node)];
        const int si = ni.size();
        withSize(si, [&](auto SIC) {
          subtractTransposedProduct<S, decltype(SIC)::value>(val_.data() + la.block, s, si, zd + ni.varOffset, zk);
        });
      }
      unitUpperSolve<S>(D, s, zk);
    });
  }
}

SparseOutcome BlockKkt::solve(const ModelWorkspace& ws, const VectorXd& b, double regularization,
                              int maxIterations, VecRef x) {
  // factor() and iterate() with the first forward substitution done during the factorization
  // (one pass over the factor less)
  SparseOutcome out = factor(ws, nullptr, regularization, &ws.Q, &b);
  if (out.solvable) iterate(ws, &ws.Q, b, maxIterations, x, out, true);
  return out;
}

SparseOutcome BlockKkt::factor(const ModelWorkspace& ws, const std::vector<char>* rowMask,
                               double regularization, const VectorXd* q, const VectorXd* b) {
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
  double* z = nullptr;
  if (b) {  // the right-hand side [q; bs] in elimination order, forward-substituted below
    loadRhs(q, *b);
    z = z_.data();
  }
  int released = 0, dependent = 0;
  out.failedComponents = factorize(rho, delta, released, dependent, z);
  out.dependent = dependent;
  anyFailed_ = out.failedComponents > 0;
  out.factorized = out.failedComponents == 0;
  out.solvable = out.failedComponents < numComps_;
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

void BlockKkt::iterate(const ModelWorkspace& ws, const VectorXd* q, const VectorXd& b,
                       int maxIterations, VecRef x, SparseOutcome& out, bool forwardDone) {
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
  // residual As x - bs, explicitly, per component (a failed component's rows are left out: the
  // dense solver answers for it)
  applyAs(ws, xk_, res_);
  res_ -= bs_;
  std::fill(compResidual_.begin(), compResidual_.end(), 0.0);
  std::fill(compRhs_.begin(), compRhs_.end(), 0.0);
  std::fill(compX_.begin(), compX_.end(), 0.0);
  for (int i = 0; i < m; ++i) {
    const auto c = static_cast<std::size_t>(rowComp_[static_cast<std::size_t>(i)]);
    compResidual_[c] += res_(i) * res_(i);
    compRhs_[c] += bs_(i) * bs_(i);
  }
  for (std::size_t k = 0; k < nodes_.size(); ++k) {
    const Node& nd = nodes_[k];
    if (!nd.body) continue;
    double x2 = 0;
    for (int c = 0; c < nd.nq; ++c) x2 += xk_(nd.qOffset + c) * xk_(nd.qOffset + c);
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
