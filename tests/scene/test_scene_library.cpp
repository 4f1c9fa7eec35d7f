// The component libraries shipped with joinery ("include": ["joinery:NAME"], docs/library.md):
// every part of every shipped library, instantiated with its defaults, is well posed; its mass
// properties are the closed forms of its shape; its accelerations under gravity are the closed
// forms of the mechanism it is; the resolved scene round-trips exactly; lookup order and errors.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "joinery/core/check.hpp"
#include "joinery/core/library.hpp"
#include "joinery/core/scene.hpp"
#include "scene_test_support.hpp"

using joinery::Scene;
using joinery::sceneFromJson;
using joinery::test::coordinateIndex;
using joinery::test::resolvedElement;

namespace {

constexpr double kG = 9.81;
// Tolerance: the numbers pass through expression evaluation and one dense solve of a system of
// at most 3 coordinates; a relative 1e-12 leaves room for that rounding only.
constexpr double kTol = 1e-12;

/// A scene with one instance `p` of `part` from joinery:links, gravity -g y.
Scene loadPart(const std::string& part, const nlohmann::json& parameters = nlohmann::json::object()) {
  const nlohmann::json doc = {{"joinery", 1},
                              {"include", {"joinery:links"}},
                              {"gravity", {0, -kG}},
                              {"bodies", nlohmann::json::array()},
                              {"instances", {{{"name", "p"}, {"component", part}, {"parameters", parameters}}}}};
  return sceneFromJson(doc, "");
}

nlohmann::json shippedLinks() {
  std::ifstream in(joinery::findShippedLibrary("links"));
  return nlohmann::json::parse(in);
}

double qdd(const Scene& s, const joinery::CheckReport& r, const std::string& coordinate) {
  const int i = coordinateIndex(s.model, coordinate);
  REQUIRE(i >= 0);
  return r.solution.qdd(i);
}

}  // namespace

TEST_CASE("joinery:links is found in the build tree and lists its parts", "[scene][library]") {
  const auto names = joinery::shippedLibraryNames();
  CHECK(std::find(names.begin(), names.end(), "links") != names.end());
  const nlohmann::json lib = shippedLinks();
  for (const char* part : {"rod", "crank", "slider", "pendulum"}) {
    INFO(part);
    REQUIRE(lib.at("components").contains(part));
    const nlohmann::json& c = lib["components"][part];
    CHECK(c.contains("description"));
    // every parameter has its unit and its meaning documented
    for (auto it = c.at("parameters").begin(); it != c.at("parameters").end(); ++it) {
      INFO(it.key());
      CHECK(c.at("units").contains(it.key()));
      CHECK(c.at("descriptions").contains(it.key()));
    }
  }
}

TEST_CASE("every shipped part with its defaults is well posed and round-trips exactly", "[scene][library]") {
  const nlohmann::json lib = shippedLinks();
  for (auto it = lib.at("components").begin(); it != lib.at("components").end(); ++it) {
    INFO("part " << it.key());
    const Scene s = loadPart(it.key());
    const joinery::CheckReport r = joinery::checkScene(s);
    CHECK(r.solution.diagnosis.wellPosed);
    CHECK(r.solution.diagnosis.residual < 1e-12);
    const Scene back = sceneFromJson(s.resolved(), "resolved.json");
    CHECK(back.resolved() == s.resolved());
    CHECK(back.model.coordinateNames() == s.model.coordinateNames());
  }
}

TEST_CASE("shipped parts: mass properties are the closed forms of their shapes", "[scene][library]") {
  SECTION("rod: m = rho A L, I = m L^2/12 (defaults and overridden)") {
    for (const auto& [L, rho, A] : {std::tuple{1.0, 7850.0, 1e-4}, std::tuple{2.0, 1000.0, 0.01}}) {
      const Scene s = loadPart("rod", {{"L", L}, {"density", rho}, {"area", A}});
      const nlohmann::json b = resolvedElement(s, "bodies", "p.rod");
      const double m = rho * A * L;
      CHECK(b.at("mass").get<double>() == Approx(m).epsilon(kTol));
      CHECK(b.at("inertia").get<double>() == Approx(m * L * L / 12).epsilon(kTol));
    }
  }
  SECTION("crank: m = rho A L, I = m L^2/12") {
    const nlohmann::json b = resolvedElement(loadPart("crank"), "bodies", "p.arm");
    const double m = 7850 * 1e-4 * 0.1;
    CHECK(b.at("mass").get<double>() == Approx(m).epsilon(kTol));
    CHECK(b.at("inertia").get<double>() == Approx(m * 0.01 / 12).epsilon(kTol));
  }
  SECTION("slider: m = rho w h t, I = m (w^2 + h^2)/12") {
    const nlohmann::json b = resolvedElement(loadPart("slider"), "bodies", "p.block");
    const double m = 7850 * 0.1 * 0.05 * 0.02;
    CHECK(b.at("mass").get<double>() == Approx(m).epsilon(kTol));
    CHECK(b.at("inertia").get<double>() == Approx(m * (0.01 + 0.0025) / 12).epsilon(kTol));
  }
  SECTION("pendulum: a point mass m") {
    const nlohmann::json b = resolvedElement(loadPart("pendulum", {{"m", 2.5}}), "bodies", "p.bob");
    CHECK(b.at("mass").get<double>() == 2.5);
  }
}

