// Failure behaviour: a run that dies keeps its samples and says why; ill-posed and
// inconsistent states stop the run with exit 3/4; nothing hangs, no NaN is written.
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/core/model_system.hpp"
#include "test_systems.hpp"

namespace joinery {
namespace {

using test::Oscillators;

std::vector<std::string> readLines(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

TEST_CASE("A run whose force becomes NaN keeps its CSV samples and fails with exit 5",
          "[integrators][failure]") {
  Oscillators sys({1.0, 2.0});
  sys.nanFrom = 0.5;
  SimulationSettings set;
  set.tEnd = 1.0;
  set.outputInterval = 0.1;
  set.step = 1e-3;
  SECTION("dopri5") { set.integrator = IntegratorKind::Dopri5; }
  SECTION("rkm") { set.integrator = IntegratorKind::Rkm; }
  SECTION("rk4") { set.integrator = IntegratorKind::Rk4; }
  const auto path = std::filesystem::path(joinery_test_tmp_dir()) /
                    ("joinery_test_nan_" + std::string(toString(set.integrator)) + ".csv");
  SimulationResult r;
  {
    CsvRecorder csv(path.string());
    r = runSimulation(sys, set, csv);
  }
  INFO(toString(set.integrator) << ": " << r.message);
  CHECK(r.outcome == RunOutcome::Failed);
  CHECK_FALSE(r.message.empty());
  CHECK(r.t <= 0.5 + 1e-12);
  CHECK(r.t > 0.4);
  CHECK(r.state.q.allFinite());
  CHECK_THROWS_AS(r.throwIfFailed(), SimulationError);
  // every sample before the failure is on disk, and nothing else
  const auto ls = readLines(path);
  REQUIRE(ls.size() >= 1 + 5);  // header + t = 0 .. 0.4 at least
  CHECK(ls.size() <= 1 + 6);    // at most up to t = 0.5
  for (const auto& l : ls) {
    CHECK(l.find("nan") == std::string::npos);
    CHECK(l.find("inf") == std::string::npos);
  }
  CHECK(ls[5].rfind("0.4,", 0) == 0);
  std::filesystem::remove(path);
}

TEST_CASE("Step-size collapse is a failure with a message, not a hang", "[integrators][failure]") {
  Oscillators sys({1.0});
  sys.nanFrom = 0.3;
  SimulationSettings set;
  set.tEnd = 1.0;
  SECTION("dopri5") { set.integrator = IntegratorKind::Dopri5; }
  SECTION("rkm") { set.integrator = IntegratorKind::Rkm; }
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec);
  CHECK(r.outcome == RunOutcome::Failed);
  INFO(r.message);
  CHECK_THAT(r.message, Catch::Contains(std::string(toString(set.integrator)) + ": step-size collapse"));
  CHECK_THAT(r.message, Catch::Contains("non-finite"));
  CHECK(sys.evaluations < 2000);  // gave up quickly
  CHECK(rec.t.back() <= 0.3);
}

TEST_CASE("A state that becomes ill posed during the run stops it with exit 3", "[integrators][failure]") {
  Oscillators sys({1.0});
  sys.illPosedFrom = 0.37;
  SimulationSettings set;
  set.tEnd = 1.0;
  set.outputInterval = 0.1;
  SECTION("dopri5") { set.integrator = IntegratorKind::Dopri5; }
  SECTION("rkm") { set.integrator = IntegratorKind::Rkm; }
  SECTION("rk4") {
    set.integrator = IntegratorKind::Rk4;
    set.step = 0.01;
  }
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec);
  INFO(r.message);
  CHECK(r.outcome == RunOutcome::IllPosed);
  CHECK(r.t == Approx(0.37).margin(0.011));
  CHECK(r.state.t <= 0.37);
  CHECK_THAT(r.message, Catch::Contains("osc.q0 has no mass"));
  CHECK(rec.t.back() == Approx(0.3));
  try {
    r.throwIfFailed();
    FAIL("no exception");
  } catch (const SimulationFailure& e) {
    CHECK(e.outcome() == RunOutcome::IllPosed);
  }
}

TEST_CASE("Inconsistent constraints during the run stop it with exit 4", "[integrators][failure]") {
  Oscillators sys({1.0});
  sys.inconsistentFrom = 0.2;
  SimulationSettings set;
  set.tEnd = 1.0;
  NullRecorder none;
  const SimulationResult r = runSimulation(sys, set, none);
  CHECK(r.outcome == RunOutcome::Inconsistent);
  CHECK_THAT(r.message, Catch::Contains("contradicting"));
}

TEST_CASE("A massless particle without constraint is ill posed: the run stops at once",
          "[integrators][failure]") {
  const nlohmann::json bodies = nlohmann::json::array(
      {{{"name", "ghost"}, {"type", "particle"}, {"dim", 2}, {"mass", 0}, {"position", {0, 0}}}});
  const test::TestModel model = test::buildModel(bodies, nlohmann::json::array(), Vector3d(0, -9.81, 0));
  ModelSystem sys(model.model);
  SimulationSettings set;
  set.tEnd = 1.0;
  std::ostringstream out;
  CsvRecorder csv(out);
  const SimulationResult r = runSimulation(sys, set, csv);
  INFO(r.message);
  CHECK(r.outcome == RunOutcome::IllPosed);
  CHECK(r.t == 0);
  CHECK_THAT(r.message, Catch::Contains("ghost.y"));
  // only the header was written
  CHECK(out.str() == "t,ghost.x,ghost.y,ghost.x_dot,ghost.y_dot,energy,position_residual,velocity_residual\n");
}

TEST_CASE("A CSV file that cannot be opened is an input error", "[integrators][failure]") {
  CHECK_THROWS_AS(CsvRecorder("/nonexistent-dir/joinery/out.csv"), InputError);
}

TEST_CASE("An interrupt during the start-up stops the run before its first step; nothing is recorded",
          "[integrators][failure][signal]") {
  // the flag of a SIGTERM/SIGINT was read only after each step, so a signal during a
  // long start-up (the initial projection of a large model) waited for the first step. The
  // bob starts 0.2 m off its 1 m rod: the initial projection has iterations to do.
  const test::TestModel model = test::pendulumModel(-1.2, 0.0);
  ModelSystem sys(model.model);
  volatile std::sig_atomic_t flag = 1;

  ProjectionOptions po;
  po.interrupt = &flag;
  State s = sys.initialState();
  const VectorXd q0 = s.q;
  const ProjectionReport stopped = sys.projectPositions(s, po);
  CHECK(stopped.interrupted);
  CHECK(stopped.iterations == 0);
  CHECK(s.q == q0);  // no step taken
  flag = 0;
  const ProjectionReport done = sys.projectPositions(s, po);
  CHECK_FALSE(done.interrupted);
  CHECK(done.iterations > 0);
  CHECK(done.converged);

  flag = 1;
  SimulationSettings set;
  set.tEnd = 1.0;
  set.outputInterval = 0.1;
  RunOptions opt;
  opt.interrupt = &flag;
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec, {}, opt);
  INFO(r.message);
  CHECK(r.outcome == RunOutcome::Stopped);
  CHECK(rec.size() == 0);
  CHECK_THAT(r.message, Catch::Contains("before"));
}

}  // namespace
}  // namespace joinery
