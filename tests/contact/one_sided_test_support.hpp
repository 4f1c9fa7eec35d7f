#pragma once
// Shared by the one-sided tests (test_contact.cpp, test_friction.cpp): a scene's simulation
// settings per integrator, and a run with its one-sided handler, events and energies.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/model_system.hpp"
#include "joinery/core/one_sided_handler.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/events.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/settings.hpp"

namespace joinery::test {

/// The "simulation" object: rk4 at a fixed step of 1e-3; dopri5 at (rtol, atol); radau5 at ten
/// times those (its error estimate is cruder).
inline nlohmann::json oneSidedSimulation(const std::string& integrator, double tEnd, double interval, double rtol,
                                         double atol) {
  nlohmann::json s = {{"t_end", tEnd}, {"integrator", integrator}, {"output_interval", interval}};
  if (integrator == "rk4")
    s["step"] = 1e-3;
  else if (integrator == "radau5")
    s.update({{"rtol", 10 * rtol}, {"atol", 10 * atol}});
  else
    s.update({{"rtol", rtol}, {"atol", atol}});
  return s;
}

struct OneSidedRun {
  std::vector<OneSidedEvent> events;
  MemoryRecorder rec;
  SimulationResult result;
  double e0 = 0, e1 = 0;  // energy at the start and the end (NaN when undefined)
  long long structuredEvals = 0, denseEvals = 0;  // the ModelSystem's evaluations by path
  std::vector<OneSidedEvent> of(const std::string& kind) const {
    std::vector<OneSidedEvent> out;
    for (const auto& e : events)
      if (e.kind == kind) out.push_back(e);
    return out;
  }
};

/// Runs `doc` with its one-sided handler; requires a handler and a completed run.
inline OneSidedRun runOneSided(const nlohmann::json& doc) {
  const Scene scene = sceneFromJson(doc, "scene.json");
  const SimulationSettings settings = parseSimulationSettings(scene.simulation);
  ModelSystem system(scene.model);
  OneSidedHandler handler(system);
  REQUIRE(!handler.empty());
  OneSidedRun r;
  r.result = runSimulation(system, settings, r.rec, handler);
  r.events = handler.events();
  INFO(r.result.message);
  REQUIRE(r.result.completed());
  r.e0 = system.calcEnergy(scene.model.initialState()).value_or(std::nan(""));
  r.e1 = system.calcEnergy(r.result.state).value_or(std::nan(""));
  r.structuredEvals = system.structuredEvaluations();
  r.denseEvals = system.denseEvaluations();
  return r;
}

}  // namespace joinery::test
