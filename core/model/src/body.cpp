#include "joinery/core/body.hpp"

#include <nlohmann/json.hpp>
#include <vector>

#include "joinery/core/constraint.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/jacobian_scratch.hpp"

namespace joinery {

Body::Body(std::string name) : name_(std::move(name)) {}

void Body::addGravityForce(CVecRef, const Vector3d&, VecRef) const {}
double Body::calcGravityPotential(CVecRef, const Vector3d&) const { return 0.0; }

Vector3d PointMarker::calcPointJacobianAndBias(CVecRef q, CVecRef v, const Vector3d& local, MatRef J) const {
  calcPointJacobian(q, local, J);
  return calcPointBias(q, v, local);
}

Vector3d PointMarker::addPointJacobianRows(CVecRef q, CVecRef v, const Vector3d& local, double sign,
                                           MatRef A) const {
  detail::Jacobian3Scratch scratch(A.cols());
  Eigen::Map<MatrixXd> J = scratch.map();
  const Vector3d bias = calcPointJacobianAndBias(q, v, local, J);
  A += sign * J.topRows(A.rows());
  return bias;
}

Vector3d PointMarker::calcPointVelocity(CVecRef q, CVecRef v, const Vector3d& local) const {
  detail::Jacobian3Scratch scratch(q.size());
  Eigen::Map<MatrixXd> J = scratch.map();
  calcPointJacobian(q, local, J);
  return J * v;
}

SymbolicPoint PointMarker::symbolicPointPosition(const Vector3d&, const std::vector<std::string>&) const {
  return std::nullopt;
}

SymbolicVector Body::symbolicForces(const SymbolicNames&) const { return std::nullopt; }

void Body::addForceJacobians(double, CVecRef, CVecRef, const Vector3d&, MatRef, MatRef) const {}

SymbolicVector Body::symbolicGravityForce(const Vector3d& g, const SymbolicNames&) const {
  if (!g.isZero(0.0)) return std::nullopt;
  return std::vector<std::string>(static_cast<std::size_t>(numCoordinates()), "0");
}
double Body::calcPotentialEnergy(double, CVecRef) const { return 0.0; }

double Body::calcKineticEnergy(double t, CVecRef q, CVecRef v) const {
  // Default: 1/2 v^T M v. Types with a cheaper closed form override it. Allocates; not for hot paths.
  MatrixXd M(numCoordinates(), numCoordinates());
  calcMassMatrix(t, q, M);
  return 0.5 * v.dot(M * v);
}

void Body::calcInternalConstraints(double, CVecRef, CVecRef, MatRef, VecRef) const {}
void Body::calcInternalPositionError(double, CVecRef, VecRef) const {}
void Body::normalizeCoordinates(VecRef) const {}
void Body::calcRotationRates(CVecRef, int, VecRef u) const { u.setZero(); }

void Body::writeInitialState(CVecRef, CVecRef, nlohmann::json&) const {
  throw ModelError("cannot write the initial state of body '" + name() + "' of type '" + std::string(typeName()) +
                   "'");
}

// ---------------------------------------------------------------------------------------
Constraint::Constraint(std::string name, std::vector<const Body*> bodies)
    : name_(std::move(name)), bodies_(std::move(bodies)) {}

int Constraint::numLocalCoordinates() const {
  int n = 0;
  for (const Body* b : bodies_) n += b->numCoordinates();
  return n;
}

void Constraint::calcPositionError(const LocalState&, VecRef phi) const { phi.setZero(); }

void Constraint::calcVelocityError(const LocalState& s, VecRef psi) const {
  if (level() == ConstraintLevel::Acceleration) {
    psi.setZero();
    return;
  }
  // Scleronomic default: psi = A q'. Rheonomic and nonholonomic types override.
  const int nl = numLocalCoordinates();
  MatrixXd A(numRows(), nl);
  VectorXd b(numRows());
  calcAccelerationRows(s, A, b);
  VectorXd v(nl);
  int k = 0;
  for (const auto& bv : s.bodies) {
    v.segment(k, bv.n) = bv.velocities();
    k += bv.n;
  }
  psi = A * v;
}

void Constraint::addNonidealJson(nlohmann::json& j) const {
  if (nonideal_) j["nonideal"] = nonideal_->toJson();
}

ForceElement::ForceElement(std::string name, std::vector<const Body*> bodies)
    : name_(std::move(name)), bodies_(std::move(bodies)) {}

int ForceElement::numLocalCoordinates() const {
  int n = 0;
  for (const Body* b : bodies_) n += b->numCoordinates();
  return n;
}

double ForceElement::calcPotentialEnergy(const LocalState&) const { return 0.0; }

SymbolicVector ForceElement::symbolicForces(const SymbolicNames&) const { return std::nullopt; }

void ForceElement::addForceJacobians(const LocalState&, MatRef, MatRef) const {}

}  // namespace joinery
