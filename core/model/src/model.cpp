#include "joinery/core/model.hpp"

#include <array>
#include <span>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <stdexcept>

#include "joinery/core/assert.hpp"
#include "joinery/core/unroll.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/ground.hpp"
#include "model_owned.hpp"

namespace joinery {

// ---- Model ------------------------------------------------------------------------------

Model::Model() : owned_(std::make_unique<Owned>()) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

const Body& Model::ground() const { return *owned_->ground; }

const BodySlot& Model::slotOf(const Body& b) const {
  if (b.isGround()) return owned_->groundSlot;
  auto it = owned_->slotIndex.find(&b);
  if (it == owned_->slotIndex.end())
    throw ModelError("body '" + b.name() + "' is not part of this model");
  return slots_[static_cast<std::size_t>(it->second)];
}

std::vector<const Body*> Model::bodies() const {
  std::vector<const Body*> out;
  for (const auto& s : slots_) out.push_back(s.body);
  return out;
}
std::vector<const Constraint*> Model::constraints() const {
  std::vector<const Constraint*> out;
  for (const auto& c : owned_->constraints) out.push_back(c.get());
  return out;
}
std::vector<const ForceElement*> Model::forces() const {
  std::vector<const ForceElement*> out;
  for (const auto& f : owned_->forces) out.push_back(f.get());
  return out;
}

const Body* Model::findBody(const std::string& name) const {
  auto it = owned_->byName.find(name);
  return it == owned_->byName.end() ? nullptr : it->second;
}

const Body& Model::bodyOfCoordinate(int i) const {
  return *slots_.at(static_cast<std::size_t>(coordBody_.at(static_cast<std::size_t>(i)))).body;
}

State Model::initialState() const {
  State s;
  s.t = 0;
  s.q = VectorXd::Zero(n_);
  s.v = VectorXd::Zero(n_);
  for (const auto& sl : slots_) sl.body->getInitialState(s.q.segment(sl.offset, sl.size), s.v.segment(sl.offset, sl.size));
  return s;
}

ModelWorkspace Model::makeWorkspace() const { return makeWorkspace(true); }

ModelWorkspace Model::makeWorkspace(bool denseMatrices) const {
  ModelWorkspace ws;
  ws.dense_ = denseMatrices;
  if (denseMatrices) {
    ws.M = MatrixXd::Zero(n_, n_);
    ws.A = MatrixXd::Zero(m_, n_);
  }
  ws.Q = VectorXd::Zero(n_);
  int largest = 0;
  // the blocks in the order calcBlocks writes them: each body's mass block and internal rows,
  // then the joints' rows; each block from a cache line on
  ws.bodyM_.resize(slots_.size());
  ws.rowA_.resize(rows_.size());
  ws.absentRows_.assign(rows_.size(), 0);
  std::size_t end = 0;
  auto place = [&end](ModelWorkspace::Span& b, int rows, int cols) {
    b = {end, rows, cols};
    end += (static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) + 7) / 8 * 8;
  };
  auto placeRows = [&](std::size_t r) {
    int cols = 0;
    for (int bi : rowBodies_[r]) cols += bi < 0 ? 0 : slots_[static_cast<std::size_t>(bi)].size;
    place(ws.rowA_[r], rows_[r].size, cols);
  };
  const std::vector<int>& internal = owned_->internalBlockOfSlot;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    place(ws.bodyM_[i], slots_[i].size, slots_[i].size);
    largest = std::max(largest, slots_[i].size);
    if (internal[i] >= 0) placeRows(static_cast<std::size_t>(internal[i]));
  }
  // the joints' row blocks are the first jointBlocks (the bodies' internal ones follow them)
  for (std::size_t r = 0; r < owned_->jointBlocks; ++r) placeRows(r);
  ws.blocks_.assign(end, 0.0);
  ws.jqBody_ = MatrixXd::Zero(largest, largest);
  ws.jvBody_ = ws.jqBody_;
  ws.b = VectorXd::Zero(m_);
  ws.rowNorm_ = VectorXd::Zero(m_);
  ws.C = VectorXd::Zero(n_);
  for (std::size_t j = 0; j < owned_->constraints.size(); ++j) {
    const Constraint& c = *owned_->constraints[j];
    ModelWorkspace::Local l;
    l.views.resize(c.bodies().size());
    const int nl = c.numLocalCoordinates();
    if (denseMatrices) {  // the dense evaluation's per-constraint storage (the block one writes rowA_)
      l.A = MatrixXd::Zero(c.numRows(), nl);
      l.b = VectorXd::Zero(c.numRows());
    }
    if (denseMatrices || c.nonideal()) l.vec = VectorXd::Zero(nl);  // calcNonidealWork
    if (c.nonideal()) {  // calcNonidealWork re-evaluates the local rows
      l.A = MatrixXd::Zero(c.numRows(), nl);
      l.b = VectorXd::Zero(c.numRows());
      l.g = VectorXd::Zero(nl);
    }
    ws.constraints_.push_back(std::move(l));
  }
  for (const auto& f : owned_->forces) {
    ModelWorkspace::Local l;
    l.views.resize(f->bodies().size());
    l.vec = VectorXd::Zero(f->numLocalCoordinates());
    if (f->providesForceJacobians()) {
      l.jq = MatrixXd::Zero(f->numLocalCoordinates(), f->numLocalCoordinates());
      l.jv = l.jq;
    }
    ws.forces_.push_back(std::move(l));
  }
  return ws;
}

