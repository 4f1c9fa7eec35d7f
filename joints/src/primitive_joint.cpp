#include "primitive_joint.hpp"

namespace joinery::detail {

PrimitiveJoint::PrimitiveJoint(std::string name, std::vector<const Body*> bodies)
    : Constraint(std::move(name), std::move(bodies)) {}

PrimitiveJoint::~PrimitiveJoint() = default;

void PrimitiveJoint::addRows(std::unique_ptr<const RowPrimitive> rows) {
  numRows_ += rows->numRows();
  blocks_.push_back(std::move(rows));
}

void PrimitiveJoint::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  JOINERY_ASSERT(A.rows() == numRows_ && b.size() == numRows_, "joint rows: A and b need numRows() rows");
  JOINERY_ASSERT(s.bodies.size() == bodies().size(), "joint rows: the state of every body of the joint");
  // The blocks add into zeroed rows (and write only their bodies' non-zero entries); the
  // callers' A is usually a whole matrix (Model's row blocks): zeroed as one array then, not
  // column by column (a memset per column of a 3 x 14 spherical block)
  if (A.outerStride() == A.rows())
    Eigen::Map<VectorXd>(A.data(), A.size()).setZero();
  else
    A.setZero();
  int r = 0;
  for (const auto& block : blocks_) {
    const int k = block->numRows();
    block->calcAccelerationRows(s, A.middleRows(r, k), b.segment(r, k));
    r += k;
  }
}

void PrimitiveJoint::calcPositionError(const LocalState& s, VecRef phi) const {
  JOINERY_ASSERT(phi.size() == numRows_, "joint position error: numRows() entries");
  int r = 0;
  for (const auto& block : blocks_) {
    const int k = block->numRows();
    block->calcPositionError(s, phi.segment(r, k));
    r += k;
  }
}

void PrimitiveJoint::calcVelocityError(const LocalState& s, VecRef psi) const {
  JOINERY_ASSERT(psi.size() == numRows_, "joint velocity error: numRows() entries");
  int r = 0;
  for (const auto& block : blocks_) {
    const int k = block->numRows();
    block->calcVelocityError(s, psi.segment(r, k));
    r += k;
  }
}

}  // namespace joinery::detail
