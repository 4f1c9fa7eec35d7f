// Loading valid scenes: the model they give, parameters and expressions in numeric fields,
// simulation settings, and the resolved (flattened) scene as a round trip.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "eigen_approx.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/settings.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "scene_test_support.hpp"
#include "scene_support.hpp"

using joinery::loadScene;
using joinery::Model;
using joinery::Scene;
using joinery::sceneFromJson;
using joinery::test::isApprox;
using joinery::test::resolvedElement;
using joinery::test::sceneData;

namespace {

using joinery::test::vec;

}  // namespace

TEST_CASE("a pendulum scene loads into the expected model", "[scene]") {
  const Scene s = loadScene(sceneData("pendulum.json"));
  CHECK(s.name == "pendulum");
  CHECK(s.file == sceneData("pendulum.json"));
  const Model& m = s.model;
  REQUIRE(m.numCoordinates() == 3);
  CHECK(m.numConstraintRows() == 2);
  CHECK(m.coordinateNames() == std::vector<std::string>{"rod.x", "rod.y", "rod.theta"});
  CHECK(m.rowNames().size() == 2);
  CHECK(m.bodies().size() == 1);
  REQUIRE(m.constraints().size() == 1);
  CHECK(m.constraints()[0]->name() == "pivot");
  CHECK(m.forces().empty());
  CHECK_THAT(Eigen::MatrixXd(m.gravity()), isApprox(vec({0, -9.81, 0})));

  const joinery::State x0 = m.initialState();
  CHECK_THAT(Eigen::MatrixXd(x0.q), isApprox(vec({0.5, 0, 0})));
  CHECK_THAT(Eigen::MatrixXd(x0.v), isApprox(vec({0, 0, 0})));

  const joinery::SimulationSettings sim = joinery::parseSimulationSettings(s.simulation);
  CHECK(sim.given);
  CHECK(sim.tEnd == 2.0);
  CHECK(sim.integrator == joinery::IntegratorKind::Rk4);
  CHECK(sim.step == 1e-3);
  CHECK(sim.outputInterval == 0.01);
  CHECK(sim.stabilization == joinery::Stabilization::Baumgarte);
  CHECK(sim.rtol == 1e-6);  // default
  CHECK(sim.atol == 1e-9);  // default

  SECTION("the accelerations at the initial state are those of a rod pivoted at its end") {
    joinery::ModelWorkspace ws = m.makeWorkspace();
    const joinery::Solution sol = joinery::solveForwardDynamics(m, x0, ws);
    // theta'' = -m g (L/2) / (I + m (L/2)^2) with m = 1, L = 1, I = 1/12
    const double alpha = -9.81 * 0.5 / (1.0 / 12 + 0.25);
    CHECK_THAT(Eigen::MatrixXd(sol.qdd), isApprox(vec({0, 0.5 * alpha, alpha}), 1e-9, 1e-9));
  }
}

TEST_CASE("a scene without simulation settings gets the documented defaults", "[scene]") {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "joinery": 1,
    "bodies": [{"name": "p", "type": "particle", "dim": 2, "mass": 1}]
  })");
  const Scene s = sceneFromJson(j, "inline.json");
  const joinery::SimulationSettings sim = joinery::parseSimulationSettings(s.simulation);
  CHECK_FALSE(sim.given);
  CHECK(sim.tEnd == 1.0);
  CHECK(sim.integrator == joinery::IntegratorKind::Dopri5);
  CHECK(sim.rtol == 1e-6);
  CHECK(sim.atol == 1e-9);
  CHECK(sim.step == 1e-3);
  CHECK(sim.outputInterval == 0.01);
  CHECK(sim.stabilization == joinery::Stabilization::Projection);
  CHECK(s.name.empty());
  CHECK_THAT(Eigen::MatrixXd(s.model.gravity()), isApprox(vec({0, 0, 0})));
  CHECK(s.model.coordinateNames() == std::vector<std::string>{"p.x", "p.y"});
  CHECK_FALSE(s.resolved().contains("simulation"));
}

