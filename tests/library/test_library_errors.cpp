// Bad uses of the shipped libraries are input errors naming the JSON path, the file and what
// was expected (docs/catalogue.md#mistakes): an unknown library, an unknown part, an unknown
// or missing parameter, a value with a unit written into it, a part that cannot be assembled.
#include <catch2/catch.hpp>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/core/scene.hpp"

namespace {

nlohmann::json sceneWith(const std::string& lib, const nlohmann::json& instance) {
  return {{"joinery", 1}, {"include", {lib}}, {"bodies", nlohmann::json::array()}, {"instances", {instance}}};
}

/// Loads DOC expecting an InputError; returns it (FAIL when the scene loads).
joinery::InputError loadError(const nlohmann::json& doc) {
  try {
    (void)joinery::sceneFromJson(doc, "scene.json");
  } catch (const joinery::InputError& e) {
    return e;
  }
  FAIL("the scene loaded; expected an InputError");
  throw;  // not reached
}

}  // namespace

TEST_CASE("an unknown shipped library: the include entry, a suggestion and the list", "[library]") {
  const auto e = loadError(sceneWith("joinery:vehicle", {{"name", "car"}, {"component", "quarter_car"}}));
  CHECK(e.jsonPath() == "/include/0");
  CHECK(e.file() == "scene.json");
  CHECK_THAT(std::string(e.what()), Catch::Contains("did you mean 'joinery:vehicles'"));
  CHECK_THAT(std::string(e.what()), Catch::Contains("joinery:planar") && Catch::Contains("joinery:spatial"));
}

TEST_CASE("an unknown part: the instance's component, with a suggestion", "[library]") {
  const auto e = loadError(sceneWith("joinery:planar", {{"name", "fb"}, {"component", "fourbar"}}));
  CHECK(e.jsonPath() == "/instances/0/component");
  CHECK_THAT(std::string(e.what()), Catch::Contains("fourbar") && Catch::Contains("did you mean 'four_bar'"));
}

TEST_CASE("a part of a library that is not included is unknown", "[library]") {
  const auto e = loadError(sceneWith("joinery:links", {{"name", "g"}, {"component", "gear_pair"}}));
  CHECK(e.jsonPath() == "/instances/0/component");
  CHECK_THAT(std::string(e.what()), Catch::Contains("gear_pair"));
}

TEST_CASE("an unknown parameter of a part: its path and the nearest parameter", "[library]") {
  const auto e = loadError(sceneWith(
      "joinery:planar", {{"name", "w"}, {"component", "wheel"}, {"parameters", {{"thikness", 0.03}}}}));
  CHECK(e.jsonPath() == "/instances/0/parameters/thikness");
  CHECK_THAT(std::string(e.what()), Catch::Contains("did you mean 'thickness'") &&
                                        Catch::Contains("expected one of: R, alpha, density, m,"));
}

TEST_CASE("an instance without its part: the missing key", "[library]") {
  const auto e = loadError(sceneWith("joinery:planar", {{"name", "w"}}));
  CHECK(e.jsonPath() == "/instances/0");
  CHECK_THAT(std::string(e.what()), Catch::Contains("component"));
}

TEST_CASE("a unit written into a value is not accepted: parameters are plain SI numbers", "[library]") {
  for (const nlohmann::json& value : {nlohmann::json("300 mm"), nlohmann::json("300*mm"),
                                      nlohmann::json({{"value", 300}, {"unit", "mm"}})}) {
    INFO(value.dump());
    const auto e = loadError(sceneWith(
        "joinery:links", {{"name", "r"}, {"component", "rod"}, {"parameters", {{"L", value}}}}));
    CHECK(e.jsonPath() == "/instances/0/parameters/L");
    // the component documents the unit: the error says which
    CHECK_THAT(std::string(e.what()), Catch::Contains("parameter 'L' is a plain number in m"));
  }
}

TEST_CASE("a four-bar that cannot close is an error, not a NaN", "[library]") {
  // a + d > b + c: the coupler and the rocker cannot reach each other at any crank angle
  const auto e = loadError(sceneWith(
      "joinery:planar", {{"name", "fb"}, {"component", "four_bar"}, {"parameters", {{"b", 0.05}, {"c", 0.05}}}}));
  // the derived rocker angle is acos of a number beyond 1: named with the library file and path
  CHECK(e.jsonPath() == "/components/four_bar/parameters/phi_rocker");
  CHECK_THAT(e.file(), Catch::EndsWith("planar.json"));
  CHECK_THAT(std::string(e.what()), Catch::Contains("evaluates to nan; expected a finite number") &&
                                        Catch::Contains("in instance 'fb' of component 'four_bar'"));
}
