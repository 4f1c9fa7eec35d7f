// Output channels (docs/outputs.md): values against closed forms, components' channels
// qualified by instance, bad names rejected at load with their JSON path, evaluation without
// allocation, declared potentials of expression and linear bodies.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "allocation_counter.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/outputs.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/run_outputs.hpp"
#include "joinery/integrators/settings.hpp"
#include "joinery/integrators/simulation.hpp"

using namespace joinery;
using nlohmann::json;

namespace {

/// A 2 m uniform rod (rigid2d, 3 kg) pinned at its end to the origin, released horizontally.
json rodPendulum() {
  return json::parse(R"js({
    "joinery": 1,
    "parameters": {"L": 2, "m": 3},
    "gravity": [0, -9.81, 0],
    "bodies": [{"name": "rod", "type": "rigid2d", "mass": "m", "inertia": "m*L^2/12",
                "position": ["L/2", 0], "angle": 0}],
    "joints": [{"name": "pivot", "type": "revolute2d", "body1": "ground", "point1": [0, 0],
                "body2": "rod", "point2": ["-L/2", 0]}],
    "outputs": [
      {"name": "tip", "point": {"body": "rod", "point": ["L/2", 0], "acceleration": true}},
      {"name": "tip_x", "value": "L*cos(rod.theta)"},
      {"name": "alpha", "value": "rod.theta_ddot"},
      {"name": "T", "energy": "kinetic"},
      {"name": "V", "energy": "potential"},
      {"name": "E", "energy": "total"}
    ],
    "simulation": {"t_end": 1.5, "integrator": "dopri5", "rtol": 1e-10, "atol": 1e-12,
                   "output_interval": 0.05}
  })js");
}

std::size_t columnOf(const std::vector<std::string>& cols, const std::string& name) {
  const auto it = std::find(cols.begin(), cols.end(), name);
  REQUIRE(it != cols.end());
  return static_cast<std::size_t>(it - cols.begin());
}

