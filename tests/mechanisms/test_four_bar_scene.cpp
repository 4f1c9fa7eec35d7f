#include <algorithm>
// the bundled scene examples/scenes/n_four_bar_2.json (A02 N-four-bar, N = 2, built
// from the component library examples/lib/links.json) simulated with its own settings must
// meet the A02 reference (docs/benchmarks.md) and keep its energy, like the C++ model of
// tests/integrators/test_four_bar_a02.cpp does.
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>

#include "joinery/core/scene.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/core/model_system.hpp"
#include "mechanism_support.hpp"

namespace joinery {
namespace {

const std::string kFourBarScene = std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/n_four_bar_2.json";

int coordinateIndex(const Model& model, const std::string& name) {
  const auto& n = model.coordinateNames();
  const auto it = std::find(n.begin(), n.end(), name);
  REQUIRE(it != n.end());
  return static_cast<int>(it - n.begin());
}

TEST_CASE("the bundled N-four-bar scene (N = 2) meets the A02 reference at t = 10",
          "[mechanisms][scene][A02]") {
  const Scene scene = loadScene(kFourBarScene);
  const Model& model = scene.model;
  REQUIRE(model.numCoordinates() == 15);
  REQUIRE(model.numConstraintRows() == 14);
  const int ix = coordinateIndex(model, "crank0.rod.x"), iy = coordinateIndex(model, "crank0.rod.y"),
            ith = coordinateIndex(model, "crank0.rod.theta");
  // the scene's own settings: dopri5, rtol 1e-10, projection, 400 output steps to t = 10
  const SimulationSettings set = parseSimulationSettings(scene.simulation);
  REQUIRE(set.tEnd == 10);
  ModelSystem sys(model);
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec);
  INFO(r.message);
  REQUIRE(r.completed());
  REQUIRE(rec.t.back() == 10.0);

  // B0, the tip of crank0: its centre plus half a bar along its axis
  const VectorXd &q = rec.q.back(), &v = rec.v.back();
  const double c = std::cos(q(ith)), s = std::sin(q(ith));
  const double x = q(ix) + 0.5 * c, y = q(iy) + 0.5 * s;
  const double vx = v(ix) - 0.5 * s * v(ith), vy = v(iy) + 0.5 * c * v(ith);
  double drift = 0;
  for (const auto& e : rec.energy) drift = std::max(drift, std::abs(*e - *rec.energy.front()));
  INFO("B0 = (" << x << ", " << y << "), v = (" << vx << ", " << vy << "); energy drift " << drift
                << " J; steps " << r.stats.integrator.steps << " (rejected " << r.stats.integrator.rejected
                << "); max position residual " << r.stats.maxPositionResidual << "; wall "
                << r.stats.wallSeconds << " s");
  // A02 pass criterion: error <= 1e-3 (docs/benchmarks.md)
  CHECK(std::abs(x - 0.32845811154082) <= 1e-3);
  CHECK(std::abs(y - 0.9445185381786) <= 1e-3);
  CHECK(std::abs(vx - 1.4230514702069) <= 1e-3);
  CHECK(std::abs(vy - -0.49486884548704) <= 1e-3);
  // conservative: the energy (35.8 J) stays within 1e-5 J (measured: under 1e-6 J with
  // rtol = atol = 1e-10; the margin covers the rows released at each singular position).
  // The failing run of the first session (atol 1e-12) had lost 1.2 J when its step size collapsed.
  CHECK(drift <= 1e-5);
  CHECK(r.stats.maxPositionResidual < 1e-10);
}

// Tighter tolerances must not make the answer worse. Observed on 2026-11-21: at rtol = atol =
// 1e-12 the run completed with exit 0 having gained 7 J, the crank stuck at the flat position
// (B0 off by 1.0); at 1e-11 and 1e-13 it collapsed its step. Cause: drift projection enforced
// nearly dependent rows near the singular position, amplifying residuals of 1e-9 into velocity
// corrections of 1e-4 per step (ModelSystemOptions::projectionRegularization). Each run must
// complete, keep its energy and meet the A02 criterion (1e-3; measured about 2e-6).
// [long]: four whole runs at rtol down to 1e-13 (60 s under ASan/UBSan)
TEST_CASE("the N-four-bar scene at tight tolerances completes and stays right", "[tight][mechanisms][A02][long]") {
  for (const auto& [rtol, atol] :
       {std::pair{1e-10, 1e-12}, std::pair{1e-11, 1e-11}, std::pair{1e-12, 1e-12}, std::pair{1e-13, 1e-13}}) {
    const Scene scene = loadScene(kFourBarScene);
    SimulationSettings set = parseSimulationSettings(scene.simulation);
    set.rtol = rtol;
    set.atol = atol;
    ModelSystem sys(scene.model);
    MemoryRecorder rec;
    const SimulationResult r = runSimulation(sys, set, rec);
    double drift = 0;
    for (const auto& e : rec.energy) drift = std::max(drift, std::abs(*e - *rec.energy.front()));
    INFO("rtol " << rtol << ", atol " << atol << ": " << toString(r.outcome) << " at t = " << r.t
                 << ", energy drift over the samples " << drift << " J, steps " << r.stats.integrator.steps
                 << "; " << r.message);
    REQUIRE(r.completed());
    CHECK(drift <= 1e-5);  // as the scene's own settings (see above)
    const VectorXd& q = rec.q.back();
    const auto col = [&](const std::string& name) {
      const auto it = std::find(rec.names.begin(), rec.names.end(), name);
      REQUIRE(it != rec.names.end());
      return q(static_cast<Eigen::Index>(it - rec.names.begin()));
    };
    const double th = col("crank0.rod.theta");
    CHECK(std::abs(col("crank0.rod.x") + 0.5 * std::cos(th) - 0.32845811154082) < 1e-3);
    CHECK(std::abs(col("crank0.rod.y") + 0.5 * std::sin(th) - 0.9445185381786) < 1e-3);
  }
}

}  // namespace
}  // namespace joinery
