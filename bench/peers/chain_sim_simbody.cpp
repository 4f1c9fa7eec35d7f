// A whole simulation of the benchmark chain (docs/benchmarks.md, "The benchmark chain") in
// Simbody 3.7 with one of its own integrators, from t = 0 to T; the Simbody side of
// bench/chain_sim.cpp (same JSON fields, so that bench/summarize_chain_sim.py reads both).
//   chain_sim_simbody --N 64 [--integrator rkm|rkf|rk3|rk2|cpodes|cpodes_adams|see2|verlet|
//                     rkm_fixed] [--accuracy 1e-8] [--dt 1e-3] [--spin 0] [--T 1] [--ref x,y,z]
// Error-controlled: rkm = RungeKuttaMersonIntegrator (4th order, 5 stages), rkf =
// RungeKuttaFeldbergIntegrator (Fehlberg 4(5)), rk3 = RungeKutta3Integrator, rk2 =
// RungeKutta2Integrator, cpodes = CPodesIntegrator (BDF, Newton), cpodes_adams = CPodes
// (Adams, functional iteration), see2 = SemiExplicitEuler2Integrator, verlet =
// VerletIntegrator; all with setAccuracy(accuracy) (Simbody's accuracy is a weighted local
// error norm, not a relative tolerance; the constraint tolerance is Simbody's default).
// rkm_fixed = RungeKuttaMerson with setFixedStepSize(dt). Every integrator gets
// setFinalTime(T) and no interpolation, so the state at T is a real step, as in joinery.
// Simbody from Debian is built without NDEBUG and its headers change layout with it: never
// define NDEBUG here (it segfaults in realizeTopology).
#undef NDEBUG
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "Simbody.h"
#include "../timing.hpp"
#include "simbody_chain.hpp"


