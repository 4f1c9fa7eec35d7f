#include "joinery/bodies/rigid3d.hpp"

#include "joinery/core/assert.hpp"
#include "joinery/core/errors.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "body_input.hpp"
#include "joinery/core/format.hpp"
#include "joinery/bodies/quaternion.hpp"
#include "joinery/core/orientation.hpp"
#include "joinery/core/registry.hpp"

namespace joinery {

namespace quat = quaternion;

namespace {
/// Largest accepted deviation of |orientation| from 1.
constexpr double kNormTolerance = 1e-6;
/// Quaternions with |e.e - 1| below this are kept bit for bit (so toJson() round-trips).
constexpr double kRenormalizeThreshold = 8.0 * std::numeric_limits<double>::epsilon();

Eigen::Vector4d quat4(CVecRef q) { return q.segment<4>(3); }
}  // namespace

Rigid3d::Rigid3d(std::string name, double mass, const Matrix3d& inertia, const Vector3d& position,
                 const Eigen::Vector4d& orientation, const Vector3d& velocity,
                 const Vector3d& angularVelocity)
    : Body(std::move(name)),
      mass_(mass),
      inertia_(inertia),
      position_(position),
      velocity_(velocity),
      angularVelocity_(angularVelocity),
      orientation_(orientation) {
  if (!(mass >= 0.0)) throw ModelError("rigid3d: mass must be >= 0");
  if (!inertia.allFinite() || (inertia - inertia.transpose()).cwiseAbs().maxCoeff() >
                                  detail::kSymmetryTolerance * inertia.cwiseAbs().maxCoeff())
    throw ModelError("rigid3d: inertia must be symmetric");
  Eigen::SelfAdjointEigenSolver<Matrix3d> es(inertia, Eigen::EigenvaluesOnly);
  if (es.eigenvalues().minCoeff() < -detail::kPsdTolerance * es.eigenvalues().cwiseAbs().maxCoeff())
    throw ModelError("rigid3d: inertia must be positive semi-definite");
  inertia_ = 0.5 * (inertia + inertia.transpose());
  const double n = orientation.norm();
  if (!(std::abs(n - 1.0) <= kNormTolerance))
    throw ModelError("rigid3d: orientation must be a unit quaternion");
  if (std::abs(orientation.squaredNorm() - 1.0) > kRenormalizeThreshold) orientation_ /= n;
}

const std::vector<std::string>& Rigid3d::coordinateNames() const {
  static const std::vector<std::string> names{"x", "y", "z", "e0", "e1", "e2", "e3"};
  return names;
}

Eigen::Vector4d Rigid3d::quaternionRate(const Eigen::Vector4d& e, const Vector3d& wWorld) {
  // e' = 1/2 G^T w_body with w_body = R^T w = G H^T w, and G^T G H^T = (I - e e^T) H^T = H^T.
  return 0.5 * quat::worldH(e).transpose() * wWorld;
}

void Rigid3d::getInitialState(VecRef q0, VecRef v0) const {
  q0.head<3>() = position_;
  q0.segment<4>(3) = orientation_;
  v0.head<3>() = velocity_;
  v0.segment<4>(3) = quaternionRate(orientation_, angularVelocity_);
}

void Rigid3d::calcMassMatrix(double, CVecRef q, MatRef M) const {
  JOINERY_ASSERT(q.size() == 7 && M.rows() == 7 && M.cols() == 7, "rigid3d mass matrix: 7 x 7");
  // every entry written once with fixed sizes (no pass of zeros first: this runs per body and
  // evaluation); 4 G^T J G from its upper triangle, so the block is symmetric to the bit
  const quat::Matrix34d G = quat::bodyG(quat4(q));
  const quat::Matrix34d JG = 4.0 * inertia_ * G;
  M.topLeftCorner<3, 3>() = mass_ * Matrix3d::Identity();
  M.topRightCorner<3, 4>().setZero();
  M.bottomLeftCorner<4, 3>().setZero();
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i <= j; ++i) M(3 + i, 3 + j) = M(3 + j, 3 + i) = G.col(i).dot(JG.col(j));
}