namespace {
void fill(const State& s, std::vector<BodyStateView>& views, const std::vector<BodySlot>& slots) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    views[i].body = slots[i].body;
    views[i].q = s.q.data() + slots[i].offset;
    views[i].v = s.v.data() + slots[i].offset;
    views[i].n = slots[i].size;
  }
}
}  // namespace

void Model::calcMassAndForces(const State& s, ModelWorkspace& ws) const {
  ws.M.setZero();
  ws.Q.setZero();
  for (const auto& sl : slots_) {
    if (sl.size == 0) continue;
    const auto q = s.q.segment(sl.offset, sl.size);
    const auto v = s.v.segment(sl.offset, sl.size);
    sl.body->calcMassMatrix(s.t, q, ws.M.block(sl.offset, sl.offset, sl.size, sl.size));
    sl.body->calcForces(s.t, q, v, ws.Q.segment(sl.offset, sl.size));
    sl.body->addGravityForce(q, gravity_, ws.Q.segment(sl.offset, sl.size));
  }
  addElementForces(s, ws);
}

void Model::addElementForces(const State& s, ModelWorkspace& ws, bool differencedOnly) const {
  for (std::size_t j = 0; j < owned_->forces.size(); ++j) {
    if (differencedOnly && owned_->forces[j]->providesForceJacobians()) continue;
    auto& l = ws.forces_[j];
    const auto& slots = owned_->forceSlots[j];
    fill(s, l.views, slots);
    l.vec.setZero();
    owned_->forces[j]->addForces(LocalState{s.t, l.views}, l.vec);
    int k = 0;
    for (const auto& sl : slots) {
      ws.Q.segment(sl.offset, sl.size) += l.vec.segment(k, sl.size);
      k += sl.size;
    }
  }
}

void Model::addAnalyticForceJacobians(const State& s, ModelWorkspace& ws, MatRef dQdq, MatRef dQdv) const {
  for (const auto& sl : slots_) {
    if (sl.size == 0 || !sl.body->providesForceJacobians()) continue;
    sl.body->addForceJacobians(s.t, s.q.segment(sl.offset, sl.size), s.v.segment(sl.offset, sl.size), gravity_,
                               dQdq.block(sl.offset, sl.offset, sl.size, sl.size),
                               dQdv.block(sl.offset, sl.offset, sl.size, sl.size));
  }
  for (std::size_t j = 0; j < owned_->forces.size(); ++j) {
    const ForceElement& f = *owned_->forces[j];
    if (!f.providesForceJacobians()) continue;
    auto& l = ws.forces_[j];
    const auto& slots = owned_->forceSlots[j];
    fill(s, l.views, slots);
    l.jq.setZero();
    l.jv.setZero();
    f.addForceJacobians(LocalState{s.t, l.views}, l.jq, l.jv);
    int r = 0;  // scatter the local blocks: rows of body a, columns of body b
    for (const auto& a : slots) {
      int c = 0;
      for (const auto& b : slots) {
        if (a.size > 0 && b.size > 0) {
          dQdq.block(a.offset, b.offset, a.size, b.size) += l.jq.block(r, c, a.size, b.size);
          dQdv.block(a.offset, b.offset, a.size, b.size) += l.jv.block(r, c, a.size, b.size);
        }
        c += b.size;
      }
      r += a.size;
    }
  }
}

