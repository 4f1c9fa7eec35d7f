#include "marker_access.hpp"

#include <cmath>
#include <numbers>

namespace joinery::detail {

namespace {

// The value of a term's coordinate (coordinateValue) or of its velocity (velocityValue) in a
// local state (local vectors are not materialised).
double coordinateValue(const LocalState& s, const LinearTerm& term) {
  return s.bodies[static_cast<std::size_t>(term.body)].q[term.coordinate];
}
double velocityValue(const LocalState& s, const LinearTerm& term) {
  return s.bodies[static_cast<std::size_t>(term.body)].v[term.coordinate];
}
}  // namespace

std::vector<int> localOffsets(const std::vector<const Body*>& bodies) {
  std::vector<int> out;
  int k = 0;
  for (const Body* b : bodies) {
    out.push_back(k);
    k += b->numCoordinates();
  }
  return out;
}

// ---- BodyPoint ------------------------------------------------------------------------

BodyPoint::BodyPoint(const std::vector<const Body*>& bodies, int index, const Vector3d& local)
    : marker_((JOINERY_ASSERT(index >= 0 && index < static_cast<int>(bodies.size()), "body index of a point"),
               bodies[static_cast<std::size_t>(index)]->points())),
      index_(index),
      offset_(localOffsets(bodies)[static_cast<std::size_t>(index)]),
      n_(bodies[static_cast<std::size_t>(index)]->numCoordinates()),
      local_(local) {
  JOINERY_ASSERT(marker_ != nullptr, "a point of a body without point markers");
}

Vector3d BodyPoint::calcPosition(const LocalState& s) const {
  return marker_->calcPointPosition(s.bodies[index_].coords(), local_);
}

Vector3d BodyPoint::calcVelocity(const LocalState& s) const {
  if (n_ == 0) return Vector3d::Zero();
  const BodyStateView& bv = s.bodies[index_];
  return marker_->calcPointVelocity(bv.coords(), bv.velocities(), local_);
}

Vector3d BodyPoint::calcBias(const LocalState& s) const {
  const BodyStateView& bv = s.bodies[index_];
  return marker_->calcPointBias(bv.coords(), bv.velocities(), local_);
}

Vector3d BodyPoint::addJacobianRows(const LocalState& s, int dim, double sign, MatRef A) const {
  const BodyStateView& bv = s.bodies[index_];
  if (n_ == 0) return marker_->calcPointBias(bv.coords(), bv.velocities(), local_);
  return marker_->addPointJacobianRows(bv.coords(), bv.velocities(), local_, sign, A.block(0, offset_, dim, n_));
}

void BodyPoint::addForce(const LocalState& s, const Vector3d& F, VecRef Q) const {
  if (n_ == 0) return;
  Jacobian3Scratch scratch(n_);
  Eigen::Map<MatrixXd> J = scratch.map();
  marker_->calcPointJacobian(s.bodies[index_].coords(), local_, J);
  Q.segment(offset_, n_).noalias() += J.transpose() * F;
}

namespace {

/// n doubles on the stack for n <= kInlineColumns (the heap beyond: large `linear` bodies).
class VectorScratch {
 public:
  explicit VectorScratch(int n) : n_(n) {
    if (n > kInlineColumns) heap_.resize(static_cast<std::size_t>(n));
  }
  Eigen::Map<VectorXd> map() { return {n_ > kInlineColumns ? heap_.data() : inline_.data(), n_}; }

 private:
  int n_;
  std::array<double, kInlineColumns> inline_;
  std::vector<double> heap_;
};

/// H += sum_k F_k d2r_k/dq2 where bias(x) = d2r/dq2 [x, x] (a symmetric quadratic form in x):
/// H_ii = F.bias(e_i), H_ij = F.(bias(e_i + e_j) - bias(e_i) - bias(e_j)) / 2.
template <class Bias>
void addPolarizedHessian(int n, const Bias& bias, const Vector3d& F, MatRef H) {
  VectorScratch scratch(n), diag(n);
  Eigen::Map<VectorXd> x = scratch.map(), d = diag.map();
  x.setZero();
  for (int i = 0; i < n; ++i) {
    x(i) = 1;
    d(i) = F.dot(bias(x));
    x(i) = 0;
    H(i, i) += d(i);
  }
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      x(i) = x(j) = 1;
      const double h = 0.5 * (F.dot(bias(x)) - d(i) - d(j));
      x(i) = x(j) = 0;
      H(i, j) += h;
      H(j, i) += h;
    }
}

/// W.col(j) += sign * d2r/dq2 [e_j, v] = sign * (bias(e_j + v) - bias(e_j - v)) / 4.
template <class Bias>
void addPolarizedVelocityJacobian(CVecRef v, const Bias& bias, double sign, MatRef W) {
  const int n = static_cast<int>(v.size());
  VectorScratch scratch(n);
  Eigen::Map<VectorXd> x = scratch.map();
  for (int j = 0; j < n; ++j) {
    x = v;
    x(j) += 1;
    const Vector3d plus = bias(x);
    x = -v;
    x(j) += 1;
    W.col(j) += (0.25 * sign) * (plus - bias(x)).head(W.rows());
  }
}

}  // namespace

