#include "joinery/bodies/rigid2d.hpp"

#include "joinery/core/assert.hpp"
#include "joinery/core/errors.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "body_input.hpp"
#include "joinery/core/registry.hpp"

namespace joinery {

namespace {
// R(theta) p for the in-plane part of p.
Eigen::Vector2d rotated(double theta, const Vector3d& p) {
  const double c = std::cos(theta), s = std::sin(theta);
  return {c * p.x() - s * p.y(), s * p.x() + c * p.y()};
}
}  // namespace

Rigid2d::Rigid2d(std::string name, double mass, double inertia, const Eigen::Vector3d& q0,
                 const Eigen::Vector3d& v0)
    : Body(std::move(name)), mass_(mass), inertia_(inertia), q0_(q0), v0_(v0) {
  if (!(mass >= 0.0)) throw ModelError("rigid2d: mass must be >= 0");
  if (!(inertia >= 0.0)) throw ModelError("rigid2d: inertia must be >= 0");
}

const std::vector<std::string>& Rigid2d::coordinateNames() const {
  static const std::vector<std::string> names{"x", "y", "theta"};
  return names;
}

void Rigid2d::getInitialState(VecRef q0, VecRef v0) const {
  q0 = q0_;
  v0 = v0_;
}

void Rigid2d::calcMassMatrix(double, CVecRef, MatRef M) const {
  JOINERY_ASSERT(M.rows() == 3 && M.cols() == 3, "rigid2d mass matrix: 3 x 3");
  M.setZero();
  M(0, 0) = mass_;
  M(1, 1) = mass_;
  M(2, 2) = inertia_;
}

void Rigid2d::calcForces(double, CVecRef, CVecRef, VecRef Q) const { Q.setZero(); }

void Rigid2d::addGravityForce(CVecRef, const Vector3d& g, VecRef Q) const {
  Q(0) += mass_ * g.x();
  Q(1) += mass_ * g.y();
}

double Rigid2d::calcGravityPotential(CVecRef q, const Vector3d& g) const {
  return -mass_ * (g.x() * q(0) + g.y() * q(1));
}

double Rigid2d::calcKineticEnergy(double, CVecRef, CVecRef v) const {
  return 0.5 * mass_ * (v(0) * v(0) + v(1) * v(1)) + 0.5 * inertia_ * v(2) * v(2);
}

SymbolicVector Rigid2d::symbolicForces(const SymbolicNames&) const {
  return std::vector<std::string>{"0", "0", "0"};
}

SymbolicVector Rigid2d::symbolicGravityForce(const Vector3d& g, const SymbolicNames&) const {
  return std::vector<std::string>{symbolicNumber(mass_ * g.x()), symbolicNumber(mass_ * g.y()), "0"};
}

SymbolicPoint Rigid2d::symbolicPointPosition(const Vector3d& local, const std::vector<std::string>& q) const {
  // x + cos(theta) px - sin(theta) py,  y + sin(theta) px + cos(theta) py
  const std::string c = "cos(" + q[2] + ")", s = "sin(" + q[2] + ")";
  const std::string px = symbolicNumber(local.x()), py = symbolicNumber(local.y());
  return std::array<std::string, 3>{q[0] + " + " + px + "*" + c + " - " + py + "*" + s,
                                    q[1] + " + " + px + "*" + s + " + " + py + "*" + c, "0"};
}

Vector3d Rigid2d::calcPointPosition(CVecRef q, const Vector3d& local) const {
  const Eigen::Vector2d rp = rotated(q(2), local);
  return {q(0) + rp.x(), q(1) + rp.y(), 0.0};
}

void Rigid2d::calcPointJacobian(CVecRef q, const Vector3d& local, MatRef J) const {
  JOINERY_ASSERT(q.size() == 3 && J.rows() == 3 && J.cols() == 3, "rigid2d point Jacobian: 3 x 3");
  const Eigen::Vector2d rp = rotated(q(2), local);
  J.setZero();
  J(0, 0) = 1.0;
  J(1, 1) = 1.0;
  J(0, 2) = -rp.y();
  J(1, 2) = rp.x();
}

Vector3d Rigid2d::calcPointBias(CVecRef q, CVecRef v, const Vector3d& local) const {
  const Eigen::Vector2d rp = rotated(q(2), local);
  const double w2 = v(2) * v(2);
  return {-w2 * rp.x(), -w2 * rp.y(), 0.0};
}

Matrix3d Rigid2d::calcOrientation(CVecRef q) const {
  return Eigen::AngleAxisd(q(2), Vector3d::UnitZ()).toRotationMatrix();
}

void Rigid2d::calcAngularJacobian(CVecRef, MatRef Jw) const {
  JOINERY_ASSERT(Jw.rows() == 3 && Jw.cols() == 3, "rigid2d angular Jacobian: 3 x 3");
  Jw.setZero();
  Jw(2, 2) = 1.0;
}

Vector3d Rigid2d::calcAngularBias(CVecRef, CVecRef) const { return Vector3d::Zero(); }

std::optional<MassProperties> Rigid2d::massProperties() const {
  MassProperties p{mass_, Matrix3d::Zero(), 2, 1};
  p.inertia(2, 2) = inertia_;
  return p;
}

void Rigid2d::calcRotationRates(CVecRef, int axis, VecRef u) const {
  JOINERY_ASSERT(axis >= 0 && axis < 3 && u.size() == 3, "rigid2d rotation rates: axis 0..2, 3 entries");
  u.setZero();
  if (axis == 2) u(2) = 1;
}

void Rigid2d::writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const {
  definition["position"] = {q(0), q(1)};
  definition["angle"] = q(2);
  definition["velocity"] = {v(0), v(1)};
  definition["angular_velocity"] = v(2);
}

nlohmann::json Rigid2d::toJson() const {
  return {{"name", name()},
          {"type", "rigid2d"},
          {"mass", mass_},
          {"inertia", inertia_},
          {"position", {q0_(0), q0_(1)}},
          {"angle", q0_(2)},
          {"velocity", {v0_(0), v0_(1)}},
          {"angular_velocity", v0_(2)}};
}

namespace {

std::unique_ptr<Body> makeRigid2d(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "mass", "inertia", "position", "angle", "velocity",
                       "angular_velocity"});
  const std::string name = detail::readBodyName(c);
  const double mass = detail::readNonNegative(ctx, c.at("mass"), "a mass >= 0");
  const double inertia =
      detail::readNonNegative(ctx, c.at("inertia"), "an inertia >= 0 (kg m^2, about the centre of mass)");
  Eigen::Vector3d q0, v0;
  q0.head<2>() = detail::readVectorOr(ctx, c, "position", 2, "x, y of the centre of mass");
  q0(2) = ctx.numberOr(c, "angle", 0.0);
  v0.head<2>() = detail::readVectorOr(ctx, c, "velocity", 2, "vx, vy of the centre of mass");
  v0(2) = ctx.numberOr(c, "angular_velocity", 0.0);
  return std::make_unique<Rigid2d>(name, mass, inertia, q0, v0);
}

}  // namespace

JOINERY_REGISTER(BodyRegistry,
                 {"rigid2d", makeRigid2d,
                  "planar rigid body: centre of mass x, y and angle theta",
                  {{"name", "link"},
                   {"type", "rigid2d"},
                   {"mass", 2.0},
                   {"inertia", 0.1667},
                   {"position", {0.5, 0.0}},
                   {"angle", 0.3},
                   {"velocity", {0.0, 1.0}},
                   {"angular_velocity", -0.5}}})

}  // namespace joinery
