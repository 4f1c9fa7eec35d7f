// Parameter overrides: parsing `NAME=VALUE` and applying overrides while a scene loads.
#include "overrides_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "scene_support.hpp"

namespace joinery {

namespace {
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

const char* kExpectation =
    "expected a scene parameter (k), an instance parameter (l1.L) or a simulation setting "
    "(simulation.t_end)";
}  // namespace

Override parseOverride(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw InputError("'" + text + "': expected NAME=VALUE (e.g. k=200, l1.L=0.3, simulation.t_end=2)", "--set");
  Override o;
  o.name = trim(text.substr(0, eq));
  const std::string value = trim(text.substr(eq + 1));
  if (o.name.empty()) throw InputError("'" + text + "': the NAME before '=' is empty", "--set");
  if (value.empty()) throw InputError("'" + text + "': the VALUE after '=' is empty", "--set");
  const char* begin = value.c_str();
  char* end = nullptr;
  const double x = std::strtod(begin, &end);
  if (end == begin + value.size() && std::isfinite(x))
    o.value = x;
  else
    o.value = value;
  return o;
}

nlohmann::json overridesJson(const std::vector<Override>& overrides) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& o : overrides) j[o.name] = o.value;
  return j;
}

namespace detail {

OverrideSet::OverrideSet(const std::vector<Override>& overrides, nlohmann::json& doc, const std::string& file)
    : file_(file) {
  if (doc.is_object() && doc.contains("parameters") && doc["parameters"].is_object())
    for (auto it = doc["parameters"].begin(); it != doc["parameters"].end(); ++it) known_.push_back(it.key());
  if (doc.is_object() && doc.contains("simulation") && doc["simulation"].is_object())
    for (auto it = doc["simulation"].begin(); it != doc["simulation"].end(); ++it) known_.push_back("simulation." + it.key());
  for (const auto& o : overrides) {
    const std::string& n = o.name;
    if (n.rfind("simulation.", 0) == 0) {
      const std::string key = n.substr(11);
      if (key.empty()) throw InputError("--set " + n + ": the setting after 'simulation.' is empty", file_, "");
      if (!doc.contains("simulation") || !doc["simulation"].is_object()) doc["simulation"] = nlohmann::json::object();
      doc["simulation"][key] = o.value;
      used_.insert(n);
    } else if (n.find('.') == std::string::npos) {
      if (std::find(known_.begin(), known_.end(), n) == known_.end()) {
        unknown_.push_back(n);
        continue;
      }
      doc["parameters"][n] = o.value;
      used_.insert(n);
    } else {
      const auto dot = n.rfind('.');
      instance_[n.substr(0, dot)].push_back({n.substr(dot + 1), o.value});
    }
  }
}

void OverrideSet::applyToInstance(const std::string& qualified, const std::vector<std::string>& declared,
                                  const SymbolTable& outer, SymbolTable& fixed) {
  for (const auto& d : declared) known_.push_back(qualified + "." + d);
  const auto it = instance_.find(qualified);
  if (it == instance_.end()) return;
  for (const auto& p : it->second) {
    const std::string full = qualified + "." + p.name;
    if (std::find(declared.begin(), declared.end(), p.name) == declared.end()) {
      std::vector<std::string> candidates;
      for (const auto& d : declared) candidates.push_back(qualified + "." + d);
      throw InputError("--set " + full + ": instance '" + qualified + "' has no parameter '" + p.name + "'" +
                           didYouMean(full, candidates) +
                           (declared.empty() ? std::string("; its component declares no parameters")
                                             : "; expected one of: " + joinNames(candidates)),
                       file_, "");
    }
    fixed.setConstant(p.name, evaluateNumber(JsonCursor(p.value, "--set " + full), outer));
    used_.insert(full);
  }
}

void OverrideSet::requireAllUsed() const {
  std::vector<std::string> missing = unknown_;
  for (const auto& [inst, list] : instance_)
    for (const auto& p : list)
      if (!used_.count(inst + "." + p.name)) missing.push_back(inst + "." + p.name);
  if (missing.empty()) return;
  const std::string& n = missing.front();
  throw InputError("--set " + n + ": unknown name '" + n + "'" + didYouMean(n, known_) + "; " + kExpectation +
                       (known_.empty() ? std::string() : ": " + joinNames(known_)),
                   file_, "");
}

}  // namespace detail
}  // namespace joinery
