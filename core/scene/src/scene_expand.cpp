#include "joinery/core/scene.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <system_error>
#include <tuple>

#include "joinery/core/library.hpp"
#include "joinery/core/registry.hpp"
#include "joinery/core/visual.hpp"
#include "overrides_support.hpp"
#include "scene_support.hpp"

namespace joinery {

namespace {

namespace fs = std::filesystem;
using detail::evaluateNumber;
using detail::formatNumber;
using detail::joinNames;
using detail::Placement;

/// Components within components, at most this deep.
constexpr std::size_t kMaxInstanceDepth = 32;
/// Includes within includes, at most this deep.
constexpr std::size_t kMaxIncludeDepth = 64;
/// Bodies, joints, forces and instances after expansion, at most (guards against
/// exponential expansion of components made of many instances of each other).
constexpr std::size_t kMaxElements = 300'000;  // a chain of 131072 links is 262144

const std::vector<std::string> kSceneKeys{"joinery", "name",   "description", "parameters",
                                          "include", "gravity", "bodies",     "joints",
                                          "forces",  "components", "instances", "simulation",
                                          "complete_massless", "outputs",
                                          "overrides"};  // a record of --set (overrides.hpp); ignored
const std::vector<std::string> kLibraryKeys{"joinery", "name", "description", "include", "components"};
const std::vector<std::string> kComponentKeys{"description", "parameters", "bodies", "joints",
                                              "forces",      "ports",      "instances", "outputs",
                                              "units",       "descriptions"};  // documentation (ext.)
const std::vector<std::string> kInstanceKeys{"name", "component", "parameters", "placement"};

const nlohmann::json kNull;

// ---- scopes, plans ------------------------------------------------------------------------

/// The parameters of the scene or of one instance, and how to name that instance in messages.
struct Scope {
  SymbolTable parameters;
  std::string context;  ///< " (in instance ...)" appended to messages; empty for the scene
};
using ScopePtr = std::shared_ptr<const Scope>;

/// The placement that applies to the bodies of an instance, and where it was written.
struct PlacementInfo {
  Placement placement;
  std::string file, path, instance;
};

/// A body, joint or force definition after renaming, ready for its factory.
struct Planned {
  nlohmann::json json;
  std::string file, path;  ///< where the definition is written
  ScopePtr scope;
  PlacementInfo place;     ///< bodies only
};

/// A port: a point fixed in a body.
struct Port {
  std::string body;     ///< qualified body name
  nlohmann::json point; ///< numbers
};

/// What expanding the scene or one instance produces.
struct Expansion {
  std::vector<Planned> bodies, joints, forces;
  std::map<std::string, Port> ports;   ///< names relative to the expanded scope ("top", "l1.top")
  std::vector<std::string> bodyNames;  ///< relative names ("rod", "l1.rod")
  std::vector<OutputSpec> outputs;     ///< output channels, names qualified
};

/// Names visible while renaming the definitions of one scope.
struct LocalNames {
  std::string prefix;      ///< "arm.l1." for an instance, "" for the scene
  bool component = false;  ///< names are local (inside a component)
  std::string owner;       ///< "component 'link'" or "the scene"
  std::set<std::string> bodies;
  const std::map<std::string, Port>* ports = nullptr;
};

struct ComponentDef {
  const nlohmann::json* json = nullptr;
  std::string file, path;
};

InputError withContext(const InputError& e, const std::string& context) {
  if (context.empty()) return e;
  return InputError(e.detail() + context, e.file(), e.jsonPath());
}

/// Runs `f`, turning every failure into an InputError at (file, path) with `context`.
template <class F>
auto guarded(const std::string& file, const std::string& path, const std::string& context, F&& f)
    -> decltype(f()) {
  try {
    return f();
  } catch (const InputError& e) {
    throw withContext(e, context);
  } catch (const ExpressionError& e) {
    throw InputError("in expression \"" + e.text() + "\": " + e.detail() + context, file, path);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("invalid value: ") + e.what() + context, file, path);
  } catch (const std::exception& e) {
    throw InputError(std::string(e.what()) + context, file, path);
  }
}

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

/// The `name` of a body, joint, force or instance: letters, digits, '_'; not "ground". With
/// `qualifiedAllowed` (bodies, joints and forces of the scene itself, as the flattened scene
/// writes them) also a qualified name "l1.rod".
std::string readName(const JsonCursor& element, bool qualifiedAllowed = false) {
  const JsonCursor n = element.at("name");
  const std::string name = n.string();
  if (!detail::isValidName(name) && !(qualifiedAllowed && isQualifiedName(name)))
    n.fail("a name made of letters, digits and '_' only (the loader adds the dots of instance names)");
  if (name == "ground")
    n.failWith("'ground' is the fixed world body and may not be declared; expected another name");
  return name;
}

// ---- the loader's factory context --------------------------------------------------------

class SceneContext final : public FactoryContext {
 public:
  explicit SceneContext(const ModelBuilder& builder) : builder_(builder) {}
  void setScope(const SymbolTable& parameters) { scope_ = &parameters; }

