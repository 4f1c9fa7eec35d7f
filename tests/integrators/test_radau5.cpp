// Radau IIA 5 (the implicit integrator): order of convergence on a linear problem,
// the dense output, a stiff problem where it must beat dopri5 by far, and agreement with dopri5
// and the reference on the non-stiff A01 pendulum.
#include <catch2/catch.hpp>
#include <cmath>

#include "joinery/core/model_system.hpp"
#include "joinery/integrators/radau5.hpp"
#include "joinery/integrators/simulation.hpp"
#include "allocation_counter.hpp"
#include "test_systems.hpp"

namespace joinery {
namespace {

/// A slow oscillator beside a stiff, strongly damped one driven by it:
///   q0'' = -q0,   q1'' = -K (q1 - q0) - C q1'   (K = 1e8, C = 2e4: time constants 1e-4 s
/// and 2e-4 s... the fast mode is critically damped, the slow one is the motion of interest).
class StiffPair final : public DynamicSystem {
 public:
  int numCoordinates() const override { return 2; }
  const std::vector<std::string>& coordinateNames() const override { return names_; }
  State initialState() const override {
    State s;
    s.q = VectorXd::Zero(2);
    s.v = VectorXd::Zero(2);
    s.q << 1, 1;
    return s;
  }
  AccelerationStatus calcAccelerations(const State& s, VecRef qdd, const Baumgarte&) override {
    qdd(0) = -s.q(0);
    qdd(1) = -K * (s.q(1) - s.q(0)) - C * s.v(1);
    return {};
  }
  using DynamicSystem::calcAccelerations;
  double K = 1e8, C = 2e4;

