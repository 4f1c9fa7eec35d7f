// ModelBuilder: the bodies, joints and forces of a model, and the assembly of the Model
// (coordinate layout, row blocks, each element's slots) from them.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "joinery/core/errors.hpp"
#include "joinery/core/model.hpp"
#include "model_owned.hpp"

namespace joinery {

ModelBuilder::ModelBuilder() : impl_(std::make_unique<Impl>()) {
  impl_->byName["ground"] = impl_->ground.get();
}
ModelBuilder::~ModelBuilder() = default;
ModelBuilder::ModelBuilder(ModelBuilder&&) noexcept = default;
ModelBuilder& ModelBuilder::operator=(ModelBuilder&&) noexcept = default;

const Body& ModelBuilder::ground() const { return *impl_->ground; }

const Body& ModelBuilder::addBody(BodyPtr body) {
  if (!body) throw ModelError("addBody: null body");
  const std::string& name = body->name();
  const Body& ref = *body;
  if (!impl_->byName.try_emplace(name, &ref).second)
    throw ModelError(name == "ground" ? "'ground' is the fixed world body and may not be declared"
                                      : "duplicate body name '" + name + "'");
  impl_->bodies.push_back(std::move(body));
  return ref;
}

const Constraint& ModelBuilder::addConstraint(ConstraintPtr c) {
  if (!c) throw ModelError("addConstraint: null constraint");
  if (!impl_->elementNames.insert(c->name()).second)
    throw ModelError("duplicate joint/force name '" + c->name() + "'");
  const Constraint& ref = *c;
  impl_->constraints.push_back(std::move(c));
  return ref;
}

const ForceElement& ModelBuilder::addForce(ForceElementPtr f) {
  if (!f) throw ModelError("addForce: null force element");
  if (!impl_->elementNames.insert(f->name()).second)
    throw ModelError("duplicate joint/force name '" + f->name() + "'");
  const ForceElement& ref = *f;
  impl_->forces.push_back(std::move(f));
  return ref;
}

void ModelBuilder::setGravity(const Vector3d& g) { impl_->gravity = g; }

const Body* ModelBuilder::findBody(const std::string& name) const {
  auto it = impl_->byName.find(name);
  return it == impl_->byName.end() ? nullptr : it->second;
}

const Constraint* ModelBuilder::findConstraint(const std::string& name) const {
  for (const ConstraintPtr& c : impl_->constraints)
    if (c->name() == name) return c.get();
  return nullptr;
}

std::vector<std::string> ModelBuilder::constraintNames() const {
  std::vector<std::string> out;
  for (const ConstraintPtr& c : impl_->constraints) out.push_back(c->name());
  return out;
}

std::vector<std::string> ModelBuilder::bodyNames() const {
  std::vector<std::string> out;
  out.reserve(impl_->byName.size());
  for (const auto& [k, v] : impl_->byName) out.push_back(k);
  std::sort(out.begin(), out.end());  // in name order, as before (suggestions in messages)
  return out;
}

// long: assembles the layout in one pass (slots, row blocks, names, local index maps) with
// the checks of each step next to it.
Model ModelBuilder::build() {
  Model model;
  Model::Owned& o = *model.owned_;
  // joints point at the builder's ground: the model shares it
  o.ground = impl_->ground;
  o.bodies = std::move(impl_->bodies);
  o.constraints = std::move(impl_->constraints);
  o.forces = std::move(impl_->forces);
  model.gravity_ = impl_->gravity;
  const Body* groundPtr = o.ground.get();
  // the ground and every body by name, as the builder has them (addBody keeps names unique)
  o.byName = std::move(impl_->byName);

  // sizes known up front: no regrowth of the per-coordinate and per-row tables
  std::size_t coords = 0, rows = 0, internal = 0;
  for (const auto& bp : o.bodies) {
    coords += static_cast<std::size_t>(bp->numCoordinates());
    if (bp->numInternalConstraints() > 0) ++internal;
    rows += static_cast<std::size_t>(bp->numInternalConstraints());
  }
  for (const auto& c : o.constraints) rows += static_cast<std::size_t>(c->numRows());
  model.slots_.reserve(o.bodies.size());
  o.slotIndex.reserve(o.bodies.size());
  model.coordNames_.reserve(coords);
  model.coordBody_.reserve(coords);
  model.rows_.reserve(o.constraints.size() + internal);
  model.rowBodies_.reserve(o.constraints.size() + internal);
  model.rowNames_.reserve(rows);
  o.constraintSlots.reserve(o.constraints.size());
  o.blockConstraint.reserve(o.constraints.size() + internal);
  o.forceSlots.reserve(o.forces.size());

  int offset = 0;
  for (std::size_t i = 0; i < o.bodies.size(); ++i) {
    const Body* b = o.bodies[i].get();
    BodySlot s{b, offset, b->numCoordinates()};
    o.slotIndex[b] = static_cast<int>(i);
    model.slots_.push_back(s);
    for (const auto& c : b->coordinateNames()) {
      model.coordNames_.push_back(b->name() + "." + c);
      model.coordBody_.push_back(static_cast<int>(i));
    }
    offset += s.size;
  }
  model.n_ = offset;
  o.groundSlot = BodySlot{groundPtr, 0, 0};

  // `kind` and `name` of the element: for the message only
  auto slotFor = [&](const Body* b, const char* kind, const std::string& name) -> BodySlot {
    if (b == groundPtr || (b && b->isGround())) return BodySlot{b, 0, 0};
    auto it = o.slotIndex.find(b);
    if (it == o.slotIndex.end())
      throw ModelError(std::string(kind) + " '" + name + "' refers to body '" + (b ? b->name() : std::string("<null>")) +
                       "' which is not part of this model");
    return model.slots_[static_cast<std::size_t>(it->second)];
  };

  int row = 0;
  for (std::size_t j = 0; j < o.constraints.size(); ++j) {
    const Constraint& c = *o.constraints[j];
    std::vector<BodySlot> slots;
    for (const Body* b : c.bodies()) slots.push_back(slotFor(b, "joint", c.name()));
    o.constraintSlots.push_back(std::move(slots));
    RowBlock rb;
    rb.constraint = &c;
    rb.row = row;
    rb.size = c.numRows();
    rb.name = c.name();
    model.rows_.push_back(rb);
    o.blockConstraint.push_back(static_cast<int>(j));
    {
      std::vector<int> idx;
      for (const BodySlot& sl : o.constraintSlots.back()) {
        auto it = o.slotIndex.find(sl.body);
        idx.push_back(it == o.slotIndex.end() ? -1 : it->second);
      }
      model.rowBodies_.push_back(std::move(idx));
    }
    for (int k = 0; k < rb.size; ++k) model.rowNames_.push_back(c.name() + "[" + std::to_string(k) + "]");
    row += rb.size;
    if (c.nonideal()) model.hasNonideal_ = true;
  }
  o.jointBlocks = model.rows_.size();
  o.internalBlockOfSlot.assign(model.slots_.size(), -1);
  for (const auto& bp : o.bodies) {
    const int k = bp->numInternalConstraints();
    if (k == 0) continue;
    o.internalBlockOfSlot[static_cast<std::size_t>(o.slotIndex.at(bp.get()))] = static_cast<int>(model.rows_.size());
    RowBlock rb;
    rb.body = bp.get();
    rb.row = row;
    rb.size = k;
    rb.name = bp->name() + ".norm";
    model.rows_.push_back(rb);
    o.blockConstraint.push_back(-1);
    model.rowBodies_.push_back({o.slotIndex.at(bp.get())});
    for (int i = 0; i < k; ++i)
      model.rowNames_.push_back(bp->name() + ".norm" + (k > 1 ? "[" + std::to_string(i) + "]" : ""));
    row += k;
  }
  model.m_ = row;
  for (const auto& f : o.forces) {
    std::vector<BodySlot> slots;
    for (const Body* b : f->bodies()) slots.push_back(slotFor(b, "force", f->name()));
    o.forceSlots.push_back(std::move(slots));
  }
  // the builder starts afresh (with a new ground)
  impl_ = std::make_unique<Impl>();
  impl_->byName["ground"] = impl_->ground.get();
  spdlog::debug("assembled model: {} bodies, {} coordinates, {} constraint rows",
                model.slots_.size(), model.n_, model.m_);
  return model;
}

}  // namespace joinery