std::string loadError(const json& doc) {
  try {
    (void)sceneFromJson(doc, "scene.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("outputs: point, value and energy channels of a rod pendulum against closed forms") {
  const Scene scene = sceneFromJson(rodPendulum(), "rod.json");
  ModelSystem system(scene.model);
  const OutputChannels channels(scene.model, scene.outputs);
  REQUIRE(channels.columns().size() == 9 + 5);
  CHECK(channels.needsAccelerations());
  MemoryRecorder mem;
  ChannelRecorder rec(system, channels, true, mem);
  const SimulationResult r = runSimulation(system, parseSimulationSettings(scene.simulation), rec);
  REQUIRE(r.completed());
  REQUIRE(mem.size() == 31);
  REQUIRE(mem.channels.size() == mem.size());
  REQUIRE(mem.qdd.size() == mem.size());
  const auto& cols = channels.columns();
  const double L = 2, m = 3, g = 9.81, I = m * L * L / 12;
  double maxTheta = 0;
  for (std::size_t k = 0; k < mem.size(); ++k) {
    const double th = mem.q[k](2), w = mem.v[k](2), al = mem.qdd[k](2);
    const auto& c = mem.channels[k];
    maxTheta = std::max(maxTheta, std::abs(th));
    // the tip of a rod pinned at the origin: L (cos, sin) theta and its derivatives; the run
    // holds the pin to ~1e-12, so 1e-9 absolute is round-off plus drift
    CHECK(c[columnOf(cols, "tip.x")] == Approx(L * std::cos(th)).margin(1e-9));
    CHECK(c[columnOf(cols, "tip.y")] == Approx(L * std::sin(th)).margin(1e-9));
    CHECK(c[columnOf(cols, "tip.z")] == 0.0);
    CHECK(c[columnOf(cols, "tip.vx")] == Approx(-L * std::sin(th) * w).margin(1e-9));
    CHECK(c[columnOf(cols, "tip.vy")] == Approx(L * std::cos(th) * w).margin(1e-9));
    CHECK(c[columnOf(cols, "tip.ax")] == Approx(-L * (std::cos(th) * w * w + std::sin(th) * al)).margin(1e-8));
    CHECK(c[columnOf(cols, "tip.ay")] == Approx(L * (-std::sin(th) * w * w + std::cos(th) * al)).margin(1e-8));
    CHECK(c[columnOf(cols, "tip_x")] == Approx(L * std::cos(th)).epsilon(1e-14).margin(1e-15));
    // rod pendulum: theta'' = -(m g L/2 cos theta) / (I + m L^2/4) = -(3 g / 2L) cos theta
    CHECK(c[columnOf(cols, "alpha")] == Approx(-1.5 * g / L * std::cos(th)).margin(1e-8));
    const double T = 0.5 * m * (mem.v[k](0) * mem.v[k](0) + mem.v[k](1) * mem.v[k](1)) + 0.5 * I * w * w;
    CHECK(c[columnOf(cols, "T")] == Approx(T).epsilon(1e-12));
    CHECK(c[columnOf(cols, "V")] == Approx(m * g * mem.q[k](1)).epsilon(1e-12).margin(1e-12));
    CHECK(c[columnOf(cols, "E")] == Approx(*mem.energy[k]).epsilon(1e-12).margin(1e-12));
  }
  CHECK(maxTheta > 1.0);  // the rod swung through a large angle
}

TEST_CASE("outputs: components declare channels, qualified by their instance") {
  const json doc = json::parse(R"js({
    "joinery": 1,
    "components": {"link": {
      "parameters": {"L": 1},
      "bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 0.1}],
      "ports": {"top": {"body": "rod", "point": [0, "L/2"]}},
      "outputs": [{"name": "height", "value": "rod.y + L/2"},
                  {"name": "top", "point": {"port": "top"}}]}},
    "instances": [{"name": "l1", "component": "link", "parameters": {"L": 4}},
                  {"name": "l2", "component": "link"}],
    "bodies": [],
    "outputs": [{"name": "gap", "value": "l2.rod.y - l1.rod.y"}]
  })js");
  const Scene scene = sceneFromJson(doc, "c.json");
  REQUIRE(scene.outputs.size() == 5);
  CHECK(scene.outputs[0].name == "gap");
  CHECK(scene.outputs[1].name == "l1.height");
  CHECK(scene.outputs[1].expression == "l1.rod.y + L/2");
  CHECK(scene.outputs[3].name == "l2.height");
  const OutputChannels ch(scene.model, scene.outputs);
  CHECK(ch.columns()[1] == "l1.height");
  CHECK(ch.columns()[2] == "l1.top.x");
  State s = scene.model.initialState();
  s.q << 0, 2, 0.3, 0, -1, 0;  // l1.rod at y = 2 turned by 0.3, l2.rod at y = -1
  std::vector<double> row(ch.columns().size());
  ch.evaluate(s, nullptr, nullptr, row.data());
  CHECK(row[0] == Approx(-3));
  CHECK(row[1] == Approx(2 + 4.0 / 2));  // the instance's L = 4, not the default
  CHECK(row[2] == Approx(-2 * std::sin(0.3)));  // port top at (0, L/2) turned by 0.3
  CHECK(row[3] == Approx(2 + 2 * std::cos(0.3)));
  CHECK(row[8] == Approx(-1 + 0.5));  // l2.height with L = 1
  // the flattened scene keeps the channels and loads into the same columns
  const Scene again = sceneFromJson(scene.resolved(), "flat.json");
  CHECK(OutputChannels(again.model, again.outputs).columns() == ch.columns());
}

TEST_CASE("outputs: unknown bodies, ports, joints and symbols are input errors with a suggestion") {
  const auto withOutput = [](const std::string& output) {
    json doc = rodPendulum();
    doc["outputs"] = json::array({json::parse(output)});
    return doc;
  };
  std::string e = loadError(withOutput(R"js({"name": "a", "point": {"body": "rdo", "point": [0, 0]}})js"));
  CHECK_THAT(e, Catch::Contains("/outputs/0/point/body") && Catch::Contains("did you mean 'rod'"));
  e = loadError(withOutput(R"js({"name": "a", "reaction": "pivto"})js"));
  CHECK_THAT(e, Catch::Contains("/outputs/0/reaction") && Catch::Contains("did you mean 'pivot'"));
  e = loadError(withOutput(R"js({"name": "a", "effort": "pivot"})js"));
  CHECK_THAT(e, Catch::Contains("/outputs/0/effort") && Catch::Contains("expected a coupling"));
  e = loadError(withOutput(R"js({"name": "a", "value": "rod.tehta + 1"})js"));
  CHECK_THAT(e, Catch::Contains("/outputs/0/value") && Catch::Contains("did you mean 'rod.theta'"));
  e = loadError(withOutput(R"js({"name": "a", "point": {"port": "tpo"}})js"));
  CHECK_THAT(e, Catch::Contains("/outputs/0/point/port") && Catch::Contains("unknown port 'tpo'"));
  e = loadError(withOutput(R"js({"name": "a", "energy": "kinetik"})js"));
  CHECK_THAT(e, Catch::Contains("/outputs/0/energy") && Catch::Contains("did you mean 'kinetic'"));
  e = loadError(withOutput(R"js({"name": "a", "value": "1", "energy": "total"})js"));
  CHECK_THAT(e, Catch::Contains("/outputs/0") && Catch::Contains("exactly one of"));
  json dup = rodPendulum();
  dup["outputs"].push_back(json::parse(R"js({"name": "T", "value": "t"})js"));
  CHECK_THAT(loadError(dup), Catch::Contains("duplicate output column 'T'"));
}

TEST_CASE("outputs: evaluating the channels of a sample does not allocate") {
  const Scene scene = sceneFromJson(rodPendulum(), "rod.json");
  const OutputChannels ch(scene.model, scene.outputs);
  State s = scene.model.initialState();
  s.v << 0.1, 0.2, 0.3;
  VectorXd qdd = VectorXd::Constant(3, 0.5);
  std::vector<double> row(ch.columns().size());
  ch.evaluate(s, &qdd, nullptr, row.data());  // warm-up (thread-local buffers of bodies)
  const long before = test::heapAllocations();
  for (int k = 0; k < 10; ++k) {
    s.t += 0.01;
    ch.evaluate(s, &qdd, nullptr, row.data());
  }
  CHECK(test::heapAllocations() == before);
  CHECK(ch.firstNonFinite(row.data()) == -1);
}

TEST_CASE("outputs: the declared potential of expression and linear bodies makes the energy conserved") {
  // x'' = -(k/m) x written as an expression body and as a linear body with a nonlinear spring
  // in `force`: without `potential` the energy column misses the spring's energy.
  const json doc = json::parse(R"js({
    "joinery": 1,
    "parameters": {"k": 4, "m": 2, "c": 3},
    "bodies": [
      {"name": "osc", "type": "expression", "coordinates": ["x"], "mass_matrix": [["m"]],
       "force": ["-k*x"], "potential": "k*x^2/2", "q0": [0.5]},
      {"name": "lin", "type": "linear", "coordinates": ["u"], "mass_matrix": [[1]],
       "stiffness_matrix": [[2]], "force": ["-c*u^3"], "potential": "c*u^4/4", "q0": [0.7]}
    ],
    "simulation": {"t_end": 3, "rtol": 1e-10, "atol": 1e-12, "output_interval": 0.1}
  })js");
  const Scene scene = sceneFromJson(doc, "osc.json");
  ModelSystem system(scene.model);
  MemoryRecorder mem;
  const SimulationResult r = runSimulation(system, parseSimulationSettings(scene.simulation), mem);
  REQUIRE(r.completed());
  const double e0 = 4 * 0.25 / 2 + (2 * 0.49 / 2 + 3 * std::pow(0.7, 4) / 4);
  REQUIRE(mem.energy.front().has_value());
  CHECK(*mem.energy.front() == Approx(e0).epsilon(1e-14));
  for (const auto& e : mem.energy) CHECK(*e == Approx(e0).epsilon(1e-8));  // dopri5 at 1e-10
  // the potential round-trips through the flattened scene
  CHECK(scene.resolved()["bodies"][0]["potential"].is_string());
  json bad = doc;
  bad["bodies"][0]["potential"] = "x_dot^2";
  CHECK_THAT(loadError(bad), Catch::Contains("/bodies/0/potential") && Catch::Contains("depends on the velocity"));
}