TEST_CASE("shipped parts move as the closed forms of their mechanisms under gravity", "[scene][library]") {
  SECTION("rod: free fall, no rotation") {
    const Scene s = loadPart("rod");
    const auto r = joinery::checkScene(s);
    CHECK(qdd(s, r, "p.rod.y") == Approx(-kG).epsilon(kTol));
    CHECK(std::abs(qdd(s, r, "p.rod.theta")) < 1e-12);
  }
  SECTION("crank at theta0: theta'' = -3 g cos(theta0) / (2 L) (inertia m L^2/3 about the pivot)") {
    const double L = 0.3, th = 0.4;
    const Scene s = loadPart("crank", {{"L", L}, {"theta0", th}, {"x0", 1}, {"y0", 2}});
    const auto r = joinery::checkScene(s);
    CHECK(r.solution.diagnosis.wellPosed);
    CHECK(qdd(s, r, "p.arm.theta") == Approx(-3 * kG * std::cos(th) / (2 * L)).epsilon(1e-10));
    const nlohmann::json b = resolvedElement(s, "bodies", "p.arm");
    CHECK(b.at("position")[0].get<double>() == Approx(1 + L / 2 * std::cos(th)).epsilon(kTol));
    CHECK(b.at("position")[1].get<double>() == Approx(2 + L / 2 * std::sin(th)).epsilon(kTol));
  }
  SECTION("slider on a guide at phi: acceleration -g sin(phi) along the guide") {
    const double phi = 0.5;
    const Scene s = loadPart("slider", {{"phi", phi}, {"s0", 0.2}});
    const auto r = joinery::checkScene(s);
    const double a = -kG * std::sin(phi);
    CHECK(qdd(s, r, "p.block.x") == Approx(a * std::cos(phi)).epsilon(1e-10));
    CHECK(qdd(s, r, "p.block.y") == Approx(a * std::sin(phi)).epsilon(1e-10));
    CHECK(std::abs(qdd(s, r, "p.block.theta")) < 1e-12);
  }
  SECTION("pendulum at theta0 at rest: tangential acceleration -g sin(theta0)") {
    const double L = 2.0, th = 0.3;
    const Scene s = loadPart("pendulum", {{"L", L}, {"theta0", th}});
    const auto r = joinery::checkScene(s);
    // at rest the bob's acceleration is tangential: -g sin(th) along (cos th, sin th)
    const double at = -kG * std::sin(th);
    CHECK(qdd(s, r, "p.bob.x") == Approx(at * std::cos(th)).epsilon(1e-10));
    CHECK(qdd(s, r, "p.bob.y") == Approx(at * std::sin(th)).epsilon(1e-10));
  }
}

TEST_CASE("an unknown shipped library is an InputError at the include entry with a suggestion",
          "[scene][library]") {
  const nlohmann::json doc = {{"joinery", 1}, {"include", {"joinery:link"}}, {"bodies", nlohmann::json::array()}};
  try {
    (void)sceneFromJson(doc, "scene.json");
    FAIL("accepted an unknown library");
  } catch (const joinery::InputError& e) {
    CHECK(e.jsonPath() == "/include/0");
    CHECK(e.file() == "scene.json");
    CHECK_THAT(std::string(e.what()), Catch::Contains("did you mean 'joinery:links'"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("expected one of: joinery:links"));
  }
}

TEST_CASE("JOINERY_LIB_PATH is searched before the build tree", "[scene][library]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(joinery_test_tmp_dir()) / "joinery_test_lib_path";
  fs::create_directories(dir);
  std::ofstream(dir / "links.json") << R"({"joinery": 1, "components": {"only_here": {"bodies": [
      {"name": "b", "type": "particle", "dim": 2, "mass": 1}]}}})";
  ::setenv("JOINERY_LIB_PATH", dir.c_str(), 1);
  const nlohmann::json doc = {{"joinery", 1}, {"include", {"joinery:links"}}, {"bodies", nlohmann::json::array()},
                              {"instances", {{{"name", "p"}, {"component", "only_here"}}}}};
  const bool loaded = [&] {
    try {
      return sceneFromJson(doc, "").model.coordinateNames().size() == 2;
    } catch (const joinery::InputError&) {
      return false;
    }
  }();
  ::unsetenv("JOINERY_LIB_PATH");
  fs::remove_all(dir);
  CHECK(loaded);
  CHECK(joinery::findShippedLibrary("links").parent_path() != dir);
}

TEST_CASE("a component's units and descriptions name its parameters", "[scene][library]") {
  const nlohmann::json doc = {
      {"joinery", 1},
      {"bodies", nlohmann::json::array()},
      {"components", {{"c", {{"parameters", {{"L", 1}}}, {"units", {{"Lx", "m"}}}}}}}};
  try {
    (void)sceneFromJson(doc, "scene.json");
    FAIL("accepted a unit of an unknown parameter");
  } catch (const joinery::InputError& e) {
    CHECK(e.jsonPath() == "/components/c/units/Lx");
    CHECK_THAT(std::string(e.what()), Catch::Contains("did you mean 'L'"));
  }
}