void Rigid3d::calcForces(double, CVecRef q, CVecRef v, VecRef Q) const {
  JOINERY_ASSERT(q.size() == 7 && v.size() == 7 && Q.size() == 7, "rigid3d forces: 7 coordinates");
  // Lagrange's equations with T_rot = 2 e'^T G(e)^T J G(e) e' (docs/bodies.md):
  // Q_rot = -8 G(e')^T J G(e) e' = -4 G(e')^T J w_body.
  const Eigen::Vector4d e = quat4(q), ed = v.segment<4>(3);
  const Vector3d wb = 2.0 * quat::bodyG(e) * ed;
  Q.head<3>().setZero();
  Q.segment<4>(3) = -4.0 * quat::bodyG(ed).transpose() * (inertia_ * wb);
}

void Rigid3d::addForceJacobians(double, CVecRef q, CVecRef v, const Vector3d&, MatRef dQdq,
                                MatRef dQdv) const {
  // Q_rot = -4 G(e')^T J w_b, w_b = 2 G(e) e' = -2 G(e') e (G(e) e = 0 for every e), so
  // dQ_rot/de = 8 G(e')^T J G(e'), dQ_rot/de' = -4 P(J w_b) - 8 G(e')^T J G(e) with
  // P(y) e' = G(e')^T y (column j: G(unit_j)^T y).
  const Eigen::Vector4d e = quat4(q), ed = v.segment<4>(3);
  const quat::Matrix34d Ge = quat::bodyG(e), Ged = quat::bodyG(ed);
  const Vector3d y = inertia_ * (2.0 * Ge * ed);
  dQdq.block<4, 4>(3, 3) += 8.0 * Ged.transpose() * inertia_ * Ged;
  Eigen::Matrix4d P;
  for (int j = 0; j < 4; ++j) P.col(j) = quat::bodyG(Eigen::Vector4d::Unit(j)).transpose() * y;
  dQdv.block<4, 4>(3, 3) += -4.0 * P - 8.0 * Ged.transpose() * inertia_ * Ge;
}

void Rigid3d::addGravityForce(CVecRef, const Vector3d& g, VecRef Q) const {
  Q.head<3>() += mass_ * g;
}

double Rigid3d::calcGravityPotential(CVecRef q, const Vector3d& g) const {
  return -mass_ * g.dot(q.head<3>());
}

double Rigid3d::calcKineticEnergy(double, CVecRef q, CVecRef v) const {
  const Vector3d wb = 2.0 * quat::bodyG(quat4(q)) * v.segment<4>(3);
  return 0.5 * mass_ * v.head<3>().squaredNorm() + 0.5 * wb.dot(inertia_ * wb);
}

void Rigid3d::calcInternalConstraints(double, CVecRef q, CVecRef v, MatRef A, VecRef b) const {
  JOINERY_ASSERT(A.rows() == 1 && A.cols() == 7 && b.size() == 1, "rigid3d norm constraint: 1 x 7");
  // phi = e.e - 1: A = phi_q = [0, 2 e^T], b = -(d(phi_q q')/dq) q' = -2 e'.e'.
  A.leftCols<3>().setZero();  // with the next line: every entry of the 1 x 7 A
  A.block<1, 4>(0, 3) = 2.0 * quat4(q).transpose();
  b(0) = -2.0 * v.segment<4>(3).squaredNorm();
}

void Rigid3d::calcInternalPositionError(double, CVecRef q, VecRef phi) const {
  phi(0) = quat4(q).squaredNorm() - 1.0;
}

void Rigid3d::normalizeCoordinates(VecRef q) const {
  const double n = q.segment<4>(3).norm();
  if (n > 0.0) q.segment<4>(3) /= n;
}

// ---- markers: exact derivatives of r(q) = x + R(e/|e|) p for any non-zero e -----------------

Vector3d Rigid3d::calcPointPosition(CVecRef q, const Vector3d& local) const {
  const Eigen::Vector4d e = quat4(q);
  return q.head<3>() + quat::rotation(e) * local / e.squaredNorm();
}

void Rigid3d::calcPointJacobian(CVecRef q, const Vector3d& local, MatRef J) const {
  JOINERY_ASSERT(q.size() == 7 && J.rows() == 3 && J.cols() == 7, "rigid3d point Jacobian: 3 x 7");
  const Eigen::Vector4d e = quat4(q);
  const double s = e.squaredNorm();
  const Vector3d rp = quat::rotation(e) * local / s;
  J.leftCols<3>().setIdentity();  // with the next line: every entry of the 3 x 7 J
  J.block<3, 4>(0, 3) = (-2.0 / s) * quat::skew(rp) * quat::worldH(e);
}

