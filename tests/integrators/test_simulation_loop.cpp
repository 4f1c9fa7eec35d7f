// The simulation loop: CSV column contract, progress, settings validation.
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/simulation.hpp"
#include "test_systems.hpp"

namespace joinery {
namespace {

using test::Oscillators;

std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream is(line);
  while (std::getline(is, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  std::string l;
  while (std::getline(is, l)) out.push_back(l);
  return out;
}

TEST_CASE("CSV output: header t, coordinates, velocities, energy, residuals", "[integrators][csv]") {
  Oscillators sys({1.0, 2.0});
  SimulationSettings set;
  set.tEnd = 0.5;
  set.outputInterval = 0.25;
  std::ostringstream out;
  CsvRecorder csv(out);
  const SimulationResult r = runSimulation(sys, set, csv);
  REQUIRE(r.completed());
  const auto ls = lines(out.str());
  REQUIRE(ls.size() == 4);  // header + t = 0, 0.25, 0.5
  CHECK(ls[0] == "t,osc.q0,osc.q1,osc.q0_dot,osc.q1_dot,energy,position_residual,velocity_residual");
  CHECK(CsvRecorder::columns(sys.coordinateNames()) == splitCsv(ls[0]));
  const auto first = splitCsv(ls[1]);
  REQUIRE(first.size() == 8);
  CHECK(first[0] == "0");
  CHECK(first[1] == "1");
  CHECK(std::stod(first[5]) == Approx(2.5));
  const auto last = splitCsv(ls[3]);
  CHECK(last[0] == "0.5");
  // shortest round-trip formatting: the number reads back to the exact double
  CHECK(std::stod(last[1]) == Approx(std::cos(0.5)).epsilon(1e-9));
  for (const auto& l : ls)
    for (const auto& c : splitCsv(l)) {
      CHECK(c.find("nan") == std::string::npos);
      CHECK(c.find("inf") == std::string::npos);
    }
}

TEST_CASE("A system without energy writes an empty energy field", "[integrators][csv]") {
  class NoEnergy final : public DynamicSystem {
   public:
    int numCoordinates() const override { return 1; }
    const std::vector<std::string>& coordinateNames() const override { return names_; }
    State initialState() const override { return State{0, VectorXd::Zero(1), VectorXd::Ones(1)}; }
    AccelerationStatus calcAccelerations(const State&, VecRef qdd, const Baumgarte&) override {
      qdd.setZero();
      return {};
    }
    using DynamicSystem::calcAccelerations;

   private:
    std::vector<std::string> names_{"free.x"};
  } sys;
  SimulationSettings set;
  set.tEnd = 1;
  set.outputInterval = 1;
  std::ostringstream out;
  CsvRecorder csv(out);
  REQUIRE(runSimulation(sys, set, csv).completed());
  const auto ls = lines(out.str());
  REQUIRE(ls.size() == 3);
  const auto cells = splitCsv(ls[2]);
  REQUIRE(cells.size() == 6);
  CHECK(cells[0] == "1");
  CHECK(std::stod(cells[1]) == Approx(1.0));
  CHECK(cells[3].empty());  // no energy
  CHECK(cells[4] == "0");
  CHECK(cells[5] == "0");
}

TEST_CASE("Progress is reported from 0 to 1, increasing", "[integrators][progress]") {
  Oscillators sys({1.0});
  SimulationSettings set;
  set.tEnd = 20;
  set.outputInterval = 1;
  std::vector<double> seen;
  NullRecorder none;
  const SimulationResult r = runSimulation(sys, set, none, [&](double f) { seen.push_back(f); });
  REQUIRE(r.completed());
  REQUIRE(seen.size() >= 3);
  CHECK(seen.front() == 0.0);
  CHECK(seen.back() == 1.0);
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  CHECK(seen.size() <= 1002);
}

TEST_CASE("Invalid settings are input errors naming the field", "[integrators][settings]") {
  Oscillators sys({1.0});
  NullRecorder none;
  SimulationSettings set;
  auto pathOf = [&](const SimulationSettings& s) {
    try {
      runSimulation(sys, s, none);
    } catch (const InputError& e) {
      return e.jsonPath();
    }
    return std::string("no error");
  };
  set = {};
  set.tEnd = -1;
  CHECK(pathOf(set) == "/simulation/t_end");
  set = {};
  set.outputInterval = 0;
  CHECK(pathOf(set) == "/simulation/output_interval");
  set = {};
  set.integrator = IntegratorKind::Rk4;
  set.step = 0;
  CHECK(pathOf(set) == "/simulation/step");
  set = {};
  set.rtol = 0;
  set.atol = 0;
  CHECK(pathOf(set) == "/simulation/rtol");
  CHECK(parseIntegratorKind("dopri5") == IntegratorKind::Dopri5);
  CHECK(parseStabilization("baumgarte") == Stabilization::Baumgarte);
  CHECK_FALSE(parseStabilization("Projection"));
}

/// Keeps samples in memory and asks to stop once a sample reaches `tStop`.
class StoppingRecorder final : public Recorder {
 public:
  explicit StoppingRecorder(double tStop) : tStop_(tStop) {}
  void begin(const std::vector<std::string>&) override {}
  void record(const Sample& s) override { t.push_back(s.state.t); }
  bool stopRequested() const override { return !t.empty() && t.back() >= tStop_; }
  std::vector<double> t;

 private:
  double tStop_;
};

TEST_CASE("A recorder may stop the run after a sample", "[integrators][settings]") {
  for (const IntegratorKind integrator : {IntegratorKind::Dopri5, IntegratorKind::Rkm, IntegratorKind::Rk4}) {
    Oscillators sys({1.0, 2.0});
    SimulationSettings set;
    set.tEnd = 2.0;
    set.outputInterval = 0.1;
    set.integrator = integrator;
    StoppingRecorder rec(0.5 - 1e-12);
    const SimulationResult r = runSimulation(sys, set, rec);
    CHECK(r.outcome == RunOutcome::Stopped);
    CHECK_FALSE(r.completed());
    CHECK(r.message.find("stopped") != std::string::npos);
    // the sample that asked to stop is the last one: t = 0, 0.1, ..., 0.5
    REQUIRE(rec.t.size() == 6);
    CHECK(rec.t.back() == Approx(0.5).margin(1e-12));
    CHECK(r.t < set.tEnd);
  }
}

TEST_CASE("Unknown integrator and stabilization names are input errors naming the field", "[integrators][settings]") {
  auto pathOf = [](const nlohmann::json& simulation) {
    try {
      (void)parseSimulationSettings(simulation, "inline.json");
    } catch (const InputError& e) {
      return e.jsonPath();
    }
    return std::string("no error");
  };
  CHECK(pathOf({{"integrator", "euler"}}) == "/simulation/integrator");
  CHECK(pathOf({{"stabilization", "magic"}}) == "/simulation/stabilization");
  // one set of rules: rtol must lie in (0, 1) whether read from JSON or set in a program
  CHECK(pathOf({{"rtol", 1.5}}) == "/simulation/rtol");
  SimulationSettings set;
  set.rtol = 1.5;
  Oscillators sys({1.0});
  NullRecorder none;
  CHECK_THROWS_AS(runSimulation(sys, set, none), InputError);
  // what toJson writes reads back to the same settings
  set = {};
  set.integrator = IntegratorKind::Rk4;
  set.stabilization = Stabilization::Baumgarte;
  set.step = 2.5e-3;
  const SimulationSettings back = parseSimulationSettings(toJson(set), "inline.json");
  CHECK(back.integrator == IntegratorKind::Rk4);
  CHECK(back.stabilization == Stabilization::Baumgarte);
  CHECK(back.step == 2.5e-3);
}

TEST_CASE("t_end equal to the initial time writes the initial sample only", "[integrators][settings]") {
  Oscillators sys({1.0});
  SimulationSettings set;
  set.tEnd = 0;
  MemoryRecorder rec;
  REQUIRE(runSimulation(sys, set, rec).completed());
  REQUIRE(rec.size() == 1);
  CHECK(rec.t[0] == 0);
}

}  // namespace
}  // namespace joinery
