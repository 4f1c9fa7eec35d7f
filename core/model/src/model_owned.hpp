#pragma once
// Private to core/model: what a ModelBuilder and a Model own (model.cpp, model_builder.cpp).
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "joinery/core/ground.hpp"
#include "joinery/core/model.hpp"

namespace joinery {

// ---- ownership -------------------------------------------------------------------------

struct ModelBuilder::Impl {
  std::shared_ptr<GroundBody> ground = std::make_shared<GroundBody>();
  std::vector<BodyPtr> bodies;
  std::vector<ConstraintPtr> constraints;
  std::vector<ForceElementPtr> forces;
  Vector3d gravity = Vector3d::Zero();
  std::unordered_map<std::string, const Body*> byName;  // hashed: one lookup per body reference
  std::unordered_set<std::string> elementNames;
};

struct Model::Owned {
  std::shared_ptr<GroundBody> ground;  // shared with the builder it came from
  std::vector<BodyPtr> bodies;
  std::vector<ConstraintPtr> constraints;
  std::vector<ForceElementPtr> forces;
  std::unordered_map<const Body*, int> slotIndex;
  std::unordered_map<std::string, const Body*> byName;
  // per constraint / force: the global slot of each of its bodies, in order
  std::vector<std::vector<BodySlot>> constraintSlots, forceSlots;
  // per row block: index into constraints (or -1 for internal)
  std::vector<int> blockConstraint;
  // per body slot: the row block of its internal rows (-1: none); joints' blocks come first
  std::vector<int> internalBlockOfSlot;
  std::size_t jointBlocks = 0;
  BodySlot groundSlot;
};

}  // namespace joinery
