// Prints the "Integration" figures of docs/performance.md: the benchmark runs of the test
// suite (A01 pendulum 2000 s, A02 N-four-bar 10 s) with wall time, steps, evaluations,
// error against the reference, energy error and drift, for the fast path and the dense
// solver alone. Not a test: build the target `integration_figures` and run it.
//   integration_figures [a01|a02|dense|n40]...   (default: a01 a02)
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "joinery/integrators/simulation.hpp"
#include "joinery/core/model_system.hpp"
#include "test_systems.hpp"

namespace {

using namespace joinery;

struct Case {
  std::string name;
  test::TestModel model;
  SimulationSettings settings;
  double refX, refY;  // reference position at t_end
  // position of the tracked point from a state
  double (*x)(const VectorXd&);
  double (*y)(const VectorXd&);
};

void run(const Case& c, const char* integrator, bool fast) {
  ModelSystemOptions o;
  o.path = fast ? EvaluationPath::Automatic : EvaluationPath::Dense;
  ModelSystem sys(c.model.model, o);
  SimulationSettings set = c.settings;
  set.integrator = *parseIntegratorKind(integrator);
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec);
  double err = NAN, dE = 0;
  if (r.completed()) {
    err = std::max(std::abs(c.x(rec.q.back()) - c.refX), std::abs(c.y(rec.q.back()) - c.refY));
    const double e0 = rec.energy.front().value_or(0);
    for (const auto& e : rec.energy) dE = std::max(dE, std::abs(e.value_or(e0) - e0));
  }
  std::printf("| %s | %s | %s | %.2f | %lld | %lld | %.1e | %.1e | %.1e | %s |\n", c.name.c_str(),
              integrator, fast ? "fast path" : "dense only", r.stats.wallSeconds,
              r.stats.integrator.steps, r.stats.integrator.evaluations, err, dE,
              r.stats.maxPositionResidual, r.completed() ? "" : r.message.substr(0, 60).c_str());
  std::fflush(stdout);
}

Case a01() {
  Case c{"A01 pendulum, 2000 s", test::pendulumModel(), {}, 0.814603068589032, -0.580018827836935,
         [](const VectorXd& q) { return q(0); }, [](const VectorXd& q) { return q(1); }};
  c.settings.tEnd = 2000;
  c.settings.outputInterval = 0.5;
  c.settings.step = 4e-3;
  c.settings.rtol = 1e-10;
  c.settings.atol = 1e-10;
  return c;
}

Case a02(int N) {
  const bool two = N == 2;
  Case c{"A02 N-four-bar N = " + std::to_string(N) + ", 10 s", test::fourBarModel(N), {},
         two ? 0.32845811154082 : 0.18051222668673, two ? 0.9445185381786 : 0.98357274058231,
         [](const VectorXd& q) { return q(0) + 0.5 * std::cos(q(2)); },
         [](const VectorXd& q) { return q(1) + 0.5 * std::sin(q(2)); }};
  c.settings.tEnd = 10;
  c.settings.outputInterval = 0.025;
  c.settings.step = 1e-3;
  c.settings.rtol = 1e-10;
  c.settings.atol = 1e-10;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> what(argv + 1, argv + argc);
  if (what.empty()) what = {"a01", "a02"};
  std::printf("| run | integrator | evaluation | wall (s) | steps | evaluations | error vs reference | max abs(E - E0) (J) | max abs(phi) |  |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const auto& w : what) {
    if (w == "a01") {
      const Case c = a01();
      run(c, "rk4", true);
      run(c, "dopri5", true);
    } else if (w == "a02") {
      const Case c = a02(2);
      run(c, "rk4", true);
      run(c, "dopri5", true);
    } else if (w == "dense") {
      const Case c1 = a01();
      run(c1, "rk4", false);
      run(c1, "dopri5", false);
      const Case c2 = a02(2);
      run(c2, "rk4", false);
      run(c2, "dopri5", false);
    } else if (w == "n40") {
      run(a02(40), "dopri5", true);
    } else {
      std::fprintf(stderr, "unknown run '%s' (a01, a02, dense, n40)\n", w.c_str());
      return 2;
    }
  }
  return 0;
}
