#include "joinery/bodies/expression_body.hpp"

#include "joinery/core/errors.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "body_input.hpp"
#include "joinery/core/registry.hpp"

namespace joinery {

ExpressionBody::ExpressionBody(std::string name, std::vector<std::string> coordinates,
                               std::vector<Expression> massMatrix, std::vector<Expression> force,
                               VectorXd q0, VectorXd v0)
    : Body(std::move(name)),
      coordinates_(std::move(coordinates)),
      mass_(std::move(massMatrix)),
      force_(std::move(force)),
      q0_(std::move(q0)),
      v0_(std::move(v0)) {
  const std::size_t n = coordinates_.size();
  if (const std::string why = detail::checkCoordinateNames(coordinates_); !why.empty())
    throw ModelError("expression body: " + why);
  if (mass_.size() != n * n || force_.size() != n || static_cast<std::size_t>(q0_.size()) != n ||
      static_cast<std::size_t>(v0_.size()) != n)
    throw ModelError("expression body: sizes do not match the coordinates");
  for (const Expression& m : mass_)
    for (std::size_t i = 0; i < n; ++i)
      if (m.dependsOn(static_cast<int>(1 + n + i)))
        throw ModelError("expression body: the mass matrix may not depend on velocities");
}

SymbolTable ExpressionBody::variables(const std::vector<std::string>& coordinates) {
  return SymbolTable::forState(coordinates);
}

void ExpressionBody::getInitialState(VecRef q0, VecRef v0) const {
  q0 = q0_;
  v0 = v0_;
}

const double* ExpressionBody::fillVariables(double t, CVecRef q, CVecRef v) const {
  // One buffer per thread, grown once: no allocation per evaluation.
  thread_local std::vector<double> vars;
  const std::size_t n = coordinates_.size();
  if (vars.size() < 1 + 2 * n) vars.resize(1 + 2 * n);
  vars[0] = t;
  for (std::size_t i = 0; i < n; ++i) {
    vars[1 + i] = q(static_cast<Eigen::Index>(i));
    vars[1 + n + i] = v.size() ? v(static_cast<Eigen::Index>(i)) : 0.0;
  }
  return vars.data();
}

void ExpressionBody::calcMassMatrix(double t, CVecRef q, MatRef M) const {
  const double* vars = fillVariables(t, q, VectorXd());
  const auto n = static_cast<Eigen::Index>(coordinates_.size());
  for (Eigen::Index i = 0; i < n; ++i) {
    M(i, i) = mass_[static_cast<std::size_t>(i * n + i)].evaluate(vars);
    for (Eigen::Index j = i + 1; j < n; ++j) {
      const double mij = 0.5 * (mass_[static_cast<std::size_t>(i * n + j)].evaluate(vars) +
                                mass_[static_cast<std::size_t>(j * n + i)].evaluate(vars));
      M(i, j) = mij;
      M(j, i) = mij;
    }
  }
}

void ExpressionBody::calcForces(double t, CVecRef q, CVecRef v, VecRef Q) const {
  const double* vars = fillVariables(t, q, v);
  for (std::size_t i = 0; i < force_.size(); ++i)
    Q(static_cast<Eigen::Index>(i)) = force_[i].evaluate(vars);
}

SymbolicVector ExpressionBody::symbolicForces(const SymbolicNames& names) const {
  std::vector<std::string> slotNames{"t"};
  slotNames.insert(slotNames.end(), names.q.begin(), names.q.end());
  slotNames.insert(slotNames.end(), names.v.begin(), names.v.end());
  std::vector<std::string> out;
  for (const Expression& f : force_)
    out.push_back(f.isConstant() ? symbolicNumber(f.evaluate(nullptr)) : f.print(slotNames));
  return out;
}

SymbolicVector ExpressionBody::symbolicGravityForce(const Vector3d&, const SymbolicNames& names) const {
  return std::vector<std::string>(names.q.size(), "0");  // gravity does not act (see the header)
}

double ExpressionBody::calcPotentialEnergy(double t, CVecRef q) const {
  return detail::evaluatePotential(potential_, t, q);
}

void ExpressionBody::writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const {
  definition["q0"] = detail::toJsonArray(q);
  definition["v0"] = detail::toJsonArray(v);
}

nlohmann::json ExpressionBody::toJson() const {
  const std::size_t n = coordinates_.size();
  nlohmann::json M = nlohmann::json::array();
  for (std::size_t i = 0; i < n; ++i)
    M.push_back(detail::expressionsToJson(
        std::vector<Expression>(mass_.begin() + static_cast<std::ptrdiff_t>(i * n),
                                mass_.begin() + static_cast<std::ptrdiff_t>((i + 1) * n))));
  nlohmann::json j = {{"name", name()},
                      {"type", "expression"},
                      {"coordinates", coordinates_},
                      {"mass_matrix", M},
                      {"force", detail::expressionsToJson(force_)},
                      {"q0", detail::toJsonArray(q0_)},
                      {"v0", detail::toJsonArray(v0_)}};
  if (!(potential_.isConstant() && potential_.evaluate(nullptr) == 0))
    j["potential"] = detail::expressionsToJson({potential_})[0];
  return j;
}

namespace {

std::unique_ptr<Body> makeExpressionBody(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "coordinates", "mass_matrix", "force", "q0", "v0", "potential"});
  const std::string name = detail::readBodyName(c);
  const std::vector<std::string> coords = detail::readCoordinateNames(c.at("coordinates"));
  const int n = static_cast<int>(coords.size());
  const auto un = static_cast<std::size_t>(n);
  const SymbolTable vars = ExpressionBody::variables(coords);
  std::string meaning;
  for (const auto& s : coords) meaning += (meaning.empty() ? "" : ", ") + s;