namespace {
/// The triplet forms (the sparse linearization of radau5's sparse path) give every entry of
/// a block up to this size, zeros included, so that the pattern does not change with the
/// state (a joint's row entry -sin(angle) is zero at 0, an element's Jacobian entries at
/// rest): the integrator keeps its pattern and refills the values in place (no allocation,
/// docs/integrators.md). Larger blocks (a linear body's M, K, D: constant, their zeros
/// structural) are given without their exact zeros. The same bound in
/// model_system_linearization.cpp (differenced columns).
constexpr Eigen::Index kFullTripletBlock = 16;
bool fullBlock(Eigen::Index rows, Eigen::Index cols) { return rows <= kFullTripletBlock && cols <= kFullTripletBlock; }
}  // namespace

void Model::addAnalyticForceJacobians(const State& s, ModelWorkspace& ws, std::vector<Eigen::Triplet<double>>& dQdq,
                                      std::vector<Eigen::Triplet<double>>& dQdv) const {
  const auto emit = [](std::vector<Eigen::Triplet<double>>& out, const auto& B, int r0, int c0) {
    const bool full = fullBlock(B.rows(), B.cols());
    for (Eigen::Index j = 0; j < B.cols(); ++j)
      for (Eigen::Index i = 0; i < B.rows(); ++i)
        if (full || B(i, j) != 0) out.emplace_back(r0 + static_cast<int>(i), c0 + static_cast<int>(j), B(i, j));
  };
  for (const auto& sl : slots_) {
    if (sl.size == 0 || !sl.body->providesForceJacobians()) continue;
    auto bq = ws.jqBody_.topLeftCorner(sl.size, sl.size);
    auto bv = ws.jvBody_.topLeftCorner(sl.size, sl.size);
    bq.setZero();
    bv.setZero();
    sl.body->addForceJacobians(s.t, s.q.segment(sl.offset, sl.size), s.v.segment(sl.offset, sl.size), gravity_, bq, bv);
    emit(dQdq, bq, sl.offset, sl.offset);
    emit(dQdv, bv, sl.offset, sl.offset);
  }
  for (std::size_t j = 0; j < owned_->forces.size(); ++j) {
    const ForceElement& f = *owned_->forces[j];
    if (!f.providesForceJacobians()) continue;
    auto& l = ws.forces_[j];
    const auto& slots = owned_->forceSlots[j];
    fill(s, l.views, slots);
    l.jq.setZero();
    l.jv.setZero();
    f.addForceJacobians(LocalState{s.t, l.views}, l.jq, l.jv);
    int r = 0;  // the local blocks: rows of body a, columns of body b
    for (const auto& a : slots) {
      int c = 0;
      for (const auto& b : slots) {
        if (a.size > 0 && b.size > 0) {
          emit(dQdq, l.jq.block(r, c, a.size, b.size), a.offset, b.offset);
          emit(dQdv, l.jv.block(r, c, a.size, b.size), a.offset, b.offset);
        }
        c += b.size;
      }
      r += a.size;
    }
  }
}

void Model::massAndRowTriplets(const ModelWorkspace& ws, std::vector<Eigen::Triplet<double>>& M,
                               std::vector<Eigen::Triplet<double>>& A) const {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const BodySlot& sl = slots_[i];
    const auto B = ws.bodyMass(i);
    const bool full = fullBlock(B.rows(), B.cols());
    for (Eigen::Index c = 0; c < B.cols(); ++c)
      for (Eigen::Index r = 0; r < B.rows(); ++r)
        if (full || B(r, c) != 0) M.emplace_back(sl.offset + static_cast<int>(r), sl.offset + static_cast<int>(c), B(r, c));
  }
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const auto B = ws.rowBlockRows(r);
    int k = 0;  // local columns: the bodies' coordinates in order (ground: none)
    for (int bi : rowBodies_[r]) {
      if (bi < 0) continue;
      const BodySlot& sl = slots_[static_cast<std::size_t>(bi)];
      const bool full = fullBlock(rows_[r].size, sl.size);
      for (int c = 0; c < sl.size; ++c)
        for (int i = 0; i < rows_[r].size; ++i)
          if (full || B(i, k + c) != 0) A.emplace_back(rows_[r].row + i, sl.offset + c, B(i, k + c));
      k += sl.size;
    }
  }
}