  double number(const JsonCursor& c) const override { return evaluateNumber(c, *scope_); }

  const Body& body(const JsonCursor& c) const override {
    if (!c.value().is_string()) c.fail("a body name (a string)");
    const std::string name = c.value().get<std::string>();
    if (const Body* b = builder_.findBody(name)) return *b;
    c.failWith("unknown body '" + name + "'" + didYouMean(name, builder_.bodyNames()) +
               "; expected the name of a body of the scene or 'ground'");
  }

  const Body* findBody(const std::string& name) const override { return builder_.findBody(name); }
  const SymbolTable& parameters() const override { return *scope_; }

 private:
  const ModelBuilder& builder_;
  const SymbolTable* scope_ = nullptr;
};

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

std::string qualifyExpression(const std::string& text, const JsonCursor& at, const LocalNames& ln) {
  if (!ln.component) return text;
  return detail::rewriteNames(text, [&](const std::string& n) {
    return n.find('.') == std::string::npos ? n : qualifyCoordinate(n, at, ln, text);
  });
}

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

/// A body, joint or force definition with its names qualified and its ports replaced by
/// body + point.
nlohmann::json rewriteElement(const JsonCursor& c, const LocalNames& ln, bool isBody) {
  c.requireObject();
  const std::string name = readName(c, !ln.component);
  nlohmann::json out = nlohmann::json::object();
  static const std::set<std::string> kBodyRefs{"body", "body1", "body2"};
  static const std::set<std::string> kPortRefs{"port", "port1", "port2"};
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

// ---- the resolved scene ------------------------------------------------------------------

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
                                               "body2", "coordinate", "coordinates"};
  std::vector<nlohmann::json*> stack{&element};
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

// ---- the loader --------------------------------------------------------------------------

struct InstancePlan {
  std::string name, component, prefix;
  JsonCursor def;
  ScopePtr scope;
  PlacementInfo place;
};

class Loader {
 public:
  /// `includeRoot`: when not empty, every include must resolve (symbolic links followed)
  /// inside this folder.
  explicit Loader(fs::path includeRoot = {}, detail::OverrideSet* overrides = nullptr)
      : includeRoot_(std::move(includeRoot)), overrides_(overrides) {}
  Scene load(const nlohmann::json& doc, const std::string& file);

 private:
  struct IncludeFrame {
    std::string key, display;
  };

  void addIncludes(const JsonCursor& list, const fs::path& base, std::vector<IncludeFrame>& stack);
  void addComponents(const JsonCursor& components);
  void claimName(const std::string& qualified, const std::string& kind, const JsonCursor& element);
  void countElement(const JsonCursor& at);
  InstancePlan prepareInstance(const JsonCursor& inst, const std::string& outerPrefix,
                               const Scope& outer, const PlacementInfo& outerPlace,
                               const std::vector<std::string>& stack);
  Expansion expandScope(const JsonCursor& def, const std::string& prefix, const ScopePtr& scope,
                        const PlacementInfo& place, std::vector<std::string>& stack,
                        const std::string& owner, bool component);
  BodyPtr placeBody(BodyPtr body, const Planned& p, SceneContext& ctx) const;

