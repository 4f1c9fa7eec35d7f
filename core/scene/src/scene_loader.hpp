#pragma once
// Private to joinery::core: the scene loader's parts (docs/scene-format.md).
//   scene.cpp         the top level of a scene file (Loader::load), sceneFromJson, loadScene
//   scene_expand.cpp  includes, components and instances: their expansion into definitions
//   scene_names.cpp   names: qualification inside components, the flattened scene's strings

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <tuple>
#include <unordered_map>

#include "joinery/core/scene.hpp"

#include "joinery/core/library.hpp"
#include "joinery/core/registry.hpp"
#include "joinery/core/visual.hpp"
#include "overrides_support.hpp"
#include "scene_support.hpp"

namespace joinery::scene_detail {

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

inline const std::vector<std::string> kSceneKeys{"joinery", "name",   "description", "parameters",
                                          "include", "gravity", "bodies",     "joints",
                                          "forces",  "components", "instances", "simulation",
                                          "complete_massless", "outputs",
                                          "overrides",  // a record of --set (overrides.hpp); ignored
                                          "assembled",  // joinery assemble's state (assembled_state.hpp)
                                          "units"};     // the file's units, converted to SI on reading (scene_units.cpp)
inline const std::vector<std::string> kLibraryKeys{"joinery", "name", "description", "include", "components", "units"};
inline const std::vector<std::string> kComponentKeys{"description", "parameters", "bodies", "joints",
                                              "forces",      "ports",      "instances", "outputs",
                                              "units",       "descriptions"};  // documentation (ext.)
inline const std::vector<std::string> kInstanceKeys{"name", "component", "parameters", "placement"};

// ---- units (scene_units.cpp) ----------------------------------------------------------------

/// A file's "units": the factors that take its lengths, masses and angles to m, kg and rad.
using SceneUnits = UnitSystem;
/// Reads a "units" object. @throws InputError for an unknown unit or key.
SceneUnits readSceneUnits(const JsonCursor& c);
/// `doc` (a scene or a component library) with its numbers in SI and without "units".
/// @throws InputError at a field that has no conversion.
nlohmann::json convertToSi(const JsonCursor& doc, const SceneUnits& units);

// ---- scopes, plans ------------------------------------------------------------------------

/// The parameters of the scene or of one instance, and how to name that instance in messages.
struct Scope {
  SymbolTable parameters;
  std::string context;  ///< " (in instance ...)" appended to messages; empty for the scene
};
using ScopePtr = std::shared_ptr<const Scope>;

/// What Scene::resolved() is built from (scene.cpp): the scene's top-level values as loaded,
/// and each body, joint and force of the model in order with the parameters of its scope (its
/// expression strings are resolved with them) and, for a body, its `visual`. Built when
/// first asked for; the document is kept.
struct Flattening {
  template <class T>
  struct Element {
    const T* element = nullptr;  ///< owned by the scene's model
    ScopePtr scope;
  };
  std::string name;
  ScopePtr global;  ///< the scene's parameters
  Vector3d gravity = Vector3d::Zero();
  nlohmann::json simulation;  ///< as written (null when absent)
  std::vector<OutputSpec> outputs;
  nlohmann::json overrides;  ///< overridesJson of SceneOptions::overrides (null when none)
  std::vector<Element<Body>> bodies;
  std::vector<std::pair<std::size_t, nlohmann::json>> visuals;  ///< (body index, `visual` read), ascending
  std::vector<Element<Constraint>> joints;
  std::vector<Element<ForceElement>> forces;
  /// (index in `forces`, joints before it): the force elements written in `joints` (a compliant
  /// contact), in ascending order; the flattened scene writes them back there.
  std::vector<std::pair<std::size_t, std::size_t>> forcesInJoints;

  std::once_flag built;
  nlohmann::json document;  ///< the flattened scene, once built

