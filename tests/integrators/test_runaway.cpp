// Runs that cannot end stop with exit 5 and a message naming the cause, in a bounded number
// of steps (docs/integrators.md, "How a run ends"): a t_end no step limit can reach, a step
// that collapses, a wall-time limit; a run slowed only for a while is not stopped.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/simulation.hpp"
#include "test_systems.hpp"

namespace joinery {
namespace {

using test::Oscillators;

/// An oscillator that is fast (w = 1000 rad/s) until tFast and slow (w = 1) after: an early
/// transient of small steps, then large ones.
class FastThenSlow final : public DynamicSystem {
 public:
  explicit FastThenSlow(double tFast) : tFast_(tFast) {}
  int numCoordinates() const override { return 1; }
  const std::vector<std::string>& coordinateNames() const override { return names_; }
  State initialState() const override {
    State s;
    s.q = VectorXd::Ones(1);
    s.v = VectorXd::Zero(1);
    return s;
  }
  AccelerationStatus calcAccelerations(const State& s, VecRef qdd, const Baumgarte&) override {
    const double w = s.t < tFast_ ? 1000.0 : 1.0;
    qdd(0) = -w * w * s.q(0);
    return {};
  }
  using DynamicSystem::calcAccelerations;

 private:
  double tFast_;
  std::vector<std::string> names_{"osc.q"};
};

TEST_CASE("A run to t_end = 1e308 fails with exit 5 after 1000 steps, naming the step limit",
          "[integrators][failure][runaway]") {
  Oscillators sys({1.0});
  SimulationSettings set;
  set.tEnd = 1e308;
  set.outputInterval = 1e302;  // within the sample limit
  SECTION("dopri5") { set.integrator = IntegratorKind::Dopri5; }
  SECTION("rkm") { set.integrator = IntegratorKind::Rkm; }
  SECTION("radau5") { set.integrator = IntegratorKind::Radau5; }
  RunOptions opt;
  opt.maxSteps = 100'000'000;  // the default of joinery simulate
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec, {}, opt);
  INFO(r.message);
  CHECK(r.outcome == RunOutcome::Failed);  // exit 5 (docs/integrators.md)
  CHECK_THAT(r.message, Catch::Contains("cannot reach t_end = 1e+308"));
  CHECK_THAT(r.message, Catch::Contains("--max-steps"));
  // without the rule: 1e8 steps (hours); with it the first step that can tell
  CHECK(r.stats.integrator.steps == 1000);
}

TEST_CASE("A run slowed only at first by small steps is not stopped by the step-limit rule",
          "[integrators][runaway]") {
  // 0.5 s at w = 1000 (steps of ~2.5e-4 s), then w = 1 to t = 2000: within a limit of 40000
  // steps; after 1000 steps (t ~ 0.2) the mean step so far and the last step both predict ~1e7
  // steps (a rule on either would stop it), steps 1000 times the largest ~1e4: the run completes
  FastThenSlow sys(0.5);
  SimulationSettings set;
  set.tEnd = 2000;
  set.outputInterval = 100;
  set.rtol = set.atol = 1e-6;
  RunOptions opt;
  opt.maxSteps = 40000;
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec, {}, opt);
  INFO(r.message << "; steps " << r.stats.integrator.steps);
  CHECK(r.outcome == RunOutcome::Completed);
  CHECK(r.stats.integrator.steps < opt.maxSteps);
}

TEST_CASE("A run whose step collapses fails with exit 5 at once, naming the collapse",
          "[integrators][failure][runaway]") {
  // the force is NaN from t = 0.3 on: every trial step across it is rejected (h /= 4); the
  // step falls below 1e-12 max(1, |t|) within some 20 rejections, not millions
  Oscillators sys({1.0});
  sys.nanFrom = 0.3;
  SimulationSettings set;
  set.tEnd = 1e308;
  set.outputInterval = 1e302;
  SECTION("dopri5") { set.integrator = IntegratorKind::Dopri5; }
  SECTION("radau5") { set.integrator = IntegratorKind::Radau5; }
  RunOptions opt;
  opt.maxSteps = 100'000'000;
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec, {}, opt);
  INFO(r.message);
  CHECK(r.outcome == RunOutcome::Failed);  // exit 5
  CHECK_THAT(r.message, Catch::Contains("step-size collapse"));
  CHECK(r.stats.integrator.rejected < 200);
  CHECK(r.t <= 0.3);
}

TEST_CASE("A wall-time limit ends a run with exit 5 and says so", "[integrators][failure][runaway]") {
  Oscillators sys({1.0});
  SimulationSettings set;
  set.tEnd = 1000;
  RunOptions opt;
  opt.maxWallSeconds = 1e-9;  // passed by the first step
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec, {}, opt);
  INFO(r.message);
  CHECK(r.outcome == RunOutcome::Failed);  // exit 5
  CHECK_THAT(r.message, Catch::Contains("wall-time limit of 1e-09 s (--max-wall-time)"));
  CHECK(r.stats.integrator.steps == 1);
}

TEST_CASE("A particle whose expression mass overflows fails with exit 5 at once, naming the collapse and the mass",
          "[integrators][failure][runaway]") {
  // the fuzzing seed underflowing_mass_and_subnormal.json moving: mass x^(2^64) is 1 at x = 1
  // and infinite just above it; every trial step from x = 1, v = 1 meets an infinite mass
  const auto j = nlohmann::json::parse(R"json({"joinery": 1, "bodies": [{"name": "p", "type": "expression",
      "coordinates": ["x"], "mass_matrix": [["x^(2^64)"]], "force": ["1e-320*x*1e300"], "q0": [1], "v0": [1]}],
      "simulation": {"t_end": 10}})json");
  const Scene scene = sceneFromJson(j, "seed.json");
  SimulationSettings set = parseSimulationSettings(scene.simulation);
  ModelSystem sys(scene.model);
  RunOptions opt;
  opt.maxSteps = 100'000'000;
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec, {}, opt);
  INFO(r.message << "; steps " << r.stats.integrator.steps << ", rejected " << r.stats.integrator.rejected);
  CHECK(r.outcome == RunOutcome::Failed);  // exit 5
  CHECK_THAT(r.message, Catch::Contains("step-size collapse at t = 0"));
  CHECK_THAT(r.message, Catch::Contains("mass matrix is not finite"));
  CHECK(r.stats.integrator.rejected < 100);  // h /= 4 from the first trial: 15 rejections
}

}  // namespace
}  // namespace joinery