  std::deque<nlohmann::json> documents_;  // included libraries (stable addresses)
  std::map<std::string, ComponentDef> components_;
  std::set<std::string> included_;
  std::map<std::string, std::string> names_;  // qualified name -> what and where
  std::size_t elements_ = 0;
  fs::path includeRoot_;
  detail::OverrideSet* overrides_ = nullptr;  // --set, applied to instances as they are prepared
};

/// True when `p` (canonical) lies inside the folder `root` (canonical).
bool isInside(const fs::path& p, const fs::path& root) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (r->empty()) continue;  // a trailing separator
    if (q == p.end() || *q != *r) return false;
  }
  return true;
}

/// The folder includes are confined to (empty: not confined).
fs::path includeRootFor(const SceneOptions& options, const std::string& file) {
  if (!options.confineIncludes) return {};
  std::error_code ec;
  fs::path root = options.includeRoot.empty() ? fs::absolute(file, ec).parent_path() : fs::path(options.includeRoot);
  fs::path canonical = fs::weakly_canonical(root, ec);
  return ec ? root.lexically_normal() : canonical;
}

void Loader::claimName(const std::string& qualified, const std::string& kind, const JsonCursor& element) {
  const auto [it, inserted] = names_.emplace(qualified, kind + " at " + where(element));
  if (!inserted)
    element.at("name").failWith("duplicate name '" + qualified + "': already used by the " + it->second +
                                "; expected names unique among bodies, joints, forces and instances");
}

void Loader::countElement(const JsonCursor& at) {
  if (++elements_ > kMaxElements)
    at.failWith("the scene expands to more than " + std::to_string(kMaxElements) +
                " bodies, joints, forces and instances; expected a smaller model (check components "
                "that contain many instances of each other)");
}

void Loader::addIncludes(const JsonCursor& list, const fs::path& base, std::vector<IncludeFrame>& stack) {
  if (!list.value().is_array()) list.fail("an array of paths of component libraries (relative to this file)");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonCursor entry = list.at(i);
    if (!entry.value().is_string() || entry.value().get<std::string>().empty())
      entry.fail("the path of a component library (a non-empty string, relative to this file)");
    const std::string given = entry.value().get<std::string>();
    fs::path path = given.rfind(kShippedLibraryPrefix, 0) == 0 ? detail::shippedLibraryFile(entry, given) : fs::path(given);
    if (path.is_relative()) path = base / path;
    path = path.lexically_normal();
    const std::string display = path.string();
    std::error_code ec;
    if (!fs::exists(path, ec))
      entry.failWith("included file '" + given + "' not found (looked for '" + display +
                     "'); expected a path relative to the including file");
    if (!fs::is_regular_file(path, ec))
      entry.failWith("included path '" + given + "' ('" + display + "') is not a regular file; expected a JSON component library");
    std::string key = fs::weakly_canonical(path, ec).string();
    if (ec) key = fs::absolute(path, ec).string();
    if (!includeRoot_.empty() && !isInside(fs::path(key), includeRoot_))
      entry.failWith("included file '" + given + "' resolves to '" + key + "', outside '" + includeRoot_.string() +
                     "'; includes are confined to that folder (SceneOptions::includeRoot, --include-root)");
    const auto cyc = std::find_if(stack.begin(), stack.end(), [&](const IncludeFrame& f) { return f.key == key; });
    if (cyc != stack.end()) {
      std::string chain;
      for (auto it = cyc; it != stack.end(); ++it) chain += it->display + " -> ";
      entry.failWith("include cycle: " + chain + display + "; expected libraries that do not include each other in a loop");
    }
    if (stack.size() >= kMaxIncludeDepth)
      entry.failWith("includes nested more than " + std::to_string(kMaxIncludeDepth) + " levels deep");
    if (!included_.insert(key).second) continue;  // already loaded (included twice, no cycle)
    const std::string context = " (included from " + where(entry) + ")";
    stack.push_back({key, display});
    try {
      documents_.push_back(detail::readIncludedFile(display));
      const JsonCursor lib(documents_.back(), display);
      checkVersion(lib, "a component library");
      lib.rejectUnknownKeys(kLibraryKeys);
      if (lib.has("name")) (void)lib.at("name").string();
      if (lib.has("description")) (void)lib.at("description").string();
      if (lib.has("include")) addIncludes(lib.at("include"), path.parent_path(), stack);
      if (lib.has("components")) addComponents(lib.at("components"));
    } catch (const InputError& e) {
      if (e.file() != display) throw;
      throw withContext(e, context);
    }
    stack.pop_back();
  }
}

