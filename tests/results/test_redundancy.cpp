// The joints' `unique` flags agree between the structured and the dense paths and with
// `check` at every sample of a run: the slider-crank with massless crank and rod
// makes a pivot of the structured elimination vanish although A has full rank (the singular
// mass blocks, not the rows). The structured path counts that pivot in
// AccelerationStatus::redundant (1, where check says 0: docs/results.md), but the joint
// results never take their flags from that count: a state with a released row gets its
// multipliers and their redundancy from the dense rank analysis.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/settings.hpp"
#include "joinery/integrators/simulation.hpp"
#include "results_support.hpp"

using namespace joinery;
using namespace joinery::test;
using nlohmann::json;

namespace {

/// Crank (r) and rod (l) massless, a 2.5 kg slider on the x axis, the crank driven at w.
json masslessSliderCrank() {
  const double r = 0.5, l = 1.4, th0 = 1.2, w = 6.0;
  const double x = r * std::cos(th0) + std::sqrt(l * l - std::pow(r * std::sin(th0), 2));
  const double phi = std::atan2(-r * std::sin(th0), x - r * std::cos(th0));
  const json bar = {{"type", "rigid2d"}, {"mass", 0}, {"inertia", 0}};
  json crank = bar, rod = bar;
  crank.update({{"name", "crank"}, {"position", {r * std::cos(th0) / 2, r * std::sin(th0) / 2}}, {"angle", th0}});
  rod.update({{"name", "rod"}, {"position", {(x + r * std::cos(th0)) / 2, r * std::sin(th0) / 2}}, {"angle", phi}});
  return {{"joinery", 1}, {"gravity", {0, -9.81, 0}},
          {"bodies", {crank, rod, {{"name", "slider"}, {"type", "rigid2d"}, {"mass", 2.5}, {"inertia", 0.3},
                                   {"position", {x, 0}}}}},
          {"joints", sliderCrankJoints(r, l, "1.2 + 6*t")},
          {"simulation", {{"t_end", 1.0}, {"integrator", "dopri5"}, {"rtol", 1e-8}, {"atol", 1e-10},
                          {"output_interval", 0.05}, {"stabilization", "projection"}}}};
  (void)w;
}

/// Redundant rows by the dense rank analysis (what `check` reports) at a state.
int denseRedundant(const Model& model, const State& s) {
  ModelWorkspace ws = model.makeWorkspace();
  JointMultipliers mult;
  return solveJointMultipliers(model, s, ws, mult).diagnosis.redundant;
}

}  // namespace

TEST_CASE("massless slider-crank: no redundant row on either path, the same unique flags at every sample",
          "[results][redundancy]") {
  const Scene sc = sceneFromJson(masslessSliderCrank(), "");
  REQUIRE(denseRedundant(sc.model, sc.model.initialState()) == 0);
  ModelSystemOptions o;
  o.path = EvaluationPath::Structured;
  ModelSystem system(sc.model, o);
  MemoryRecorder mem;
  const SimulationResult run = runSimulation(system, parseSimulationSettings(sc.simulation), mem);
  REQUIRE(run.completed());
  REQUIRE(mem.size() == 21);
  int released = 0;
  for (std::size_t k = 0; k < mem.size(); ++k) {
    const State s{mem.t[k], mem.q[k], mem.v[k]};
    INFO("t = " << s.t);
    ModelSystem sys(sc.model, o);
    VectorXd qdd = VectorXd::Zero(sc.model.numCoordinates());
    const AccelerationStatus st = sys.calcAccelerations(s, qdd);
    REQUIRE(st.ok());
    released += st.released;
    CHECK(denseRedundant(sc.model, s) == 0);
    const JointRun d = denseResults(sc.model, s);
    const JointRun sp = structuredResults(sc.model, s);
    for (std::size_t i = 0; i < d.joints.size(); ++i) {
      INFO("joint " << d.joints[i].name);
      CHECK(sp.joints[i].unique == d.joints[i].unique);
      CHECK(d.joints[i].unique);
    }
  }
  CHECK(released > 0);  // the case in point: the structured path did meet the vanished pivot
}

TEST_CASE("redundant pins: both paths flag the joints as not unique, as check counts 2 rows", "[results][redundancy]") {
  const json j = {{"joinery", 1}, {"gravity", {0, -9.81, 0}},
                  {"bodies", {{{"name", "p"}, {"type", "particle"}, {"dim", 2}, {"mass", 2.0}}}},
                  {"joints", {{{"name", "pinA"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                               {"body2", "p"}, {"point2", {0, 0}}},
                              {{"name", "pinB"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                               {"body2", "p"}, {"point2", {0, 0}}}}}};
  const Scene sc = sceneFromJson(j, "");
  const State s = sc.model.initialState();
  ModelSystemOptions o;
  o.path = EvaluationPath::Structured;
  ModelSystem sys(sc.model, o);
  VectorXd qdd = VectorXd::Zero(sc.model.numCoordinates());
  const AccelerationStatus st = sys.calcAccelerations(s, qdd);
  REQUIRE(st.ok());
  CHECK(denseRedundant(sc.model, s) == 2);
  const JointRun d = denseResults(sc.model, s);
  const JointRun sp = structuredResults(sc.model, s);
  for (std::size_t i = 0; i < d.joints.size(); ++i) {
    CHECK_FALSE(d.joints[i].unique);
    CHECK(sp.joints[i].unique == d.joints[i].unique);
  }
}
