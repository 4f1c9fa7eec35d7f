// The scene loader's names (scene_loader.hpp): reading and qualifying the names of
// definitions inside components, and the expression strings of the flattened scene.
#include <array>
#include <cmath>
#include <set>

#include "scene_loader.hpp"

namespace joinery::scene_detail {

std::vector<std::string> keysOf(const nlohmann::json& object) {
  std::vector<std::string> out;
  if (object.is_object())
    for (auto it = object.begin(); it != object.end(); ++it) out.push_back(it.key());
  return out;
}

std::string where(const JsonCursor& c) {
  return c.displayPath() + (c.file().empty() ? std::string() : " of " + c.file());
}

void checkVersion(const JsonCursor& doc, const std::string& what) {
  doc.requireObject();
  if (!doc.has("joinery"))
    doc.failWith("missing required field 'joinery'; expected the format version of " + what +
                 ": \"joinery\": 1");
  const JsonCursor v = doc.at("joinery");
  if (!v.value().is_number() || v.value().get<double>() != 1.0)
    v.fail("the format version 1 (this build reads scene format version 1)");
}

namespace {

/// A qualified name "a.b.c": valid names joined by dots.
bool isQualifiedName(const std::string& name) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = name.find('.', start);
    if (!detail::isValidName(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start)))
      return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}


}  // namespace

/// The `name` of a body, joint, force or instance: letters, digits, '_'; not "ground". With
/// `qualifiedAllowed` (bodies, joints and forces of the scene itself, as the flattened scene
/// writes them) also a qualified name "l1.rod".
std::string readName(const JsonCursor& element, bool qualifiedAllowed) {
  const JsonCursor n = element.at("name");
  const std::string name = n.string();
  if (!detail::isValidName(name) && !(qualifiedAllowed && isQualifiedName(name)))
    n.fail("a name made of letters, digits and '_' only (the loader adds the dots of instance names)");
  if (name == "ground")
    n.failWith("'ground' is the fixed world body and may not be declared; expected another name");
  return name;
}

// ---- renaming definitions ----------------------------------------------------------------

std::vector<std::string> bodyList(const LocalNames& ln) {
  return std::vector<std::string>(ln.bodies.begin(), ln.bodies.end());
}

/// A body reference ("body", "body1", "body2") inside a component: local name -> qualified.
std::string qualifyBody(const std::string& name, const JsonCursor& at, const LocalNames& ln) {
  if (name == "ground" || !ln.component) return name;  // the scene's names: the factory checks
  if (ln.bodies.count(name)) return ln.prefix + name;
  std::vector<std::string> candidates = bodyList(ln);
  candidates.push_back("ground");
  at.failWith("unknown body '" + name + "' in " + ln.owner + didYouMean(name, candidates) +
              "; expected one of its bodies (" + joinNames(bodyList(ln)) +
              ") or 'ground' (names inside a component are local)");
}

namespace {

/// A qualified coordinate "body.coord" inside a component: the body (the longest prefix that is
/// one of the component's bodies) gets the instance prefix.
std::string qualifyCoordinate(const std::string& name, const JsonCursor& at, const LocalNames& ln,
                              const std::string& expression = {}) {
  if (!ln.component || name.rfind("ground.", 0) == 0) return name;
  const std::size_t last = name.rfind('.');
  if (last == std::string::npos) return name;  // not qualified: the factory says what it expects
  for (std::size_t pos = last; pos != std::string::npos && pos > 0; pos = name.rfind('.', pos - 1))
    if (ln.bodies.count(name.substr(0, pos))) return ln.prefix + name;
  const std::string body = name.substr(0, last);
  std::string msg = expression.empty() ? std::string() : "in expression \"" + expression + "\": ";
  msg += "'" + name + "' names no body of " + ln.owner + ": unknown body '" + body + "'" +
         didYouMean(body, bodyList(ln)) + "; expected '<body>.<coordinate>' with one of its bodies (" +
         joinNames(bodyList(ln)) + ")";
  at.failWith(msg);
}

}  // namespace

std::string qualifyExpression(const std::string& text, const JsonCursor& at, const LocalNames& ln) {
  if (!ln.component) return text;
  return detail::rewriteNames(text, [&](const std::string& n) {
    return n.find('.') == std::string::npos ? n : qualifyCoordinate(n, at, ln, text);
  });
}

namespace {

/// Renames inside a field value: expression strings, "coordinate" fields, "body.coord" keys.
nlohmann::json rewriteValue(const JsonCursor& c, const LocalNames& ln) {
  const nlohmann::json& v = c.value();
  if (v.is_string()) return qualifyExpression(v.get<std::string>(), c, ln);
  if (v.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(rewriteValue(c.at(i), ln));
    return out;
  }
  if (v.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& key = it.key();
      const JsonCursor child = c.at(key);
      if (key == "coordinate" && it->is_string())
        out[key] = qualifyCoordinate(it->get<std::string>(), child, ln);
      else if (key == "coordinates")
        out[key] = *it;
      else
        out[key.find('.') != std::string::npos ? qualifyCoordinate(key, child, ln) : key] =
            rewriteValue(child, ln);
    }
    return out;
  }
  return v;
}

}  // namespace

