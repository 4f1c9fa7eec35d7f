// What an event costs (docs/performance.md, "Contacts"): the planar chain of
// bench/contact_chain_model.hpp with its contacts against the same chain without them, over the
// same time, in one process (side by side: the same machine load for both).
//   contact_chain [--N 100] [--case swing|lying] [--T 2] [--tol 1e-8] [--e 0.3] [--height H]
//                 [--integrator dopri5|rkm|rk4|radau5] [--dt 1e-3] [--free 1]
// Three JSON lines on stdout: "contacts" and "free" (the chain without contact joints; left out
// with --free 0), each with n, m, steps (accepted), rejected, evaluations (the integrator's),
// model_evals (every calcAccelerations of the ModelSystem, the handler's trials included),
// dense_evals, events (of the handler: one per candidate and change), impacts, resolves
// (resolve() calls: a located event or the start), impulse_recoveries (one per trial set; of
// which projection_impulses: the projection's own multipliers, least_squares_impulses: sparse
// answers kept as the least-squares ones (OneSidedOptions::impulseInconsistencyTolerance), and
// dense_impulse_recoveries: the sparse answer rejected), sparse_multipliers (redundant rows'
// minimum-norm multipliers from the blocks), dense_multipliers (the dense reference solver's),
// bound_hits (active-set iterations that reached their bound),
// wall_s, resolve_s (inside resolve: impacts and the active set), event_fn_s (the event
// functions after each step and in the location), eval_s / projection_s (the integrator's
// evaluations and drift control), events_per_s, step_s (wall_s / steps); then "ratio": the
// contact run's cost against the free run's step_s: resolve_steps (resolve_s per resolve() in
// free steps), event_steps (everything the contacts add per event, (wall_s - steps x step_s of
// the free run) / events, in free steps) and wall_ratio.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "contact_chain_model.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/one_sided_handler.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/events.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/settings.hpp"
#include "joinery/integrators/simulation.hpp"
#include "timing.hpp"

namespace {

namespace bt = joinery::benchtiming;

// Times the integrator's evaluations and projections (bench only).
class TimedChainSystem final : public joinery::DynamicSystem {
 public:
  explicit TimedChainSystem(joinery::ModelSystem& sys) : sys_(sys) {}
  int numCoordinates() const override { return sys_.numCoordinates(); }
  const std::vector<std::string>& coordinateNames() const override { return sys_.coordinateNames(); }
  joinery::State initialState() const override { return sys_.initialState(); }
  joinery::AccelerationStatus calcAccelerations(const joinery::State& s, joinery::VecRef qdd,
                                                const joinery::Baumgarte& stab) override {
    const double t0 = bt::nowSeconds();
    joinery::AccelerationStatus st = sys_.calcAccelerations(s, qdd, stab);
    evalSeconds += bt::nowSeconds() - t0;
    return st;
  }
  using joinery::DynamicSystem::calcAccelerations;
  int numConstraintRows() const override { return sys_.numConstraintRows(); }
  const std::vector<std::string>& constraintRowNames() const override { return sys_.constraintRowNames(); }
  void normalizeCoordinates(joinery::VecRef q) override { sys_.normalizeCoordinates(q); }
  joinery::ProjectionReport projectPositions(joinery::State& s, const joinery::ProjectionOptions& o) override {
    const double t0 = bt::nowSeconds();
    joinery::ProjectionReport r = sys_.projectPositions(s, o);
    projectionSeconds += bt::nowSeconds() - t0;
    return r;
  }
  joinery::ProjectionReport projectVelocities(joinery::State& s, const joinery::ProjectionOptions& o) override {
    const double t0 = bt::nowSeconds();
    joinery::ProjectionReport r = sys_.projectVelocities(s, o);
    projectionSeconds += bt::nowSeconds() - t0;
    return r;
  }
  joinery::ConstraintResiduals calcConstraintResiduals(const joinery::State& s) override {
    return sys_.calcConstraintResiduals(s);
  }
  std::optional<double> calcEnergy(const joinery::State& s) override { return sys_.calcEnergy(s); }

  double evalSeconds = 0, projectionSeconds = 0;