void Loader::addComponents(const JsonCursor& components) {
  if (!components.value().is_object()) components.fail("an object: component name -> definition");
  for (auto it = components.value().begin(); it != components.value().end(); ++it) {
    const std::string& name = it.key();
    const JsonCursor c = components.at(name);
    if (!detail::isValidName(name))
      c.failWith("'" + name + "' is not a valid component name; expected letters, digits and '_' only");
    const auto known = components_.find(name);
    if (known != components_.end())
      c.failWith("component '" + name + "' is defined twice: also at " + known->second.path +
                 (known->second.file.empty() ? "" : " of " + known->second.file) +
                 "; expected unique component names (across included libraries)");
    c.requireObject();
    c.rejectUnknownKeys(kComponentKeys);
    for (const char* key : {"bodies", "joints", "forces", "instances"})
      if (c.has(key)) c.at(key).requireArray();
    for (const char* key : {"parameters", "ports"})
      if (c.has(key)) c.at(key).requireObject();
    if (c.has("description")) (void)c.at("description").string();
    for (const char* key : {"units", "descriptions"})
      if (c.has(key)) detail::checkParameterNotes(c, key);
    components_.emplace(name, ComponentDef{&c.value(), c.file(), c.path()});
  }
}

InstancePlan Loader::prepareInstance(const JsonCursor& inst, const std::string& outerPrefix,
                                     const Scope& outer, const PlacementInfo& outerPlace,
                                     const std::vector<std::string>& stack) {
  inst.requireObject();
  inst.rejectUnknownKeys(kInstanceKeys);
  const std::string name = readName(inst);
  const std::string qualified = outerPrefix + name;
  claimName(qualified, "instance", inst);
  countElement(inst);
  const JsonCursor compField = inst.at("component");
  const std::string component = compField.string();
  const auto found = components_.find(component);
  if (found == components_.end()) {
    std::vector<std::string> names;
    for (const auto& [n, d] : components_) names.push_back(n);
    compField.failWith("unknown component '" + component + "'" + didYouMean(component, names) +
                       (names.empty() ? std::string("; no components are defined (declare them in "
                                                    "'components' or include a library)")
                                      : "; expected one of: " + joinNames(names)));
  }
  if (std::find(stack.begin(), stack.end(), component) != stack.end()) {
    std::string chain;
    for (auto it = std::find(stack.begin(), stack.end(), component); it != stack.end(); ++it) chain += *it + " -> ";
    compField.failWith("component cycle: " + chain + component +
                       "; expected components that do not contain instances of themselves");
  }
  if (stack.size() >= kMaxInstanceDepth)
    compField.failWith("instances nested more than " + std::to_string(kMaxInstanceDepth) +
                       " levels deep (components within components); expected at most " +
                       std::to_string(kMaxInstanceDepth));
  const JsonCursor def(*found->second.json, found->second.file, found->second.path);

  std::vector<std::string> declared;
  if (def.has("parameters")) declared = keysOf(def.at("parameters").value());
  SymbolTable fixed;
  if (inst.has("parameters")) {
    const JsonCursor overrides = inst.at("parameters");
    overrides.requireObject();
    for (auto it = overrides.value().begin(); it != overrides.value().end(); ++it) {
      const JsonCursor v = overrides.at(it.key());
      if (std::find(declared.begin(), declared.end(), it.key()) == declared.end())
        v.failWith("unknown parameter '" + it.key() + "' of component '" + component + "'" +
                   didYouMean(it.key(), declared) +
                   (declared.empty() ? std::string("; the component declares no parameters")
                                     : "; expected one of: " + joinNames(declared)));
      fixed.setConstant(it.key(), evaluateNumber(v, outer.parameters));
    }
  }
  if (overrides_) overrides_->applyToInstance(qualified, declared, outer.parameters, fixed);
  auto scope = std::make_shared<Scope>();
  scope->context = " (in instance '" + qualified + "' of component '" + component + "', declared at " +
                   where(inst) + ")";
  try {
    scope->parameters = def.has("parameters") ? detail::evaluateParameters(def.at("parameters"), fixed) : fixed;
  } catch (const InputError& e) {
    throw withContext(e, scope->context);
  }
  PlacementInfo place = outerPlace;
  if (inst.has("placement")) {
    const JsonCursor pc = inst.at("placement");
    place.placement = outerPlace.placement.then(detail::parsePlacement(pc, outer.parameters));
    place.file = pc.file();
    place.path = pc.displayPath();
    place.instance = qualified;
  }
  return InstancePlan{name, component, qualified + ".", def, scope, place};
}