TEST_CASE("parameters are resolved in dependency order and usable in every numeric field", "[scene]") {
  const Scene s = loadScene(sceneData("parameters.json"));
  const Model& m = s.model;
  REQUIRE(m.coordinateNames() ==
          std::vector<std::string>{"rod.x", "rod.y", "rod.theta", "slider.x", "slider.y"});
  const joinery::State x0 = m.initialState();
  const double pi = std::numbers::pi;
  // L = 2*h = 1, rod at (L/2, 0) turned by pi/6; slider at (-h, sqrt(4))
  CHECK_THAT(Eigen::MatrixXd(x0.q), isApprox(vec({0.5, 0, pi / 6, -0.5, 2})));
  // angular_velocity = -w = -2*pi/T with T = 4
  CHECK_THAT(Eigen::MatrixXd(x0.v), isApprox(vec({0, 0, -pi / 2, 0, 0})));
  CHECK_THAT(Eigen::MatrixXd(m.gravity()), isApprox(vec({0, -9.81, 0})));
  const joinery::SimulationSettings sim = joinery::parseSimulationSettings(s.simulation);
  CHECK(sim.tEnd == 4.0);
  CHECK(sim.step == Approx(1e-3));

  // the resolved scene holds the evaluated numbers
  const nlohmann::json rod = resolvedElement(s, "bodies", "rod");
  CHECK(rod.at("mass").get<double>() == 3.0);
  CHECK(rod.at("inertia").get<double>() == Approx(0.25));  // m L^2 / 12
  CHECK(resolvedElement(s, "bodies", "slider").at("mass").get<double>() == 1.0);
  const nlohmann::json spring = resolvedElement(s, "forces", "link");
  CHECK(spring.at("stiffness").get<double>() == 30.0);
  CHECK(spring.at("free_length").get<double>() == 1.0);
  CHECK(s.resolved().at("parameters").at("I").get<double>() == Approx(0.25));
  // an expression in t keeps t; its parameters are replaced by their values
  const nlohmann::json drive = resolvedElement(s, "joints", "drive");
  REQUIRE(drive.at("value").is_string());
  const auto names = joinery::detail::namesIn(drive.at("value").get<std::string>());
  CHECK(names == std::vector<std::string>{"sin", "t"});
}

TEST_CASE("the resolved scene loads into the same model (round trip)", "[scene]") {
  for (const char* file : {"pendulum.json", "parameters.json", "two_link.json", "nested.json",
                           "diamond.json", "local_names.json"}) {
    INFO(file);
    const Scene s = loadScene(sceneData(file));
    const Scene r = sceneFromJson(s.resolved(), "resolved.json");
    CHECK(r.model.coordinateNames() == s.model.coordinateNames());
    CHECK(r.model.rowNames() == s.model.rowNames());
    CHECK(r.model.numConstraintRows() == s.model.numConstraintRows());
    CHECK(r.model.forces().size() == s.model.forces().size());
    const joinery::State a = s.model.initialState(), b = r.model.initialState();
    CHECK_THAT(Eigen::MatrixXd(b.q), isApprox(a.q));
    CHECK_THAT(Eigen::MatrixXd(b.v), isApprox(a.v));
    CHECK_THAT(Eigen::MatrixXd(r.model.gravity()), isApprox(s.model.gravity()));
    const joinery::SimulationSettings rs = joinery::parseSimulationSettings(r.simulation),
                                      ss = joinery::parseSimulationSettings(s.simulation);
    CHECK(rs.given == ss.given);
    CHECK(rs.tEnd == ss.tEnd);
    CHECK(rs.integrator == ss.integrator);
    // flattening is idempotent
    CHECK(r.resolved() == s.resolved());
    // no substructuring left
    CHECK_FALSE(s.resolved().contains("instances"));
    CHECK_FALSE(s.resolved().contains("components"));
    CHECK_FALSE(s.resolved().contains("include"));
  }
}

TEST_CASE("sceneFromJson resolves includes relative to the named file", "[scene]") {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "joinery": 1, "include": ["lib/links.json"],
    "instances": [{"name": "l", "component": "link"}], "bodies": []
  })");
  const Scene s = sceneFromJson(j, sceneData("in_memory.json"));
  CHECK(s.model.coordinateNames() == std::vector<std::string>{"l.rod.x", "l.rod.y", "l.rod.theta"});
  CHECK(s.file == sceneData("in_memory.json"));
}

TEST_CASE("expression names are found like the expression parser finds them", "[scene]") {
  using joinery::detail::namesIn;
  CHECK(namesIn("1.5*rod.theta + 2e-3*L - .5e+2/x_1") == std::vector<std::string>{"rod.theta", "L", "x_1"});
  CHECK(namesIn("sin(t)^2 + arm.l1.rod.theta_dot") == std::vector<std::string>{"sin", "t", "arm.l1.rod.theta_dot"});
  CHECK(namesIn("3.e") == std::vector<std::string>{});
  CHECK(joinery::detail::rewriteNames("2*L+L2-1.5e3*L", [](const std::string& n) {
          return n == "L" ? std::string("(7)") : n;
        }) == "2*(7)+L2-1.5e3*(7)");
  CHECK(joinery::detail::formatNumber(0.1) == "0.1");
  CHECK(std::stod(joinery::detail::formatNumber(1.0 / 3.0)) == 1.0 / 3.0);
}