void Model::calcDifferencedForces(const State& s, ModelWorkspace& ws) const {
  ws.Q.setZero();
  for (const auto& sl : slots_) {
    if (sl.size == 0 || sl.body->providesForceJacobians()) continue;
    const auto q = s.q.segment(sl.offset, sl.size);
    sl.body->calcForces(s.t, q, s.v.segment(sl.offset, sl.size), ws.Q.segment(sl.offset, sl.size));
    sl.body->addGravityForce(q, gravity_, ws.Q.segment(sl.offset, sl.size));
  }
  addElementForces(s, ws, true);
}

void Model::calcConstraints(const State& s, ModelWorkspace& ws) const {
  if (!ws.hasDenseMatrices())
    throw ModelError("calcConstraints needs a workspace with dense matrices (makeWorkspace(true))");
  ws.A.setZero();
  ws.b.setZero();
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const RowBlock& rb = rows_[r];
    const int j = owned_->blockConstraint[r];
    if (j < 0) {
      const BodySlot& sl = slotOf(*rb.body);
      rb.body->calcInternalConstraints(s.t, s.q.segment(sl.offset, sl.size),
                                       s.v.segment(sl.offset, sl.size),
                                       ws.A.block(rb.row, sl.offset, rb.size, sl.size),
                                       ws.b.segment(rb.row, rb.size));
      continue;
    }
    auto& l = ws.constraints_[static_cast<std::size_t>(j)];
    const auto& slots = owned_->constraintSlots[static_cast<std::size_t>(j)];
    fill(s, l.views, slots);
    l.A.setZero();
    l.b.setZero();
    rb.constraint->calcAccelerationRows(LocalState{s.t, l.views}, l.A, l.b);
    int k = 0;
    for (const auto& sl : slots) {
      ws.A.block(rb.row, sl.offset, rb.size, sl.size) += l.A.middleCols(k, sl.size);
      k += sl.size;
    }
    ws.b.segment(rb.row, rb.size) = l.b;
  }
}

namespace {
/// Blocks ahead whose storage calcBodyBlocks/calcRowBlocks request for writing: on a large model
/// it left the cache since the last evaluation.
constexpr std::size_t kWritePrefetchAhead = 4;
/// Smaller models stay in the cache: no hints (sparse_kernels.hpp, kPrefetchMinBlocks).
constexpr std::size_t kWritePrefetchMinBlocks = 1024;
/// The last index that prefetches, for `count` blocks (0: none).
std::size_t prefetchEnd(std::size_t count) {
  return count >= kWritePrefetchMinBlocks ? count - kWritePrefetchAhead : 0;
}
void prefetchForWrite(const ModelWorkspace::BlockView& block) {
  const char* c = reinterpret_cast<const char*>(block.data());
  const char* end = reinterpret_cast<const char*>(block.data() + block.size());
  for (; c < end; c += 64) __builtin_prefetch(c, 1, 3);
}
/// The norm of every row of the column-major block A (k x nc) into out[0 .. k): the squares
/// summed column by column in locals (through memory every addition waited on a store-to-load
/// forward), blocks of 1 to 3 rows and 1 to 14 columns (one or two bodies of up to 7
/// coordinates: detail::withUnrolledColumnCount) fully unrolled. Run while the block is in the
/// cache from its evaluation.
void storeRowNorms(const ModelWorkspace::BlockView& A, double* out) {
  const auto k = static_cast<int>(A.rows()), nc = static_cast<int>(A.cols());
  auto norms = [&](auto KC) {
    constexpr int K = decltype(KC)::value;
    double v[K] = {};
    const double* a = A.data();
    auto columns = [&](auto NCC) {
      constexpr int NC = decltype(NCC)::value;
      JOINERY_UNROLL
      for (int c = 0; c < (NC > 0 ? NC : nc); ++c, a += K)
        JOINERY_UNROLL
        for (int i = 0; i < K; ++i) v[i] += a[i] * a[i];
    };
    if (!detail::withUnrolledColumnCount(nc, columns)) columns(std::integral_constant<int, 0>{});
    for (int i = 0; i < K; ++i) out[i] = std::sqrt(v[i]);
  };
  if (detail::withUnrolledRowCount(k, norms)) return;
  for (int i = 0; i < k; ++i) {
    const double* a = A.data() + i;
    double v = 0;
    for (int c = 0; c < nc; ++c) v += a[c * k] * a[c * k];
    out[i] = std::sqrt(v);
  }
}
}  // namespace

