// ModelSystem::calcForceLinearization: M, A and the Jacobians of the applied forces Q for an
// implicit integrator's iteration matrix (docs/integrators.md, "Radau IIA 5").
//
// Q of a body depends only on the body's own state (body forces, gravity, a linear body's
// M, D, K) and on the states of the bodies it shares a force element with (a force element
// sees only its bodies). Two coordinates whose bodies' neighbourhoods {body} + {bodies sharing
// a force element} are disjoint change disjoint entries of Q, so one evaluation of Q with both
// perturbed gives both columns: the columns are grouped by a greedy distance-2 colouring of
// the body-force graph. A chain of N bodies joined by springs needs 3 x (coordinates per
// body) evaluations of Q for each of dQ/dq and dQ/dq', whatever N.
//
// Bodies and force elements that give their Jacobians exactly (providesForceJacobians():
// springs, torsion springs, point forces of t, linear bodies without force expressions,
// bodies with gravity only) are left out of the differences and the colouring: only the
// rest of Q is differenced (Model::calcDifferencedForces), and a coordinate nothing
// differenced depends on costs no evaluation.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "joinery/core/model_system.hpp"

namespace joinery {

namespace {

/// The pattern of a matrix assembled from triplets, kept from call to call: the union of
/// the patterns seen so far (the triplets of small blocks include their zeros, so their
/// pattern is the model's; large blocks leave exact zeros out, and an entry zero at one
/// state may not be at the next). While the triplets fall in it
/// the matrix is refilled in place, zeros where no triplet falls (no allocation: radau5's
/// sparse path then keeps its factorization's pattern, docs/integrators.md); an entry out
/// of it grows it once.
struct TripletPattern {
  const void* owner = nullptr;
  const double* values = nullptr;
  std::vector<Eigen::Triplet<double>> grown;
};

void assemble(const std::vector<Eigen::Triplet<double>>& t, Eigen::Index rows, Eigen::Index cols,
              Eigen::SparseMatrix<double>& S, TripletPattern& p) {
  const bool ours = p.owner == &S && p.values == S.valuePtr() && S.isCompressed() && S.rows() == rows &&
                    S.cols() == cols;
  if (ours) {
    double* v = S.valuePtr();
    const int* outer = S.outerIndexPtr();
    const int* inner = S.innerIndexPtr();
    std::fill(v, v + S.nonZeros(), 0.0);
    bool inside = true;
    for (const auto& e : t) {
      const int* end = inner + outer[e.col() + 1];
      const int* at = std::lower_bound(inner + outer[e.col()], end, e.row());
      if (at == end || *at != e.row()) {
        inside = false;
        break;
      }
      v[at - inner] += e.value();
    }
    if (inside) return;
    p.grown.clear();  // the union: the kept pattern (as zeros) and these triplets
    for (int j = 0; j < S.outerSize(); ++j)
      for (int k = outer[j]; k < outer[j + 1]; ++k) p.grown.emplace_back(inner[k], j, 0.0);
    p.grown.insert(p.grown.end(), t.begin(), t.end());
    S.setFromTriplets(p.grown.begin(), p.grown.end());
  } else {
    S.resize(rows, cols);
    S.setFromTriplets(t.begin(), t.end());
  }
  S.makeCompressed();
  p.owner = &S;
  p.values = S.valuePtr();
}

}  // namespace

struct ModelSystem::Linearizer {
  ModelWorkspace ws;      // dense M and A (the dense form; made on first use)
  bool haveDense = false;
  ModelWorkspace wsb;     // blocks only (the sparse form)
  std::vector<Eigen::Triplet<double>> tM, tA, tq, tv;
  TripletPattern pM, pA, pq, pv;  // the sparse form's patterns (kept while the model's is)
  static constexpr int kFullBlock = 16;  // as Model's triplet forms (model.cpp, kFullTripletBlock)
  /// per body slot: the slots whose Q depends on its coordinates (itself included)
  std::vector<std::vector<int>> reach;
  /// column groups: per group, the global coordinates perturbed together
  std::vector<std::vector<int>> groups;
  std::vector<int> bodyOf;  // global coordinate -> body slot
  bool differenced = false;  // some body or force element is differenced
  bool analytic = false;     // some force element gives its Jacobians (bodies' come with M)
  State st;
  VectorXd Q0, M0diag;

