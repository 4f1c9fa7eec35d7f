// Kutta–Merson 4(5) (`rkm`): order 4 at a fixed step, the embedded error estimate
// (exact to leading order for linear problems, O(h^4) and conservative otherwise), the
// stability interval on the imaginary axis, adaptive runs against closed forms, rejections,
// the dense output, the evaluation count, and the name in the settings.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "joinery/core/errors.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/integrators/integrator.hpp"
#include "joinery/integrators/simulation.hpp"
#include "test_systems.hpp"

namespace joinery {
namespace {

using test::Oscillators;

using test::errorAt;  // max-norm error of (q, v) against the exact solution

/// Integrates to tEnd with `integ` and returns the final state.
State runTo(DynamicSystem& sys, Integrator& integ, double tEnd) {
  integ.reset(sys.initialState());
  while (integ.time() < tEnd) {
    const StepResult r = integ.advance(tEnd);
    REQUIRE(r.ok);
  }
  REQUIRE(integ.time() == tEnd);
  return integ.state();
}

RkmOptions fixedStep(double h) {
  RkmOptions o;
  o.fixedStep = true;
  o.initialStep = h;
  o.rtol = 0;  // the error norm of a fixed step is then the RMS of the estimate itself
  o.atol = 1;
  return o;
}

/// The plane pendulum theta'' = -sin(theta), started at theta = 1 rad with velocity `v0`: a
/// nonlinear problem (f'' != 0) without constraints, no closed form needed (references by
/// dopri5). Its f''(f, f) = (0, sin(theta) theta'^2) vanishes at rest: a single step from rest
/// would hide the O(h^4) part of rkm's estimate.
class Pendulum final : public DynamicSystem {
 public:
  explicit Pendulum(double v0 = 0) : v0_(v0) {}
  int numCoordinates() const override { return 1; }
  const std::vector<std::string>& coordinateNames() const override { return names_; }
  State initialState() const override {
    State s;
    s.q = VectorXd::Constant(1, 1.0);
    s.v = VectorXd::Constant(1, v0_);
    return s;
  }
  AccelerationStatus calcAccelerations(const State& s, VecRef qdd, const Baumgarte&) override {
    qdd(0) = -std::sin(s.q(0));
    return {};
  }
  using DynamicSystem::calcAccelerations;

