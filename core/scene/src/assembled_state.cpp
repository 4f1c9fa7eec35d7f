// An assembled initial state recorded in a scene as written (assembled_state.hpp).
#include "joinery/core/assembled_state.hpp"

#include <array>
#include <cstdint>
#include <cstdio>

#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/scene.hpp"

namespace joinery {

bool isInitialStateField(const std::string& key) {
  static const std::array<const char*, 7> kFields{"position", "angle",    "orientation", "velocity",
                                                   "angular_velocity", "q0", "v0"};
  for (const char* f : kFields)
    if (key == f) return true;
  return false;
}

namespace {

/// The scene fields that hold the initial state of the body named `name` in `model`: the
/// fields its writeInitialState writes (a body type defined anywhere: its own names, such as
/// a bead's "s" and "s_dot"), with the built-in names of isInitialStateField.
bool isStateFieldOf(const Model& model, const std::string& name, const std::string& key) {
  if (isInitialStateField(key)) return true;
  const Body* body = model.findBody(name);
  if (!body) return false;
  const Eigen::Index n = static_cast<Eigen::Index>(body->coordinateNames().size());
  VectorXd q(n), v(n);
  body->getInitialState(q, v);
  nlohmann::json written = nlohmann::json::object();
  try {
    body->writeInitialState(q, v, written);
  } catch (const ModelError&) {
    return false;  // a body type that cannot write its state: the built-in names only
  }
  return written.contains(key);
}

std::string bodyName(const nlohmann::json& b) {
  return b.contains("name") && b["name"].is_string() ? b["name"].get<std::string>() : std::string();
}

}  // namespace

std::string modelFingerprint(const nlohmann::json& resolved, const Model& model) {
  nlohmann::json j = resolved;
  for (const char* k : {"name", "overrides", "description"}) j.erase(k);
  if (j.contains("bodies") && j["bodies"].is_array())
    for (auto& b : j["bodies"])
      if (b.is_object()) {
        const std::string name = bodyName(b);
        for (auto it = b.begin(); it != b.end();) it = isStateFieldOf(model, name, it.key()) ? b.erase(it) : std::next(it);
      }
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bit
  for (const unsigned char c : j.dump()) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

nlohmann::json assembledRecord(const nlohmann::json& assembledResolved, const Model& model) {
  nlohmann::json bodies = nlohmann::json::object();
  for (const auto& b : assembledResolved.at("bodies")) {
    const std::string name = b.at("name").get<std::string>();
    nlohmann::json state = nlohmann::json::object();
    for (auto it = b.begin(); it != b.end(); ++it)
      if (isStateFieldOf(model, name, it.key())) state[it.key()] = it.value();
    bodies[name] = state;
  }
  return {{"fingerprint", modelFingerprint(assembledResolved, model)},
          {"parameters", assembledResolved.value("parameters", nlohmann::json::object())},
          {"bodies", bodies}};
}

namespace {
std::string text(const nlohmann::json& v) { return v.is_number() ? formatNumber(v.get<double>()) : v.dump(); }
}  // namespace

std::string assembledStateNote(const Scene& scene, const nlohmann::json& document) {
  if (!document.is_object() || !document.contains("assembled") || !document["assembled"].is_object()) return "";
  const nlohmann::json& rec = document["assembled"];
  const nlohmann::json& resolved = scene.resolved();
  if (modelFingerprint(resolved, scene.model) == rec.value("fingerprint", "")) return "";
  // the parameters that differ, by name, when the record has them
  std::string changed;
  const nlohmann::json now = resolved.value("parameters", nlohmann::json::object());
  const nlohmann::json then = rec.value("parameters", nlohmann::json::object());
  for (auto it = now.begin(); it != now.end(); ++it)
    if (then.is_object() && then.contains(it.key()) && then[it.key()] != it.value())
      changed += (changed.empty() ? "" : ", ") + it.key() + " = " + text(it.value()) + " (" + text(then[it.key()]) +
                 " when assembled)";
  return "the assembled initial state this file records (joinery assemble) is for " +
         (changed.empty() ? std::string("another model") : changed) +
         ": it is not used; the written initial state is assembled again (run 'joinery assemble' to record the new "
         "one)";
}

Scene applyAssembledState(Scene scene, const nlohmann::json& document, const std::string& file) {
  const nlohmann::json& rec = document.at("assembled");
  if (!rec.is_object() || !rec.contains("fingerprint") || !rec["fingerprint"].is_string() || !rec.contains("bodies") ||
      !rec["bodies"].is_object())
    throw InputError("'assembled' must be the record 'joinery assemble' writes: {\"fingerprint\": \"...\", "
                     "\"bodies\": {name: initial state}}",
                     file, "/assembled");
  const nlohmann::json& resolved = scene.resolved();
  if (modelFingerprint(resolved, scene.model) != rec["fingerprint"].get<std::string>()) return scene;  // assembledStateNote says so
  nlohmann::json doc = resolved;
  for (auto& b : doc["bodies"]) {
    const std::string name = b.at("name").get<std::string>();
    if (!rec["bodies"].contains(name)) continue;
    const nlohmann::json& st = rec["bodies"][name];
    if (!st.is_object()) throw InputError("the assembled state of a body must be an object", file, "/assembled/bodies/" + name);
    for (auto it = st.begin(); it != st.end(); ++it)
      if (isStateFieldOf(scene.model, name, it.key())) b[it.key()] = it.value();
  }
  Scene again = sceneFromJson(doc, file);
  again.name = scene.name;
  again.completeMassless = scene.completeMassless;
  return again;
}

}  // namespace joinery