  explicit Linearizer(const Model& model) : wsb(model.makeWorkspace(false)) {
    const auto& slots = model.bodySlots();
    const auto nb = slots.size();
    std::unordered_map<const Body*, int> index;
    for (std::size_t i = 0; i < nb; ++i) index[slots[i].body] = static_cast<int>(i);
    std::vector<std::vector<char>> adj(nb, std::vector<char>(nb, 0));
    for (std::size_t i = 0; i < nb; ++i) {
      adj[i][i] = slots[i].body->providesForceJacobians() ? 0 : 1;
      if (adj[i][i] && slots[i].size > 0) differenced = true;
    }
    for (const ForceElement* f : model.forces()) {
      if (f->providesForceJacobians()) {
        analytic = true;
        continue;
      }
      differenced = true;
      for (const Body* a : f->bodies())
        for (const Body* b : f->bodies()) {
          const auto ia = index.find(a), ib = index.find(b);
          if (ia != index.end() && ib != index.end()) adj[static_cast<std::size_t>(ia->second)][static_cast<std::size_t>(ib->second)] = 1;
        }
    }
    reach.resize(nb);
    for (std::size_t i = 0; i < nb; ++i)
      for (std::size_t j = 0; j < nb; ++j)
        if (adj[i][j]) reach[i].push_back(static_cast<int>(j));
    // greedy colouring: bodies i, j conflict when their reaches meet
    std::vector<int> colour(nb, -1);
    std::vector<std::vector<char>> touched;  // per colour: the slots its bodies reach
    for (std::size_t i = 0; i < nb; ++i) {
      if (reach[i].empty()) continue;  // nothing differenced depends on this body
      int c = 0;
      for (; c < static_cast<int>(touched.size()); ++c) {
        bool free = true;
        for (int r : reach[i]) free = free && !touched[static_cast<std::size_t>(c)][static_cast<std::size_t>(r)];
        if (free) break;
      }
      if (c == static_cast<int>(touched.size())) touched.emplace_back(nb, 0);
      for (int r : reach[i]) touched[static_cast<std::size_t>(c)][static_cast<std::size_t>(r)] = 1;
      colour[i] = c;
    }
    // group (colour, local coordinate k): coordinate k of every body of that colour
    for (std::size_t c = 0; c < touched.size(); ++c) {
      int width = 0;
      for (std::size_t i = 0; i < nb; ++i)
        if (colour[i] == static_cast<int>(c)) width = std::max(width, slots[i].size);
      for (int k = 0; k < width; ++k) {
        std::vector<int> g;
        for (std::size_t i = 0; i < nb; ++i)
          if (colour[i] == static_cast<int>(c) && k < slots[i].size) g.push_back(slots[i].offset + k);
        groups.push_back(std::move(g));
      }
    }
    bodyOf.assign(static_cast<std::size_t>(model.numCoordinates()), -1);
    for (std::size_t i = 0; i < nb; ++i)
      for (int k = 0; k < slots[i].size; ++k) bodyOf[static_cast<std::size_t>(slots[i].offset + k)] = static_cast<int>(i);
  }

  /// Forward differences of Q in q (inV = false) or q' (inV = true), one evaluation per group;
  /// each entry of the reached blocks goes to emit(row, column, value, full): full when the
  /// reached body is small enough that its zeros belong to the sparse form's pattern too
  /// (Model's triplet forms: the pattern must not change with the state).
  template <class Emit>
  void differentiate(const Model& model, const State& s, bool inV, ModelWorkspace& w, Emit&& emit, long long& count) {
    const auto& slots = model.bodySlots();
    for (const auto& g : groups) {
      st.t = s.t;
      st.q = s.q;
      st.v = s.v;
      VectorXd& x = inV ? st.v : st.q;
      for (int j : g) x(j) += step(inV ? s.v(j) : s.q(j));
      model.calcDifferencedForces(st, w);
      ++count;
      for (int j : g) {
        const double d = x(j) - (inV ? s.v(j) : s.q(j));
        for (int r : reach[static_cast<std::size_t>(bodyOf[static_cast<std::size_t>(j)])]) {
          const BodySlot& sl = slots[static_cast<std::size_t>(r)];
          const bool full = sl.size <= kFullBlock && slots[static_cast<std::size_t>(bodyOf[static_cast<std::size_t>(j)])].size <= kFullBlock;
          for (int i = sl.offset; i < sl.offset + sl.size; ++i) emit(i, j, (w.Q(i) - Q0(i)) / d, full);
        }
      }
    }
  }