  // Mass matrix: n rows of n expressions, or n expressions meaning a diagonal.
  const JsonCursor mc = c.at("mass_matrix");
  const std::string shape = "an array of " + std::to_string(n) + " rows of " + std::to_string(n) +
                            " expressions (or " + std::to_string(n) + " diagonal entries)";
  if (!mc.value().is_array() || mc.size() != un) mc.fail(shape);
  const bool diagonal = !mc.value()[0].is_array();
  std::vector<Expression> mass(un * un);
  for (std::size_t i = 0; i < un; ++i) {
    const JsonCursor row = mc.at(i);
    if (diagonal) {
      if (row.value().is_array()) mc.fail(shape);
      mass[i * un + i] = ctx.expression(row, vars);
      continue;
    }
    if (!row.value().is_array() || row.size() != un) row.fail("a row of " + std::to_string(n) + " expressions");
    for (std::size_t j = 0; j < un; ++j) mass[i * un + j] = ctx.expression(row.at(j), vars);
  }
  for (std::size_t i = 0; i < un * un; ++i)
    for (std::size_t k = 0; k < un; ++k)
      if (mass[i].dependsOn(static_cast<int>(1 + un + k))) {
        const JsonCursor at = diagonal ? mc.at(i / un) : mc.at(i / un).at(i % un);
        at.failWith("the mass matrix depends on the velocity '" + coords[k] +
                    "_dot'; expected an expression in the coordinates (" + meaning + ") and t");
      }
  std::vector<Expression> force =
      c.has("force") ? detail::readExpressions(c.at("force"), ctx, vars, n,
                                               "coordinates, their _dot velocities and t")
                     : std::vector<Expression>(un, Expression::constant(0.0));
  const VectorXd q0 = detail::readVectorOr(ctx, c, "q0", n, meaning);
  const VectorXd v0 = detail::readVectorOr(ctx, c, "v0", n, "velocities of " + meaning);

  // Symmetry and positive semi-definiteness at the initial state (the only state known here;
  // the solver validates M again at every solve).
  std::vector<double> x(1 + 2 * un, 0.0);
  for (std::size_t i = 0; i < un; ++i) x[1 + i] = q0(static_cast<Eigen::Index>(i));
  MatrixXd M(n, n);
  for (std::size_t i = 0; i < un; ++i)
    for (std::size_t j = 0; j < un; ++j)
      M(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = mass[i * un + j].evaluate(x.data());
  if (!M.allFinite()) mc.failWith("the mass matrix is not finite at the initial state (q0, t = 0)");
  detail::checkSymmetricPsd(mc, M, "mass_matrix (at the initial state q0, t = 0)");
  auto body = std::make_unique<ExpressionBody>(name, coords, std::move(mass), std::move(force), q0, v0);
  body->setPotential(detail::readPotential(c, ctx, vars, coords));
  return body;
}

}  // namespace

JOINERY_REGISTER(BodyRegistry,
                 {"expression", makeExpressionBody,
                  "body defined by expressions: M(q, t) q'' = force(q, q', t) in named coordinates",
                  {{"name", "bead"},
                   {"type", "expression"},
                   {"coordinates", {"r", "phi"}},
                   {"mass_matrix", {{2, 0}, {0, "2*r^2"}}},
                   {"force", {"2*r*phi_dot^2 - 3*r", "-4*r*r_dot*phi_dot + sin(t)"}},
                   {"q0", {1.2, 0.5}},
                   {"v0", {0.3, -0.8}}}})

}  // namespace joinery
