// The scene loader (docs/scene-format.md): the top level of a scene file. The parts it uses
// are in scene_loader.hpp (expansion of includes, components and instances: scene_expand.cpp;
// names: scene_names.cpp).
#include "joinery/core/scene.hpp"

#include <memory>

#include "scene_loader.hpp"

namespace joinery {

namespace scene_detail {

namespace {

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

}  // namespace

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
  bodies.get_ref<nlohmann::json::array_t&>().reserve(all.bodies.size());
  joints.get_ref<nlohmann::json::array_t&>().reserve(all.joints.size());
  forces.get_ref<nlohmann::json::array_t&>().reserve(all.forces.size());
  for (const Planned& p : all.bodies) {
    ctx.setScope(p.scope->parameters);
    guarded(p.at, p.scope->context, [&] {
      // `visual` (drawing only, any body type) is read here and kept in the flattened scene;
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
    guarded(p.at, p.scope->context, [&] {
      ConstraintPtr c = ConstraintRegistry::instance().create(p.cursor(p.definition()), ctx);
      nlohmann::json j = c->toJson();
      resolveStrings(j, p.scope->parameters);
      joints.push_back(std::move(j));
      builder.addConstraint(std::move(c));
    });
  }
  for (const Planned& p : all.forces) {
    ctx.setScope(p.scope->parameters);
    guarded(p.at, p.scope->context, [&] {
      ForceElementPtr f = ForceRegistry::instance().create(p.cursor(p.definition()), ctx);
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

}  // namespace scene_detail

using scene_detail::includeRootFor;
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
