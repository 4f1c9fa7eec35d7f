#pragma once
/// @file events.hpp
/// Runs with events: one-sided rows (limits, ropes, contacts; joinery/core/one_sided.hpp) make
/// the motion piecewise smooth. The simulation loop watches the system's event functions after
/// every accepted step of any integrator (rk4, dopri5, rkm, radau5), locates the first sign
/// change inside the step on the integrator's dense output (a cubic Hermite interpolant for
/// rk4) to a time tolerance, discards the rest of the step, lets the system resolve the event
/// (impacts, the active set) and restarts the integrator there. docs/contact.md.

#include "joinery/core/one_sided.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {

/// Locates events inside a step: the one place every integrator's events go through.
class EventLocator {
 public:
  EventLocator(DynamicSystem& system, OneSidedEvents& events);
  /// The event functions at the state a piece starts from (the run's start, after an event).
  void start(const State& s);
  /// After the accepted step of `integ` from `before` to integ.state(): true when an event
  /// function crossed from >= 0 to < 0 inside it; `at` is then the state just past the first
  /// crossing (the end of the last bracket, |bracket| <= the time tolerance). Otherwise the
  /// step's end becomes the reference of the next step.
  bool check(Integrator& integ, const State& before, State& at);
  /// Bisection steps of the last location (tests).
  int lastIterations() const noexcept { return iterations_; }
  /// Time tolerance of the location at time t: 1e-12 max(1, |t|).
  static double timeTolerance(double t);

 private:
  double minTriggered(const VectorXd& values) const;
  void stateAt(Integrator& integ, const State& before, double t, State& out);
  DynamicSystem& system_;
  OneSidedEvents& events_;
  VectorXd prev_, now_, probe_, shift_;
  std::vector<int> triggered_;
  VectorXd a0_, a1_;
  bool haveA_ = false;
  int iterations_ = 0;
};

/// runSimulation (simulation.hpp) of a system with one-sided rows: `events` resolves the
/// initial state and every event located; its events() list what happened.
SimulationResult runSimulation(DynamicSystem& system, const SimulationSettings& settings, Recorder& recorder,
                               OneSidedEvents& events, const ProgressCallback& progress = {},
                               const RunOptions& options = {});

/// Same, from a given initial state (its time is t0).
SimulationResult runSimulation(DynamicSystem& system, const State& initial, const SimulationSettings& settings,
                               Recorder& recorder, OneSidedEvents& events, const ProgressCallback& progress = {},
                               const RunOptions& options = {});

}  // namespace joinery