 private:
  joinery::ModelSystem& sys_;
};

// Times the handler's two parts: the event functions and the resolution of events.
class TimedEvents final : public joinery::OneSidedEvents {
 public:
  explicit TimedEvents(joinery::OneSidedHandler& h) : h_(h) {}
  int numEventFunctions() const override { return h_.numEventFunctions(); }
  void calcEventFunctions(const joinery::State& s, joinery::VecRef values) override {
    const double t0 = bt::nowSeconds();
    h_.calcEventFunctions(s, values);
    eventFnSeconds += bt::nowSeconds() - t0;
  }
  void calcSomeEventFunctions(const joinery::State& s, joinery::VecRef values, const std::vector<int>& which) override {
    const double t0 = bt::nowSeconds();
    h_.calcSomeEventFunctions(s, values, which);
    eventFnSeconds += bt::nowSeconds() - t0;
  }
  bool acceptStep(const joinery::State& s, joinery::VecRef values) override { return h_.acceptStep(s, values); }
  void resolve(joinery::State& s) override {
    const double t0 = bt::nowSeconds();
    h_.resolve(s);
    resolveSeconds += bt::nowSeconds() - t0;
    ++resolves;
  }
  const std::vector<joinery::OneSidedEvent>& events() const override { return h_.events(); }

  double eventFnSeconds = 0, resolveSeconds = 0;
  long long resolves = 0;