// long: expands one scope (its bodies, joints, forces, then its instances recursively) with
// the name qualification and placement of each kind next to its checks.
Expansion Loader::expandScope(const JsonCursor& def, const std::string& prefix, const ScopePtr& scope,
                              const PlacementInfo& place, std::vector<std::string>& stack,
                              const std::string& owner, bool component) {
  Expansion out;
  LocalNames ln{prefix, component, owner, {}, &out.ports};
  const auto guard = [&](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      throw withContext(e, scope->context);
    }
  };
  std::vector<JsonCursor> bodyCursors;
  guard([&] {
    if (!def.has("bodies")) return;  // a component may consist of instances only
    const JsonCursor bodies = def.at("bodies");
    if (!bodies.value().is_array()) bodies.fail("an array of bodies");
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const JsonCursor b = bodies.at(i);
      b.requireObject();
      const std::string name = readName(b, !component);
      claimName(prefix + name, "body", b);
      countElement(b);
      out.bodyNames.push_back(name);
      bodyCursors.push_back(b);
    }
  });

  Expansion nested;
  if (def.has("instances")) {
    std::vector<JsonCursor> instances;
    guard([&] {
      const JsonCursor list = def.at("instances");
      if (!list.value().is_array()) list.fail("an array of instances");
      for (std::size_t i = 0; i < list.size(); ++i) instances.push_back(list.at(i));
    });
    for (const JsonCursor& inst : instances) {
      std::optional<InstancePlan> plan;
      guard([&] { plan.emplace(prepareInstance(inst, prefix, *scope, place, stack)); });
      stack.push_back(plan->component);
      Expansion sub = expandScope(plan->def, plan->prefix, plan->scope, plan->place, stack,
                                  "component '" + plan->component + "'", true);
      stack.pop_back();
      for (const auto& n : sub.bodyNames) out.bodyNames.push_back(plan->name + "." + n);
      for (auto& [n, p] : sub.ports) out.ports.emplace(plan->name + "." + n, std::move(p));
      for (auto& p : sub.bodies) nested.bodies.push_back(std::move(p));
      for (auto& p : sub.joints) nested.joints.push_back(std::move(p));
      for (auto& p : sub.forces) nested.forces.push_back(std::move(p));
      for (auto& o : sub.outputs) nested.outputs.push_back(std::move(o));
    }
  }
  ln.bodies.insert(out.bodyNames.begin(), out.bodyNames.end());

  guard([&] {
    for (const JsonCursor& b : bodyCursors)
      out.bodies.push_back(Planned{rewriteElement(b, ln, true), b.file(), b.displayPath(), scope, place});

    if (component && def.has("ports")) {
      const JsonCursor ports = def.at("ports");
      std::map<std::string, Port> own;
      for (auto it = ports.value().begin(); it != ports.value().end(); ++it) {
        const JsonCursor pc = ports.at(it.key());
        if (!detail::isValidName(it.key()))
          pc.failWith("'" + it.key() + "' is not a valid port name; expected letters, digits and '_' only");
        pc.requireObject();
        pc.rejectUnknownKeys({"body", "point", "port"});
        Port port;
        if (pc.has("port")) {
          if (pc.has("body") || pc.has("point"))
            pc.at("port").failWith("a port is either {\"body\", \"point\"} or {\"port\"} (another port re-exported), not both");
          const JsonCursor ref = pc.at("port");
          const std::string n = ref.string();
          const auto f = out.ports.find(n);
          if (f == out.ports.end()) {
            std::vector<std::string> names;
            for (const auto& [k, p] : out.ports) names.push_back(k);
            ref.failWith("unknown port '" + n + "'" + didYouMean(n, names) +
                         "; expected a port of an instance of " + owner + " ('<instance>.<port>')" +
                         (names.empty() ? std::string() : ": " + joinNames(names)));
          }
          port = f->second;
        } else {
          const JsonCursor bc = pc.at("body");
          const std::string b = bc.string();
          if (!ln.bodies.count(b))
            bc.failWith("unknown body '" + b + "' in " + owner + didYouMean(b, bodyList(ln)) +
                        "; expected one of its bodies (" + joinNames(bodyList(ln)) + ")");
          port.body = prefix + b;
          port.point = nlohmann::json::array({0.0, 0.0, 0.0});
          if (pc.has("point")) {
            const JsonCursor pt = pc.at("point");
            if (!pt.value().is_array() || (pt.size() != 2 && pt.size() != 3))
              pt.fail("an array of 2 or 3 numbers (the point in the body's frame)");
            port.point = nlohmann::json::array();
            for (std::size_t i = 0; i < pt.size(); ++i)
              port.point.push_back(evaluateNumber(pt.at(i), scope->parameters));
          }
        }
        own.emplace(it.key(), std::move(port));
      }
      for (auto& [n, p] : own) out.ports.emplace(n, std::move(p));
    }

    for (const auto& [key, kind, list] :
         {std::tuple<const char*, const char*, std::vector<Planned>*>{"joints", "joint", &out.joints},
          std::tuple<const char*, const char*, std::vector<Planned>*>{"forces", "force", &out.forces}}) {
      if (!def.has(key)) continue;
      const JsonCursor elements = def.at(key);
      if (!elements.value().is_array()) elements.fail(std::string("an array of ") + key);
      for (std::size_t i = 0; i < elements.size(); ++i) {
        const JsonCursor e = elements.at(i);
        e.requireObject();
        claimName(prefix + readName(e, !component), kind, e);
        countElement(e);
        list->push_back(Planned{rewriteElement(e, ln, false), e.file(), e.displayPath(), scope, place});
      }
    }
    if (def.has("outputs")) {  // output channels (docs/outputs.md)
      const JsonCursor list = def.at("outputs");
      if (!list.value().is_array()) list.fail("an array of output channels");
      const detail::OutputNaming naming{
          component ? prefix : std::string(),
          [&](const std::string& b, const JsonCursor& at) { return qualifyBody(b, at, ln); },
          [&](const std::string& text, const JsonCursor& at) { return qualifyExpression(text, at, ln); },
          [&](const std::string& portName, const JsonCursor& at) {
            const auto found = ln.ports->find(portName);
            if (found == ln.ports->end()) {
              std::vector<std::string> names;
              for (const auto& [n, p] : *ln.ports) names.push_back(n);
              at.failWith("unknown port '" + portName + "'" + didYouMean(portName, names) +
                          (names.empty() ? "; there are no ports in " + ln.owner
                                         : "; expected one of: " + joinNames(names)));
            }
            return std::make_pair(found->second.body, found->second.point);
          }};
      for (std::size_t i = 0; i < list.size(); ++i)
        out.outputs.push_back(detail::readOutputSpec(list.at(i), naming, scope->parameters));
    }
  });
  for (auto& p : nested.bodies) out.bodies.push_back(std::move(p));
  for (auto& p : nested.joints) out.joints.push_back(std::move(p));
  for (auto& p : nested.forces) out.forces.push_back(std::move(p));
  for (auto& o : nested.outputs) out.outputs.push_back(std::move(o));
  return out;
}