 private:
  double v0_;
  std::vector<std::string> names_{"theta"};
};

TEST_CASE("rkm converges with order 4 at a fixed step", "[integrators][rkm][order]") {
  Oscillators sys({1.0, 2.5});
  const double tEnd = 2.0;
  std::vector<double> err;
  for (double h : {0.1, 0.05, 0.025, 0.0125}) {
    RkmIntegrator rkm(sys, fixedStep(h));
    err.push_back(errorAt(sys, runTo(sys, rkm, tEnd)));
    // no first same as last: five evaluations for every step
    CHECK(rkm.stats().evaluations == 5 * rkm.stats().steps);
    CHECK(rkm.stats().steps == static_cast<long long>(std::llround(tEnd / h)));
  }
  for (std::size_t i = 1; i < err.size(); ++i) {
    const double order = std::log2(err[i - 1] / err[i]);
    INFO("h halved " << i << " times: error " << err[i] << ", observed order " << order);
    CHECK(order == Approx(4.0).margin(0.1));
  }
  // and on a nonlinear problem, against dopri5 at a tight tolerance
  Pendulum pend;
  Dopri5Options ro;
  ro.rtol = ro.atol = 1e-13;
  Dopri5Integrator ref(pend, ro);
  const double exact = runTo(pend, ref, tEnd).q(0);
  std::vector<double> errP;
  for (double h : {0.2, 0.1, 0.05, 0.025}) {
    RkmIntegrator rkm(pend, fixedStep(h));
    errP.push_back(std::abs(runTo(pend, rkm, tEnd).q(0) - exact));
  }
  for (std::size_t i = 1; i < errP.size(); ++i) {
    const double order = std::log2(errP[i - 1] / errP[i]);
    INFO("pendulum, h halved " << i << " times: error " << errP[i] << ", observed order " << order);
    CHECK(order == Approx(4.0).margin(0.3));
  }
}

TEST_CASE("rkm's error estimate is the local error of y1 for linear problems, conservative otherwise",
          "[integrators][rkm][order]") {
  SECTION("linear: e = local error to leading order, both O(h^5)") {
    Oscillators sys({1.0, 2.5});
    std::vector<double> est, act;
    for (double h : {0.2, 0.1, 0.05, 0.025}) {
      RkmIntegrator rkm(sys, fixedStep(h));
      const State s = runTo(sys, rkm, h);  // one step from the exact initial state
      const State e = sys.exact(h);
      VectorXd d(4);
      d << s.q - e.q, s.v - e.v;
      act.push_back(std::sqrt(d.squaredNorm() / 4));  // RMS, as the estimate's norm
      est.push_back(rkm.lastErrorNorm());
      INFO("h " << h << ": estimate " << est.back() << ", actual local error " << act.back());
      CHECK(est.back() / act.back() == Approx(1.0).margin(0.25 * h / 0.2));  // -> 1 as h -> 0
    }
    for (std::size_t i = 1; i < est.size(); ++i) {
      INFO("orders: estimate " << std::log2(est[i - 1] / est[i]) << ", actual " << std::log2(act[i - 1] / act[i]));
      CHECK(std::log2(est[i - 1] / est[i]) == Approx(5.0).margin(0.15));
      CHECK(std::log2(act[i - 1] / act[i]) == Approx(5.0).margin(0.15));
    }
  }
  SECTION("nonlinear: the estimate is O(h^4), above the O(h^5) local error") {
    Pendulum pend(1.5);
    std::vector<double> est, act;
    for (double h : {0.2, 0.1, 0.05, 0.025}) {
      RkmIntegrator rkm(pend, fixedStep(h));
      const State s = runTo(pend, rkm, h);
      Dopri5Options ro;
      ro.rtol = ro.atol = 1e-14;
      Dopri5Integrator ref(pend, ro);
      const State e = runTo(pend, ref, h);
      VectorXd d(2);
      d << s.q - e.q, s.v - e.v;
      act.push_back(std::sqrt(d.squaredNorm() / 2));
      est.push_back(rkm.lastErrorNorm());
      INFO("h " << h << ": estimate " << est.back() << ", actual local error " << act.back());
      CHECK(est.back() > act.back());
    }
    for (std::size_t i = 1; i < est.size(); ++i) {
      INFO("orders: estimate " << std::log2(est[i - 1] / est[i]) << ", actual " << std::log2(act[i - 1] / act[i]));
      CHECK(std::log2(est[i - 1] / est[i]) == Approx(4.0).margin(0.3));
      CHECK(std::log2(act[i - 1] / act[i]) == Approx(5.0).margin(0.3));
    }
  }
}

TEST_CASE("rkm is stable on the imaginary axis up to |h w| = sqrt(12)", "[integrators][rkm]") {
  // |R(iy)|^2 = 1 + y^8 (y^2 - 12) / 20736: a step just inside the interval damps, one just
  // outside grows (dopri5's interval ends near 3.3, below both)
  Oscillators sys({1.0});
  const auto amplitude = [&](double hw) {
    RkmIntegrator rkm(sys, fixedStep(hw));
    const State s = runTo(sys, rkm, 100 * hw);  // 100 steps
    return std::hypot(s.q(0), s.v(0));
  };
  const auto predicted = [](double y) {  // |R(iy)|^100
    return std::pow(1.0 + std::pow(y, 8) * (y * y - 12.0) / 20736.0, 50);
  };
  const double inside = amplitude(3.40), edge = amplitude(3.46), outside = amplitude(3.50);
  INFO("amplitude after 100 steps: h w = 3.40: " << inside << ", 3.46: " << edge << ", 3.50: " << outside);
  CHECK(inside == Approx(predicted(3.40)).epsilon(1e-6));  // |R(3.4 i)| = 0.79 per step
  CHECK(edge == Approx(predicted(3.46)).epsilon(1e-6));  // just inside sqrt(12): 0.986 per step
  CHECK(edge < 1.0);
  CHECK(outside == Approx(predicted(3.50)).epsilon(1e-6));  // |R(3.5 i)| = 1.128 per step
  CHECK(outside > 1e4);
}

TEST_CASE("Adaptive rkm: the global error follows the tolerance", "[integrators][rkm][order]") {
  // rkm propagates the solution whose error it estimates (no local extrapolation, unlike
  // dopri5): each step errs by up to the tolerance, and on an undamped oscillator the errors
  // add up, so the global error is about steps x tol, ~ tol^(4/5)
  Oscillators sys({1.0, 2.5});
  const double tEnd = 10.0;
  double previous = 0;
  long long previousSteps = 0;
  for (double tol : {1e-4, 1e-6, 1e-8, 1e-10}) {
    RkmOptions o;
    o.rtol = tol;
    o.atol = tol;
    RkmIntegrator rkm(sys, o);
    const double e = errorAt(sys, runTo(sys, rkm, tEnd));
    const IntegratorStats& st = rkm.stats();
    INFO("tol " << tol << ": error " << e << ", steps " << st.steps << ", rejected " << st.rejected);
    // per step at most tol (atol + rtol |y| <= 3.5 tol, RMS -> max norm: x 2), errors adding up
    CHECK(e < 7.0 * static_cast<double>(st.steps) * tol);
    CHECK(e > 1e-3 * static_cast<double>(st.steps) * tol);  // the tolerance is used, not wasted
    if (previousSteps > 0) {
      // tol / 100: error / 100^(4/5) = / 40, steps x 100^(1/5) = x 2.5
      INFO("error ratio " << previous / e << ", step ratio " << static_cast<double>(st.steps) / static_cast<double>(previousSteps));
      CHECK(previous / e == Approx(40.0).epsilon(0.3));
      CHECK(static_cast<double>(st.steps) / static_cast<double>(previousSteps) == Approx(2.51).epsilon(0.15));
    }
    // 5 evaluations per step, 4 per rejected trial (k1 is kept), 1 for the automatic first step
    CHECK(st.evaluations == 5 * st.steps + 4 * st.rejected + 1);
    previous = e;
    previousSteps = st.steps;
  }
}

TEST_CASE("rkm rejects a trial step that is too long and shrinks it", "[integrators][rkm]") {
  Oscillators sys({1.0, 2.5});
  RkmOptions o;
  o.rtol = o.atol = 1e-8;
  o.initialStep = 1.0;  // error ~ (2.5)^5 / 720 >> 1e-8
  RkmIntegrator rkm(sys, o);
  rkm.reset(sys.initialState());
  const StepResult r = rkm.advance(5.0);
  REQUIRE(r.ok);
  CHECK(rkm.stats().rejected >= 2);
  CHECK(rkm.stats().steps == 1);
  const double h = r.tNew - r.tOld;
  CHECK(h < 0.1);
  CHECK(rkm.lastErrorNorm() <= 1.0);
  CHECK(rkm.nextStep() <= h);  // no growth right after a rejection
  CHECK(rkm.stats().evaluations == 5 + 4 * rkm.stats().rejected);
  // the accepted step meets the tolerance: its local error against the closed form
  CHECK(errorAt(sys, rkm.state()) < 1e-7);
  // and a whole run from there meets it too (at most ~tol per step, as above)
  while (rkm.time() < 5.0) REQUIRE(rkm.advance(5.0).ok);
  CHECK(errorAt(sys, rkm.state()) < 7.0 * static_cast<double>(rkm.stats().steps) * 1e-8);
}

TEST_CASE("rkm's dense output is continuous and third order inside a step", "[integrators][rkm][dense]") {
  SECTION("one step of the oscillator: the midpoint error shrinks like h^4") {
    Oscillators sys({1.0});
    std::vector<double> err;
    for (double h : {0.4, 0.2, 0.1, 0.05}) {
      RkmIntegrator rkm(sys, fixedStep(h));
      rkm.reset(sys.initialState());
      REQUIRE(rkm.advance(h).ok);
      State mid, end, start;
      rkm.interpolate(0.5 * h, mid);
      CHECK(mid.t == 0.5 * h);
      err.push_back(errorAt(sys, mid));
      rkm.interpolate(h, end);  // continuous: the step's end
      CHECK((end.q - rkm.state().q).cwiseAbs().maxCoeff() < 1e-14);
      CHECK((end.v - rkm.state().v).cwiseAbs().maxCoeff() < 1e-14);
      rkm.interpolate(0.0, start);  // and its start
      CHECK((start.q - sys.initialState().q).cwiseAbs().maxCoeff() < 1e-14);
      CHECK((start.v - sys.initialState().v).cwiseAbs().maxCoeff() < 1e-14);
    }
    for (std::size_t i = 1; i < err.size(); ++i) {
      const double order = std::log2(err[i - 1] / err[i]);
      INFO("local interpolation order " << order << " (error " << err[i] << ")");
      CHECK(order == Approx(4.0).margin(0.25));  // local error O(h^4) of a 3rd-order extension
    }
  }
  SECTION("adaptive steps: the interpolant follows the local solution to about the tolerance") {
    // the exact flow of q'' = -w^2 q from the step's start (the local solution the step
    // approximates): the interpolation error against it, over many adaptive steps, measured
    // in units of the step's tolerance atol + rtol |y|
    const double w = 2.5;
    Oscillators sys({w});
    double previousInside = 0;
    for (double tol : {1e-4, 1e-7, 1e-10}) {
      RkmOptions o;
      o.rtol = o.atol = tol;
      RkmIntegrator rkm(sys, o);
      rkm.reset(sys.initialState());
      double worstInside = 0, worstEnd = 0;
      State x;
      while (rkm.time() < 10.0) {
        const State s0 = rkm.state();
        const StepResult r = rkm.advance(10.0);
        REQUIRE(r.ok);
        const auto flow = [&](double t, double& q, double& v) {
          const double dt = t - s0.t;
          q = s0.q(0) * std::cos(w * dt) + s0.v(0) / w * std::sin(w * dt);
          v = -s0.q(0) * w * std::sin(w * dt) + s0.v(0) * std::cos(w * dt);
        };
        const auto relErr = [&](const State& y) {
          double q, v;
          flow(y.t, q, v);
          return std::max(std::abs(y.q(0) - q) / (tol + tol * std::abs(q)), std::abs(y.v(0) - v) / (tol + tol * std::abs(v)));
        };
        for (double theta : {0.2, 0.4, 0.5, 0.6, 0.8}) {
          rkm.interpolate(r.tOld + theta * (r.tNew - r.tOld), x);
          worstInside = std::max(worstInside, relErr(x));
        }
        worstEnd = std::max(worstEnd, relErr(rkm.state()));
      }
      INFO("tol " << tol << ": steps " << rkm.stats().steps << ", worst local error at step ends " << worstEnd
           << " tol, inside (dense output) " << worstInside << " tol");
      CHECK(worstEnd <= 4.0);  // accepted steps: RMS <= 1 (in the integrator's weights)
      // the interpolant errs O(h^4), the step O(h^5) ~ tol: in units of tol its error grows
      // like tol^(-1/5), x 1000^(1/5) = 3.98 per factor 1000 (a 2nd-order one: x 15.8)
      if (tol == 1e-4) CHECK(worstInside <= 4.0);
      if (previousInside > 0) CHECK(worstInside / previousInside == Approx(3.98).epsilon(0.25));
      previousInside = worstInside;
    }
  }
  SECTION("a run: samples at output times as accurate as the steps") {
    Oscillators sys({1.0, 2.5});
    SimulationSettings set;
    set.integrator = IntegratorKind::Rkm;
    set.tEnd = 3.05;
    set.outputInterval = 0.1;
    for (double tol : {1e-5, 1e-8}) {
      set.rtol = set.atol = tol;
      MemoryRecorder rec;
      const SimulationResult r = runSimulation(sys, set, rec);
      REQUIRE(r.completed());
      REQUIRE(rec.size() == 32);
      CHECK(rec.t.back() == 3.05);
      INFO("tol " << tol << ": steps " << r.stats.integrator.steps);
      // fewer steps than samples: most samples come from the dense output
      if (tol == 1e-5) CHECK(r.stats.integrator.steps < 31);
      double worstSample = 0;
      for (std::size_t i = 0; i + 1 < rec.size(); ++i) {
        State s;
        s.t = rec.t[i];
        s.q = rec.q[i];
        s.v = rec.v[i];
        worstSample = std::max(worstSample, errorAt(sys, s));
      }
      const double endError = errorAt(sys, r.state);
      INFO("worst sample error " << worstSample << ", error at t_end " << endError);
      CHECK(worstSample < 7.0 * static_cast<double>(r.stats.integrator.steps) * tol);
    }
  }
}

TEST_CASE("rkm on the A01 pendulum (constraint, projection) meets the reference", "[integrators][rkm]") {
  // docs/benchmarks.md, A01: 1 kg on a 1 m massless link released from (-1, 0)
  const test::TestModel model = test::pendulumModel();
  ModelSystem sys(model.model);
  SimulationSettings set;
  set.integrator = IntegratorKind::Rkm;
  set.tEnd = 10;
  set.outputInterval = 0.5;
  set.rtol = set.atol = 1e-9;
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec);
  REQUIRE(r.completed());
  REQUIRE(rec.size() == 21);
  const double x05 = -0.391048791550546, y05 = -0.920369948785192;
  const double x10 = -0.275087462576117, y10 = -0.961419205099125;
  const double e05 = std::max(std::abs(rec.q[1](0) - x05), std::abs(rec.q[1](1) - y05));
  const double e10 = std::max(std::abs(rec.q[20](0) - x10), std::abs(rec.q[20](1) - y10));
  INFO("error at 0.5 s " << e05 << ", at 10 s " << e10 << ", steps " << r.stats.integrator.steps);
  CHECK(e05 < 1e-7);
  CHECK(e10 < 1e-6);
}

TEST_CASE("rkm is the scene name 'rkm'", "[integrators][rkm][settings]") {
  CHECK(parseIntegratorKind("rkm") == IntegratorKind::Rkm);
  CHECK(std::string(toString(IntegratorKind::Rkm)) == "rkm");
  const auto& names = integratorNames();
  CHECK(std::find(names.begin(), names.end(), "rkm") != names.end());
  const SimulationSettings s = parseSimulationSettings(nlohmann::json{{"integrator", "rkm"}, {"rtol", 1e-4}}, "inline.json");
  CHECK(s.integrator == IntegratorKind::Rkm);
  CHECK(parseSimulationSettings(toJson(s), "inline.json").integrator == IntegratorKind::Rkm);
  try {
    (void)parseSimulationSettings(nlohmann::json{{"integrator", "merson"}}, "inline.json");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("rkm"));
  }
  // the integrator runSimulation builds is rkm: five evaluations per step, none shared
  Oscillators sys({1.0});
  SimulationSettings set;
  set.integrator = IntegratorKind::Rkm;
  set.tEnd = 1.0;
  set.outputInterval = 1.0;
  set.stabilization = Stabilization::None;
  MemoryRecorder rec;
  const SimulationResult r = runSimulation(sys, set, rec);
  REQUIRE(r.completed());
  const IntegratorStats& st = r.stats.integrator;
  CHECK(st.evaluations == 5 * st.steps + 4 * st.rejected);  // first trial step 1e-3 given
}

TEST_CASE("rkm: bad options are errors", "[integrators][rkm]") {
  Oscillators sys({1.0});
  RkmOptions o;
  o.rtol = o.atol = 0;
  CHECK_THROWS_AS(RkmIntegrator(sys, o), SimulationError);
  RkmOptions f;
  f.fixedStep = true;
  CHECK_THROWS_AS(RkmIntegrator(sys, f), SimulationError);
  RkmIntegrator ok(sys, RkmOptions{});
  State s;
  CHECK_THROWS_AS(ok.interpolate(0.0, s), SimulationError);  // no step yet
}

}  // namespace
}  // namespace joinery
