// --set NAME=VALUE: scene parameters, instance parameters (also nested), simulation
// settings, expressions, unknown names; through the library and the command line.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/settings.hpp"
#include "run_command.hpp"

using namespace joinery;
using joinery::test::runCommand;

namespace {
const std::string kSliderCrank = std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/slider_crank.json";

// A pendulum bob (particle) of parameter mass, inside an instance of a component nested in
// another, so that `outer.inner.len` names a nested instance parameter.
nlohmann::json nestedScene() {
  return nlohmann::json::parse(R"({
    "joinery": 1, "parameters": {"k": 10, "k2": "2*k"}, "gravity": [0, -9.81],
    "components": {
      "bob": {"parameters": {"len": 1, "m": 1},
              "bodies": [{"name": "p", "type": "particle", "dim": 2, "mass": "m", "position": ["len", 0]}]},
      "pair": {"parameters": {"len": 2},
               "instances": [{"name": "inner", "component": "bob", "parameters": {"len": "len"}}],
               "bodies": []}
    },
    "instances": [{"name": "outer", "component": "pair"}],
    "bodies": [],
    "forces": [{"name": "s", "type": "spring", "body1": "ground", "point1": [0, 0],
                "body2": "outer.inner.p", "point2": [0, 0], "stiffness": "k2"}],
    "simulation": {"t_end": 1}
  })");
}

double bodyX(const Scene& s) { return s.resolved()["bodies"][0]["position"][0].get<double>(); }
}  // namespace

TEST_CASE("overrides: parseOverride reads numbers, expressions and words") {
  CHECK(parseOverride("k=200").value == 200.0);
  CHECK(parseOverride(" l1.L = 0.3 ").name == "l1.L");
  CHECK(parseOverride("l1.L=0.3").value == 0.3);
  CHECK(parseOverride("k=2*pi").value == "2*pi");
  CHECK(parseOverride("simulation.integrator=rk4").value == "rk4");
  CHECK_THROWS_AS(parseOverride("k"), InputError);
  CHECK_THROWS_AS(parseOverride("=2"), InputError);
  CHECK_THROWS_AS(parseOverride("k="), InputError);
}

TEST_CASE("overrides: a scene parameter changes what depends on it, and is recorded") {
  SceneOptions o;
  o.overrides = {parseOverride("k=50")};
  const Scene s = sceneFromJson(nestedScene(), "nested.json", o);
  CHECK(s.resolved()["parameters"]["k"] == 50.0);
  CHECK(s.resolved()["parameters"]["k2"] == 100.0);  // "2*k" follows the override
  CHECK(s.resolved()["forces"][0]["stiffness"] == 100.0);
  CHECK(s.resolved()["overrides"] == nlohmann::json{{"k", 50.0}});
  // without the override: the file's values
  const Scene plain = sceneFromJson(nestedScene(), "nested.json");
  CHECK(plain.resolved()["forces"][0]["stiffness"] == 20.0);
  CHECK_FALSE(plain.resolved().contains("overrides"));
}

TEST_CASE("overrides: instance parameters, top-level and nested, numbers and expressions") {
  SceneOptions o;
  o.overrides = {parseOverride("outer.len=3")};
  CHECK(bodyX(sceneFromJson(nestedScene(), "nested.json", o)) == 3.0);  // passed down to inner
  o.overrides = {parseOverride("outer.inner.len=len*1.25")};  // over the enclosing scope (pair: len 2)
  CHECK(bodyX(sceneFromJson(nestedScene(), "nested.json", o)) == 2.5);
  o.overrides = {parseOverride("outer.inner.m=5")};
  CHECK(sceneFromJson(nestedScene(), "nested.json", o).resolved()["bodies"][0]["mass"] == 5.0);
  CHECK(bodyX(sceneFromJson(nestedScene(), "nested.json")) == 2.0);
}

TEST_CASE("overrides: simulation settings, numbers and words") {
  SceneOptions o;
  o.overrides = {parseOverride("simulation.t_end=k/5"), parseOverride("simulation.integrator=rk4")};
  const Scene s = sceneFromJson(nestedScene(), "nested.json", o);
  const SimulationSettings settings = parseSimulationSettings(s.simulation);
  CHECK(settings.tEnd == 2.0);
  CHECK(settings.integrator == IntegratorKind::Rk4);
}

TEST_CASE("overrides: unknown names are input errors with a suggestion") {
  const auto message = [](const std::string& text) {
    SceneOptions o;
    o.overrides = {parseOverride(text)};
    try {
      // the simulation settings are read by the integrators module (scene_section.hpp)
      (void)parseSimulationSettings(sceneFromJson(nestedScene(), "nested.json", o).simulation);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message("kk=1"), Catch::Contains("unknown name 'kk'") && Catch::Contains("did you mean 'k'"));
  CHECK_THAT(message("outer.inner.lenn=1"), Catch::Contains("has no parameter 'lenn'") &&
                                                Catch::Contains("did you mean 'outer.inner.len'"));
  CHECK_THAT(message("outr.len=1"), Catch::Contains("unknown name 'outr.len'") &&
                                        Catch::Contains("did you mean 'outer.len'"));
  CHECK_THAT(message("simulation.tend=1"), Catch::Contains("/simulation/tend") && Catch::Contains("did you mean 't_end'"));
  CHECK_THAT(message("simulation.integrator=rk5"), Catch::Contains("unknown integrator 'rk5'"));
}

TEST_CASE("overrides: --set on check, solve, simulate and graph") {
  // the crank speed w1 sets the initial velocities: the piston starts at -w1*r = 4 m/s
  auto r = runCommand(kExe + " check " + kSliderCrank + " --set w1=-8 --set piston.m=3 --json");
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j["overrides"] == nlohmann::json{{"piston.m", 3.0}, {"w1", -8.0}});
  r = runCommand(kExe + " solve " + kSliderCrank + " --set l=2 --json");
  CHECK(r.exitCode == 0);
  const std::string csv = std::string(joinery_test_tmp_dir()) + "/joinery_test_study_set.csv";
  r = runCommand(kExe + " simulate " + kSliderCrank + " -o " + csv + " --set simulation.t_end=0.05 --set w1=-8");
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("completed at t = 0.05"));
  r = runCommand(kExe + " graph " + kSliderCrank + " -o " + std::string(joinery_test_tmp_dir()) + "/joinery_test_study_set.dot --set r=0.4");
  CHECK(r.exitCode == 0);
  r = runCommand(kExe + " check " + kSliderCrank + " --set ww1=2");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown name 'ww1'") && Catch::Contains("did you mean 'w1'"));
  r = runCommand(kExe + " simulate " + kSliderCrank + " -o " + csv + " --set rod.LL=2");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("did you mean 'rod.L'"));
  r = runCommand(kExe + " check " + kSliderCrank + " --set w1");
  CHECK(r.exitCode == 2);
}