BodyPtr Loader::placeBody(BodyPtr body, const Planned& p, SceneContext& ctx) const {
  nlohmann::json j = body->toJson();
  // fields the type has (its registered example shows them) but toJson() left at their default
  if (j.contains("type") && j["type"].is_string())
    if (const auto* info = BodyRegistry::instance().find(j["type"].get<std::string>())) {
      if (info->example.contains("angle") && !j.contains("angle")) j["angle"] = 0.0;
      if (info->example.contains("orientation") && !j.contains("orientation"))
        j["orientation"] = nlohmann::json::array({1.0, 0.0, 0.0, 0.0});
    }
  const JsonCursor at(kNull, p.place.file, p.place.path);
  detail::applyPlacement(j, p.place.placement, at);
  try {
    return BodyRegistry::instance().create(JsonCursor(j, p.file, p.path), ctx);
  } catch (const InputError& e) {
    at.failWith("after the placement of instance '" + p.place.instance + "', body '" + body->name() +
                "' is invalid: " + e.detail());
  }
}

/// The `simulation` object as written, with the global parameters its numbers may use. Its
/// keys and values belong to the integrators (parseSimulationSettings in
/// integrators/settings.hpp), which validate them.
SceneSection readSimulation(const JsonCursor& root, const SymbolTable& scope) {
  SceneSection s;
  s.file = root.file();
  s.path = "/simulation";
  s.parameters = scope;
  if (!root.has("simulation")) return s;
  const JsonCursor c = root.at("simulation");
  c.requireObject();
  s.json = c.value();
  return s;
}