void BodyPoint::addForceHessian(const LocalState& s, const Vector3d& F, MatRef H) const {
  if (n_ == 0) return;
  const auto q = s.bodies[index_].coords();
  addPolarizedHessian(n_, [&](CVecRef x) { return marker_->calcPointBias(q, x, local_); }, F,
                      H.block(offset_, offset_, n_, n_));
}

void BodyPoint::addVelocityJacobian(const LocalState& s, double sign, MatRef W) const {
  if (n_ == 0) return;
  const BodyStateView& bv = s.bodies[index_];
  const auto q = bv.coords();
  addPolarizedVelocityJacobian(bv.velocities(), [&](CVecRef x) { return marker_->calcPointBias(q, x, local_); },
                               sign, W.middleCols(offset_, n_));
}

// ---- BodyFrame ------------------------------------------------------------------------

BodyFrame::BodyFrame(const std::vector<const Body*>& bodies, int index)
    : marker_((JOINERY_ASSERT(index >= 0 && index < static_cast<int>(bodies.size()), "body index of a frame"),
               bodies[static_cast<std::size_t>(index)]->frames())),
      index_(index),
      offset_(localOffsets(bodies)[static_cast<std::size_t>(index)]),
      n_(bodies[static_cast<std::size_t>(index)]->numCoordinates()) {
  JOINERY_ASSERT(marker_ != nullptr, "the frame of a body without frame markers");
}

Matrix3d BodyFrame::calcOrientation(const LocalState& s) const {
  return marker_->calcOrientation(s.bodies[index_].coords());
}

Vector3d BodyFrame::calcAngularVelocity(const LocalState& s) const {
  if (n_ == 0) return Vector3d::Zero();
  Jacobian3Scratch scratch(n_);
  Eigen::Map<MatrixXd> J = scratch.map();
  const BodyStateView& bv = s.bodies[index_];
  marker_->calcAngularJacobian(bv.coords(), J);
  return J * bv.velocities();
}

Vector3d BodyFrame::calcAngularBias(const LocalState& s) const {
  const BodyStateView& bv = s.bodies[index_];
  return marker_->calcAngularBias(bv.coords(), bv.velocities());
}

void BodyFrame::addTorque(const LocalState& s, const Vector3d& T, VecRef Q) const {
  if (n_ == 0) return;
  Jacobian3Scratch scratch(n_);
  Eigen::Map<MatrixXd> J = scratch.map();
  marker_->calcAngularJacobian(s.bodies[index_].coords(), J);
  Q.segment(offset_, n_).noalias() += J.transpose() * T;
}

void BodyFrame::addAngleHessian(const LocalState& s, double tau, MatRef H) const {
  if (n_ == 0) return;
  const auto q = s.bodies[index_].coords();
  addPolarizedHessian(n_, [&](CVecRef x) { return marker_->calcAngularBias(q, x); }, tau * Vector3d::UnitZ(),
                      H.block(offset_, offset_, n_, n_));
}

void BodyFrame::addAngleRateJacobian(const LocalState& s, double sign, MatRef W) const {
  if (n_ == 0) return;
  const BodyStateView& bv = s.bodies[index_];
  const auto q = bv.coords();
  // W has one row: the z component (tail(1) of the 3-vector difference)
  const int n = n_;
  VectorScratch scratch(n);
  Eigen::Map<VectorXd> x = scratch.map();
  const auto v = bv.velocities();
  for (int j = 0; j < n; ++j) {
    x = v;
    x(j) += 1;
    const double plus = marker_->calcAngularBias(q, x).z();
    x = -v;
    x(j) += 1;
    W(0, offset_ + j) += 0.25 * sign * (plus - marker_->calcAngularBias(q, x).z());
  }
}

// ---- TimeFunction ---------------------------------------------------------------------

TimeFunction::TimeFunction(Expression f)
    : f_(std::move(f)), df_(f_.derivative(0)), ddf_(df_.derivative(0)) {}

