#pragma once
// Shared helpers of the shipped-library tests (tests/library): read a shipped library, put one
// part into a scene, and read its parameter values (defaults or overrides) as numbers.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/library.hpp"
#include "joinery/core/scene.hpp"

namespace joinery::test {

inline constexpr double kGravity = 9.81;

/// The shipped libraries the tests cover (all of them must exist).
inline std::vector<std::string> libraryNames() { return {"links", "planar", "spatial", "vehicles"}; }

inline nlohmann::json readShipped(const std::string& name) {
  const auto file = findShippedLibrary(name);
  REQUIRE(!file.empty());
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

/// A scene that includes joinery:LIB and holds one instance `p` of PART, under gravity (-y for the
/// planar libraries, -z for joinery:spatial).
inline Scene loadPart(const std::string& lib, const std::string& part,
                      const nlohmann::json& parameters = nlohmann::json::object()) {
  const nlohmann::json gravity = lib == "spatial" ? nlohmann::json{0, 0, -kGravity} : nlohmann::json{0, -kGravity, 0};
  const nlohmann::json doc = {{"joinery", 1},
                              {"include", {"joinery:" + lib}},
                              {"gravity", gravity},
                              {"bodies", nlohmann::json::array()},
                              {"instances", {{{"name", "p"}, {"component", part}, {"parameters", parameters}}}}};
  return sceneFromJson(doc, "");
}

/// Overrides of a part's numeric size parameters (unit m, kg/m^3 or kg): each default times f.
inline nlohmann::json scaledSizes(const nlohmann::json& component, double f) {
  nlohmann::json out = nlohmann::json::object();
  const nlohmann::json& units = component.at("units");
  for (auto it = component.at("parameters").begin(); it != component.at("parameters").end(); ++it) {
    const std::string unit = units.value(it.key(), "");
    if (it.value().is_number() && (unit == "m" || unit == "kg/m^3" || unit == "kg"))
      out[it.key()] = it.value().get<double>() * f;
  }
  return out;
}

/// A part's parameter values: the override when given, else the numeric default.
class Params {
 public:
  Params(nlohmann::json component, nlohmann::json overrides)
      : component_(std::move(component)), overrides_(std::move(overrides)) {}
  double operator()(const std::string& name) const {
    if (overrides_.contains(name)) return overrides_[name].get<double>();
    const nlohmann::json& v = component_.at("parameters").at(name);
    REQUIRE(v.is_number());  // closed forms use the parameters that are numbers
    return v.get<double>();
  }

 private:
  nlohmann::json component_, overrides_;
};

}  // namespace joinery::test