void Model::calcBodyBlock(std::size_t i, const State& s, ModelWorkspace& ws, double& diagMax) const {
  const BodySlot& sl = slots_[i];
  if (sl.size == 0) return;
  const auto q = s.q.segment(sl.offset, sl.size);
  const auto v = s.v.segment(sl.offset, sl.size);
  auto Mb = ws.block(ws.bodyM_[i]);
  sl.body->calcMassMatrix(s.t, q, Mb);
  for (Eigen::Index k = 0; k < Mb.rows(); ++k) diagMax = std::max(diagMax, std::abs(Mb(k, k)));
  sl.body->calcForces(s.t, q, v, ws.Q.segment(sl.offset, sl.size));
  sl.body->addGravityForce(q, gravity_, ws.Q.segment(sl.offset, sl.size));
}

void Model::calcRowBlock(std::size_t r, const State& s, ModelWorkspace& ws) const {
  const RowBlock& rb = rows_[r];
  const int j = owned_->blockConstraint[r];
  auto Ar = ws.block(ws.rowA_[r]);
  if (j < 0) {
    const BodySlot& sl = slots_[static_cast<std::size_t>(rowBodies_[r][0])];
    Ar.setZero();
    ws.b.segment(rb.row, rb.size).setZero();
    rb.body->calcInternalConstraints(s.t, s.q.segment(sl.offset, sl.size), s.v.segment(sl.offset, sl.size), Ar,
                                     ws.b.segment(rb.row, rb.size));
  } else {
    if (rb.constraint->rowsAbsent()) {
      // an inactive contact or rope: zero rows, whatever the state; the block and its norms are
      // zeroed once and left so (b is written every time: the dense evaluation writes it too)
      ws.b.segment(rb.row, rb.size).setZero();
      if (ws.absentRows_[r]) return;
      Ar.setZero();
      ws.rowNorm_.segment(rb.row, rb.size).setZero();
      ws.absentRows_[r] = 1;
      return;
    }
    ws.absentRows_[r] = 0;
    auto& l = ws.constraints_[static_cast<std::size_t>(j)];
    fill(s, l.views, owned_->constraintSlots[static_cast<std::size_t>(j)]);
    // the local layout of the rows is the concatenation of the bodies' coordinates (ground:
    // none); the constraint writes every entry of Ar and b (constraint.hpp), so they are not
    // zeroed here too (a joint made of primitives zeroes its rows once itself)
    rb.constraint->calcAccelerationRows(LocalState{s.t, l.views}, Ar, ws.b.segment(rb.row, rb.size));
  }
  storeRowNorms(ws.rowBlockRows(r), ws.rowNorm_.data() + rb.row);
}

void Model::calcBodyBlocks(const State& s, ModelWorkspace& ws) const {
  JOINERY_ASSERT(s.q.size() == n_ && s.v.size() == n_, "state size differs from the model's coordinates");
  JOINERY_ASSERT(ws.bodyM_.size() == slots_.size(), "workspace made for another model");
  ws.Q.setZero();
  double diagMax = 0;
  const std::size_t ahead = prefetchEnd(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (i < ahead) prefetchForWrite(ws.bodyMass(i + kWritePrefetchAhead));
    calcBodyBlock(i, s, ws, diagMax);
  }
  ws.massDiagMax_ = diagMax;
  addElementForces(s, ws);
}

