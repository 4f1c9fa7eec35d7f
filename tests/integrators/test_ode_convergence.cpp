// Order of convergence of RK4 and Dormand–Prince 5(4) on a closed-form ODE (harmonic
// oscillators with M = I, no constraints), dopri5 tolerance proportionality, dense output.
#include <catch2/catch.hpp>
#include <cmath>

#include "joinery/integrators/integrator.hpp"
#include "joinery/integrators/simulation.hpp"
#include "test_systems.hpp"

namespace joinery {
namespace {

using test::Oscillators;

using test::errorAt;  // max-norm error of (q, v) against the exact solution

/// Integrates to tEnd with `integ` and returns the final error.
double errorAtEnd(Oscillators& sys, Integrator& integ, double tEnd) {
  integ.reset(sys.initialState());
  while (integ.time() < tEnd) {
    const StepResult r = integ.advance(tEnd);
    REQUIRE(r.ok);
  }
  REQUIRE(integ.time() == tEnd);
  return errorAt(sys, integ.state());
}

TEST_CASE("RK4 converges with order 4 on harmonic oscillators", "[integrators][order]") {
  Oscillators sys({1.0, 2.5});
  const double tEnd = 2.0;
  std::vector<double> err;
  for (double h : {0.1, 0.05, 0.025, 0.0125}) {
    Rk4Integrator rk4(sys, h);
    err.push_back(errorAtEnd(sys, rk4, tEnd));
  }
  for (std::size_t i = 1; i < err.size(); ++i) {
    const double order = std::log2(err[i - 1] / err[i]);
    INFO("h halved " << i << " times: error " << err[i] << ", observed order " << order);
    CHECK(order == Approx(4.0).margin(0.15));
  }
}

TEST_CASE("Dormand-Prince 5(4) converges with order 5 at a fixed step", "[integrators][order]") {
  Oscillators sys({1.0, 2.5});
  const double tEnd = 2.0;
  std::vector<double> err;
  for (double h : {0.2, 0.1, 0.05, 0.025}) {
    Dopri5Options o;
    o.fixedStep = true;
    o.initialStep = h;
    Dopri5Integrator dp(sys, o);
    err.push_back(errorAtEnd(sys, dp, tEnd));
  }
  for (std::size_t i = 1; i < err.size(); ++i) {
    const double order = std::log2(err[i - 1] / err[i]);
    INFO("h halved " << i << " times: error " << err[i] << ", observed order " << order);
    CHECK(order == Approx(5.0).margin(0.25));
  }
}

TEST_CASE("Adaptive dopri5: the global error follows the tolerance", "[integrators][order]") {
  Oscillators sys({1.0, 2.5});
  const double tEnd = 10.0;
  double previous = 1;
  long long previousSteps = 0;
  for (double tol : {1e-5, 1e-7, 1e-9, 1e-11}) {
    Dopri5Options o;
    o.rtol = tol;
    o.atol = tol;
    Dopri5Integrator dp(sys, o);
    const double e = errorAtEnd(sys, dp, tEnd);
    INFO("tol " << tol << ": error " << e << ", steps " << dp.stats().steps << ", rejected "
                << dp.stats().rejected);
    CHECK(e < 200 * tol);
    CHECK(e < previous);
    CHECK(dp.stats().steps > previousSteps);
    // steps grow like tol^(-1/5): about 2.5x per factor 100
    if (previousSteps > 0) CHECK(dp.stats().steps < 4 * previousSteps);
    previous = e;
    previousSteps = dp.stats().steps;
  }
}

TEST_CASE("Dense output: samples fall exactly on output_interval multiples and on t_end",
          "[integrators][dense]") {
  Oscillators sys({1.0, 2.5});
  SimulationSettings set;
  set.tEnd = 1.05;  // not a multiple of the interval
  set.outputInterval = 0.1;
  set.integrator = IntegratorKind::Dopri5;
  set.rtol = 1e-10;
  set.atol = 1e-12;
  SECTION("dopri5") {}
  SECTION("rk4") {
    set.integrator = IntegratorKind::Rk4;
    set.step = 0.003;  // does not divide the interval: shortened evenly to land on it
  }
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec);
  REQUIRE(r.completed());
  REQUIRE(r.outcome == RunOutcome::Completed);
  REQUIRE(rec.size() == 12);
  for (std::size_t i = 0; i + 1 < rec.size(); ++i) CHECK(rec.t[i] == 0.0 + static_cast<double>(i) * 0.1);
  CHECK(rec.t.back() == 1.05);
  // the interpolated (dopri5) and landed (rk4) samples are accurate
  double worst = 0;
  for (std::size_t i = 0; i < rec.size(); ++i) {
    State s;
    s.t = rec.t[i];
    s.q = rec.q[i];
    s.v = rec.v[i];
    worst = std::max(worst, errorAt(sys, s));
  }
  INFO(toString(set.integrator) << ": worst sample error " << worst);
  CHECK(worst < 1e-8);
  // energy column: the oscillators' energy (w0^2 + w1^2)/2 at t = 0
  REQUIRE(rec.energy.front().has_value());
  CHECK(*rec.energy.front() == Approx(0.5 * (1.0 + 6.25)));
}

TEST_CASE("Dense output interpolates to 4th order inside a step", "[integrators][dense]") {
  Oscillators sys({1.0});
  // one fixed step of size h; interpolation error at the midpoint shrinks like h^5
  std::vector<double> err;
  for (double h : {0.4, 0.2, 0.1}) {
    Dopri5Options o;
    o.fixedStep = true;
    o.initialStep = h;
    Dopri5Integrator dp(sys, o);
    dp.reset(sys.initialState());
    REQUIRE(dp.advance(h).ok);
    State mid;
    dp.interpolate(0.5 * h, mid);
    CHECK(mid.t == 0.5 * h);
    err.push_back(errorAt(sys, mid));
  }
  for (std::size_t i = 1; i < err.size(); ++i) {
    const double order = std::log2(err[i - 1] / err[i]);
    INFO("local interpolation order " << order);
    CHECK(order > 4.5);  // local error O(h^5) of a 4th-order continuous extension
  }
}

}  // namespace
}  // namespace joinery
