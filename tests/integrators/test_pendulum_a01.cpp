// A01 simple pendulum (docs/benchmarks.md): 2000 s against the closed-form reference, with
// RK4 and dopri5; drift control, energy conservation, consistent initial conditions.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <map>

#include "joinery/integrators/simulation.hpp"
#include "joinery/core/model_system.hpp"
#include "test_systems.hpp"

namespace joinery {
namespace {

struct Ref {
  double t, x, y;
};
// docs/benchmarks.md, A01
const Ref kA01[] = {{0.5, -0.391048791550546, -0.920369948785192},
                    {10, -0.275087462576117, -0.961419205099125},
                    {100, -0.181513351427031, -0.983388480334058},
                    {1000, 0.683230188552315, -0.730203060422762},
                    {2000, 0.814603068589032, -0.580018827836935}};

/// Index of the sample at time t (samples every 0.5 s from 0).
std::size_t sampleAt(const MemoryRecorder& rec, double t) {
  const auto i = static_cast<std::size_t>(std::llround(t / 0.5));
  REQUIRE(i < rec.size());
  REQUIRE(rec.t[i] == t);
  return i;
}

struct A01Run {
  SimulationResult result;
  double worstError = 0;
  double energyError = 0;
};

A01Run runA01(const SimulationSettings& set) {
  const test::TestModel model = test::pendulumModel();
  ModelSystem sys(model.model);
  MemoryRecorder rec;
  A01Run out;
  out.result = runSimulation(sys, set, rec);
  REQUIRE(out.result.completed());
  REQUIRE(rec.size() == 4001);  // 4000 output steps
  for (const Ref& r : kA01) {
    const std::size_t i = sampleAt(rec, r.t);
    const double err = std::max(std::abs(rec.q[i](0) - r.x), std::abs(rec.q[i](1) - r.y));
    INFO("t = " << r.t << ": x = " << rec.q[i](0) << ", y = " << rec.q[i](1) << ", error " << err);
    CHECK(err <= 1e-3);
    out.worstError = std::max(out.worstError, err);
  }
  // energy: 0 at the start (at rest, y = 0)
  for (std::size_t i = 0; i < rec.size(); ++i) {
    REQUIRE(rec.energy[i].has_value());
    out.energyError = std::max(out.energyError, std::abs(*rec.energy[i]));
  }
  return out;
}

// [long]: the whole 2000 s (1 s in Release, 75-110 s under ASan/UBSan)
TEST_CASE("A01 simple pendulum, 2000 s, rk4 with projection", "[integrators][benchmark][A01][long]") {
  SimulationSettings set;
  set.tEnd = 2000;
  set.outputInterval = 0.5;
  set.integrator = IntegratorKind::Rk4;
  set.step = 4e-3;
  const A01Run run = runA01(set);
  const auto& st = run.result.stats;
  INFO("A01 rk4 h = " << set.step << ": worst error " << run.worstError << ", max |E - E0| "
                      << run.energyError << " J, steps " << st.integrator.steps << ", evaluations "
                      << st.integrator.evaluations << ", wall " << st.wallSeconds << " s");
  CHECK(st.maxPositionResidual < 1e-10);
  CHECK(st.maxVelocityResidual < 1e-10);
  // energy conserved to the integrator's accuracy (m g L = 9.81 J)
  CHECK(run.energyError < 1e-4);
}

// [long]: the whole 2000 s (1 s in Release, 75-110 s under ASan/UBSan)
TEST_CASE("A01 simple pendulum, 2000 s, dopri5 with projection", "[integrators][benchmark][A01][long]") {
  SimulationSettings set;
  set.tEnd = 2000;
  set.outputInterval = 0.5;
  set.integrator = IntegratorKind::Dopri5;
  set.rtol = 1e-10;
  set.atol = 1e-10;
  const A01Run run = runA01(set);
  const auto& st = run.result.stats;
  INFO("A01 dopri5 rtol = " << set.rtol << ": worst error " << run.worstError << ", max |E - E0| "
                            << run.energyError << " J, steps " << st.integrator.steps << " (rejected "
                            << st.integrator.rejected << "), evaluations " << st.integrator.evaluations
                            << ", wall " << st.wallSeconds << " s");
  CHECK(st.maxPositionResidual < 1e-10);
  CHECK(st.maxVelocityResidual < 1e-10);
  CHECK(run.energyError < 1e-5);  // 1e-6 of m g L
}

TEST_CASE("Pendulum: drift control none / baumgarte / projection", "[integrators][drift]") {
  const test::TestModel model = test::pendulumModel();
  SimulationSettings set;
  set.tEnd = 20;
  set.outputInterval = 0.5;
  set.integrator = IntegratorKind::Rk4;
  set.step = 1e-2;
  std::map<std::string, double> drift;
  for (const char* stab : {"none", "baumgarte", "projection"}) {
    ModelSystem sys(model.model);
    set.stabilization = *parseStabilization(stab);
    MemoryRecorder rec;
    const SimulationResult r = runSimulation(sys, set, rec);
    REQUIRE(r.completed());
    drift[stab] = r.stats.maxPositionResidual;
    // all three stay close to the reference at t = 10 s
    const std::size_t i = 20;
    REQUIRE(rec.t[i] == 10.0);
    INFO(stab << ": position drift " << r.stats.maxPositionResidual << ", velocity drift "
              << r.stats.maxVelocityResidual);
    CHECK(std::abs(rec.q[i](0) - kA01[1].x) < 1e-3);
    CHECK(std::abs(rec.q[i](1) - kA01[1].y) < 1e-3);
  }
  CHECK(drift["projection"] < 1e-12);
  CHECK(drift["baumgarte"] < drift["none"]);
  CHECK(drift["none"] > 1e-9);  // the unstabilized run drifts
}

TEST_CASE("Inconsistent initial conditions are projected and reported", "[integrators][initial]") {
  // bob 10 % too far out and moving partly along the rod
  const test::TestModel model = test::pendulumModel(-1.1, 0.05, 0.3, 0.2);
  ModelSystem sys(model.model);
  SimulationSettings set;
  set.tEnd = 0.5;
  set.outputInterval = 0.5;
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec);
  INFO(r.initial.message);
  REQUIRE(r.completed());
  CHECK(r.initial.projected);
  CHECK(r.initial.before.position > 0.1);
  CHECK(r.initial.after.position < 1e-12);
  CHECK(r.initial.after.velocity < 1e-12);
  CHECK(r.initial.positionCorrection == Approx(0.1).epsilon(0.05));
  CHECK(r.initial.velocityCorrection > 0.2);
  CHECK_THAT(r.initial.message, Catch::Contains("max |dq|"));
  CHECK_THAT(r.initial.message, Catch::Contains("rod"));
  // the first sample is the projected state: on the circle
  CHECK(rec.q[0].norm() == Approx(1.0).epsilon(1e-12));
  CHECK(rec.positionResidual[0] < 1e-12);
}

TEST_CASE("Strict initial conditions reject a violated constraint, naming it", "[integrators][initial]") {
  const test::TestModel model = test::pendulumModel(-1.1, 0.0);
  ModelSystem sys(model.model);
  SimulationSettings set;
  set.tEnd = 1;
  RunOptions opt;
  opt.initialConditions = InitialConditionMode::Strict;
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec, {}, opt);
  CHECK(r.outcome == RunOutcome::InvalidInitialConditions);
  CHECK_THAT(r.message, Catch::Contains("'rod[0]'"));
  CHECK_THAT(r.message, Catch::Contains("|phi|"));
  CHECK(rec.size() == 0);
  SECTION("velocity level") {
    const test::TestModel m2 = test::pendulumModel(-1.0, 0.0, 0.5, 0.0);  // moving along the rod
    ModelSystem s2(m2.model);
    const SimulationResult r2 = runSimulation(s2, set, rec, {}, opt);
    CHECK(r2.outcome == RunOutcome::InvalidInitialConditions);
    CHECK_THAT(r2.message, Catch::Contains("velocit"));
  }
  SECTION("a consistent state passes strict mode untouched") {
    const test::TestModel m3 = test::pendulumModel(0.6, -0.8, 0.8, 0.6);
    ModelSystem s3(m3.model);
    set.tEnd = 0.1;
    const SimulationResult r3 = runSimulation(s3, set, rec, {}, opt);
    CHECK(r3.completed());
    CHECK_FALSE(r3.initial.projected);
  }
}

TEST_CASE("Projection keeps the pendulum on its circle in the metric M + A^T A", "[integrators][drift]") {
  const test::TestModel model = test::pendulumModel();
  ModelSystem sys(model.model);
  State s = sys.initialState();
  s.q << 0.9, -0.6;  // off the circle
  s.v << 1.0, 1.0;
  const ProjectionReport pp = sys.projectPositions(s, ProjectionOptions{});
  CHECK(pp.converged);
  CHECK(pp.iterations <= 6);
  CHECK(s.q.norm() == Approx(1.0).epsilon(1e-14));
  // M = I and A = q^T: the shortest step is radial
  CHECK(s.q(0) / s.q(1) == Approx(0.9 / -0.6));
  const ProjectionReport pv = sys.projectVelocities(s, ProjectionOptions{});
  CHECK(pv.converged);
  CHECK(std::abs(s.q.dot(s.v)) < 1e-14);
  const ConstraintResiduals res = sys.calcConstraintResiduals(s);
  CHECK(res.position < 1e-14);
  CHECK(res.velocity < 1e-14);
}

}  // namespace
}  // namespace joinery