/// The flattened scene (Scene::resolved) from its evaluated parts.
nlohmann::json resolvedScene(const std::string& name, const SymbolTable& parameters, const Vector3d& gravity,
                             nlohmann::json bodies, nlohmann::json joints, nlohmann::json forces) {
  nlohmann::json resolved = {{"joinery", 1}};
  if (!name.empty()) resolved["name"] = name;
  if (!parameters.constants().empty()) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [n, v] : parameters.constants()) params[n] = v;
    resolved["parameters"] = params;
  }
  resolved["gravity"] = {gravity.x(), gravity.y(), gravity.z()};
  resolved["bodies"] = std::move(bodies);
  resolved["joints"] = std::move(joints);
  resolved["forces"] = std::move(forces);
  return resolved;
}

// long: the top level of a scene file in reading order (version, keys, parameters, includes,
// components, gravity, expansion, creation of bodies / joints / forces, the model).
Scene Loader::load(const nlohmann::json& doc, const std::string& file) {
  if (detail::jsonDepth(doc, detail::kMaxJsonDepth) > detail::kMaxJsonDepth)
    throw InputError("JSON nesting is more than " + std::to_string(detail::kMaxJsonDepth) +
                         " levels deep; expected at most " + std::to_string(detail::kMaxJsonDepth),
                     file, "/");
  const JsonCursor root(doc, file);
  checkVersion(root, "a scene");
  root.rejectUnknownKeys(kSceneKeys);
  std::string name;
  if (root.has("name")) name = root.at("name").string();
  if (root.has("description")) (void)root.at("description").string();
  bool completeMassless = false;
  if (root.has("complete_massless")) {
    const JsonCursor cm = root.at("complete_massless");
    if (!cm.value().is_boolean()) cm.fail("true or false (add the missing force balances of massless points)");
    completeMassless = cm.value().get<bool>();
  }

  auto global = std::make_shared<Scope>();
  if (root.has("parameters")) global->parameters = detail::evaluateParameters(root.at("parameters"), SymbolTable());

  std::vector<IncludeFrame> includeStack;
  std::error_code ec;
  const fs::path base = file.empty() ? fs::current_path(ec) : fs::path(file).parent_path();
  if (!file.empty()) {
    std::string key = fs::weakly_canonical(fs::path(file), ec).string();
    if (ec) key = file;
    includeStack.push_back({key, file});
    included_.insert(key);
  }
  if (root.has("include")) addIncludes(root.at("include"), base, includeStack);
  if (root.has("components")) addComponents(root.at("components"));

  if (!root.has("bodies"))
    root.failWith("missing required field 'bodies'; expected an array of bodies (it may be empty "
                  "when instances provide the bodies)");

  ModelBuilder builder;
  SceneContext ctx(builder);
  ctx.setScope(global->parameters);
  Vector3d gravity = Vector3d::Zero();
  if (root.has("gravity")) {
    const JsonCursor g = root.at("gravity");
    if (!g.value().is_array() || (g.size() != 2 && g.size() != 3))
      g.fail("an array [gx, gy, gz] (m/s^2; [gx, gy] for planar scenes)");
    gravity = ctx.vector3(g, true);
  }
  SceneSection simulation = readSimulation(root, global->parameters);

  std::vector<std::string> componentStack;
  Expansion all = expandScope(root, "", global, PlacementInfo{}, componentStack, "the scene", false);
  if (all.bodies.empty())
    root.at("bodies").failWith("the scene has no bodies; expected at least one body (in 'bodies' or from instances)");

  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array(),
                 forces = nlohmann::json::array();
  for (const Planned& p : all.bodies) {
    ctx.setScope(p.scope->parameters);
    guarded(p.file, p.path, p.scope->context, [&] {
      // `visual` (drawing only, any body type) is read here and kept in the flattened scene
      nlohmann::json definition = p.json, visual;
      if (definition.is_object() && definition.contains("visual")) {
        visual = readVisual(JsonCursor(p.json, p.file, p.path).at("visual"), ctx);
        definition.erase("visual");
      }
      BodyPtr body = BodyRegistry::instance().create(JsonCursor(definition, p.file, p.path), ctx);
      if (!p.place.placement.isIdentity()) body = placeBody(std::move(body), p, ctx);
      nlohmann::json j = body->toJson();
      resolveStrings(j, p.scope->parameters);
      if (!visual.is_null()) j["visual"] = std::move(visual);
      bodies.push_back(std::move(j));
      builder.addBody(std::move(body));
    });
  }
  for (const Planned& p : all.joints) {
    ctx.setScope(p.scope->parameters);
    guarded(p.file, p.path, p.scope->context, [&] {
      ConstraintPtr c = ConstraintRegistry::instance().create(JsonCursor(p.json, p.file, p.path), ctx);
      nlohmann::json j = c->toJson();
      resolveStrings(j, p.scope->parameters);
      joints.push_back(std::move(j));
      builder.addConstraint(std::move(c));
    });
  }
  for (const Planned& p : all.forces) {
    ctx.setScope(p.scope->parameters);
    guarded(p.file, p.path, p.scope->context, [&] {
      ForceElementPtr f = ForceRegistry::instance().create(JsonCursor(p.json, p.file, p.path), ctx);
      nlohmann::json j = f->toJson();
      resolveStrings(j, p.scope->parameters);
      forces.push_back(std::move(j));
      builder.addForce(std::move(f));
    });
  }
  builder.setGravity(gravity);
  Model model = guarded(file, "/", "", [&] { return builder.build(); });

  nlohmann::json resolved =
      resolvedScene(name, global->parameters, gravity, std::move(bodies), std::move(joints), std::move(forces));
  if (simulation.given()) resolved["simulation"] = simulation.json;
  if (!all.outputs.empty()) {  // output channels: checked against the model now (exit 2 at load)
    (void)OutputChannels(model, all.outputs);
    nlohmann::json outs = nlohmann::json::array();
    for (const OutputSpec& o : all.outputs) outs.push_back(detail::outputSpecJson(o));
    resolved["outputs"] = std::move(outs);
  }
  Scene scene{name, file, std::move(model), std::move(simulation), std::move(resolved), completeMassless, {}, {}};
  scene.outputs = std::move(all.outputs);
  return scene;
}

}  // namespace

