// Plausibility warnings of a loaded scene (plausibility.hpp, docs/diagnosis.md).
#include "joinery/core/plausibility.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "joinery/core/format.hpp"
#include "joinery/core/json_input.hpp"

namespace joinery {

namespace {

std::string num4(double v) { return formatNumber(v, 4); }

/// True when every body the element names (as written: unknown names, e.g. of components,
/// count as not planar unless the type is a planar one) in `j` (body1, body2, body) is planar or ground.
bool planarElement(const Model& model, const nlohmann::json& j) {
  if (j.value("type", std::string()).ends_with("2d")) return true;
  bool any = false;
  for (const char* key : {"body1", "body2", "body"}) {
    if (!j.contains(key) || !j[key].is_string()) continue;
    const Body* b = model.findBody(j[key].get<std::string>());
    if (b == nullptr) return false;
    if (b->isGround()) continue;
    if (!b->isPlanar()) return false;
    any = true;
  }
  return any;
}

bool nonZero(const nlohmann::json& x) {
  if (x.is_number()) return x.get<double>() != 0;
  if (x.is_string()) {
    const std::string t = x.get<std::string>();
    return t.find_first_not_of("0. ") != std::string::npos;
  }
  return false;
}

/// Points of planar joints and forces given a non-zero z, in the scene file as written (the
/// resolved scene has planar points in 2-D already): the top level and the file's components.
void planarZ(const Scene& scene, std::vector<std::string>& out) {
  if (scene.file.empty()) return;
  nlohmann::json doc;
  try {
    doc = readJsonFile(scene.file);
  } catch (const std::exception&) {
    return;
  }
  auto scan = [&](const nlohmann::json& parent, const std::string& where) {
    for (const char* list : {"joints", "forces"}) {
      if (!parent.is_object() || !parent.contains(list) || !parent[list].is_array()) continue;
      for (const auto& j : parent[list]) {
        if (!j.is_object() || !planarElement(scene.model, j)) continue;
        for (const char* key : {"point1", "point2", "point"}) {
          if (!j.contains(key) || !j[key].is_array() || j[key].size() != 3 || !nonZero(j[key][2])) continue;
          const std::string z = j[key][2].is_number() ? num4(j[key][2].get<double>()) : j[key][2].get<std::string>();
          out.push_back(j.value("name", std::string("?")) + where + ": " + key + " has z = " + z +
                        ", but it joins planar bodies, which move in the plane z = 0 (the z is ignored): "
                        "drop the z or use spatial bodies and joints");
        }
      }
    }
  };
  scan(doc, "");
  if (doc.is_object() && doc.contains("components") && doc["components"].is_object())
    for (const auto& [name, comp] : doc["components"].items()) scan(comp, " (component " + name + ")");
}

void collectLengths(const nlohmann::json& j, const char* key, std::vector<double>& out) {
  if (!j.contains(key)) return;
  const auto& v = j[key];
  if (v.is_number()) {
    if (v.get<double>() != 0) out.push_back(std::abs(v.get<double>()));
  } else if (v.is_array()) {
    for (const auto& x : v)
      if (x.is_number() && x.get<double>() != 0) out.push_back(std::abs(x.get<double>()));
  }
}

/// Lengths that look like millimetres with gravity in m/s^2, or metres with mm/s^2.
void mixedUnits(const Scene& scene, std::vector<std::string>& out) {
  const double g = scene.model.gravity().norm();
  if (g == 0) return;
  std::vector<double> lengths;
  const nlohmann::json& resolved = scene.resolved();
  for (const char* list : {"bodies", "joints", "forces"}) {
    if (!resolved.contains(list) || !resolved[list].is_array()) continue;
    for (const auto& j : resolved[list]) {
      if (!j.is_object()) continue;
      const std::string type = j.value("type", std::string());
      if (type == "linear" || type == "expression") continue;  // the user's own units
      for (const char* key : {"position", "point1", "point2", "length", "free_length"}) collectLengths(j, key, lengths);
    }
  }
  if (lengths.size() < 2) return;
  std::nth_element(lengths.begin(), lengths.begin() + static_cast<long>(lengths.size() / 2), lengths.end());
  const double median = lengths[lengths.size() / 2];
  if (g > 5 && g < 15 && median >= 20) {
    out.push_back("the lengths look like millimetres (median " + num4(median) + ") while gravity is " + num4(g) +
                  " m/s^2: joinery is SI; give lengths in metres, or declare the scene's units at its top level, "
                  "\"units\": {\"length\": \"mm\"}, and its numbers are converted (docs/scene-format.md, Units)");
  } else if (g > 5000 && g < 15000 && median < 5) {
    out.push_back("gravity " + num4(g) + " looks like mm/s^2 while the lengths look like metres (median " +
                  num4(median) + "): joinery is SI; give gravity in m/s^2 (" + num4(g / 1000) + ")");
  }
}

/// Drivers and couplings whose velocity or acceleration is not finite at the start.
void smoothStart(const Scene& scene, std::vector<std::string>& out) {
  const Model& model = scene.model;
  if (model.numConstraintRows() == 0) return;
  ModelWorkspace ws = model.makeWorkspace(false);  // row blocks and b only: O(n) for any size
  VectorXd psi(model.numConstraintRows());
  std::vector<bool> bad(model.rowBlocks().size(), false);
  for (const double t : {0.0, 1e-9}) {
    State s = model.initialState();
    s.t = t;
    try {
      model.calcRowBlocks(s, ws);
      model.calcVelocityErrors(s, ws, psi);
    } catch (const std::exception&) {
      ws.b.setConstant(std::nan(""));
    }
    for (std::size_t k = 0; k < model.rowBlocks().size(); ++k) {
      const RowBlock& rb = model.rowBlocks()[k];
      if (rb.constraint == nullptr) continue;
      if (!rb.constraint->prescribesMotion()) continue;
      if (!ws.b.segment(rb.row, rb.size).allFinite() || !psi.segment(rb.row, rb.size).allFinite()) bad[k] = true;
    }
  }
  for (std::size_t k = 0; k < bad.size(); ++k)
    if (bad[k])
      out.push_back(model.rowBlocks()[k].name +
                    ": the prescribed motion is not twice differentiable at t = 0 (its velocity or "
                    "acceleration is not finite there): give it a smooth start, e.g. a polynomial ramp");
}

}  // namespace

std::vector<std::string> plausibilityWarnings(const Scene& scene) {
  std::vector<std::string> out;
  planarZ(scene, out);
  mixedUnits(scene, out);
  smoothStart(scene, out);
  return out;
}

}  // namespace joinery