  /// The flattened scene of `model`, which must be the model these elements belong to.
  /// @throws std::logic_error otherwise
  nlohmann::json build(const Model& model) const;
};

/// The loader's access to the private parts of a Scene.
struct SceneAccess {
  static Scene make(Model model, std::shared_ptr<Flattening> flattening) {
    Scene s(std::move(model));
    s.flattening_ = std::move(flattening);
    return s;
  }
  /// Records the `--set` overrides in a scene whose resolved() has not been built.
  static void setOverrides(Scene& s, nlohmann::json overrides) {
    if (s.flattening_) s.flattening_->overrides = std::move(overrides);
  }
  static const nlohmann::json& overrides(const Scene& s) {
    static const nlohmann::json kNone;
    return s.flattening_ ? s.flattening_->overrides : kNone;
  }
};

/// The placement that applies to the bodies of an instance, and where it was written.
struct PlacementInfo {
  Placement placement;
  std::string file, path, instance;
};
/// Shared by every body of an instance (and of the instances inside it that add no placement).
using PlacementPtr = std::shared_ptr<const PlacementInfo>;

/// A body, joint or force definition after renaming, ready for its factory.
struct Planned {
  nlohmann::json json;  ///< the renamed definition (when `source` is null)
  JsonCursor at;        ///< where the definition is written (its file and path)
  ScopePtr scope;
  PlacementPtr place;  ///< bodies only (never null for them)
  /// The definition as written, when renaming changes nothing (the scene's own bodies, and
  /// its joints and forces without ports): not copied. It lives in the scene document or an
  /// included library, both alive while the loader runs.
  const nlohmann::json* source = nullptr;
  const nlohmann::json& definition() const { return source ? *source : json; }
  /// A cursor on `v` (the definition, or a copy of it) at the place of the definition.
  JsonCursor cursor(const nlohmann::json& v) const {
    return &v == &at.value() ? at : JsonCursor(v, at.file(), at.displayPath());
  }
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

inline InputError withContext(const InputError& e, const std::string& context) {
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

/// guarded() at the file and path of `at` (rendered only for an error).
template <class F>
auto guarded(const JsonCursor& at, const std::string& context, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const InputError& e) {
    throw withContext(e, context);
  } catch (const ExpressionError& e) {
    throw InputError("in expression \"" + e.text() + "\": " + e.detail() + context, at.file(), at.displayPath());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("invalid value: ") + e.what() + context, at.file(), at.displayPath());
  } catch (const std::exception& e) {
    throw InputError(std::string(e.what()) + context, at.file(), at.displayPath());
  }
}

std::vector<std::string> keysOf(const nlohmann::json& object);
/// "/bodies/0 of file.json": where an element is written, for messages.
std::string where(const JsonCursor& c);
/// Requires "joinery": 1 in a scene or library document (`what` names it).
void checkVersion(const JsonCursor& doc, const std::string& what);
/// The `name` of a body, joint, force or instance: letters, digits, '_'; not "ground". With
/// `qualifiedAllowed` (bodies, joints and forces of the scene itself, as the flattened scene
/// writes them) also a qualified name "l1.rod".
std::string readName(const JsonCursor& element, bool qualifiedAllowed = false);
std::vector<std::string> bodyList(const LocalNames& ln);
/// A body reference ("body", "body1", "body2") inside a component: local name -> qualified.
std::string qualifyBody(const std::string& name, const JsonCursor& at, const LocalNames& ln);
/// An expression inside a component: its qualified coordinates "body.coord" get the prefix.
std::string qualifyExpression(const std::string& text, const JsonCursor& at, const LocalNames& ln);
/// A body, joint or force definition with its names qualified and its ports replaced by
/// body + point.
nlohmann::json rewriteElement(const JsonCursor& c, const LocalNames& ln, bool isBody);
/// True when rewriteElement() would return a copy of the definition as written: in the scene
/// itself (not in a component) names are kept, and only ports ("port", "port1", "port2" of a
/// joint or force) are replaced.
bool renamingKeeps(const JsonCursor& c, const LocalNames& ln, bool isBody);
/// Replaces parameter names in the expression strings of a definition by their values and
/// evaluates the strings that became constant.
void resolveStrings(nlohmann::json& element, const SymbolTable& parameters);
/// The folder includes are confined to (empty: not confined).
fs::path includeRootFor(const SceneOptions& options, const std::string& file);

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
  const Constraint* findConstraint(const std::string& name) const override { return builder_.findConstraint(name); }
  std::vector<std::string> constraintNames() const override { return builder_.constraintNames(); }

 private:
  const ModelBuilder& builder_;
  const SymbolTable* scope_ = nullptr;
};

struct InstancePlan {
  std::string name, component, prefix;
  JsonCursor def;
  ScopePtr scope;
  PlacementPtr place;
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
  /// `kind`: a string literal ("body", "joint", "force", "instance").
  void claimName(const std::string& qualified, const char* kind, const JsonCursor& element);
  void countElement(const JsonCursor& at);
  /// Frees the table of claimed names (after the expansion, which alone claims names).
  void releaseClaims() { std::unordered_map<std::string, Claim>().swap(names_); }
  InstancePlan prepareInstance(const JsonCursor& inst, const std::string& outerPrefix,
                               const Scope& outer, const PlacementPtr& outerPlace,
                               const std::vector<std::string>& stack);
  Expansion expandScope(const JsonCursor& def, const std::string& prefix, const ScopePtr& scope,
                        const PlacementPtr& place, std::vector<std::string>& stack,
                        const std::string& owner, bool component);
  BodyPtr placeBody(BodyPtr body, const Planned& p, SceneContext& ctx) const;

  std::deque<nlohmann::json> documents_;  // included libraries (stable addresses)
  SceneUnits units_;                      // the scene file's own "units" (SI without)
  std::map<std::string, ComponentDef> components_;
  std::set<std::string> included_;
  /// What a qualified name names and where, for the message of a duplicate (rendered only
  /// then; the cursor's documents outlive names_).
  struct Claim {
    const char* kind;
    JsonCursor where;
  };
  std::unordered_map<std::string, Claim> names_;  // qualified name -> what and where
  std::size_t elements_ = 0;
  fs::path includeRoot_;
  detail::OverrideSet* overrides_ = nullptr;  // --set, applied to instances as they are prepared
};

}  // namespace joinery::scene_detail