Scene sceneFromJson(const nlohmann::json& document, const std::string& file) {
  return sceneFromJson(document, file, SceneOptions{});
}

Scene sceneFromJson(const nlohmann::json& document, const std::string& file, const SceneOptions& options) {
  try {
    Scene scene = [&] {
      if (options.overrides.empty()) return Loader(includeRootFor(options, file)).load(document, file);
      nlohmann::json doc = document;  // scene parameters and settings are written into a copy
      detail::OverrideSet set(options.overrides, doc, file);
      Scene s = Loader(includeRootFor(options, file), &set).load(doc, file);
      set.requireAllUsed();
      s.resolved["overrides"] = overridesJson(options.overrides);
      return s;
    }();
    if (options.completeMassless) scene.completeMassless = true;
    return scene;
  } catch (const InputError&) {
    throw;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("invalid JSON value: ") + e.what(), file, "/");
  } catch (const std::exception& e) {
    throw InputError(std::string("cannot load the scene: ") + e.what(), file, "/");
  }
}

Scene loadScene(const std::string& path) { return loadScene(path, SceneOptions{}); }

Scene loadScene(const std::string& path, const SceneOptions& options) {
  nlohmann::json document = detail::readSceneFile(path);
  return sceneFromJson(document, path, options);
}

}  // namespace joinery