bool renamingKeeps(const JsonCursor& c, const LocalNames& ln, bool isBody) {
  if (ln.component || !c.value().is_object()) return false;
  if (isBody) return true;
  const nlohmann::json& v = c.value();
  return !v.contains("port") && !v.contains("port1") && !v.contains("port2");
}

nlohmann::json rewriteElement(const JsonCursor& c, const LocalNames& ln, bool isBody) {
  c.requireObject();
  const std::string name = readName(c, !ln.component);
  nlohmann::json out = nlohmann::json::object();
  static const std::set<std::string> kBodyRefs{"body", "body1", "body2"};
  static const std::set<std::string> kPortRefs{"port", "port1", "port2"};
  // elements that name joints (gear, rack_pinion, joint_spring): a local name gets the instance prefix
  static const std::set<std::string> kJointRefs{"joint", "joint1", "joint2", "pinion_joint", "rack_joint"};
  for (auto it = c.value().begin(); it != c.value().end(); ++it) {
    const std::string& key = it.key();
    const JsonCursor child = c.at(key);
    if (key == "name")
      out[key] = ln.prefix + name;
    else if (key == "type" || key == "coordinates" || (isBody && key == "visual"))
      out[key] = *it;  // `visual`: shapes in the body frame, copied as written (read in Loader::load)
    else if (!isBody && kPortRefs.count(key))
      continue;  // below
    else if (!isBody && kBodyRefs.count(key) && it->is_string())
      out[key] = qualifyBody(it->get<std::string>(), child, ln);
    else if (key == "coordinate" && it->is_string())
      out[key] = qualifyCoordinate(it->get<std::string>(), child, ln);
    else if (!isBody && kJointRefs.count(key) && it->is_string())
      out[key] = ln.prefix + it->get<std::string>();
    else
      out[key] = rewriteValue(child, ln);
  }
  if (isBody) return out;
  static const std::array<std::array<const char*, 3>, 3> kPorts{
      {{"port", "body", "point"}, {"port1", "body1", "point1"}, {"port2", "body2", "point2"}}};
  for (const auto& [portKey, bodyKey, pointKey] : kPorts) {
    if (!c.has(portKey)) continue;
    const JsonCursor pc = c.at(portKey);
    if (!pc.value().is_string()) pc.fail("a port name (a string such as \"l1.top\")");
    if (c.has(bodyKey) || c.has(pointKey))
      pc.failWith(std::string("'") + portKey + "' stands for '" + bodyKey + "' and '" + pointKey +
                  "'; expected either the port or the body and point, not both");
    const std::string portName = pc.value().get<std::string>();
    const auto found = ln.ports->find(portName);
    if (found == ln.ports->end()) {
      std::vector<std::string> names;
      for (const auto& [n, p] : *ln.ports) names.push_back(n);
      pc.failWith("unknown port '" + portName + "'" + didYouMean(portName, names) +
                  (names.empty() ? std::string("; there are no ports in ") + ln.owner +
                                       " (components declare ports; outside, they are named "
                                       "'<instance>.<port>')"
                                 : "; expected one of: " + joinNames(names)));
    }
    out[bodyKey] = found->second.body;
    out[pointKey] = found->second.point;
  }
  return out;
}

/// Replaces parameter names in the expression strings of a definition by their values and
/// evaluates the strings that became constant.
void resolveStrings(nlohmann::json& element, const SymbolTable& parameters) {
  std::set<std::string> own;  // an expression body's own coordinates shadow parameters
  if (element.is_object() && element.contains("coordinates") && element["coordinates"].is_array())
    for (const auto& c : element["coordinates"])
      if (c.is_string()) {
        own.insert(c.get<std::string>());
        own.insert(c.get<std::string>() + "_dot");
      }
  static const std::set<std::string> kNameKeys{"name",  "type",       "body",       "body1",
                                               "body2", "coordinate", "coordinates",
                                               "joint", "joint1", "joint2", "pinion_joint", "rack_joint"};
  std::vector<nlohmann::json*> stack;
  stack.reserve(16);  // one block for a definition's fields (a toJson() of a few levels)
  stack.push_back(&element);
  while (!stack.empty()) {
    nlohmann::json* v = stack.back();
    stack.pop_back();
    if (v->is_object()) {
      for (auto it = v->begin(); it != v->end(); ++it)
        if (!kNameKeys.count(it.key())) stack.push_back(&it.value());
    } else if (v->is_array()) {
      for (auto& x : *v) stack.push_back(&x);
    } else if (v->is_string()) {
      const std::string text = v->get<std::string>();
      const std::string out = detail::rewriteNames(text, [&](const std::string& n) {
        if (n.find('.') == std::string::npos && !own.count(n) && parameters.hasConstant(n))
          return "(" + formatNumber(parameters.constant(n)) + ")";
        return n;
      });
      *v = out;
      try {
        const Expression e = Expression::parse(out, SymbolTable());
        if (e.isConstant()) {
          const double x = e.evaluate(nullptr);
          if (std::isfinite(x)) *v = x;
        }
      } catch (const ExpressionError&) {
        // not constant (time, coordinates): stays an expression
      }
    }
  }
}

}  // namespace joinery::scene_detail
