#include "joinery/bodies/linear_body.hpp"

#include "joinery/core/errors.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "body_input.hpp"
#include "flexible_input.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/registry.hpp"

namespace joinery {

LinearBody::LinearBody(std::string name, std::vector<std::string> coordinates, MatrixXd M,
                       MatrixXd D, MatrixXd K, std::vector<Expression> force, VectorXd q0,
                       VectorXd v0)
    : Body(std::move(name)),
      coordinates_(std::move(coordinates)),
      M_(std::move(M)),
      D_(std::move(D)),
      K_(std::move(K)),
      force_(std::move(force)),
      q0_(std::move(q0)),
      v0_(std::move(v0)) {
  const auto n = static_cast<Eigen::Index>(coordinates_.size());
  if (const std::string why = detail::checkCoordinateNames(coordinates_); !why.empty())
    throw ModelError("linear: " + why);
  if (M_.rows() != n || M_.cols() != n || D_.rows() != n || D_.cols() != n || K_.rows() != n ||
      K_.cols() != n || q0_.size() != n || v0_.size() != n ||
      (!force_.empty() && static_cast<Eigen::Index>(force_.size()) != n))
    throw ModelError("linear: matrix or vector sizes do not match the coordinates");
  if (!M_.allFinite() || !D_.allFinite() || !K_.allFinite())
    throw ModelError("linear: matrices must be finite");
  if ((M_ - M_.transpose()).cwiseAbs().maxCoeff() >
      detail::kSymmetryTolerance * M_.cwiseAbs().maxCoeff())
    throw ModelError("linear: mass matrix must be symmetric");
  M_ = (0.5 * (M_ + M_.transpose())).eval();  // eval: the transpose must not alias
}

SymbolTable LinearBody::forceSymbols(const std::vector<std::string>& coordinates) {
  return SymbolTable::forState(coordinates);
}

void LinearBody::getInitialState(VecRef q0, VecRef v0) const {
  q0 = q0_;
  v0 = v0_;
}

void LinearBody::calcMassMatrix(double, CVecRef, MatRef M) const { M = M_; }

void LinearBody::calcForces(double t, CVecRef q, CVecRef v, VecRef Q) const {
  Q.noalias() = -D_ * v;
  Q.noalias() -= K_ * q;
  if (force_.empty()) return;
  // Variables in slot order t, q, q'. One buffer per thread, grown once: no allocation per call.
  thread_local std::vector<double> vars;
  const std::size_t n = coordinates_.size();
  if (vars.size() < 1 + 2 * n) vars.resize(1 + 2 * n);
  vars[0] = t;
  for (std::size_t i = 0; i < n; ++i) {
    vars[1 + i] = q(static_cast<Eigen::Index>(i));
    vars[1 + n + i] = v(static_cast<Eigen::Index>(i));
  }
  for (std::size_t i = 0; i < n; ++i)
    Q(static_cast<Eigen::Index>(i)) += force_[i].evaluate(vars.data());
}

void LinearBody::addForceJacobians(double, CVecRef, CVecRef, const Vector3d&, MatRef dQdq, MatRef dQdv) const {
  dQdq -= K_;
  dQdv -= D_;
}

SymbolicVector LinearBody::symbolicForces(const SymbolicNames& names) const {
  // Q_i = force_i - sum_j D_ij q_j' - sum_j K_ij q_j
  const auto n = static_cast<Eigen::Index>(coordinates_.size());
  std::vector<std::string> slotNames{"t"};
  slotNames.insert(slotNames.end(), names.q.begin(), names.q.end());
  slotNames.insert(slotNames.end(), names.v.begin(), names.v.end());
  std::vector<std::string> out;
  for (Eigen::Index i = 0; i < n; ++i) {
    std::string s;
    const auto term = [&s](double c, const std::string& x) {
      if (c == 0) return;
      s += (s.empty() ? "" : " + ") + symbolicNumber(-c) + "*" + x;
    };
    for (Eigen::Index j = 0; j < n; ++j) term(K_(i, j), names.q[static_cast<std::size_t>(j)]);
    for (Eigen::Index j = 0; j < n; ++j) term(D_(i, j), names.v[static_cast<std::size_t>(j)]);
    if (!force_.empty()) {
      const Expression& f = force_[static_cast<std::size_t>(i)];
      const std::string ft = f.isConstant() ? symbolicNumber(f.evaluate(nullptr)) : "(" + f.print(slotNames) + ")";
      if (!(f.isConstant() && f.evaluate(nullptr) == 0)) s += (s.empty() ? "" : " + ") + ft;
    }
    out.push_back(s.empty() ? "0" : s);
  }
  return out;
}

SymbolicVector LinearBody::symbolicGravityForce(const Vector3d& g, const SymbolicNames& names) const {
  if (gravityLoad_.size() == 0) return std::vector<std::string>(names.q.size(), "0");
  const VectorXd f = gravityLoad_ * g;
  std::vector<std::string> out;
  for (Eigen::Index i = 0; i < f.size(); ++i) out.push_back(symbolicNumber(f(i)));
  return out;
}

void LinearBody::addGravityForce(CVecRef, const Vector3d& g, VecRef Q) const {
  if (gravityLoad_.size() != 0) Q.noalias() += gravityLoad_ * g;
}

double LinearBody::calcGravityPotential(CVecRef q, const Vector3d& g) const {
  if (gravityLoad_.size() == 0) return 0;
  double s = 0;
  for (Eigen::Index i = 0; i < q.size(); ++i) s -= q(i) * gravityLoad_.row(i).dot(g);
  return s;
}

void LinearBody::setGravityLoad(MatrixXd G) {
  if (G.size() != 0 && (G.rows() != static_cast<Eigen::Index>(coordinates_.size()) || G.cols() != 3))
    throw ModelError("linear: the gravity load must have one row per coordinate and 3 columns");
  if (!G.allFinite()) throw ModelError("linear: the gravity load must be finite");
  gravityLoad_ = std::move(G);
}

namespace {
// x^T A x without a temporary vector.
double quadraticForm(const MatrixXd& A, CVecRef x) {
  double s = 0;
  for (Eigen::Index j = 0; j < A.cols(); ++j) s += x(j) * A.col(j).dot(x);
  return s;
}
}  // namespace

double LinearBody::calcKineticEnergy(double, CVecRef, CVecRef v) const {
  return 0.5 * quadraticForm(M_, v);
}

double LinearBody::calcPotentialEnergy(double t, CVecRef q) const {
  return 0.5 * quadraticForm(K_, q) + detail::evaluatePotential(potential_, t, q);
}

// ---- interface nodes (docs/flexible.md) ----------------------------------------------------

void LinearBody::setInterface(std::vector<InterfaceNode> nodes) {
  const auto n = static_cast<int>(coordinates_.size());
  for (const InterfaceNode& a : nodes) {
    if (a.translation.size() != 2 && a.translation.size() != 3)
      throw ModelError("linear: interface node '" + a.name + "' needs 2 or 3 translation coordinates");
    for (const auto* list : {&a.translation, &a.rotation})
      for (int i : *list)
        if (i < 0 || i >= n) throw ModelError("linear: interface node '" + a.name + "' names no coordinate");
  }
  interface_ = std::move(nodes);
  for (const InterfaceNode& a : interface_)
    if (const InterfaceNode* first = nodeAt(a.position); first != &a)
      throw ModelError("linear: interface nodes '" + first->name + "' and '" + a.name + "' are at the same position");
}

const InterfaceNode* LinearBody::nodeAt(const Vector3d& local) const {
  for (const InterfaceNode& a : interface_) {
    const bool planar = a.translation.size() == 2;
    const Vector3d d = local - a.position;
    const double dist = planar ? d.head<2>().norm() : d.norm();
    if (dist <= 1e-9 * std::max(1.0, a.position.norm())) return &a;
  }
  return nullptr;
}

std::string LinearBody::coordinateGroup(int k) const {
  for (const InterfaceNode& a : interface_)
    if (std::find(a.translation.begin(), a.translation.end(), k) != a.translation.end() ||
        std::find(a.rotation.begin(), a.rotation.end(), k) != a.rotation.end())
      return "interface node '" + a.name + "'";
  return {};
}

const PointMarker* LinearBody::points() const { return interface_.empty() ? nullptr : &marker_; }

bool LinearBody::isPlanar() const {
  return !interface_.empty() &&
         std::all_of(interface_.begin(), interface_.end(), [](const InterfaceNode& a) { return a.translation.size() == 2; });
}

const InterfaceNode& LinearBody::NodeMarker::node(const Vector3d& local) const {
  if (const InterfaceNode* a = body_.nodeAt(local)) return *a;
  std::string list;
  for (const InterfaceNode& a : body_.interface_)
    list += (list.empty() ? "" : ", ") + a.name + " at [" + formatNumber(a.position.x()) + ", " +
            formatNumber(a.position.y()) + (a.translation.size() == 3 ? ", " + formatNumber(a.position.z()) : "") + "]";
  throw ModelError("body '" + body_.name() + "' (linear) has no interface node at [" + formatNumber(local.x()) + ", " +
                   formatNumber(local.y()) + ", " + formatNumber(local.z()) +
                   "]; a flexible body is joined only at its interface nodes: " + list);
}

Vector3d LinearBody::NodeMarker::calcPointPosition(CVecRef q, const Vector3d& local) const {
  const InterfaceNode& a = node(local);
  Vector3d r = a.position;
  for (std::size_t k = 0; k < a.translation.size(); ++k) r(static_cast<Eigen::Index>(k)) += q(a.translation[k]);
  return r;
}

void LinearBody::NodeMarker::calcPointJacobian(CVecRef, const Vector3d& local, MatRef J) const {
  const InterfaceNode& a = node(local);
  J.setZero();
  for (std::size_t k = 0; k < a.translation.size(); ++k) J(static_cast<Eigen::Index>(k), a.translation[k]) = 1;
}

Vector3d LinearBody::NodeMarker::calcPointBias(CVecRef, CVecRef, const Vector3d& local) const {
  (void)node(local);
  return Vector3d::Zero();
}

SymbolicPoint LinearBody::NodeMarker::symbolicPointPosition(const Vector3d& local,
                                                            const std::vector<std::string>& q) const {
  const InterfaceNode& a = node(local);
  std::array<std::string, 3> out;
  for (int k = 0; k < 3; ++k) {
    out[static_cast<std::size_t>(k)] = symbolicNumber(a.position(k));
    if (static_cast<std::size_t>(k) < a.translation.size())
      out[static_cast<std::size_t>(k)] += " + " + q[static_cast<std::size_t>(a.translation[static_cast<std::size_t>(k)])];
  }
  return out;
}

void LinearBody::writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const {
  definition["q0"] = detail::toJsonArray(q);
  definition["v0"] = detail::toJsonArray(v);
}

std::vector<Vector3d> LinearBody::drawingCurve() const {
  std::vector<Vector3d> out;
  for (const InterfaceNode& node : interface_) out.push_back(node.position);
  return out;
}

nlohmann::json LinearBody::toJson() const {
  nlohmann::json j = {{"name", name()},
                      {"type", "linear"},
                      {"coordinates", coordinates_},
                      {"mass_matrix", detail::toJsonMatrix(M_)},
                      {"q0", detail::toJsonArray(q0_)},
                      {"v0", detail::toJsonArray(v0_)}};
  if (!D_.isZero(0.0)) j["damping_matrix"] = detail::toJsonMatrix(D_);
  if (!K_.isZero(0.0)) j["stiffness_matrix"] = detail::toJsonMatrix(K_);
  if (!force_.empty()) j["force"] = detail::expressionsToJson(force_);
  if (gravityLoad_.size() != 0) j["gravity_load"] = detail::toJsonMatrix(gravityLoad_);
  if (!interface_.empty()) j["interface"] = detail::interfaceToJson(interface_, coordinates_);
  if (!(potential_.isConstant() && potential_.evaluate(nullptr) == 0))
    j["potential"] = detail::expressionsToJson({potential_})[0];
  return j;
}

namespace {

std::unique_ptr<Body> makeLinear(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "coordinates", "mass_matrix", "damping_matrix", "stiffness_matrix",
                       "force", "q0", "v0", "potential", "interface", "beam", "reduction", "gravity_load", "rayleigh"});
  const std::string name = detail::readBodyName(c);
  // coordinates, M, D, K and interface nodes: inline, from files, or generated (flexible_input.cpp)
  detail::LinearInput in = detail::readLinearInput(c, ctx);
  const std::vector<std::string>& coords = in.coordinates;
  const int n = static_cast<int>(coords.size());
  std::vector<Expression> force;
  if (c.has("force"))
    force = detail::readExpressions(c.at("force"), ctx, LinearBody::forceSymbols(coords), n,
                                    "coordinates, their _dot velocities and t");
  std::string meaning;
  for (const auto& s : coords) meaning += (meaning.empty() ? "" : ", ") + s;
  const VectorXd q0 = detail::readVectorOr(ctx, c, "q0", n, meaning);
  const VectorXd v0 = detail::readVectorOr(ctx, c, "v0", n, "velocities of " + meaning);
  auto body = std::make_unique<LinearBody>(name, coords, in.M, in.D, in.K, std::move(force), q0, v0);
  body->setPotential(detail::readPotential(c, ctx, LinearBody::forceSymbols(coords), coords));
  body->setInterface(std::move(in.nodes));
  body->setGravityLoad(std::move(in.gravityLoad));
  return body;
}

}  // namespace

JOINERY_REGISTER(BodyRegistry,
                 {"linear", makeLinear,
                  "linear substructure M q'' + D q' + K q = force(q, q', t) in named coordinates",
                  {{"name", "beam"},
                   {"type", "linear"},
                   {"coordinates", {"u1", "u2"}},
                   {"mass_matrix", {{2.0, 0.5}, {0.5, 1.0}}},
                   {"damping_matrix", {{0.1, 0.0}, {0.0, 0.1}}},
                   {"stiffness_matrix", {{200.0, -100.0}, {-100.0, 100.0}}},
                   {"force", {"sin(t)", "-0.5*u2_dot*abs(u2_dot)"}},
                   {"q0", {0.01, 0.02}},
                   {"v0", {0.0, -0.1}}}})

}  // namespace joinery
