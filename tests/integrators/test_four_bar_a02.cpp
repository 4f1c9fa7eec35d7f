// A02 N-four-bar (docs/benchmarks.md) with N = 2: through the singular horizontal
// positions, where rank A drops (the constraints become redundant) while [M; A] keeps full
// rank. The run must go through them and meet the reference at t = 10 s.
#include <catch2/catch.hpp>
#include <cmath>

#include "joinery/integrators/simulation.hpp"
#include "joinery/core/model_system.hpp"
#include "test_systems.hpp"

namespace joinery {
namespace {

/// Tip B0 of the first crank (coordinates 0..2: x, y, theta) and its velocity.
void tipB0(const VectorXd& q, const VectorXd& v, double& x, double& y, double& vx, double& vy) {
  const double c = std::cos(q(2)), s = std::sin(q(2));
  x = q(0) + 0.5 * c;
  y = q(1) + 0.5 * s;
  vx = v(0) - 0.5 * s * v(2);
  vy = v(1) + 0.5 * c * v(2);
}

TEST_CASE("A02 N-four-bar (N = 2) through its singular positions", "[integrators][benchmark][A02]") {
  const test::TestModel model = test::fourBarModel(2);
  REQUIRE(model.model.numCoordinates() == 15);
  REQUIRE(model.model.numConstraintRows() == 14);
  SimulationSettings set;
  set.tEnd = 10;
  set.outputInterval = 0.025;  // 400 output steps
  SECTION("dopri5") {
    set.integrator = IntegratorKind::Dopri5;
    set.rtol = 1e-10;
    set.atol = 1e-10;
  }
  SECTION("rk4") {
    set.integrator = IntegratorKind::Rk4;
    set.step = 1e-3;
  }
  ModelSystem sys(model.model);
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec);
  INFO(toString(set.integrator) << ": " << r.message);
  REQUIRE(r.completed());
  REQUIRE(rec.size() == 401);
  REQUIRE(rec.t.back() == 10.0);
  double x, y, vx, vy;
  tipB0(rec.q.back(), rec.v.back(), x, y, vx, vy);
  const auto& st = r.stats;
  INFO("A02 N=2 " << toString(set.integrator) << ": B0 = (" << x << ", " << y << "), v = (" << vx << ", " << vy
                  << "); position error " << std::max(std::abs(x - 0.32845811154082), std::abs(y - 0.9445185381786))
                  << ", steps " << st.integrator.steps << " (rejected " << st.integrator.rejected
                  << "), evaluations " << st.integrator.evaluations << " (fast path " << sys.fastEvaluations()
                  << ", dense " << sys.denseEvaluations() << "), rank-deficient A at "
                  << st.integrator.redundantEvaluations << " evaluations, least squares at "
                  << st.integrator.leastSquaresEvaluations << " (max relative inconsistency "
                  << st.integrator.maxToleratedInconsistency << "), wall " << st.wallSeconds << " s");
  CHECK(std::abs(x - 0.32845811154082) <= 1e-3);
  CHECK(std::abs(y - 0.9445185381786) <= 1e-3);
  CHECK(std::abs(vx - 1.4230514702069) <= 1e-3);
  CHECK(std::abs(vy - -0.49486884548704) <= 1e-3);
  CHECK(st.maxPositionResidual < 1e-10);
  // it did pass the horizontal position: B0.y changed sign along the way, several times
  int crossings = 0;
  double prevY = 1;
  for (std::size_t i = 0; i < rec.size(); ++i) {
    double bx, by, bvx, bvy;
    tipB0(rec.q[i], rec.v[i], bx, by, bvx, bvy);
    if ((by < 0) != (prevY < 0)) ++crossings;
    prevY = by;
  }
  CHECK(crossings >= 2);
  // the parallelogram branch: every crank keeps the first crank's angle
  for (std::size_t i = 0; i < rec.size(); i += 40) {
    CHECK(std::remainder(rec.q[i](5) - rec.q[i](2), 2 * M_PI) == Approx(0).margin(1e-6));
    CHECK(std::remainder(rec.q[i](8) - rec.q[i](2), 2 * M_PI) == Approx(0).margin(1e-6));
  }
}

TEST_CASE("The N-four-bar's horizontal position: rank A drops, the model stays well posed",
          "[integrators][A02]") {
  const test::TestModel model = test::fourBarModel(2);
  ModelSystem sys(model.model);
  // all bars on the x axis: cranks at angle 0 from (i, 0) to (i + 1, 0), couplers from (i + 1, 0)
  State s = sys.initialState();
  for (int i = 0; i <= 2; ++i) s.q.segment(3 * i, 3) << i + 0.5, 0, 0;
  for (int i = 0; i < 2; ++i) s.q.segment(9 + 3 * i, 3) << i + 1.5, 0, 0;
  // moving on the parallelogram branch: cranks turn at 1 rad/s, couplers translate
  for (int i = 0; i <= 2; ++i) s.v.segment(3 * i, 3) << 0, 0.5, 1;
  for (int i = 0; i < 2; ++i) s.v.segment(9 + 3 * i, 3) << 0, 1, 0;
  REQUIRE(sys.calcConstraintResiduals(s).position < 1e-14);
  REQUIRE(sys.calcConstraintResiduals(s).velocity < 1e-14);
  VectorXd qdd(15);
  const AccelerationStatus st = sys.calcAccelerations(s, qdd);
  INFO(st.message);
  CHECK(st.ok());
  CHECK(st.redundant == 2);  // N + 1 degrees of freedom here
  // and a run started exactly there goes through
  SimulationSettings set;
  set.tEnd = 0.5;
  set.outputInterval = 0.1;
  set.rtol = 1e-9;
  set.atol = 1e-9;
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, s, set, rec);
  INFO(r.message);
  CHECK(r.completed());
  CHECK(r.stats.maxPositionResidual < 1e-10);
}

TEST_CASE("Fast path and dense solver agree on the accelerations", "[integrators][A02]") {
  const test::TestModel model = test::fourBarModel(2);
  ModelSystemOptions denseOnly;
  denseOnly.path = EvaluationPath::Dense;
  ModelSystem dense(model.model, denseOnly);
  ModelSystem fast(model.model);
  // states along a short run (off the initial, symmetric configuration)
  SimulationSettings set;
  set.tEnd = 1.0;
  set.outputInterval = 0.1;
  MemoryRecorder rec;
  REQUIRE(runSimulation(dense, set, rec).completed());
  VectorXd a(15), b(15);
  for (std::size_t i = 0; i < rec.size(); ++i) {
    const State s{rec.t[i], rec.q[i], rec.v[i]};
    REQUIRE(dense.calcAccelerations(s, a).ok());
    const long long before = fast.fastEvaluations();
    REQUIRE(fast.calcAccelerations(s, b).ok());
    if (i > 0) CHECK(fast.fastEvaluations() == before + 1);  // the first call is always dense
    CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-9 * std::max(1.0, a.cwiseAbs().maxCoeff()));
  }
  // with Baumgarte terms too
  const State s{rec.t[5], rec.q[5] + VectorXd::Constant(15, 1e-4), rec.v[5]};
  const Baumgarte bg{5, 5};
  REQUIRE(dense.calcAccelerations(s, a, bg).ok());
  REQUIRE(fast.calcAccelerations(s, b, bg).ok());
  CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-9 * std::max(1.0, a.cwiseAbs().maxCoeff()));
}

}  // namespace
}  // namespace joinery
