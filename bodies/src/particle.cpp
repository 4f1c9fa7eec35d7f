#include "joinery/bodies/particle.hpp"

#include "joinery/core/assert.hpp"
#include "joinery/core/errors.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "body_input.hpp"
#include "joinery/core/registry.hpp"

namespace joinery {

std::optional<MassProperties> Particle::massProperties() const {
  return MassProperties{mass_, Matrix3d::Zero(), dim_, 0};
}

void Particle::writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const {
  definition["position"] = detail::toJsonArray(q);
  definition["velocity"] = detail::toJsonArray(v);
}

namespace {
const std::vector<std::string>& namesFor(int dim) {
  static const std::vector<std::string> names[3] = {{"x"}, {"x", "y"}, {"x", "y", "z"}};
  return names[dim - 1];
}
const char* meaningFor(int dim) { return dim == 1 ? "x" : dim == 2 ? "x, y" : "x, y, z"; }
}  // namespace

Particle::Particle(std::string name, int dim, double mass, const VectorXd& position,
                   const VectorXd& velocity)
    : Body(std::move(name)), dim_(dim), mass_(mass), q0_(position), v0_(velocity) {
  if (dim < 1 || dim > 3) throw ModelError("particle: dim must be 1, 2 or 3");
  if (!(mass >= 0.0)) throw ModelError("particle: mass must be >= 0");
  if (position.size() != dim || velocity.size() != dim)
    throw ModelError("particle: position and velocity need dim entries");
}

const std::vector<std::string>& Particle::coordinateNames() const { return namesFor(dim_); }

void Particle::getInitialState(VecRef q0, VecRef v0) const {
  q0 = q0_;
  v0 = v0_;
}

void Particle::calcMassMatrix(double, CVecRef, MatRef M) const {
  JOINERY_ASSERT(M.rows() == dim_ && M.cols() == dim_, "particle mass matrix: dim x dim");
  M.setZero();
  M.diagonal().setConstant(mass_);
}

void Particle::calcForces(double, CVecRef, CVecRef, VecRef Q) const { Q.setZero(); }

void Particle::addGravityForce(CVecRef, const Vector3d& g, VecRef Q) const {
  Q += mass_ * g.head(dim_);
}

double Particle::calcGravityPotential(CVecRef q, const Vector3d& g) const {
  return -mass_ * g.head(dim_).dot(q);
}

double Particle::calcKineticEnergy(double, CVecRef, CVecRef v) const {
  return 0.5 * mass_ * v.squaredNorm();
}

Vector3d Particle::calcPointPosition(CVecRef q, const Vector3d&) const {
  Vector3d r = Vector3d::Zero();
  r.head(dim_) = q;
  return r;
}

void Particle::calcPointJacobian(CVecRef, const Vector3d&, MatRef J) const {
  JOINERY_ASSERT(J.rows() == 3 && J.cols() == dim_, "particle point Jacobian: 3 x dim");
  J.setZero();
  for (int i = 0; i < dim_; ++i) J(i, i) = 1.0;
}

SymbolicVector Particle::symbolicForces(const SymbolicNames&) const {
  return std::vector<std::string>(static_cast<std::size_t>(dim_), "0");
}

SymbolicVector Particle::symbolicGravityForce(const Vector3d& g, const SymbolicNames&) const {
  std::vector<std::string> out;
  for (int i = 0; i < dim_; ++i) out.push_back(symbolicNumber(mass_ * g(i)));
  return out;
}

SymbolicPoint Particle::symbolicPointPosition(const Vector3d&, const std::vector<std::string>& q) const {
  std::array<std::string, 3> r{"0", "0", "0"};
  for (int i = 0; i < dim_; ++i) r[static_cast<std::size_t>(i)] = q[static_cast<std::size_t>(i)];
  return r;
}

Vector3d Particle::calcPointBias(CVecRef, CVecRef, const Vector3d&) const {
  return Vector3d::Zero();
}

nlohmann::json Particle::toJson() const {
  return {{"name", name()},
          {"type", "particle"},
          {"dim", dim_},
          {"mass", mass_},
          {"position", detail::toJsonArray(q0_)},
          {"velocity", detail::toJsonArray(v0_)}};
}

namespace {

std::unique_ptr<Body> makeParticle(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "dim", "mass", "position", "velocity"});
  const std::string name = detail::readBodyName(c);
  int dim = 3;
  if (c.has("dim")) {
    const JsonCursor d = c.at("dim");
    if (!d.value().is_number()) d.fail("a dimension 1, 2 or 3");
    dim = d.integer();
    if (dim < 1 || dim > 3) d.fail("a dimension 1, 2 or 3");
  } else if (c.has("position") && c.at("position").value().is_array() &&
             c.at("position").size() >= 1 && c.at("position").size() <= 3) {
    dim = static_cast<int>(c.at("position").size());  // inferred from the position
  }
  const double mass = detail::readNonNegative(ctx, c.at("mass"), "a mass >= 0");
  const VectorXd q0 = detail::readVectorOr(ctx, c, "position", dim, meaningFor(dim));
  const VectorXd v0 = detail::readVectorOr(ctx, c, "velocity", dim, meaningFor(dim));
  return std::make_unique<Particle>(name, dim, mass, q0, v0);
}

}  // namespace

JOINERY_REGISTER(BodyRegistry,
                 {"particle", makeParticle,
                  "point mass on a line, in a plane or in space (dim 1/2/3); mass may be 0",
                  {{"name", "p"},
                   {"type", "particle"},
                   {"dim", 2},
                   {"mass", 1.5},
                   {"position", {0.5, -1.0}},
                   {"velocity", {0.25, 0.0}}}})

}  // namespace joinery