void Model::calcRowBlocks(const State& s, ModelWorkspace& ws) const {
  JOINERY_ASSERT(s.q.size() == n_ && s.v.size() == n_, "state size differs from the model's coordinates");
  JOINERY_ASSERT(ws.rowA_.size() == rows_.size() && ws.b.size() == m_, "workspace made for another model");
  const std::size_t ahead = prefetchEnd(rows_.size());
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    if (r < ahead) prefetchForWrite(ws.rowBlockRows(r + kWritePrefetchAhead));
    calcRowBlock(r, s, ws);
  }
}

void Model::calcBlocks(const State& s, ModelWorkspace& ws) const {
  JOINERY_ASSERT(s.q.size() == n_ && s.v.size() == n_, "state size differs from the model's coordinates");
  JOINERY_ASSERT(ws.bodyM_.size() == slots_.size() && ws.rowA_.size() == rows_.size() && ws.b.size() == m_,
                 "workspace made for another model");
  // the bodies, each with its internal rows while its coordinates are in the cache (on a large
  // model they had left it by the time a separate pass over the rows reached them)
  const std::vector<int>& internal = owned_->internalBlockOfSlot;
  ws.Q.setZero();
  double diagMax = 0;
  const std::size_t ahead = prefetchEnd(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (i < ahead) {
      prefetchForWrite(ws.bodyMass(i + kWritePrefetchAhead));
      const int ri = internal[i + kWritePrefetchAhead];
      if (ri >= 0) prefetchForWrite(ws.rowBlockRows(static_cast<std::size_t>(ri)));
    }
    calcBodyBlock(i, s, ws, diagMax);
    if (internal[i] >= 0) calcRowBlock(static_cast<std::size_t>(internal[i]), s, ws);
  }
  ws.massDiagMax_ = diagMax;
  addElementForces(s, ws);
  // the joints' rows
  const std::size_t joints = owned_->jointBlocks;
  const std::size_t jointAhead = prefetchEnd(joints);
  for (std::size_t r = 0; r < joints; ++r) {
    if (r < jointAhead) prefetchForWrite(ws.rowBlockRows(r + kWritePrefetchAhead));
    calcRowBlock(r, s, ws);
  }
}

void Model::calcPositionErrors(const State& s, ModelWorkspace& ws, VecRef phi) const {
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const RowBlock& rb = rows_[r];
    const int j = owned_->blockConstraint[r];
    if (j < 0) {
      const BodySlot& sl = slotOf(*rb.body);
      rb.body->calcInternalPositionError(s.t, s.q.segment(sl.offset, sl.size), phi.segment(rb.row, rb.size));
      continue;
    }
    if (rb.constraint->rowsAbsent()) {  // (an inactive contact or rope)
      phi.segment(rb.row, rb.size).setZero();
      continue;
    }
    auto& l = ws.constraints_[static_cast<std::size_t>(j)];
    fill(s, l.views, owned_->constraintSlots[static_cast<std::size_t>(j)]);
    if (rb.constraint->level() == ConstraintLevel::Position)
      rb.constraint->calcPositionError(LocalState{s.t, l.views}, phi.segment(rb.row, rb.size));
    else
      phi.segment(rb.row, rb.size).setZero();
  }
}

void Model::calcVelocityErrors(const State& s, ModelWorkspace& ws, VecRef psi) const {
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const RowBlock& rb = rows_[r];
    const int j = owned_->blockConstraint[r];
    if (j < 0) {
      // internal constraints are scleronomic: psi = A_int q' (rows into the block storage)
      const BodySlot& sl = slotOf(*rb.body);
      auto Ab = ws.block(ws.rowA_[r]);
      Ab.setZero();
      rb.body->calcInternalConstraints(s.t, s.q.segment(sl.offset, sl.size),
                                       s.v.segment(sl.offset, sl.size), Ab,
                                       ws.b.segment(rb.row, rb.size));
      storeRowNorms(ws.rowBlockRows(r), ws.rowNorm_.data() + rb.row);  // the blocks and their norms stay one
      psi.segment(rb.row, rb.size).noalias() = Ab * s.v.segment(sl.offset, sl.size);
      continue;
    }
    if (rb.constraint->rowsAbsent()) {  // (an inactive contact or rope)
      psi.segment(rb.row, rb.size).setZero();
      continue;
    }
    auto& l = ws.constraints_[static_cast<std::size_t>(j)];
    fill(s, l.views, owned_->constraintSlots[static_cast<std::size_t>(j)]);
    rb.constraint->calcVelocityError(LocalState{s.t, l.views}, psi.segment(rb.row, rb.size));
  }
}

