// the Bricard mechanism (docs/benchmarks.md A04), an over-constrained
// spatial loop. 5 rods x 7 coordinates = 35; 6 revolute3d x 5 rows + 5 quaternion norms = 35
// rows: Grübler's count n - m = 0, yet it moves with one degree of freedom because one row
// is redundant (rank A = 34). The graph analysis reports the count (0) next to the mobility
// from the rank (1), the diagnosis reports the redundancy, and the run goes on.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "joinery/core/scene.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/core/model_system.hpp"
#include "mechanism_support.hpp"
#ifdef JOINERY_EXE
#include "run_command.hpp"
#endif

namespace joinery {
namespace {

const std::string kBricard = std::string(JOINERY_SOURCE_DIR) + "/tests/mechanisms/data/bricard.json";

TEST_CASE("Bricard mechanism: Grübler count 0, mobility 1 by rank, one redundant row",
          "[mechanisms][acceptance][bricard]") {
  const Scene scene = loadScene(kBricard);
  const Model& model = scene.model;
  const State s = model.initialState();
  const test::CheckResult r = test::checkAt(model, s);
  const Diagnosis& d = r.solution.diagnosis;
  INFO(test::allMessages(d));
  CHECK(d.n == 35);
  CHECK(d.m == 35);
  CHECK(r.graph.calcMobilityCount() == 0);
  CHECK(d.rankA == 34);
  CHECK(d.redundant == 1);
  CHECK(r.graph.calcMobilityFromRank() == 1);
  CHECK(r.graph.calcRedundantRows() == 1);
  CHECK(r.graph.numLoops() == 1);
  CHECK(r.graph.loops[0].joints.size() == 6);
  // redundancy is reported, not fatal
  CHECK(d.wellPosed);
  CHECK(d.rankMA == 35);
  CHECK_THAT(test::allMessages(d), Catch::Contains("1 redundant constraint row(s)"));
  // the accelerations satisfy all 35 rows (round-off of the SVD solve relative to the size
  // of the terms) and the mechanism starts to move under gravity (it is not at equilibrium)
  const VectorXd& qdd = r.solution.qdd;
  const double scale = std::max({1.0, r.b.cwiseAbs().maxCoeff(), qdd.cwiseAbs().maxCoeff()});
  CHECK((r.A * qdd - r.b).cwiseAbs().maxCoeff() <= 1e-11 * scale);
  CHECK(qdd.cwiseAbs().maxCoeff() > 0.1);
  // the null space of A (the motion the joints allow) is one-dimensional: one singular
  // value at round-off level, the next one clearly away from it
  Eigen::JacobiSVD<MatrixXd> svd(r.A, Eigen::ComputeFullV);
  const VectorXd sv = svd.singularValues();
  CHECK(sv(33) > 1e-3 * sv(0));
  CHECK(sv(34) <= 1e-12 * sv(0));
}

struct BricardRun {
  SimulationResult result;
  double maxDrift = 0, maxKinetic = 0;
};

BricardRun runBricard(const Scene& scene, double tEnd, double tol) {
  SimulationSettings set = parseSimulationSettings(scene.simulation);
  set.tEnd = tEnd;
  set.rtol = set.atol = tol;
  ModelSystem sys(scene.model);
  MemoryRecorder rec;
  BricardRun out{runSimulation(sys, set, rec)};
  for (std::size_t i = 0; i < rec.size(); ++i) {
    out.maxDrift = std::max(out.maxDrift, std::abs(*rec.energy[i] - *rec.energy.front()));
    out.maxKinetic = std::max(out.maxKinetic, scene.model.calcKineticEnergy(State{rec.t[i], rec.q[i], rec.v[i]}));
  }
  return out;
}

TEST_CASE("Bricard mechanism moves with one degree of freedom, conserving energy",
          "[mechanisms][bricard]") {
  const Scene scene = loadScene(kBricard);
  // the benchmark run: 10 s from rest, the scene's dopri5 settings (rtol = atol = 1e-9)
  const BricardRun run = runBricard(scene, 10, parseSimulationSettings(scene.simulation).rtol);
  const auto& st = run.result.stats;
  INFO(run.result.message << "\nenergy drift " << run.maxDrift << " J, max kinetic energy " << run.maxKinetic
                          << " J, steps " << st.integrator.steps << ", max position residual "
                          << st.maxPositionResidual << ", wall " << st.wallSeconds << " s");
  REQUIRE(run.result.completed());
  CHECK(run.maxKinetic > 0.5);  // it moves: gravity does work of order m g L
  // energy (|E| = 29.4 J, kinetic up to 4.6 J): measured drift 7.4e-6 J at rtol 1e-9; the
  // bound leaves a factor 4 for other platforms
  CHECK(run.maxDrift < 3e-5);
  CHECK(st.maxPositionResidual < 1e-10);
  // the redundancy is a property of the mechanism, not of its initial configuration
  const test::CheckResult r = test::checkAt(scene.model, run.result.state);
  CHECK(r.solution.diagnosis.wellPosed);
  CHECK(r.solution.diagnosis.rankA == 34);
  CHECK(r.graph.calcMobilityFromRank() == 1);

  // the drift is the integrator's error, not energy lost at the redundant rows: it falls
  // with the tolerance like dopri5's error (about 10x per decade; measured 3.1e-6 J at 1e-9,
  // 3.3e-8 J at 1e-11 over 2 s)
  const BricardRun tight = runBricard(scene, 2, 1e-11);
  REQUIRE(tight.result.completed());
  INFO("drift at rtol = atol = 1e-11 over 2 s: " << tight.maxDrift << " J");
  CHECK(tight.maxDrift < 2e-7);
}

#ifdef JOINERY_EXE
TEST_CASE("joinery check reports the Bricard mechanism's mobility by count and by rank",
          "[mechanisms][bricard][cli]") {
  const auto r = test::runCommand(std::string(JOINERY_EXE) + " check --json " + kBricard);
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j["mobility_count"] == 0);
  CHECK(j["mobility_rank"] == 1);
  const auto text = test::runCommand(std::string(JOINERY_EXE) + " check " + kBricard);
  CHECK_THAT(text.output, Catch::Contains("by count (n - m) = 0") &&
                              Catch::Contains("by rank (n - rank A) = 1") &&
                              Catch::Contains("redundant rows = 1"));
}
#endif

}  // namespace
}  // namespace joinery
