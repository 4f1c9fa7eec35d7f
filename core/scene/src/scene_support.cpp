#include "joinery/core/unit_hint.hpp"
#include "scene_support.hpp"

#include "joinery/core/orientation.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/scene_section.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <set>
#include <sstream>
#include <system_error>
#include <unordered_set>

namespace joinery::detail {

// ---- reading files -----------------------------------------------------------------------

nlohmann::json readSceneFile(const std::string& path) { return readJsonFile(path, JsonReadOptions{}); }

nlohmann::json readIncludedFile(const std::string& path) {
  return readJsonFile(path, JsonReadOptions{.strict = true, .maxBytes = kMaxIncludeBytes, .echoContent = false});
}

int jsonDepth(const nlohmann::json& value, int limit) {
  int deepest = 0;
  std::vector<std::pair<const nlohmann::json*, int>> stack{{&value, 0}};
  while (!stack.empty()) {
    const auto [v, d] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    const int inner = d + 1;
    deepest = std::max(deepest, inner);
    if (deepest > limit) return limit + 1;
    for (const auto& child : *v)
      if (child.is_structured()) stack.emplace_back(&child, inner);
  }
  return deepest;
}

// ---- names -------------------------------------------------------------------------------

namespace {
bool isNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool isValidName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (static_cast<unsigned char>(c) >= 0x80 || !isNameChar(c)) return false;
  return true;
}

bool isIdentifier(const std::string& name) { return isValidName(name) && !isDigit(name[0]); }

bool isReservedName(const std::string& name) {
  static const std::set<std::string> kReserved{
      "t",    "pi",   "Fi",   "sin",  "cos", "tan", "asin", "acos", "atan", "atan2",
      "sinh", "cosh", "tanh", "exp",  "log", "sqrt", "abs", "sign", "min",  "max"};
  return kReserved.count(name) > 0;
}

std::string rewriteNames(const std::string& text,
                         const std::function<std::string(const std::string&)>& rename) {
  // Mirrors the tokenizer of the expression parser (expression.cpp).
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(text[i + 1]))) {
      const std::size_t start = i;
      while (i < n && isDigit(text[i])) ++i;
      if (i < n && text[i] == '.') {
        ++i;
        while (i < n && isDigit(text[i])) ++i;
      }
      if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < n && (text[j] == '+' || text[j] == '-')) ++j;
        if (j < n && isDigit(text[j])) {
          i = j;
          while (i < n && isDigit(text[i])) ++i;
        } else {
          // malformed exponent: copied as is (the parser reports it)
          i = j;
          while (i < n && isNameChar(text[i])) ++i;
        }
      }
      out.append(text, start, i - start);
      continue;
    }
    if (isNameStart(c)) {
      const std::size_t start = i;
      while (i < n && isNameChar(text[i])) ++i;
      while (i + 1 < n && text[i] == '.' && isNameStart(text[i + 1])) {
        ++i;
        while (i < n && isNameChar(text[i])) ++i;
      }
      out += rename(text.substr(start, i - start));
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

std::vector<std::string> namesIn(const std::string& text) {
  std::vector<std::string> names;
  (void)rewriteNames(text, [&](const std::string& name) {
    names.push_back(name);
    return name;
  });
  return names;
}

std::string formatNumber(double value) {
  char buf[64];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

// ---- numbers and parameters --------------------------------------------------------------

double evaluateNumber(const JsonCursor& c, const SymbolTable& scope) {
  if (c.value().is_number()) return c.number();
  if (!c.value().is_string()) c.fail("a number or an expression string over the parameters");
  const std::string text = c.value().get<std::string>();
  double v = 0;
  try {
    v = Expression::parse(text, scope).evaluate(nullptr);
  } catch (const ExpressionError& e) {
    std::string detail = e.detail();
    if (detail.find("unknown name 't'") != std::string::npos)
      detail += " (this field is a constant: the time is not available here)";
    c.failWith("in expression \"" + text + "\": " + detail + "; expected a number or an expression over the parameters");
  }
  if (!std::isfinite(v))
    c.failWith("expression \"" + text + "\" evaluates to " + formatNumber(v) + "; expected a finite number");
  return v;
}

// long: a topological sort of the parameters with the error for each way a definition can
// be wrong (names, types, unknown names, cycles) where it is found.
SymbolTable evaluateParameters(const JsonCursor& definitions, const SymbolTable& fixed) {
  definitions.requireObject();
  const nlohmann::json& defs = definitions.value();
  std::vector<std::string> order;  // definition order
  for (auto it = defs.begin(); it != defs.end(); ++it) {
    const std::string& name = it.key();
    const JsonCursor c = definitions.at(name);
    if (!isIdentifier(name))
      c.failWith("'" + name + "' is not a valid parameter name; expected letters, digits and '_', not starting with a digit");
    if (isReservedName(name))
      c.failWith("'" + name + "' is reserved in expressions (the time t, pi, Fi and the functions); choose another parameter name");
    if (!c.value().is_number() && !c.value().is_string())
      c.fail("a number or an expression string over the other parameters");
    order.push_back(name);
  }
  // names that are neither parameters nor reserved: reported with a suggestion among all the
  // parameters (before evaluation, so that the suggestion does not depend on the order)
  {
    std::vector<std::string> known = order;
    for (const auto& [n, v] : fixed.constants()) known.push_back(n);
    known.emplace_back("pi");
    const std::unordered_set<std::string> knownSet(known.begin(), known.end());
    for (const auto& name : order) {
      if (fixed.hasConstant(name) || !defs[name].is_string()) continue;
      for (const auto& used : namesIn(defs[name].get<std::string>())) {
        if (used.find('.') != std::string::npos || isReservedName(used)) continue;
        if (knownSet.count(used)) continue;
        if (const std::string unit = unitHint(used); !unit.empty())
          definitions.at(name).failWith("in expression \"" + defs[name].get<std::string>() + "\": unknown name '" +
                                        used + "': " + unit);
        definitions.at(name).failWith("in expression \"" + defs[name].get<std::string>() + "\": unknown name '" +
                                      used + "'" + didYouMean(used, known) +
                                      "; expected a number or an expression over the parameters (" +
                                      joinNames(known) + ")");
      }
    }
  }
  SymbolTable table = fixed;
  // dependencies among the parameters still to evaluate (Kahn's algorithm: no recursion)
  std::map<std::string, std::vector<std::string>> deps;
  std::map<std::string, std::vector<std::string>> users;
  std::map<std::string, int> pending;
  std::vector<std::string> todo;
  for (const auto& name : order)
    if (!fixed.hasConstant(name)) todo.push_back(name);
  const std::set<std::string> todoSet(todo.begin(), todo.end());
  for (const auto& name : todo) {
    std::set<std::string> d;
    if (defs[name].is_string())
      for (const auto& used : namesIn(defs[name].get<std::string>()))
        if (todoSet.count(used)) d.insert(used);
    deps[name].assign(d.begin(), d.end());
    pending[name] = static_cast<int>(d.size());
    for (const auto& u : d) users[u].push_back(name);
  }
  std::vector<std::string> ready;
  for (const auto& name : todo)
    if (pending[name] == 0) ready.push_back(name);
  std::size_t done = 0;
  while (!ready.empty()) {
    const std::string name = ready.back();
    ready.pop_back();
    table.setConstant(name, evaluateNumber(definitions.at(name), table));
    ++done;
    for (const auto& u : users[name])
      if (--pending[u] == 0) ready.push_back(u);
  }
  if (done < todo.size()) {
    // a cycle: walk unresolved dependencies from the first unresolved parameter
    std::string start;
    for (const auto& name : todo)
      if (pending[name] > 0) {
        start = name;
        break;
      }
    std::vector<std::string> path{start};
    std::map<std::string, std::size_t> seen{{start, 0}};
    std::string cur = start;
    for (;;) {
      std::string next;
      for (const auto& d : deps[cur])
        if (pending[d] > 0) {
          next = d;
          break;
        }
      if (next.empty()) break;  // cannot happen: an unresolved node has an unresolved dependency
      auto s = seen.find(next);
      if (s != seen.end()) {
        std::vector<std::string> cycle(path.begin() + static_cast<std::ptrdiff_t>(s->second), path.end());
        cycle.push_back(next);
        std::string text;
        for (const auto& c : cycle) text += (text.empty() ? "" : " -> ") + c;
        definitions.at(cycle.front())
            .failWith("parameters depend on each other in a cycle: " + text +
                      "; expected each parameter to depend only on parameters defined without it");
      }
      seen.emplace(next, path.size());
      path.push_back(next);
      cur = next;
    }
    definitions.at(start).failWith("parameter cannot be evaluated (circular definition)");
  }
  return table;
}

// ---- placement ---------------------------------------------------------------------------

bool Placement::isIdentity() const {
  return translation.isZero(0.0) && rotation.w() == 1.0 && rotation.vec().isZero(0.0) && angle == 0.0;
}

Placement Placement::then(const Placement& inner) const {
  Placement out;
  out.rotation = (rotation * inner.rotation).normalized();
  out.translation = rotation * inner.translation + translation;
  out.planar = planar && inner.planar;
  out.angle = angle + inner.angle;
  return out;
}

Placement parsePlacement(const JsonCursor& c, const SymbolTable& scope) {
  c.requireObject();
  c.rejectUnknownKeys({"position", "angle", "orientation"});
  Placement p;
  if (c.has("position")) {
    const JsonCursor pos = c.at("position");
    if (!pos.value().is_array() || (pos.size() != 2 && pos.size() != 3))
      pos.fail("an array of 2 numbers [x, y] (planar) or 3 numbers [x, y, z] (spatial)");
    for (std::size_t i = 0; i < pos.size(); ++i)
      p.translation(static_cast<int>(i)) = evaluateNumber(pos.at(i), scope);
  }
  if (c.has("angle") && c.has("orientation"))
    c.at("orientation").failWith("a placement has either 'angle' (planar, about z) or 'orientation' (spatial), not both");
  if (c.has("angle")) {
    p.angle = evaluateNumber(c.at("angle"), scope);
    p.rotation = Eigen::Quaterniond(Eigen::AngleAxisd(p.angle, Vector3d::UnitZ()));
  }
  if (c.has("orientation")) {
    p.rotation = parseOrientation(
        c.at("orientation"), [&scope](const JsonCursor& field) { return evaluateNumber(field, scope); }, 1e-3);
    const Eigen::Quaterniond& q = p.rotation;
    const Eigen::Vector4d e(q.w(), q.x(), q.y(), q.z());
    if (std::abs(e(1)) <= 1e-14 && std::abs(e(2)) <= 1e-14) {
      p.angle = 2.0 * std::atan2(e(3), e(0));
      if (p.angle > std::numbers::pi) p.angle -= 2.0 * std::numbers::pi;
    } else {
      p.planar = false;
      p.angle = 0;
    }
  }
  return p;
}

namespace {

bool allNumbers(const nlohmann::json& a, std::size_t n) {
  if (!a.is_array() || a.size() != n) return false;
  return std::all_of(a.begin(), a.end(), [](const nlohmann::json& x) { return x.is_number(); });
}

std::string bodyLabel(const nlohmann::json& body) {
  std::string name = body.contains("name") && body["name"].is_string() ? body["name"].get<std::string>() : "?";
  std::string type = body.contains("type") && body["type"].is_string() ? body["type"].get<std::string>() : "?";
  return "body '" + name + "' (" + type + ")";
}

// Turns (and moves, when `move`) a vector field of 1, 2 or 3 numbers.
void placeVector(nlohmann::json& body, const char* key, const Placement& p, bool move,
                 const JsonCursor& where) {
  if (!body.contains(key)) return;
  nlohmann::json& f = body[key];
  const Vector3d t = move ? p.translation : Vector3d::Zero();
  if (allNumbers(f, 3)) {
    const Vector3d x(f[0].get<double>(), f[1].get<double>(), f[2].get<double>());
    const Vector3d y = p.rotation * x + t;
    f = nlohmann::json::array({y.x(), y.y(), y.z()});
  } else if (allNumbers(f, 2)) {
    if (!p.planar)
      where.failWith(bodyLabel(body) + " moves in the x-y plane (its '" + key +
                     "' has 2 numbers) but the placement turns out of the x-y plane; expected a planar placement (an angle about z)");
    if (move && t.z() != 0.0)
      where.failWith(bodyLabel(body) + " moves in the x-y plane but the placement moves it to z = " +
                     formatNumber(t.z()) + "; expected z = 0 for planar bodies");
    const double c = std::cos(p.angle), s = std::sin(p.angle);
    const double x = f[0].get<double>(), y = f[1].get<double>();
    f = nlohmann::json::array({c * x - s * y + t.x(), s * x + c * y + t.y()});
  } else if (allNumbers(f, 1)) {
    if (!p.planar || p.angle != 0.0 || t.y() != 0.0 || t.z() != 0.0)
      where.failWith(bodyLabel(body) + " moves along the x axis only (its '" + key +
                     "' has 1 number); expected a placement that only moves along x (no angle, no y or z)");
    f = nlohmann::json::array({f[0].get<double>() + t.x()});
  }
}

}  // namespace

void applyPlacement(nlohmann::json& body, const Placement& p, const JsonCursor& where) {
  if (!body.is_object()) return;
  placeVector(body, "position", p, true, where);
  placeVector(body, "velocity", p, false, where);
  if (body.contains("angle") && body["angle"].is_number()) {
    if (!p.planar)
      where.failWith(bodyLabel(body) + " has a planar 'angle' but the placement turns out of the x-y plane; expected a planar placement (an angle about z)");
    body["angle"] = body["angle"].get<double>() + p.angle;
  }
  if (body.contains("angular_velocity")) {
    nlohmann::json& w = body["angular_velocity"];
    if (w.is_number() && !p.planar)
      where.failWith(bodyLabel(body) + " has a planar 'angular_velocity' but the placement turns out of the x-y plane; expected a planar placement");
    if (allNumbers(w, 3)) {
      const Vector3d x(w[0].get<double>(), w[1].get<double>(), w[2].get<double>());
      const Vector3d y = p.rotation * x;
      w = nlohmann::json::array({y.x(), y.y(), y.z()});
    }
  }
  if (body.contains("orientation") && allNumbers(body["orientation"], 4)) {
    nlohmann::json& o = body["orientation"];
    const Eigen::Quaterniond qb(o[0].get<double>(), o[1].get<double>(), o[2].get<double>(), o[3].get<double>());
    const Eigen::Quaterniond q = p.rotation * qb;
    o = nlohmann::json::array({q.w(), q.x(), q.y(), q.z()});
  }
}

}  // namespace joinery::detail

namespace joinery {

double SceneSection::number(const JsonCursor& field) const { return detail::evaluateNumber(field, parameters); }

}  // namespace joinery