Vector3d Rigid3d::calcPointBias(CVecRef q, CVecRef v, const Vector3d& local) const {
  const Eigen::Vector4d e = quat4(q), ed = v.segment<4>(3);
  const double s = e.squaredNorm();
  const Vector3d rp = quat::rotation(e) * local / s;
  const Vector3d w = (2.0 / s) * quat::worldH(e) * ed;
  const Vector3d wxrp = w.cross(rp);
  return w.cross(wxrp) - (2.0 * e.dot(ed) / s) * wxrp;
}

namespace {
/// One point of the body, per joint point and evaluation (the joints' hot path), in scalars
/// from the coordinates' memory: rp = R(e) p / |e|^2 and w = 2 H(e) e' / |e|^2.
struct PointFrame {
  double e0, is;  ///< e0 and 1 / |e|^2
  Vector3d ev, rp, w;
};

// always inlined: three callers, and a PointFrame returned through memory costs ~5 % of the rows
EIGEN_ALWAYS_INLINE PointFrame pointFrame(const double* e, const double* ed, const Vector3d& p) {
  PointFrame f;
  f.e0 = e[0];
  f.ev = Vector3d(e[1], e[2], e[3]);
  f.is = 1.0 / (e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
  // R(e) p = |e|^2 p + e0 t + ev x t with t = 2 ev x p (exact for any e)
  const Vector3d t = 2.0 * f.ev.cross(p);
  f.rp = p + f.is * (f.e0 * t + f.ev.cross(t));
  // H(e) e' = -e0' ev + e0 ev' + ev x ev'
  const Vector3d edv(ed[1], ed[2], ed[3]);
  f.w = (2.0 * f.is) * (f.e0 * edv - ed[0] * f.ev + f.ev.cross(edv));
  return f;
}

/// The point's bias J' q' = w x (w x rp) - (2 e.e' / |e|^2) w x rp.
inline Vector3d pointBias(const PointFrame& f, const double* e, const double* ed) {
  const Vector3d wxrp = f.w.cross(f.rp);
  const double eed = e[0] * ed[0] + e[1] * ed[1] + e[2] * ed[2] + e[3] * ed[3];
  return f.w.cross(wxrp) - (2.0 * f.is * eed) * wxrp;
}

/// Calls put(i, j, x) for the 12 entries x of scale * (-2 [rp]x H(e) / |e|^2), the
/// quaternion columns of the point's Jacobian, in closed form: with a = -2 scale rp / |e|^2,
/// [a]x H(e) = [ev x a | e0 [a]x + ev a^T - (ev.a) I].
template <class Put>
inline void pointColumns(const PointFrame& f, double scale, Put&& put) {
  const Vector3d a = (-2.0 * scale * f.is) * f.rp;
  const Vector3d& ev = f.ev;
  const double e0 = f.e0, d = ev.dot(a);
  put(0, 0, ev.y() * a.z() - ev.z() * a.y());
  put(1, 0, ev.z() * a.x() - ev.x() * a.z());
  put(2, 0, ev.x() * a.y() - ev.y() * a.x());
  put(0, 1, ev.x() * a.x() - d);
  put(1, 1, ev.y() * a.x() + e0 * a.z());
  put(2, 1, ev.z() * a.x() - e0 * a.y());
  put(0, 2, ev.x() * a.y() - e0 * a.z());
  put(1, 2, ev.y() * a.y() - d);
  put(2, 2, ev.z() * a.y() + e0 * a.x());
  put(0, 3, ev.x() * a.z() + e0 * a.y());
  put(1, 3, ev.y() * a.z() - e0 * a.x());
  put(2, 3, ev.z() * a.z() - d);
}
}  // namespace

Vector3d Rigid3d::calcPointJacobianAndBias(CVecRef q, CVecRef v, const Vector3d& local, MatRef J) const {
  // calcPointJacobian and calcPointBias sharing R(e) p and w
  const double *e = q.data() + 3, *ed = v.data() + 3;
  const PointFrame f = pointFrame(e, ed, local);
  J.leftCols<3>().setIdentity();  // with the columns below: every entry of the 3 x 7 J
  pointColumns(f, 1.0, [&J](int i, int j, double x) { J(i, 3 + j) = x; });
  return pointBias(f, e, ed);
}

Vector3d Rigid3d::addPointJacobianRows(CVecRef q, CVecRef v, const Vector3d& local, double sign, MatRef A) const {
  JOINERY_ASSERT(A.rows() >= 1 && A.rows() <= 3 && A.cols() == 7, "rigid3d point rows: 1 to 3 x 7");
  // entries added straight into A; sign folded into the scale (exact for sign = +-1)
  const double *e = q.data() + 3, *ed = v.data() + 3;
  const PointFrame f = pointFrame(e, ed, local);
  const Eigen::Index dim = A.rows();
  if (dim == 3) {  // spherical, revolute3d: fixed indices throughout
    A(0, 0) += sign;
    A(1, 1) += sign;
    A(2, 2) += sign;
    pointColumns(f, sign, [&A](int i, int j, double x) { A(i, 3 + j) += x; });
  } else {
    for (Eigen::Index i = 0; i < dim; ++i) A(i, i) += sign;
    pointColumns(f, sign, [&A, dim](int i, int j, double x) {
      if (i < dim) A(i, 3 + j) += x;
    });
  }
  return pointBias(f, e, ed);
}

Vector3d Rigid3d::calcPointVelocity(CVecRef q, CVecRef v, const Vector3d& local) const {
  // J q' = x' - 2 [rp]x H(e) e' / |e|^2 = x' + w x rp
  const PointFrame f = pointFrame(q.data() + 3, v.data() + 3, local);
  return Vector3d(v[0], v[1], v[2]) + f.w.cross(f.rp);
}

Matrix3d Rigid3d::calcOrientation(CVecRef q) const {
  const Eigen::Vector4d e = quat4(q);
  return quat::rotation(e) / e.squaredNorm();
}

void Rigid3d::calcAngularJacobian(CVecRef q, MatRef Jw) const {
  JOINERY_ASSERT(q.size() == 7 && Jw.rows() == 3 && Jw.cols() == 7, "rigid3d angular Jacobian: 3 x 7");
  const Eigen::Vector4d e = quat4(q);
  Jw.setZero();
  Jw.block<3, 4>(0, 3) = (2.0 / e.squaredNorm()) * quat::worldH(e);
}

Vector3d Rigid3d::calcAngularBias(CVecRef q, CVecRef v) const {
  // d/dt(2 H(e)/s) e' = 2 H(e') e'/s - (2 e.e'/s) w, and H(e') e' = 0.
  const Eigen::Vector4d e = quat4(q), ed = v.segment<4>(3);
  const double s = e.squaredNorm();
  const Vector3d w = (2.0 / s) * quat::worldH(e) * ed;
  return -(2.0 * e.dot(ed) / s) * w;
}

std::optional<MassProperties> Rigid3d::massProperties() const { return MassProperties{mass_, inertia_, 3, 3}; }

void Rigid3d::calcRotationRates(CVecRef q, int axis, VecRef u) const {
  JOINERY_ASSERT(axis >= 0 && axis < 3 && u.size() == 7, "rigid3d rotation rates: axis 0..2, 7 entries");
  u.setZero();
  u.segment<4>(3) = 0.5 * quat::bodyG(quat4(q)).transpose() * Vector3d::Unit(axis);
}

void Rigid3d::writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const {
  Eigen::Matrix<double, 3, 7> Jw;
  calcAngularJacobian(q, Jw);
  definition["position"] = detail::toJsonArray(q.head(3));
  definition["orientation"] = detail::toJsonArray(q.segment(3, 4));
  definition["velocity"] = detail::toJsonArray(v.head(3));
  definition["angular_velocity"] = detail::toJsonArray(Jw * v);
}

nlohmann::json Rigid3d::toJson() const {
  const bool diagonal = inertia_(0, 1) == 0.0 && inertia_(0, 2) == 0.0 && inertia_(1, 2) == 0.0;
  // members emplaced one by one (an initializer list copies every pair): scenes of 1e5 bodies
  nlohmann::json j = nlohmann::json::object();
  auto& o = j.get_ref<nlohmann::json::object_t&>();
  o.emplace("name", name());
  o.emplace("type", "rigid3d");
  o.emplace("mass", mass_);
  o.emplace("inertia", diagonal ? detail::toJsonArray(inertia_.diagonal()) : detail::toJsonMatrix(inertia_));
  o.emplace("position", detail::toJsonArray(position_));
  o.emplace("orientation", detail::toJsonArray(orientation_));
  o.emplace("velocity", detail::toJsonArray(velocity_));
  o.emplace("angular_velocity", detail::toJsonArray(angularVelocity_));
  return j;
}

namespace {

/// The principal moments of a mass distribution obey the triangle inequality: each is at most
/// the sum of the other two (I_x + I_y = integral of (x^2 + y^2 + 2 z^2) dm >= I_z), with
/// equality for a flat body. A relative 1e-9 allows for rounding.
void checkTriangleInequality(const JsonCursor& c, const Matrix3d& J, const std::string& body) {
  Eigen::SelfAdjointEigenSolver<Matrix3d> es(0.5 * (J + J.transpose()), Eigen::EigenvaluesOnly);
  const Eigen::Vector3d m = es.eigenvalues();  // ascending
  if (m(2) > (m(0) + m(1)) * (1 + 1e-9))
    c.failWith("the inertia of body '" + body + "' has principal moments " + formatNumber(m(0)) + ", " +
               formatNumber(m(1)) + ", " + formatNumber(m(2)) + ", and " + formatNumber(m(2)) + " > " +
               formatNumber(m(0)) + " + " + formatNumber(m(1)) +
               ": no body has these; expected each principal moment at most the sum of the other two "
               "(the triangle inequality; equal for a flat body)");
}

Matrix3d readInertia(const JsonCursor& c, const FactoryContext& ctx, const std::string& body) {
  constexpr const char* expectation =
      "[Ixx, Iyy, Izz] or a 3x3 matrix (kg m^2, body frame, about the centre of mass)";
  if (!c.value().is_array() || c.size() != 3) c.fail(expectation);
  if (!c.value()[0].is_array()) {
    Matrix3d J = Matrix3d::Zero();
    for (std::size_t i = 0; i < 3; ++i) {
      const JsonCursor ci = c.at(i);
      if (ci.value().is_array()) c.fail(expectation);
      J(static_cast<int>(i), static_cast<int>(i)) =
          detail::readNonNegative(ctx, ci, "a principal moment of inertia >= 0");
    }
    checkTriangleInequality(c, J, body);
    return J;
  }
  const Matrix3d J = ctx.matrix(c, 3);
  detail::checkSymmetricPsd(c, J, "inertia");
  checkTriangleInequality(c, J, body);
  return J;
}

std::unique_ptr<Body> makeRigid3d(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "mass", "inertia", "position", "orientation", "velocity",
                       "angular_velocity"});
  const std::string name = detail::readBodyName(c);
  const double mass = detail::readNonNegative(ctx, c.at("mass"), "a mass >= 0");
  const Matrix3d J = readInertia(c.at("inertia"), ctx, name);
  const Vector3d x = detail::readVectorOr(ctx, c, "position", 3, "x, y, z of the centre of mass");
  Eigen::Vector4d e(1.0, 0.0, 0.0, 0.0);
  if (c.has("orientation")) {
    const JsonCursor o = c.at("orientation");
    if (o.value().is_object()) {  // axis-angle, matrix or Euler angles (orientation.hpp)
      const Eigen::Quaterniond r =
          parseOrientation(o, [&ctx](const JsonCursor& field) { return ctx.number(field); }, kNormTolerance);
      e = Eigen::Vector4d(r.w(), r.x(), r.y(), r.z());
    } else {
      e = detail::readVector(ctx, o, 4, "unit quaternion e0, e1, e2, e3, scalar first");
    }
    const double n = e.norm();
    if (!(std::abs(n - 1.0) <= kNormTolerance)) {
      std::ostringstream os;
      os.precision(12);
      os << "orientation has norm " << n
         << "; expected a unit quaternion [e0, e1, e2, e3] (norm 1 within 1e-6)";
      o.failWith(os.str());
    }
  }
  const Vector3d v = detail::readVectorOr(ctx, c, "velocity", 3, "vx, vy, vz of the centre of mass");
  const Vector3d w =
      detail::readVectorOr(ctx, c, "angular_velocity", 3, "wx, wy, wz in the world frame");
  return std::make_unique<Rigid3d>(name, mass, J, x, e, v, w);
}

}  // namespace

JOINERY_REGISTER(BodyRegistry,
                 {"rigid3d", makeRigid3d,
                  "spatial rigid body: centre of mass x, y, z and unit quaternion e0..e3 "
                  "(norm constraint built in)",
                  {{"name", "box"},
                   {"type", "rigid3d"},
                   {"mass", 3.0},
                   {"inertia", {{0.2, 0.01, 0.0}, {0.01, 0.3, -0.02}, {0.0, -0.02, 0.4}}},
                   {"position", {0.1, -0.2, 0.3}},
                   {"orientation", {0.5, 0.5, 0.5, 0.5}},
                   {"velocity", {0.0, 0.5, -0.25}},
                   {"angular_velocity", {1.0, -2.0, 0.5}}}})

}  // namespace joinery