// ---- CoincidentPoints: phi = S (r2 - r1) ----------------------------------------------
// phi' = S (J2 q2' - J1 q1'),  phi'' = S (J2 q2'' - J1 q1'') + S (J2' q2' - J1' q1')
// => A = S [-J1, J2],  b = -S (bias2 - bias1).

void CoincidentPoints::calcPositionError(const LocalState& s, VecRef phi) const {
  phi = (p2_.calcPosition(s) - p1_.calcPosition(s)).head(dim_);
}

void CoincidentPoints::calcVelocityError(const LocalState& s, VecRef psi) const {
  psi = (p2_.calcVelocity(s) - p1_.calcVelocity(s)).head(dim_);
}

void CoincidentPoints::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  const Vector3d bias1 = p1_.addJacobianRows(s, dim_, -1.0, A);
  const Vector3d bias2 = p2_.addJacobianRows(s, dim_, 1.0, A);
  b = -(bias2 - bias1).head(dim_);
}

// ---- PointDistance: phi = (d.d - L^2)/2, d = r2 - r1 ----------------------------------
// phi' = d.d',  phi'' = d'.d' + d.d'' = d'.d' + d.(J2 q2'' - J1 q1'') + d.(bias2 - bias1)
// => A = d^T [-J1, J2],  b = -(d'.d' + d.(bias2 - bias1)).

void PointDistance::calcPositionError(const LocalState& s, VecRef phi) const {
  const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
  phi(0) = 0.5 * (d.squaredNorm() - length_ * length_);
}

void PointDistance::calcVelocityError(const LocalState& s, VecRef psi) const {
  const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
  psi(0) = d.dot(p2_.calcVelocity(s) - p1_.calcVelocity(s));
}

void PointDistance::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
  const Vector3d dd = p2_.calcVelocity(s) - p1_.calcVelocity(s);
  p1_.addJacobian(s, d.transpose(), -1.0, A);
  p2_.addJacobian(s, d.transpose(), 1.0, A);
  b(0) = -(dd.squaredNorm() + d.dot(p2_.calcBias(s) - p1_.calcBias(s)));
}

// ---- PlanarRelativeAngle: phi = wrap(angle_z(R1^T R2) - theta0) ------------------------
// phi' = ez.(w2 - w1),  phi'' = ez.(Jw2 q2'' - Jw1 q1'') + ez.(bias2 - bias1).

double PlanarRelativeAngle::calcAngle(const LocalState& s) const {
  const Matrix3d R = f1_.calcOrientation(s).transpose() * f2_.calcOrientation(s);
  return std::atan2(R(1, 0), R(0, 0));
}

double PlanarRelativeAngle::calcAngleRate(const LocalState& s) const {
  return f2_.calcAngularVelocity(s).z() - f1_.calcAngularVelocity(s).z();
}

void PlanarRelativeAngle::calcPositionError(const LocalState& s, VecRef phi) const {
  phi(0) = std::remainder(calcAngle(s) - theta0_, 2 * std::numbers::pi);
}

void PlanarRelativeAngle::calcVelocityError(const LocalState& s, VecRef psi) const {
  psi(0) = calcAngleRate(s);
}

void PlanarRelativeAngle::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  const auto ez = Vector3d::UnitZ().transpose();
  f1_.addJacobian(s, ez, -1.0, A);
  f2_.addJacobian(s, ez, 1.0, A);
  b(0) = -(f2_.calcAngularBias(s).z() - f1_.calcAngularBias(s).z());
}

// ---- PointOnLine: phi = n.d, n = R1 n_local, d = r2 - r1 -------------------------------
// n' = w1 x n,  phi' = w1.(n x d) + n.d'
// phi'' = (Jw1 q1'' + bias_w1).(n x d) + (w1 x (w1 x n)).d + 2 (w1 x n).d'
//         + n.(J2 q2'' - J1 q1'' + bias2 - bias1)
// => A = [(n x d)^T Jw1 - n^T J1, n^T J2],
//    b = -(bias_w1.(n x d) + (w1 x (w1 x n)).d + 2 (w1 x n).d' + n.(bias2 - bias1)).

void PointOnLine::calcPositionError(const LocalState& s, VecRef phi) const {
  const Vector3d n = f1_.calcOrientation(s) * n_;
  phi(0) = n.dot(p2_.calcPosition(s) - p1_.calcPosition(s));
}

void PointOnLine::calcVelocityError(const LocalState& s, VecRef psi) const {
  const Vector3d n = f1_.calcOrientation(s) * n_;
  const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
  const Vector3d dd = p2_.calcVelocity(s) - p1_.calcVelocity(s);
  psi(0) = f1_.calcAngularVelocity(s).dot(n.cross(d)) + n.dot(dd);
}