int main(int argc, char** argv) {
  using namespace SimTK;
  namespace bt = joinery::benchtiming;
  const auto num = bt::jsonNumber;
  const int N = std::stoi(bt::arg(argc, argv, "--N", "64"));
  const std::string integName = bt::arg(argc, argv, "--integrator", "rkm");
  const double accuracy = std::stod(bt::arg(argc, argv, "--accuracy", "1e-8"));
  const double dt = std::stod(bt::arg(argc, argv, "--dt", "1e-3"));
  const double spin = std::stod(bt::arg(argc, argv, "--spin", "0"));
  const double T = std::stod(bt::arg(argc, argv, "--T", "1"));
  const std::string refText = bt::arg(argc, argv, "--ref", "");
  const std::string label = bt::arg(argc, argv, "--label", "");  // echoed (run_chain_sim.sh: ref / sweep)
  Vec3 ref(0);
  const bool haveRef = !refText.empty();
  if (haveRef && !bt::parseTriple(refText, ref)) {
    std::fprintf(stderr, "chain_sim_simbody: --ref '%s': expected x,y,z\n", refText.c_str());
    return 2;
  }
  using Chain = joinery::bench::SimbodyChain;
  const double m = Chain::m, L = Chain::L, g = Chain::g;

  const double tb = bt::nowSeconds();
  Chain chain(N, spin);  // identity quaternions: straight along +x; spin about +z
  MultibodySystem& system = chain.system;
  const SimbodyMatterSubsystem& matter = chain.matter;
  const std::vector<MobilizedBody>& bodies = chain.bodies;
  const Vec3 com = chain.com;
  State& s = chain.state;
  const double build = bt::nowSeconds() - tb;

  std::unique_ptr<Integrator> integ;
  bool fixed = false;
  if (integName == "rkm" || integName == "rkm_fixed") {
    integ = std::make_unique<RungeKuttaMersonIntegrator>(system);
    fixed = integName == "rkm_fixed";
  } else if (integName == "rkf") {
    integ = std::make_unique<RungeKuttaFeldbergIntegrator>(system);
  } else if (integName == "rk3") {
    integ = std::make_unique<RungeKutta3Integrator>(system);
  } else if (integName == "rk2") {
    integ = std::make_unique<RungeKutta2Integrator>(system);
  } else if (integName == "cpodes") {
    integ = std::make_unique<CPodesIntegrator>(system, CPodes::BDF, CPodes::Newton);
  } else if (integName == "cpodes_adams") {
    integ = std::make_unique<CPodesIntegrator>(system, CPodes::Adams, CPodes::Functional);
  } else if (integName == "see2") {
    integ = std::make_unique<SemiExplicitEuler2Integrator>(system);
  } else if (integName == "verlet") {
    integ = std::make_unique<VerletIntegrator>(system);
  } else {
    std::fprintf(stderr, "chain_sim_simbody: unknown --integrator '%s'\n", integName.c_str());
    return 2;
  }
  if (fixed)
    integ->setFixedStepSize(dt);
  else
    integ->setAccuracy(accuracy);
  integ->setFinalTime(T);
  integ->setAllowInterpolation(false);

  const long realize0 = system.getNumRealizationsOfThisStage(Stage::Acceleration);
  const double t0 = bt::nowSeconds();
  const double c0 = bt::threadCpuSeconds();
  std::string status = "completed";
  try {
    integ->initialize(s);
    while (integ->getTime() < T) {
      const Integrator::SuccessfulStepStatus st = integ->stepTo(T);
      if (st == Integrator::EndOfSimulation) {
        if (integ->getTerminationReason() != Integrator::ReachedFinalTime) status = "failed";
        break;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chain_sim_simbody: %s\n", e.what());
    status = "failed";
  }
  const double wall = bt::nowSeconds() - t0;
  const double cpu = bt::threadCpuSeconds() - c0;  // the thread's CPU time (a loaded machine)
  const long evaluations = system.getNumRealizationsOfThisStage(Stage::Acceleration) - realize0;

  const State& sT = integ->getState();
  system.realize(sT, Stage::Velocity);
  double pe = 0;
  for (const MobilizedBody& b : bodies) pe += m * g * b.findStationLocationInGround(sT, com)[2];
  const double energy = matter.calcKineticEnergy(sT) + pe;
  const Vec3 tip = bodies.back().findStationLocationInGround(sT, Vec3(L, 0, 0));
  double quatErr = 0;  // largest | |quaternion| - 1 | (Simbody keeps them normalised by projection)
  for (const MobilizedBody& b : bodies) {
    const Vector q = b.getQAsVector(sT);
    quatErr = std::max(quatErr, std::abs(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1));
  }
  const double tipErr = haveRef ? (tip - ref).norm() : NAN;
  std::printf(
      "{\"engine\": \"simbody\", \"label\": \"%s\", \"integrator\": \"%s\", \"tol\": %s, \"dt\": %s, \"N\": %d, \"T\": %s, "
      "\"spin\": %s, \"nq\": %d, \"nu\": %d, \"build_s\": %s, \"wall_s\": %s, \"cpu_s\": %s, \"steps\": %d, "
      "\"attempted\": %d, \"rejected\": %d, \"evaluations\": %ld, \"projections\": %d, "
      "\"tip\": [%s, %s, %s], \"energy\": %s, \"quat_norm_err\": %s, \"tip_err\": %s, "
      "\"t_final\": %s, \"outcome\": \"%s\"}\n",
      label.c_str(), integName.c_str(), fixed ? "null" : num(accuracy).c_str(), fixed ? num(dt).c_str() : "null", N,
      num(T).c_str(), num(spin).c_str(), sT.getNQ(), sT.getNU(), num(build).c_str(), num(wall).c_str(),
      num(cpu).c_str(), integ->getNumStepsTaken(), integ->getNumStepsAttempted(), integ->getNumErrorTestFailures(),
      evaluations, integ->getNumProjections(), num(tip[0]).c_str(), num(tip[1]).c_str(),
      num(tip[2]).c_str(), num(energy).c_str(), num(quatErr).c_str(), num(tipErr).c_str(),
      num(sT.getTime()).c_str(), status.c_str());
  return status == "completed" ? 0 : 1;
}