TEST_CASE("outputs: a sample with reaction, effort and acceleration channels does not allocate") {
  // the driven slider-crank of the examples: structured path, joint results of two joints
  const Scene scene = loadScene(std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/slider_crank_outputs.json");
  ModelSystem system(scene.model);
  const OutputChannels ch(scene.model, scene.outputs);
  REQUIRE(ch.needsJointResults());
  NullRecorder sink;
  ChannelRecorder rec(system, ch, true, sink);
  rec.begin(scene.model.coordinateNames());
  State s = scene.model.initialState();
  const ConstraintResiduals res{};
  rec.record(Sample{s, 1.0, res});  // warm-up: thread-local buffers, first (dense) evaluation
  rec.record(Sample{s, 1.0, res});
  const long before = test::heapAllocations();
  for (int k = 0; k < 5; ++k) rec.record(Sample{s, 1.0, res});
  CHECK(test::heapAllocations() == before);
}

namespace {
/// Keeps the samples and asks to stop after `limit` of them (what a Python callback does).
class StopAfter final : public Recorder {
 public:
  explicit StopAfter(std::size_t limit) : limit_(limit) {}
  void begin(const std::vector<std::string>&) override {}
  void record(const Sample&) override { ++count; }
  bool stopRequested() const override { return count >= limit_; }
  std::size_t count = 0;

 private:
  std::size_t limit_;
};
}  // namespace

TEST_CASE("outputs: ChannelRecorder and TeeRecorder pass on the stop request of what they wrap") {
  // Without the forwarding the run would go on to t_end (31 samples): the wrapped recorder's
  // stopRequested() was never asked.
  const Scene scene = sceneFromJson(rodPendulum(), "rod.json");
  ModelSystem system(scene.model);
  const OutputChannels channels(scene.model, scene.outputs);
  StopAfter stop(4);
  MemoryRecorder mem;
  TeeRecorder tee({&mem, &stop});
  CHECK_FALSE(tee.stopRequested());
  ChannelRecorder rec(system, channels, false, tee);
  const SimulationResult r = runSimulation(system, parseSimulationSettings(scene.simulation), rec);
  CHECK(r.outcome == RunOutcome::Stopped);
  CHECK(stop.count == 4);
  CHECK(mem.size() == 4);
  CHECK(tee.stopRequested());
  CHECK(rec.stopRequested());
}

namespace {
/// A planar chain of `links` unit rods (rigid2d, revolute2d), horizontal at the start, with the
/// reactions of its first and last hinge and the acceleration of its tip as channels.
json hangingChain(int links) {
  json bodies = json::array(), joints = json::array();
  for (int i = 0; i < links; ++i) {
    const std::string name = "l" + std::to_string(i);
    bodies.push_back({{"name", name}, {"type", "rigid2d"}, {"mass", 1.0 + 0.1 * i}, {"inertia", 1.0 / 12},
                      {"position", {i + 0.5, 0.0}}, {"angle", 0.0}});
    joints.push_back({{"name", "h" + std::to_string(i)}, {"type", "revolute2d"},
                      {"body1", i == 0 ? std::string("ground") : "l" + std::to_string(i - 1)},
                      {"point1", {i == 0 ? 0.0 : 0.5, 0.0}}, {"body2", name}, {"point2", {-0.5, 0.0}}});
  }
  const std::string last = std::to_string(links - 1);
  return {{"joinery", 1},
          {"gravity", {0, -9.81, 0}},
          {"bodies", bodies},
          {"joints", joints},
          {"outputs", {{{"name", "r0"}, {"reaction", "h0"}},
                       {{"name", "rN"}, {"reaction", "h" + last}},
                       {{"name", "tip"}, {"point", {{"body", "l" + last}, {"point", {0.5, 0}}, {"acceleration", true}}}}}},
          {"simulation", {{"t_end", 0.5}, {"integrator", "dopri5"}, {"rtol", 1e-6}, {"atol", 1e-6},
                          {"output_interval", 0.01}}}};
}
}  // namespace

TEST_CASE("outputs: a sample's solve reuses the factorization of its projection, with the answer of a fresh solve") {
  // The samples of a run are interpolated, then projected (positions, velocities); the channels
  // that read accelerations or joint results solve at the projected state, whose matrix the
  // velocity projection has just factorized. Reusing that factor must give exactly what a
  // solve from scratch at the sample's state gives: the reactions stay exact at the sample.
  const Scene scene = sceneFromJson(hangingChain(6), "chain.json");
  ModelSystem system(scene.model);
  const OutputChannels ch(scene.model, scene.outputs);
  REQUIRE(ch.needsJointResults());
  MemoryRecorder mem;
  ChannelRecorder rec(system, ch, true, mem);
  const SimulationResult r = runSimulation(system, parseSimulationSettings(scene.simulation), rec);
  REQUIRE(r.completed());
  REQUIRE(mem.size() == 51);
  REQUIRE(r.stats.integrator.steps < 51);  // more samples than steps: most are interpolated
  // every sample but the first (the initial state is consistent: no projection) reused the
  // projection's factor, and so did the first stage after each projected step
  CHECK(system.reusedFactorizations() >= 50);

  // each sample again, on a system of its own: a fresh assembly and factorization every time
  ModelSystem fresh(scene.model);
  JointResultsWorkspace jws(scene.model);
  std::vector<JointResult> joints = jws.makeResults();
  JointMultipliers mult;
  VectorXd qdd(system.numCoordinates());
  std::vector<double> row(ch.columns().size());
  for (std::size_t k = 0; k < mem.size(); ++k) {
    const State s{mem.t[k], mem.q[k], mem.v[k]};
    REQUIRE(fresh.calcAccelerations(s, qdd).ok());
    fresh.calcMultipliers(s, mult);
    calcJointResults(scene.model, s, mult, jws, joints);
    ch.evaluate(s, &qdd, &joints, row.data());
    INFO("sample " << k << " at t = " << s.t);
    CHECK(mem.qdd[k] == qdd);  // bit for bit
    for (std::size_t c = 0; c < row.size(); ++c) CHECK(mem.channels[k][c] == row[c]);
  }
  CHECK(fresh.reusedFactorizations() == 0);
}

TEST_CASE("outputs: the projection's factor is reused at its own state only") {
  const Scene scene = sceneFromJson(hangingChain(4), "chain.json");
  ModelSystem system(scene.model);
  State s = scene.model.initialState();
  for (Eigen::Index i = 0; i < s.q.size(); ++i) {
    s.q(i) += 1e-6 * std::sin(1.0 + static_cast<double>(i));
    s.v(i) = 0.3 * std::cos(2.0 + static_cast<double>(i));
  }
  const ProjectionOptions opt{6, 1e-12};
  VectorXd a(s.q.size()), b(s.q.size());
  REQUIRE(system.calcAccelerations(s, a).ok());  // analyzes the structure
  REQUIRE(system.projectPositions(s, opt).converged);
  REQUIRE(system.projectVelocities(s, opt).iterations > 0);
  REQUIRE(system.calcAccelerations(s, a).ok());
  CHECK(system.reusedFactorizations() == 1);
  REQUIRE(system.calcAccelerations(s, a).ok());  // the same state again: still that factor
  CHECK(system.reusedFactorizations() == 2);
  ModelSystem fresh(scene.model);
  REQUIRE(fresh.calcAccelerations(s, b).ok());
  CHECK(a == b);
  // another position, or another time (the rows may depend on t), is assembled and factorized
  State moved = s;
  moved.q(1) += 1e-9;
  REQUIRE(system.calcAccelerations(moved, a).ok());
  CHECK(system.reusedFactorizations() == 2);
  REQUIRE(system.calcAccelerations(s, a).ok());  // the last factor is that of `moved`
  CHECK(system.reusedFactorizations() == 2);
  State later = s;
  later.t += 1e-3;
  REQUIRE(system.calcAccelerations(later, a).ok());
  CHECK(system.reusedFactorizations() == 2);
  // velocities alone do not change the matrix of position-level rows
  State faster = later;
  faster.v *= 2;
  REQUIRE(system.calcAccelerations(faster, a).ok());
  CHECK(system.reusedFactorizations() == 3);
  REQUIRE(fresh.calcAccelerations(faster, b).ok());
  CHECK(a == b);
}
