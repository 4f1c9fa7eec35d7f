// The scene loader's expansion (scene_loader.hpp): component libraries (includes), component
// definitions, and instances expanded into bodies, joints and forces with qualified names and
// placements.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "scene_loader.hpp"

namespace joinery::scene_detail {

namespace {

const nlohmann::json kNull;

/// True when `p` (canonical) lies inside the folder `root` (canonical).
bool isInside(const fs::path& p, const fs::path& root) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (r->empty()) continue;  // a trailing separator
    if (q == p.end() || *q != *r) return false;
  }
  return true;
}

/// Reads an included file. Confined (`root` not empty), it is opened once and the file opened
/// is checked, not its name again: where /proc/self/fd/N says the open file is must lie inside
/// `root`, and the text is read through that descriptor, so a symbolic link or a FIFO swapped in
/// after the check of the name can neither leak an outside file nor block the loader.
nlohmann::json readIncluded(const std::string& display, const fs::path& root, const JsonCursor& entry,
                            const std::string& given) {
  if (root.empty()) return detail::readIncludedFile(display);
  const int fd = ::open(display.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return detail::readIncludedFile(display);  // its own error message
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  std::error_code ec;
  const fs::path opened = fs::read_symlink(self, ec);
  if (ec) return detail::readIncludedFile(display);  // no /proc: the check of the name stands
  if (!isInside(opened, root))
    entry.failWith("included file '" + given + "' opened as '" + opened.string() + "', outside '" + root.string() +
                   "' (it changed after it was checked); includes are confined to that folder");
  try {
    return detail::readIncludedFile(self);
  } catch (const InputError& e) {  // named as the scene names it
    throw InputError(e.detail(), display, e.jsonPath());
  }
}

}  // namespace

/// The folder includes are confined to (empty: not confined), from the options.
fs::path includeRootFor(const SceneOptions& options, const std::string& file) {
  if (!options.confineIncludes) return {};
  const std::string& given = options.includeRoot;
  std::error_code ec;
  fs::path root = given.empty() ? fs::absolute(file, ec).parent_path() : fs::path(given);
  fs::path canonical = fs::weakly_canonical(root, ec);
  return ec ? root.lexically_normal() : canonical;
}

void Loader::claimName(const std::string& qualified, const char* kind, const JsonCursor& element) {
  const auto [it, inserted] = names_.try_emplace(qualified, Claim{kind, element});
  if (!inserted) {
    const Claim& c = it->second;
    const std::string path = c.where.path();
    const std::string first = std::string(c.kind) + " at " + (path.empty() ? "/" : path) +
                              (c.where.file().empty() ? std::string() : " of " + c.where.file());
    element.at("name").failWith("duplicate name '" + qualified + "': already used by the " + first +
                                "; expected names unique among bodies, joints, forces and instances");
  }
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
    const bool shipped = given.rfind(kShippedLibraryPrefix, 0) == 0;  // joinery:NAME, installed with the program
    if (!includeRoot_.empty() && !shipped && !isInside(fs::path(key), includeRoot_))
      entry.failWith("included file '" + given + "' resolves to '" + key + "', outside '" + includeRoot_.string() +
                     "'; includes are confined to that folder (SceneOptions::confineIncludes, joinery --confine-includes)");
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
      documents_.push_back(readIncluded(display, shipped ? fs::path() : includeRoot_, entry, given));
      if (documents_.back().is_object() && documents_.back().contains("units")) {
        const JsonCursor written(documents_.back(), display);
        documents_.back() = convertToSi(written, readSceneUnits(written.at("units")));
      }
      const JsonCursor lib(documents_.back(), display);
      // never quote what an included file holds (it may be any file the scene names): say what
      // kind of value it is and what was expected
      if (!lib.value().is_object())
        lib.failWith(std::string("the included file holds a JSON ") + lib.value().type_name() +
                     ", not a component library; expected an object with \"joinery\": 1 (its content is not shown)");
      if (lib.has("joinery") && lib.at("joinery").value() != 1)
        lib.at("joinery").failWith("the included file's format version is not 1; expected \"joinery\": 1 in a "
                                   "component library (the value is not shown)");
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

namespace {

/// A hint for a bad instance parameter whose component documents its unit (docs/library.md):
/// parameters are plain numbers in that unit, not text with a unit.
std::string unitHint(const JsonCursor& def, const std::string& parameter) {
  if (!def.has("units") || !def.value().at("units").contains(parameter)) return {};
  const nlohmann::json& unit = def.value().at("units").at(parameter);
  if (!unit.is_string()) return {};
  return " (parameter '" + parameter + "' is a plain number in " + unit.get<std::string>() +
         ", as 'joinery library' lists; write no unit in the value)";
}

}  // namespace

InstancePlan Loader::prepareInstance(const JsonCursor& inst, const std::string& outerPrefix,
                                     const Scope& outer, const PlacementPtr& outerPlace,
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
      try {
        fixed.setConstant(it.key(), evaluateNumber(v, outer.parameters));
      } catch (const InputError& e) {
        throw withContext(e, unitHint(def, it.key()));
      }
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
  PlacementPtr place = outerPlace;
  if (inst.has("placement")) {
    const JsonCursor pc = inst.at("placement");
    auto own = std::make_shared<PlacementInfo>();
    own->placement = outerPlace->placement.then(detail::parsePlacement(pc, outer.parameters));
    own->file = pc.file();
    own->path = pc.displayPath();
    own->instance = qualified;
    place = std::move(own);
  }
  return InstancePlan{name, component, qualified + ".", def, scope, place};
}

// long: expands one scope (its bodies, joints, forces, then its instances recursively) with
// the name qualification and placement of each kind next to its checks.
Expansion Loader::expandScope(const JsonCursor& def, const std::string& prefix, const ScopePtr& scope,
                              const PlacementPtr& place, std::vector<std::string>& stack,
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
    bodyCursors.reserve(bodies.size());
    out.bodyNames.reserve(bodies.size());
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
  // the names a component's definitions may use (the scene's own names are not renamed)
  if (component) ln.bodies.insert(out.bodyNames.begin(), out.bodyNames.end());
  // a definition renaming keeps is not copied (Planned::source)
  const auto plan = [&](const JsonCursor& c, bool isBody) {
    PlacementPtr placed = isBody ? place : nullptr;
    if (renamingKeeps(c, ln, isBody)) return Planned{{}, c, scope, std::move(placed), &c.value()};
    return Planned{rewriteElement(c, ln, isBody), c, scope, std::move(placed)};
  };

  guard([&] {
    out.bodies.reserve(bodyCursors.size() + nested.bodies.size());
    for (const JsonCursor& b : bodyCursors) out.bodies.push_back(plan(b, true));

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
      list->reserve(elements.size() + (list == &out.joints ? nested.joints.size() : nested.forces.size()));
      for (std::size_t i = 0; i < elements.size(); ++i) {
        const JsonCursor e = elements.at(i);
        e.requireObject();
        claimName(prefix + readName(e, !component), kind, e);
        countElement(e);
        list->push_back(plan(e, false));
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
  const JsonCursor at(kNull, p.place->file, p.place->path);
  detail::applyPlacement(j, p.place->placement, at);
  try {
    return BodyRegistry::instance().create(p.cursor(j), ctx);
  } catch (const InputError& e) {
    at.failWith("after the placement of instance '" + p.place->instance + "', body '" + body->name() +
                "' is invalid: " + e.detail());
  }
}

}  // namespace joinery::scene_detail