 private:
  std::vector<std::string> names_{"a.q", "b.q"};
};

double runFixed(double h, double tEnd) {
  test::Oscillators sys({1.0, 2.0});
  Radau5Options o;
  o.fixedStep = true;
  o.initialStep = h;
  o.rtol = 1e-14;  // Newton to round-off
  o.atol = 1e-14;
  Radau5Integrator integ(sys, o);
  integ.reset(sys.initialState());
  while (integ.time() < tEnd - 1e-12) REQUIRE(integ.advance(tEnd).ok);
  const State ex = sys.exact(tEnd);
  return std::max((integ.state().q - ex.q).cwiseAbs().maxCoeff(),
                  (integ.state().v - ex.v).cwiseAbs().maxCoeff());
}

TEST_CASE("radau5: fifth order at a fixed step on harmonic oscillators", "[integrators][radau5]") {
  const double e1 = runFixed(0.2, 4.0), e2 = runFixed(0.1, 4.0), e3 = runFixed(0.05, 4.0);
  const double p1 = std::log2(e1 / e2), p2 = std::log2(e2 / e3);
  INFO("errors " << e1 << " " << e2 << " " << e3 << ", observed orders " << p1 << " " << p2);
  // Radau IIA with 3 stages is of order 2s - 1 = 5 at the step ends; 4.6 leaves room for the
  // pre-asymptotic first halving (the finite-difference Jacobian does not matter: Newton
  // iterates to the tolerance)
  CHECK(p1 > 4.6);
  CHECK(p2 > 4.6);
  CHECK(p2 < 5.6);
}

TEST_CASE("radau5: error-controlled run and dense output follow the tolerance",
          "[integrators][radau5]") {
  test::Oscillators sys({1.0, 3.0});
  SimulationSettings set;
  set.integrator = *parseIntegratorKind("implicit");
  set.tEnd = 5;
  set.outputInterval = 0.05;
  MemoryRecorder rec;
  for (double rtol : {1e-6, 1e-9}) {
    set.rtol = rtol;
    set.atol = rtol;
    rec = MemoryRecorder();
    const SimulationResult r = runSimulation(sys, set, rec);
    REQUIRE(r.completed());
    double worst = 0;  // every sample, most of them from the dense output
    for (std::size_t i = 0; i < rec.size(); ++i)
      worst = std::max(worst, (rec.q[i] - sys.exact(rec.t[i]).q).cwiseAbs().maxCoeff());
    INFO("rtol " << rtol << ": worst sample error " << worst << ", steps "
                 << r.stats.integrator.steps << ", evaluations " << r.stats.integrator.evaluations);
    // the error of a well-conditioned non-stiff problem stays within a few hundred tolerances
    CHECK(worst < 300 * rtol);
    CHECK(worst > 0);
  }
}

TEST_CASE("radau5: a stiff problem at a fraction of dopri5's evaluations", "[integrators][radau5]") {
  SimulationSettings set;
  set.tEnd = 3;
  set.outputInterval = 0.5;
  set.rtol = set.atol = 1e-7;
  StiffPair ref;
  // reference: dopri5 at 1e-11 (stable steps are ~1e-4 s anyway, so it is accurate)
  MemoryRecorder rr;
  set.integrator = IntegratorKind::Dopri5;
  SimulationSettings tight = set;
  tight.rtol = tight.atol = 1e-11;
  const SimulationResult rref = runSimulation(ref, tight, rr);
  REQUIRE(rref.completed());
  StiffPair a, b;
  MemoryRecorder ra, rb;
  const SimulationResult rd = runSimulation(a, set, ra);
  set.integrator = IntegratorKind::Radau5;
  const SimulationResult ri = runSimulation(b, set, rb);
  REQUIRE(rd.completed());
  REQUIRE(ri.completed());
  REQUIRE(ra.size() == rr.size());
  REQUIRE(rb.size() == rr.size());
  double errD = 0, errI = 0;
  for (std::size_t i = 0; i < rr.size(); ++i) {
    errD = std::max(errD, (ra.q[i] - rr.q[i]).cwiseAbs().maxCoeff());
    errI = std::max(errI, (rb.q[i] - rr.q[i]).cwiseAbs().maxCoeff());
  }
  const long long ed = rd.stats.integrator.evaluations, ei = ri.stats.integrator.evaluations;
  INFO("dopri5: error " << errD << ", " << ed << " evaluations; radau5: error " << errI << ", " << ei
                        << " evaluations, " << ri.stats.integrator.steps << " steps");
  CHECK(errI < 1e-5);
  // dopri5 is held to |h lambda| < 3.3 by stability (lambda ~ 1e4): about 6 * 3 / 3e-4 = 6e4
  // evaluations; radau5 follows the slow motion
  CHECK(ed > 20 * ei);
}

TEST_CASE("radau5 agrees with dopri5 and the reference on the A01 pendulum",
          "[integrators][radau5][A01]") {
  // 20 s of A01 (x at t = 10 s is in public-benchmarks.md: -0.275087462576117)
  const test::TestModel model = test::pendulumModel();
  SimulationSettings set;
  set.tEnd = 10;
  set.outputInterval = 0.5;
  set.rtol = 1e-9;
  set.atol = 1e-9;
  MemoryRecorder rd, ri;
  ModelSystem s1(model.model), s2(model.model);
  set.integrator = IntegratorKind::Dopri5;
  REQUIRE(runSimulation(s1, set, rd).completed());
  set.integrator = *parseIntegratorKind("implicit");
  const SimulationResult r = runSimulation(s2, set, ri);
  REQUIRE(r.completed());
  REQUIRE(ri.size() == rd.size());
  double diff = 0;
  for (std::size_t i = 0; i < rd.size(); ++i) diff = std::max(diff, (ri.q[i] - rd.q[i]).cwiseAbs().maxCoeff());
  INFO("max |radau5 - dopri5| " << diff << "; x(10) = " << ri.q.back()(0));
  CHECK(diff < 1e-5);
  CHECK(std::abs(ri.q.back()(0) - (-0.275087462576117)) < 1e-5);
  CHECK(r.stats.maxPositionResidual < 1e-10);
}

TEST_CASE("radau5: no heap allocation per step once running", "[integrators][radau5][allocation]") {
  StiffPair sys;
  Radau5Options o;
  o.rtol = 1e-6;
  o.atol = 1e-6;
  Radau5Integrator integ(sys, o);
  integ.reset(sys.initialState());
  for (int i = 0; i < 20; ++i) REQUIRE(integ.advance(100.0).ok);  // warm-up (first Jacobian, LU)
  const long before = test::heapAllocations();
  for (int i = 0; i < 50; ++i) REQUIRE(integ.advance(100.0).ok);
  const long after = test::heapAllocations();
  INFO("Jacobians " << integ.radauStats().jacobians << ", factorizations " << integ.radauStats().factorizations);
  CHECK(integ.radauStats().factorizations > 2);  // the step changed: refactorizations were exercised
  CHECK(after - before == 0);
}

TEST_CASE("radau5: unknown and invalid settings", "[integrators][radau5]") {
  test::Oscillators sys({1.0});
  SimulationSettings set;
  set.integrator = IntegratorKind::Radau5;
  set.rtol = 0;
  set.atol = 1e-9;
  MemoryRecorder rec;
  CHECK_THROWS_AS(runSimulation(sys, set, rec), InputError);
  CHECK(parseIntegratorKind("implicit") == IntegratorKind::Radau5);
  CHECK(std::string(toString(IntegratorKind::Radau5)) == "radau5");
}

}  // namespace
}  // namespace joinery