  static double step(double x) { return std::sqrt(1e-16 * std::max(1e-5, std::abs(x))); }
};

bool ModelSystem::calcForceLinearization(const State& s, ForceLinearization& out) {
  if (model_.hasNonideal()) return false;  // friction laws depend on the multipliers: not Q alone
  if (!lin_) lin_ = std::make_shared<Linearizer>(model_);
  Linearizer& L = *lin_;
  const int n = model_.numCoordinates(), m = model_.numConstraintRows();
  out.forceEvaluations = 0;
  out.sparse = out.wantSparse;
  if (out.sparse) {
    // element by element: the bodies' mass blocks, the joints' row blocks, the elements'
    // local Jacobians, the differenced columns' reached blocks -- O(n) on chains and trees
    ModelWorkspace& w = L.wsb;
    model_.calcBlocks(s, w);
    ++out.forceEvaluations;
    if (!w.Q.allFinite()) return false;
    L.tM.clear();
    L.tA.clear();
    L.tq.clear();
    L.tv.clear();
    model_.massAndRowTriplets(w, L.tM, L.tA);
    if (L.differenced) {
      model_.calcDifferencedForces(s, w);
      ++out.forceEvaluations;
      L.Q0 = w.Q;
      L.differentiate(model_, s, false, w, [&](int i, int j, double x, bool full) { if (full || x != 0) L.tq.emplace_back(i, j, x); },
                      out.forceEvaluations);
      L.differentiate(model_, s, true, w, [&](int i, int j, double x, bool full) { if (full || x != 0) L.tv.emplace_back(i, j, x); },
                      out.forceEvaluations);
    }
    model_.addAnalyticForceJacobians(s, w, L.tq, L.tv);
    if (L.analytic) ++out.forceEvaluations;
    const auto finite = [](const std::vector<Eigen::Triplet<double>>& t) {
      return std::all_of(t.begin(), t.end(), [](const auto& e) { return std::isfinite(e.value()); });
    };
    if (!finite(L.tM) || !finite(L.tA) || !finite(L.tq) || !finite(L.tv)) return false;
    // on the patterns kept from the previous calls: refilled in place, no allocation once
    // every entry that is ever non-zero has been seen
    assemble(L.tM, n, n, out.Ms, L.pM);
    assemble(L.tA, m, n, out.As, L.pA);
    assemble(L.tq, n, n, out.dQdqS, L.pq);
    assemble(L.tv, n, n, out.dQdvS, L.pv);
    return true;
  }
  if (!L.haveDense) {
    L.ws = model_.makeWorkspace(true);
    L.haveDense = true;
  }
  model_.calcMassAndForces(s, L.ws);
  model_.calcConstraints(s, L.ws);
  ++out.forceEvaluations;
  out.M = L.ws.M;
  out.A = L.ws.A;
  if (!out.M.allFinite() || !out.A.allFinite() || !L.ws.Q.allFinite()) return false;
  out.dQdq.resize(n, n);
  out.dQdv.resize(n, n);
  out.dQdq.setZero();
  out.dQdv.setZero();
  if (L.differenced) {  // forward differences of the rest of Q, from its own base value
    model_.calcDifferencedForces(s, L.ws);
    ++out.forceEvaluations;
    L.Q0 = L.ws.Q;
    L.differentiate(model_, s, false, L.ws, [&](int i, int j, double x, bool) { out.dQdq(i, j) = x; }, out.forceEvaluations);
    L.differentiate(model_, s, true, L.ws, [&](int i, int j, double x, bool) { out.dQdv(i, j) = x; }, out.forceEvaluations);
  }
  // the elements' analytic Jacobians count as one evaluation of Q (about what their forces
  // cost); the bodies' (zero for gravity only, -K and -D) come with the base evaluation
  model_.addAnalyticForceJacobians(s, L.ws, out.dQdq, out.dQdv);
  if (L.analytic) ++out.forceEvaluations;
  return out.dQdq.allFinite() && out.dQdv.allFinite();
}

}  // namespace joinery