void Model::calcNonidealWork(const State& s, ModelWorkspace& ws, const VectorXd& lambdaIdeal) const {
  ws.C.setZero();
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const int j = owned_->blockConstraint[r];
    if (j < 0 || !rows_[r].constraint->nonideal()) continue;
    const Constraint& c = *rows_[r].constraint;
    auto& l = ws.constraints_[static_cast<std::size_t>(j)];
    const auto& slots = owned_->constraintSlots[static_cast<std::size_t>(j)];
    fill(s, l.views, slots);
    const LocalState ls{s.t, l.views};
    l.A.setZero();
    l.b.setZero();
    c.calcAccelerationRows(ls, l.A, l.b);
    l.g.noalias() = l.A.transpose() * lambdaIdeal.segment(rows_[r].row, rows_[r].size);
    calcJointNonidealWork(c, ls, slots, l.g, l.vec);
    int k = 0;
    for (const auto& sl : slots) {
      ws.C.segment(sl.offset, sl.size) += l.vec.segment(k, sl.size);
      k += sl.size;
    }
  }
}

void calcJointNonidealWork(const Constraint& c, const LocalState& ls, const std::vector<BodySlot>& slots,
                           const VectorXd& gIdeal, VecRef C) {
  C.setZero();
  if (!c.nonideal()) return;
  // Fi = |A_j^T lambda_j| over the global coordinates: a body listed twice sums its blocks
  double f2 = 0;
  int col = 0;
  for (std::size_t t = 0; t < slots.size(); ++t) {
    const int nq = slots[t].size;
    bool first = true;
    for (std::size_t u = 0; u < t; ++u) first = first && slots[u].body != slots[t].body;
    if (first && nq > 0) {
      for (int i = 0; i < nq; ++i) {
        double sum = gIdeal(col + i);
        int c2 = col + nq;
        for (std::size_t u = t + 1; u < slots.size(); ++u) {
          if (slots[u].body == slots[t].body) sum += gIdeal(c2 + i);
          c2 += slots[u].size;
        }
        f2 += sum * sum;
      }
    }
    col += nq;
  }
  c.nonideal()->calcWork(c, ls, IdealForce{std::sqrt(f2), gIdeal.data()}, C);
}

double Model::calcKineticEnergy(const State& s) const {
  double T = 0;
  for (const auto& sl : slots_)
    T += sl.body->calcKineticEnergy(s.t, s.q.segment(sl.offset, sl.size), s.v.segment(sl.offset, sl.size));
  return T;
}

double Model::calcPotentialEnergy(const State& s) const {
  double V = 0;
  for (const auto& sl : slots_) {
    const auto q = s.q.segment(sl.offset, sl.size);
    V += sl.body->calcGravityPotential(q, gravity_) + sl.body->calcPotentialEnergy(s.t, q);
  }
  // force elements: views on the stack for up to 4 bodies (energy channels are evaluated at
  // every sample and must not allocate), on the heap beyond
  for (std::size_t j = 0; j < owned_->forces.size(); ++j) {
    const auto& slots = owned_->forceSlots[j];
    std::array<BodyStateView, 4> small;
    std::vector<BodyStateView> large;
    std::span<BodyStateView> views(small.data(), slots.size());
    if (slots.size() > small.size()) {
      large.resize(slots.size());
      views = std::span<BodyStateView>(large);
    }
    for (std::size_t i = 0; i < slots.size(); ++i)
      views[i] = BodyStateView{slots[i].body, s.q.data() + slots[i].offset, s.v.data() + slots[i].offset,
                               slots[i].size};
    V += owned_->forces[j]->calcPotentialEnergy(LocalState{s.t, views});
  }
  return V;
}

void Model::normalizeCoordinates(VecRef q) const {
  for (const auto& sl : slots_)
    if (sl.body->numInternalConstraints() > 0) sl.body->normalizeCoordinates(q.segment(sl.offset, sl.size));
}

}  // namespace joinery
