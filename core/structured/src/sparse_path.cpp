// Structured fast path of ModelSystem, analysis: the block graph, its components, the
// elimination order and the storage layout (sparse_path.hpp explains the equations; the
// numeric part is in sparse_factor.cpp and sparse_solve.cpp).
#include "sparse_path.hpp"

#include <unordered_map>

#include "joinery/core/assert.hpp"
#include "joinery/core/graph.hpp"
#include "sparse_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <type_traits>


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
  zeroNode_.assign(nodes_.size(), 0);
}

void BlockKkt::assignComponents() {
  const Model& model = *model_;
  const GraphAnalysis graph = analyzeGraph(model);
  std::unordered_map<const Constraint*, int> constraintIndex;
  const auto constraints = model.constraints();
  for (std::size_t c = 0; c < constraints.size(); ++c) constraintIndex[constraints[c]] = static_cast<int>(c);
  // numbered in node order (bodies first), as the components are first reached; a row node
  // whose constraint touches no body with coordinates is a component of its own
  std::vector<int> compact(graph.components.size(), -1);
  nodeComp_.assign(nodes_.size(), -1);
  numComps_ = 0;
  for (std::size_t k = 0; k < nodes_.size(); ++k) {
    const Node& nd = nodes_[k];
    int g = -1;
    if (nd.body) {
      g = graph.bodyComponent[static_cast<std::size_t>(nd.index)];
    } else {
      const Constraint* c = model.rowBlocks()[static_cast<std::size_t>(nd.index)].constraint;
      g = graph.constraintComponent[static_cast<std::size_t>(constraintIndex.at(c))];
    }
    if (g < 0) {
      nodeComp_[k] = numComps_++;
      continue;
    }
    int& id = compact[static_cast<std::size_t>(g)];
    if (id < 0) id = numComps_++;
    nodeComp_[k] = id;
  }
}

void BlockKkt::analyze(const ModelWorkspace& ws) {
  markPenalizedRows(ws);
  std::vector<std::vector<int>> laterOf = orderElimination(ws);
  layoutStorage(laterOf);
  planAssembly();
  analyzed_ = true;
}

void BlockKkt::markPenalizedRows(const ModelWorkspace& ws) {
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
      const auto Ai = ws.rowBlockRows(static_cast<std::size_t>(nd.internalBlock));
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
}

// long: the elimination graph, the coverage of each row node and the greedy ordering share
// their bookkeeping (adjacency, covered rows, pending bodies) step by step.
std::vector<std::vector<int>> BlockKkt::orderElimination(const ModelWorkspace& ws) {
  const Model& model = *model_;
  const auto& rows = model.rowBlocks();
  const auto nn = static_cast<int>(nodes_.size());
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
    const auto Ar = ws.rowBlockRows(r);
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
  assignComponents();
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
  return laterOf;
}

void BlockKkt::layoutStorage(std::vector<std::vector<int>>& laterOf) {
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
  for (int k : order_) {
    Node& nd = nodes_[static_cast<std::size_t>(k)];
    nd.diag = off;
    off += packedSize(nd.size());  // the lower triangle only (sparse_kernels.hpp)
    auto& lo = laterOf[static_cast<std::size_t>(k)];
    std::sort(lo.begin(), lo.end(), [&](int a, int b) {
      return nodes_[static_cast<std::size_t>(a)].pos < nodes_[static_cast<std::size_t>(b)].pos;
    });
    nd.firstLater = static_cast<int>(later_.size());
    nd.numLater = static_cast<int>(lo.size());
    for (int i : lo) {
      later_.push_back(Later{i, off});
      off += nodes_[static_cast<std::size_t>(i)].size() * nd.size();
    }
  }
  val_.assign(static_cast<std::size_t>(off), 0.0);
  int largestNode = 0;
  for (const Node& nd : nodes_) largestNode = std::max(largestNode, nd.size());
  work_.assign(static_cast<std::size_t>(largestNode), 0.0);
  dinv_.assign(static_cast<std::size_t>(totalVars_), 0.0);
  dpiv_.assign(static_cast<std::size_t>(totalVars_), 0.0);
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
}

void BlockKkt::planAssembly() {
  const Model& model = *model_;
  // ---- assembly jobs, in storage order --------------------------------------------------------
  // Every block is written by exactly one job that first zeroes it (in cache, right before it
  // is filled): the diagonal blocks, the coupling blocks of a joint's rows with a body's
  // coordinates (copied from the joint's rows, scaled), and the blocks that only fill-in or
  // the penalized rows (added afterwards) write.
  jobs_.clear();
  std::vector<int> jobPos;  // position of each job's column
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
    jobPos.resize(jobs_.size(), nd.pos);
  }
  // ---- schedule: each job at the first position that touches its block (its own column, or the
  // Schur update of an earlier node), so that the factorization can run the jobs of a position
  // right before it (fused assembly: the block is written in cache just before it is read)
  std::unordered_map<int, int> firstUpdate;  // block offset -> first position updating it
  for (std::size_t p = 0; p < order_.size(); ++p)
    for (int u = updFirst_[p]; u < updFirst_[p + 1]; ++u)
      firstUpdate.emplace(updates_[static_cast<std::size_t>(u)].target, static_cast<int>(p));
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    const auto it = firstUpdate.find(jobs_[j].target);
    if (it != firstUpdate.end()) jobPos[j] = std::min(jobPos[j], it->second);
  }
  std::vector<int> idx(jobs_.size());
  for (std::size_t j = 0; j < idx.size(); ++j) idx[j] = static_cast<int>(j);
  // stable: the copies into one block (a body listed twice) keep their order (the first zeroes)
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    return jobPos[static_cast<std::size_t>(a)] < jobPos[static_cast<std::size_t>(b)];
  });
  std::vector<AsmJob> sorted;
  sorted.reserve(jobs_.size());
  jobFirst_.assign(order_.size() + 1, 0);
  for (int j : idx) {
    sorted.push_back(jobs_[static_cast<std::size_t>(j)]);
    ++jobFirst_[static_cast<std::size_t>(jobPos[static_cast<std::size_t>(j)]) + 1];
  }
  for (std::size_t p = 0; p < order_.size(); ++p) jobFirst_[p + 1] += jobFirst_[p];
  jobs_ = std::move(sorted);
  // the penalized joint rows are added after all jobs: no fused assembly with them
  const auto& rows = model.rowBlocks();
  anyPenalizedJointRow_ = false;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int rn = rowNode_[r];
    if (penalized_[r] && rn >= 0 && !nodes_[static_cast<std::size_t>(rn)].body) anyPenalizedJointRow_ = true;
  }
  fusedAssembly_ = !anyPenalizedJointRow_;
}

int BlockKkt::blockOf(int k, int i) const {
  const Node& nd = nodes_[static_cast<std::size_t>(k)];
  for (int l = 0; l < nd.numLater; ++l)
    if (later_[static_cast<std::size_t>(nd.firstLater + l)].node == i)
      return later_[static_cast<std::size_t>(nd.firstLater + l)].block;
  return -1;  // not reached: the pattern is closed under elimination
}

}  // namespace joinery::detail
