#include "body_input.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "joinery/core/format.hpp"

namespace joinery::detail {

namespace {
std::string fmt(double v) { return formatNumber(v, 12); }
}  // namespace

std::string readBodyName(const JsonCursor& c) {
  const JsonCursor n = c.at("name");
  const std::string name = n.string();
  if (name.empty()) n.fail("a non-empty body name");
  return name;
}

void failValue(const JsonCursor& c, double value, const std::string& expectation) {
  if (c.value().is_number()) c.fail(expectation);
  c.failWith(c.value().dump() + " evaluates to " + fmt(value) + "; expected " + expectation);
}

double readNonNegative(const FactoryContext& ctx, const JsonCursor& c, std::string_view what) {
  const double v = ctx.number(c);
  if (!(v >= 0.0)) failValue(c, v, std::string(what));
  return v;
}

VectorXd readVector(const FactoryContext& ctx, const JsonCursor& c, int n, std::string_view meaning) {
  if (!c.value().is_array() || c.size() != static_cast<std::size_t>(n))
    c.fail("an array of " + std::to_string(n) + (n == 1 ? " number" : " numbers") + " (" + std::string(meaning) + ")");
  VectorXd v(n);
  for (int i = 0; i < n; ++i) v(i) = ctx.number(c.at(static_cast<std::size_t>(i)));
  return v;
}

VectorXd readVectorOr(const FactoryContext& ctx, const JsonCursor& parent, const std::string& key,
                      int n, std::string_view meaning) {
  if (!parent.has(key)) return VectorXd::Zero(n);
  return readVector(ctx, parent.at(key), n, meaning);
}

void checkSymmetricPsd(const JsonCursor& c, const MatrixXd& M, const std::string& field) {
  const int n = static_cast<int>(M.rows());
  if (n == 0) return;
  const double scale = M.cwiseAbs().maxCoeff();
  double worst = 0;
  int wi = 0, wj = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (std::abs(M(i, j) - M(j, i)) > worst) {
        worst = std::abs(M(i, j) - M(j, i));
        wi = i;
        wj = j;
      }
  if (worst > kSymmetryTolerance * scale)
    c.failWith(field + " is not symmetric: entry [" + std::to_string(wi) + "][" +
               std::to_string(wj) + "] = " + fmt(M(wi, wj)) + " but [" + std::to_string(wj) +
               "][" + std::to_string(wi) + "] = " + fmt(M(wj, wi)) +
               "; expected a symmetric matrix");
  const MatrixXd S = 0.5 * (M + M.transpose());
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(S, Eigen::EigenvaluesOnly);
  const double lmin = es.eigenvalues().minCoeff();
  const double lmax = es.eigenvalues().cwiseAbs().maxCoeff();
  if (lmin < -kPsdTolerance * lmax)
    c.failWith(field + " is not positive semi-definite: smallest eigenvalue " + fmt(lmin) +
               "; expected a symmetric positive semi-definite matrix");
}

namespace {
bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  });
}
const std::vector<std::string>& reservedNames() {
  static const std::vector<std::string> r{"t",    "pi",   "sin",  "cos",  "tan",   "asin",
                                          "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                                          "exp",  "log",  "sqrt", "abs",  "sign",  "min", "max"};
  return r;
}
}  // namespace

std::string checkCoordinateNames(const std::vector<std::string>& names) {
  if (names.empty()) return "expected at least one coordinate name";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& s = names[i];
    if (!isIdentifier(s))
      return "coordinate name '" + s + "' is not an identifier (letters, digits, _; not starting with a digit)";
    if (std::find(reservedNames().begin(), reservedNames().end(), s) != reservedNames().end())
      return "coordinate name '" + s + "' is reserved in expressions (time, pi, functions)";
    for (std::size_t j = 0; j < i; ++j)
      if (names[j] == s) return "coordinate name '" + s + "' appears twice";
    for (const auto& other : names)
      if (s == other + "_dot")
        return "coordinate name '" + s + "' clashes with the velocity of coordinate '" + other + "'";
  }
  return {};
}

std::vector<std::string> readCoordinateNames(const JsonCursor& c) {
  c.requireArray();
  std::vector<std::string> names;
  for (std::size_t i = 0; i < c.size(); ++i) names.push_back(c.at(i).string());
  if (const std::string why = checkCoordinateNames(names); !why.empty()) c.failWith(why);
  return names;
}

std::vector<Expression> readExpressions(const JsonCursor& c, const FactoryContext& ctx,
                                        const SymbolTable& variables, int n,
                                        const std::string& meaning) {
  if (!c.value().is_array() || c.size() != static_cast<std::size_t>(n))
    c.fail("an array of " + std::to_string(n) + " expressions (in " + meaning + ")");
  std::vector<Expression> out;
  for (std::size_t i = 0; i < c.size(); ++i) out.push_back(ctx.expression(c.at(i), variables));
  return out;
}

nlohmann::json expressionsToJson(const std::vector<Expression>& exprs) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& e : exprs) {
    if (e.isConstant()) a.push_back(e.evaluate(nullptr));
    else a.push_back(e.toString());
  }
  return a;
}

nlohmann::json toJsonArray(const VectorXd& v) {
  nlohmann::json::array_t a;
  a.reserve(static_cast<std::size_t>(v.size()));
  for (int i = 0; i < v.size(); ++i) a.emplace_back(v(i));
  return nlohmann::json(std::move(a));
}

nlohmann::json toJsonMatrix(const MatrixXd& M) {
  nlohmann::json a = nlohmann::json::array();
  for (int i = 0; i < M.rows(); ++i) a.push_back(toJsonArray(M.row(i).transpose()));
  return a;
}

Expression readPotential(const JsonCursor& body, const FactoryContext& ctx, const SymbolTable& vars,
                         const std::vector<std::string>& coordinates) {
  if (!body.has("potential")) return Expression::constant(0.0);
  const JsonCursor pc = body.at("potential");
  const Expression e = ctx.expression(pc, vars);
  const std::size_t n = coordinates.size();
  for (std::size_t k = 0; k < n; ++k)
    if (e.dependsOn(static_cast<int>(1 + n + k)))
      pc.failWith("the potential energy depends on the velocity '" + coordinates[k] +
                  "_dot'; expected an expression of the coordinates and t");
  return e;
}

double evaluatePotential(const Expression& potential, double t, CVecRef q) {
  if (potential.isConstant()) return potential.evaluate(nullptr);
  thread_local std::vector<double> vars;  // t, q, q' (zero): grown once per thread
  const auto n = static_cast<std::size_t>(q.size());
  if (vars.size() < 1 + 2 * n) vars.assign(1 + 2 * n, 0.0);
  vars[0] = t;
  for (std::size_t i = 0; i < n; ++i) vars[1 + i] = q(static_cast<Eigen::Index>(i));
  return potential.evaluate(vars.data());
}

}  // namespace joinery::detail
