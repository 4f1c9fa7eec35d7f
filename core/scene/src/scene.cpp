// The scene loader (docs/scene-format.md): the top level of a scene file. The parts it uses
// are in scene_loader.hpp (expansion of includes, components and instances: scene_expand.cpp;
// names: scene_names.cpp).
#include "joinery/core/scene.hpp"
#include "joinery/core/assembled_state.hpp"

#include <memory>

#include "scene_loader.hpp"

namespace joinery {

namespace scene_detail {

namespace {

/// The `simulation` object as written, with the global parameters its numbers may use. Its
/// keys and values belong to the integrators (parseSimulationSettings in
/// integrators/settings.hpp), which validate them.
/// A `joints` entry that is a force element: `"model": "compliant"` on a type the force
/// registry has too (a `contact`: Hunt–Crossley, docs/contact.md). Any other `model` is the
/// joint factory's to check.
bool isForceInJoints(const nlohmann::json& j) {
  if (!j.is_object()) return false;
  const auto model = j.find("model");
  const auto type = j.find("type");
  return model != j.end() && model->is_string() && model->get<std::string>() == "compliant" && type != j.end() &&
         type->is_string() && ForceRegistry::instance().find(type->get<std::string>()) != nullptr;
}

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

}  // namespace

// long: the top level of a scene file in reading order (version, keys, parameters, includes,
// components, gravity, expansion, creation of bodies / joints / forces, the model).
Scene Loader::load(const nlohmann::json& doc, const std::string& file) {
  if (detail::jsonDepth(doc, detail::kMaxJsonDepth) > detail::kMaxJsonDepth)
    throw InputError("JSON nesting is more than " + std::to_string(detail::kMaxJsonDepth) +
                         " levels deep; expected at most " + std::to_string(detail::kMaxJsonDepth),
                     file, "/");
  const JsonCursor root(doc, file);
  if (doc.is_object() && doc.contains("units")) {
    // the file's numbers in SI first (scene_units.cpp); the paths of errors stay those of the file
    units_ = readSceneUnits(root.at("units"));
    documents_.push_back(convertToSi(root, units_));
    return load(documents_.back(), file);
  }
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

  // "bodies" may be left out when instances provide every body (checked after the expansion)

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
  Expansion all = expandScope(root, "", global, std::make_shared<const PlacementInfo>(), componentStack, "the scene", false);
  releaseClaims();  // names are claimed during the expansion only: the memory is reused below
  if (all.bodies.empty())
    (root.has("bodies") ? root.at("bodies") : root)
        .failWith("the scene has no bodies; expected at least one body (in 'bodies' or from instances)");

  auto flat = std::make_shared<Flattening>();
  flat->bodies.reserve(all.bodies.size());
  flat->joints.reserve(all.joints.size());
  flat->forces.reserve(all.forces.size());
  for (Planned& p : all.bodies) {
    ctx.setScope(p.scope->parameters);
    guarded(p.at, p.scope->context, [&] {
      // `visual` (drawing only, any body type) is read here and kept for the flattened scene;
      // the factory gets the definition without it (a copy only then)
      const nlohmann::json& written = p.definition();
      nlohmann::json withoutVisual, visual;
      const bool hasVisual = written.is_object() && written.contains("visual");
      if (hasVisual) {
        visual = readVisual(p.cursor(written).at("visual"), ctx);
        withoutVisual = written;
        withoutVisual.erase("visual");
      }
      BodyPtr body = BodyRegistry::instance().create(p.cursor(hasVisual ? withoutVisual : written), ctx);
      if (!p.place->placement.isIdentity()) body = placeBody(std::move(body), p, ctx);
      if (!visual.is_null()) flat->visuals.emplace_back(flat->bodies.size(), std::move(visual));
      flat->bodies.push_back({&builder.addBody(std::move(body)), std::move(p.scope)});
    });
  }
  std::vector<Planned>().swap(all.bodies);  // done with: the joints' allocations reuse it
  for (Planned& p : all.joints) {
    ctx.setScope(p.scope->parameters);
    guarded(p.at, p.scope->context, [&] {
      const JsonCursor c = p.cursor(p.definition());
      if (isForceInJoints(c.value())) {
        // a compliant contact: a force element written among the joints, and written back there
        ForceElementPtr f = ForceRegistry::instance().create(c, ctx);
        flat->forcesInJoints.push_back({flat->forces.size(), flat->joints.size()});
        flat->forces.push_back({&builder.addForce(std::move(f)), std::move(p.scope)});
        return;
      }
      ConstraintPtr j = ConstraintRegistry::instance().create(c, ctx);
      flat->joints.push_back({&builder.addConstraint(std::move(j)), std::move(p.scope)});
    });
  }
  for (Planned& p : all.forces) {
    ctx.setScope(p.scope->parameters);
    guarded(p.at, p.scope->context, [&] {
      ForceElementPtr f = ForceRegistry::instance().create(p.cursor(p.definition()), ctx);
      flat->forces.push_back({&builder.addForce(std::move(f)), std::move(p.scope)});
    });
  }
  std::vector<Planned>().swap(all.joints);  // and the model's tables reuse these
  std::vector<Planned>().swap(all.forces);
  builder.setGravity(gravity);
  Model model = guarded(file, "/", "", [&] { return builder.build(); });
  if (!all.outputs.empty()) (void)OutputChannels(model, all.outputs);  // checked against the model now (exit 2 at load)

  flat->name = name;
  flat->global = global;
  flat->gravity = gravity;
  if (simulation.given()) flat->simulation = simulation.json;
  flat->outputs = all.outputs;
  Scene scene = SceneAccess::make(std::move(model), std::move(flat));
  scene.name = std::move(name);
  scene.file = file;
  scene.simulation = std::move(simulation);
  scene.completeMassless = completeMassless;
  scene.outputs = std::move(all.outputs);
  scene.filesRead.assign(included_.begin(), included_.end());
  scene.units = units_;
  return scene;
}

namespace {

/// Checks that `model` holds `elements` in their order (the flattened scene describes the
/// model as loaded).
template <class T>
void requireSame(const std::vector<Flattening::Element<T>>& elements, const std::vector<const T*>& inModel) {
  bool same = elements.size() == inModel.size();
  for (std::size_t i = 0; same && i < elements.size(); ++i) same = elements[i].element == inModel[i];
  if (!same)
    throw std::logic_error("Scene::resolved(): the scene's model is not the model it was loaded with "
                           "(assigned or moved away); the flattened scene describes the model as loaded");
}

/// The JSON of one element, its expression strings resolved in its scope.
template <class T>
nlohmann::json elementJson(const Flattening::Element<T>& e) {
  nlohmann::json j = e.element->toJson();
  resolveStrings(j, e.scope->parameters);
  return j;
}

}  // namespace

nlohmann::json Flattening::build(const Model& model) const {
  requireSame(bodies, model.bodies());
  requireSame(joints, model.constraints());
  requireSame(forces, model.forces());
  nlohmann::json resolved = {{"joinery", 1}};
  if (!name.empty()) resolved["name"] = name;
  if (!global->parameters.constants().empty()) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [n, v] : global->parameters.constants()) params[n] = v;
    resolved["parameters"] = params;
  }
  resolved["gravity"] = {gravity.x(), gravity.y(), gravity.z()};
  nlohmann::json list = nlohmann::json::array();
  list.get_ref<nlohmann::json::array_t&>().reserve(bodies.size());
  auto visual = visuals.begin();
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    nlohmann::json j = elementJson(bodies[i]);
    if (visual != visuals.end() && visual->first == i) j["visual"] = (visual++)->second;
    list.push_back(std::move(j));
  }
  resolved["bodies"] = std::move(list);
  // the joints in their order, with the force elements written among them back in their places
  list = nlohmann::json::array();
  list.get_ref<nlohmann::json::array_t&>().reserve(joints.size() + forcesInJoints.size());
  auto inJoints = forcesInJoints.begin();
  for (std::size_t i = 0; i <= joints.size(); ++i) {
    for (; inJoints != forcesInJoints.end() && inJoints->second == i; ++inJoints)
      list.push_back(elementJson(forces[inJoints->first]));
    if (i < joints.size()) list.push_back(elementJson(joints[i]));
  }
  resolved["joints"] = std::move(list);
  list = nlohmann::json::array();
  list.get_ref<nlohmann::json::array_t&>().reserve(forces.size());
  inJoints = forcesInJoints.begin();
  for (std::size_t i = 0; i < forces.size(); ++i) {
    if (inJoints != forcesInJoints.end() && inJoints->first == i) {
      ++inJoints;
      continue;
    }
    list.push_back(elementJson(forces[i]));
  }
  resolved["forces"] = std::move(list);
  if (!simulation.is_null()) resolved["simulation"] = simulation;
  if (!outputs.empty()) {
    nlohmann::json outs = nlohmann::json::array();
    for (const OutputSpec& o : outputs) outs.push_back(detail::outputSpecJson(o));
    resolved["outputs"] = std::move(outs);
  }
  if (!overrides.is_null()) resolved["overrides"] = overrides;
  return resolved;
}

}  // namespace scene_detail

const nlohmann::json& Scene::resolved() const {
  static const nlohmann::json kNone;  // a moved-from scene
  if (!flattening_) return kNone;
  scene_detail::Flattening& f = *flattening_;
  std::call_once(f.built, [&] { f.document = f.build(model); });
  return f.document;
}

using scene_detail::includeRootFor;
using scene_detail::SceneAccess;
using scene_detail::Loader;

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
      SceneAccess::setOverrides(s, overridesJson(options.overrides));
      return s;
    }();
    if (options.completeMassless) scene.completeMassless = true;
    // the initial state `joinery assemble` recorded, while the model is the one it was made for
    if (document.is_object() && document.contains("assembled")) {
      scene = applyAssembledState(std::move(scene), document, file);
      if (options.completeMassless) scene.completeMassless = true;
    }
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