 private:
  joinery::OneSidedHandler& h_;
};

struct Figures {
  long long steps = 0, events = 0, impacts = 0, resolves = 0;
  double wall = 0, resolve = 0;
};

// Runs one case; prints its JSON line. False when the run did not complete.
bool runCase(const joinery::bench::ContactChainOptions& o, const joinery::SimulationSettings& settings,
             const std::string& caseName, Figures& f) {
  using namespace joinery;
  const Scene scene = sceneFromJson(bench::contactChainScene(o), "contact_chain.json");
  ModelSystem sys(scene.model);
  OneSidedHandler handler(sys);
  TimedChainSystem timed(sys);
  TimedEvents events(handler);
  NullRecorder recorder;
  const double t0 = bt::nowSeconds();
  const SimulationResult r = o.contacts ? runSimulation(timed, settings, recorder, events)
                                        : runSimulation(timed, settings, recorder);
  const double wall = bt::nowSeconds() - t0;
  std::map<std::string, int> kinds;
  for (const auto& e : handler.events()) ++kinds[e.kind];
  std::string kindText;
  for (const auto& [k, c] : kinds) kindText += (kindText.empty() ? "" : ", ") + ("\"" + k + "\": " + std::to_string(c));
  const IntegratorStats& is = r.stats.integrator;
  f.steps = is.steps;
  f.events = static_cast<long long>(handler.events().size());
  f.impacts = kinds.count("impact") ? kinds["impact"] : 0;
  f.resolves = events.resolves;
  f.wall = wall;
  f.resolve = events.resolveSeconds;
  const auto num = bt::jsonNumber;
  std::printf(
      "{\"case\": \"%s\", \"chain\": \"%s\", \"N\": %d, \"n\": %d, \"m\": %d, \"candidates\": %d, \"T\": %s, "
      "\"integrator\": \"%s\", \"tol\": %s, \"steps\": %lld, \"rejected\": %lld, \"evaluations\": %lld, "
      "\"model_evals\": %lld, \"dense_evals\": %lld, \"events\": %lld, \"kinds\": {%s}, \"resolves\": %lld, "
      "\"impulse_recoveries\": %lld, \"projection_impulses\": %lld, \"least_squares_impulses\": %lld, \"dense_impulse_recoveries\": %lld, \"sparse_multipliers\": %lld, \"dense_multipliers\": %lld, \"bound_hits\": %lld, \"dense_matrices\": %s, \"wall_s\": %s, "
      "\"resolve_s\": %s, \"event_fn_s\": %s, \"eval_s\": %s, \"projection_s\": %s, \"events_per_s\": %s, "
      "\"step_s\": %s, \"t_final\": %s, \"outcome\": \"%s\"}\n",
      caseName.c_str(), o.lying ? "lying" : "swing", o.N, sys.numCoordinates(), sys.numConstraintRows(),
      static_cast<int>(handler.candidates().size()), num(settings.tEnd).c_str(),
      std::string(toString(settings.integrator)).c_str(), num(settings.rtol).c_str(), is.steps, is.rejected,
      is.evaluations, sys.structuredEvaluations() + sys.denseEvaluations(), sys.denseEvaluations(), f.events,
      kindText.c_str(), events.resolves, handler.impulseRecoveries(), handler.projectionImpulses(),
      handler.leastSquaresImpulses(), handler.denseImpulseRecoveries(),
      handler.sparseMultiplierSolves(), handler.denseMultiplierSolves(), handler.iterationBoundHits(),
      sys.hasDenseMatrices() || handler.hasDenseMatrices() ? "true" : "false", num(wall).c_str(),
      num(events.resolveSeconds).c_str(), num(events.eventFnSeconds).c_str(), num(timed.evalSeconds).c_str(),
      num(timed.projectionSeconds).c_str(), num(wall > 0 ? static_cast<double>(f.events) / wall : 0.0).c_str(),
      num(is.steps > 0 ? wall / static_cast<double>(is.steps) : 0.0).c_str(), num(r.t).c_str(), toString(r.outcome));
  std::fflush(stdout);
  if (!r.completed()) std::fprintf(stderr, "contact_chain: %s run did not complete: %s\n", caseName.c_str(), r.message.c_str());
  return r.completed();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace joinery;
  spdlog::set_level(spdlog::level::warn);  // one info line per event otherwise
  bench::ContactChainOptions o;
  o.N = std::stoi(bt::arg(argc, argv, "--N", "100"));
  const std::string chain = bt::arg(argc, argv, "--case", "swing");
  if (chain != "swing" && chain != "lying") {
    std::fprintf(stderr, "contact_chain: --case '%s': expected swing or lying\n", chain.c_str());
    return 2;
  }
  o.lying = chain == "lying";
  o.restitution = std::stod(bt::arg(argc, argv, "--e", "0.3"));
  o.height = std::stod(bt::arg(argc, argv, "--height", o.lying ? "0.001" : "-1"));
  const bool free = bt::arg(argc, argv, "--free", "1") != "0";
  SimulationSettings settings;
  settings.tEnd = std::stod(bt::arg(argc, argv, "--T", "2"));
  const std::string integrator = bt::arg(argc, argv, "--integrator", "dopri5");
  const auto kind = parseIntegratorKind(integrator);
  if (!kind) {
    std::fprintf(stderr, "contact_chain: --integrator '%s': expected dopri5, rkm, rk4 or radau5\n", integrator.c_str());
    return 2;
  }
  settings.integrator = *kind;
  settings.rtol = settings.atol = std::stod(bt::arg(argc, argv, "--tol", "1e-8"));
  settings.step = std::stod(bt::arg(argc, argv, "--dt", "1e-3"));
  settings.outputInterval = settings.tEnd;
  Figures withContacts, without;
  bool ok = runCase(o, settings, "contacts", withContacts);
  if (!free) return ok ? 0 : 1;
  o.contacts = false;
  ok = runCase(o, settings, "free", without) && ok;
  const double stepFree = without.steps > 0 ? without.wall / static_cast<double>(without.steps) : 0.0;
  const auto num = bt::jsonNumber;
  const double perResolve = withContacts.resolves > 0 ? withContacts.resolve / static_cast<double>(withContacts.resolves) : 0.0;
  const double perEvent = withContacts.events > 0
                              ? (withContacts.wall - static_cast<double>(withContacts.steps) * stepFree) /
                                    static_cast<double>(withContacts.events)
                              : 0.0;
  std::printf("{\"case\": \"ratio\", \"step_s_free\": %s, \"resolve_s_each\": %s, \"resolve_steps\": %s, "
              "\"event_s\": %s, \"event_steps\": %s, \"wall_ratio\": %s}\n",
              num(stepFree).c_str(), num(perResolve).c_str(), num(stepFree > 0 ? perResolve / stepFree : 0.0).c_str(),
              num(perEvent).c_str(), num(stepFree > 0 ? perEvent / stepFree : 0.0).c_str(),
              num(without.wall > 0 ? withContacts.wall / without.wall : 0.0).c_str());
  return ok ? 0 : 1;
}