void PointOnLine::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  const Vector3d n = f1_.calcOrientation(s) * n_;
  const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
  const Vector3d dd = p2_.calcVelocity(s) - p1_.calcVelocity(s);
  const Vector3d w1 = f1_.calcAngularVelocity(s);
  const Vector3d nxd = n.cross(d);
  f1_.addJacobian(s, nxd.transpose(), 1.0, A);
  p1_.addJacobian(s, n.transpose(), -1.0, A);
  p2_.addJacobian(s, n.transpose(), 1.0, A);
  const Vector3d w1xn = w1.cross(n);
  b(0) = -(f1_.calcAngularBias(s).dot(nxd) + w1.cross(w1xn).dot(d) + 2 * w1xn.dot(dd) +
           n.dot(p2_.calcBias(s) - p1_.calcBias(s)));
}

// ---- PerpendicularAxes: phi = u.w, u = R1 u_local, w = R2 w_local ----------------------
// phi' = (w1 - w2).(u x w)
// phi'' = (Jw1 q1'' - Jw2 q2'' + bias1 - bias2).(u x w)
//         + (w1 - w2).((w1 x u) x w + u x (w2 x w))

void PerpendicularAxes::calcPositionError(const LocalState& s, VecRef phi) const {
  phi(0) = (f1_.calcOrientation(s) * u_).dot(f2_.calcOrientation(s) * w_);
}

void PerpendicularAxes::calcVelocityError(const LocalState& s, VecRef psi) const {
  const Vector3d u = f1_.calcOrientation(s) * u_;
  const Vector3d w = f2_.calcOrientation(s) * w_;
  psi(0) = (f1_.calcAngularVelocity(s) - f2_.calcAngularVelocity(s)).dot(u.cross(w));
}

void PerpendicularAxes::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  const Vector3d u = f1_.calcOrientation(s) * u_;
  const Vector3d w = f2_.calcOrientation(s) * w_;
  const Vector3d w1 = f1_.calcAngularVelocity(s);
  const Vector3d w2 = f2_.calcAngularVelocity(s);
  const Vector3d uxw = u.cross(w);
  f1_.addJacobian(s, uxw.transpose(), 1.0, A);
  f2_.addJacobian(s, uxw.transpose(), -1.0, A);
  b(0) = -((f1_.calcAngularBias(s) - f2_.calcAngularBias(s)).dot(uxw) +
           (w1 - w2).dot(w1.cross(u).cross(w) + u.cross(w2.cross(w))));
}

// ---- LinearCombination: phi = sum c_i q_i - f(t) ---------------------------------------
// phi' = sum c_i q_i' - f'(t),  phi'' = sum c_i q_i'' - f''(t)  => b = f''(t).

void LinearCombination::calcPositionError(const LocalState& s, VecRef phi) const {
  double sum = 0;
  for (const LinearTerm& term : terms_) sum += term.coefficient * coordinateValue(s, term);
  phi(0) = sum - f_.value(s.t);
}

void LinearCombination::calcVelocityError(const LocalState& s, VecRef psi) const {
  double sum = 0;
  for (const LinearTerm& term : terms_) sum += term.coefficient * velocityValue(s, term);
  psi(0) = sum - f_.rate(s.t);
}

void LinearCombination::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  for (const LinearTerm& term : terms_) A(0, term.column) += term.coefficient;
  b(0) = f_.acceleration(s.t);
}

// ---- PointPath: phi = S (r - f(t)) -----------------------------------------------------
// phi' = S (J q' - f'(t)),  phi'' = S (J q'' + bias - f''(t))  => b = S (f''(t) - bias).

void PointPath::calcPositionError(const LocalState& s, VecRef phi) const {
  const Vector3d r = p_.calcPosition(s);
  for (int i = 0; i < numRows(); ++i) phi(i) = r(i) - path_[static_cast<std::size_t>(i)].value(s.t);
}

void PointPath::calcVelocityError(const LocalState& s, VecRef psi) const {
  const Vector3d v = p_.calcVelocity(s);
  for (int i = 0; i < numRows(); ++i) psi(i) = v(i) - path_[static_cast<std::size_t>(i)].rate(s.t);
}

void PointPath::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  const Vector3d bias = p_.addJacobianRows(s, numRows(), 1.0, A);
  for (int i = 0; i < numRows(); ++i)
    b(i) = path_[static_cast<std::size_t>(i)].acceleration(s.t) - bias(i);
}

}  // namespace joinery::detail
