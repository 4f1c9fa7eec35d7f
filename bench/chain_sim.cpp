// A whole simulation of the benchmark chain (docs/benchmarks.md, "The benchmark chain") in
// joinery: runSimulation (integrators/simulation.hpp) from t = 0 to T with dopri5 or rkm (rtol =
// atol = tol) or rk4 (fixed step dt), the default drift control (projection), a recorder that
// discards its two samples (output interval T: samples at t = 0 and T only). Companion of
// bench/peers/chain_sim_simbody.cpp; bench/run_chain_sim.sh runs both (equal accuracy).
//   chain_sim --N 64 [--integrator dopri5|rkm|rk4] [--tol 1e-8] [--dt 1e-3] [--spin 0] [--T 1]
//             [--ref x,y,z] [--stabilization projection|none|baumgarte]
// One JSON line on stdout. Fields: engine, integrator, tol (dopri5, rkm) or dt (rk4), N, T, spin,
// stabilization, n, m, build_s (scene and ModelSystem), wall_s (runSimulation alone: initial
// conditions, integration, drift control), cpu_s (the same span in CPU time of the thread: on a
// loaded machine wall time includes waiting for a core), steps (accepted), rejected, evaluations
// (calcAccelerations calls), structured_evals / dense_evals (which solver answered),
// projections (drift-control projections that changed the state), tip (distal end of the last
// link at T: centre + R (0.5, 0, 0), world), energy (E at T, potential datum z = 0),
// pos_residual / vel_residual (constraint residuals at T), tip_err (|tip - ref| when --ref is
// given, else null), outcome; the breakdown of wall_s: fast_eval_s (evaluations answered by
// the structured path), dense_eval_s (evaluations that went to the dense reference solver:
// the first one, and any whose structured check failed), projection_s (drift control).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "chain_model.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/simulation.hpp"
#include "timing.hpp"

namespace {

// Forwards everything to the ModelSystem and times it: evaluations answered by the structured
// path, evaluations that fell back to the dense solver, drift-control projections. Bench only
// (the breakdown of wall_s); a steady_clock read costs ~20 ns, against >= 10 us per call.
class TimedSystem final : public joinery::DynamicSystem {
 public:
  explicit TimedSystem(joinery::ModelSystem& sys) : sys_(sys) {}
  int numCoordinates() const override { return sys_.numCoordinates(); }
  const std::vector<std::string>& coordinateNames() const override { return sys_.coordinateNames(); }
  joinery::State initialState() const override { return sys_.initialState(); }
  joinery::AccelerationStatus calcAccelerations(const joinery::State& s, joinery::VecRef qdd,
                                                const joinery::Baumgarte& stab) override {
    const long long dense0 = sys_.denseEvaluations();
    const double t0 = joinery::benchtiming::nowSeconds();
    joinery::AccelerationStatus st = sys_.calcAccelerations(s, qdd, stab);
    const double dt = joinery::benchtiming::nowSeconds() - t0;
    (sys_.denseEvaluations() > dense0 ? denseSeconds : fastSeconds) += dt;
    return st;
  }
  using joinery::DynamicSystem::calcAccelerations;
  int numConstraintRows() const override { return sys_.numConstraintRows(); }
  const std::vector<std::string>& constraintRowNames() const override { return sys_.constraintRowNames(); }
  void normalizeCoordinates(joinery::VecRef q) override { sys_.normalizeCoordinates(q); }
  joinery::ProjectionReport projectPositions(joinery::State& s, const joinery::ProjectionOptions& o) override {
    const double t0 = joinery::benchtiming::nowSeconds();
    joinery::ProjectionReport r = sys_.projectPositions(s, o);
    projectionSeconds += joinery::benchtiming::nowSeconds() - t0;
    return r;
  }
  joinery::ProjectionReport projectVelocities(joinery::State& s, const joinery::ProjectionOptions& o) override {
    const double t0 = joinery::benchtiming::nowSeconds();
    joinery::ProjectionReport r = sys_.projectVelocities(s, o);
    projectionSeconds += joinery::benchtiming::nowSeconds() - t0;
    return r;
  }
  joinery::ConstraintResiduals calcConstraintResiduals(const joinery::State& s) override {
    return sys_.calcConstraintResiduals(s);
  }
  std::optional<double> calcEnergy(const joinery::State& s) override { return sys_.calcEnergy(s); }

  double fastSeconds = 0, denseSeconds = 0, projectionSeconds = 0;

 private:
  joinery::ModelSystem& sys_;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace joinery;
  namespace bt = joinery::benchtiming;
  const int N = std::stoi(bt::arg(argc, argv, "--N", "64"));
  const std::string integrator = bt::arg(argc, argv, "--integrator", "dopri5");
  const double tol = std::stod(bt::arg(argc, argv, "--tol", "1e-8"));
  const double dt = std::stod(bt::arg(argc, argv, "--dt", "1e-3"));
  const double spin = std::stod(bt::arg(argc, argv, "--spin", "0"));
  const double T = std::stod(bt::arg(argc, argv, "--T", "1"));
  const std::string stabilization = bt::arg(argc, argv, "--stabilization", "projection");
  const std::string refText = bt::arg(argc, argv, "--ref", "");
  const std::string label = bt::arg(argc, argv, "--label", "");  // echoed (run_chain_sim.sh: ref / sweep)
  Eigen::Vector3d ref = Eigen::Vector3d::Zero();
  const bool haveRef = !refText.empty();
  if (haveRef && !bt::parseTriple(refText, ref)) {
    std::fprintf(stderr, "chain_sim: --ref '%s': expected x,y,z\n", refText.c_str());
    return 2;
  }
  const bool adaptive = integrator == "dopri5" || integrator == "rkm";
  if (!adaptive && integrator != "rk4") {
    std::fprintf(stderr, "chain_sim: --integrator '%s': expected dopri5, rkm or rk4\n", integrator.c_str());
    return 2;
  }

  const double tb = bt::nowSeconds();
  const Scene scene = bench::chainModel(N, spin);
  ModelSystem sys(scene.model);  // default options: the structured path for this model
  const double build = bt::nowSeconds() - tb;

  SimulationSettings settings;
  settings.tEnd = T;
  settings.integrator = *parseIntegratorKind(integrator);  // checked above
  settings.rtol = tol;
  settings.atol = tol;
  settings.step = dt;            // rk4: the step; dopri5, rkm: the first trial step
  settings.outputInterval = T;   // samples at 0 and T only
  const auto stab = parseStabilization(stabilization);
  if (!stab) {
    std::fprintf(stderr, "chain_sim: --stabilization '%s': expected projection, none or baumgarte\n", stabilization.c_str());
    return 2;
  }
  settings.stabilization = *stab;
  // dopri5, rkm: runSimulation takes settings.step (--dt, default 1e-3) as the first trial step unless
  // RunOptions::initialStep > 0; a trial step too large is simply rejected
  RunOptions options;
  // drift control's tolerance after each step (RunOptions::stepProjection; default 1e-12)
  options.stepProjection.tolerance = std::stod(bt::arg(argc, argv, "--proj-tol", "1e-12"));
  NullRecorder recorder;

  const double t0 = bt::nowSeconds();
  const double c0 = bt::threadCpuSeconds();
  TimedSystem timed(sys);
  const SimulationResult r = runSimulation(timed, settings, recorder, {}, options);
  const double wall = bt::nowSeconds() - t0;
  const double cpu = bt::threadCpuSeconds() - c0;

  const State& s = r.state;
  const Body* last = scene.model.findBody("link" + std::to_string(N - 1));
  const BodySlot& slot = scene.model.slotOf(*last);
  const Eigen::Vector3d tip =
      last->points()->calcPointPosition(s.q.segment(slot.offset, slot.size), Eigen::Vector3d(0.5, 0, 0));
  const std::optional<double> energy = sys.calcEnergy(s);
  const ConstraintResiduals res = sys.calcConstraintResiduals(s);
  const IntegratorStats& is = r.stats.integrator;
  const double tipErr = haveRef ? (tip - ref).norm() : NAN;
  const auto num = bt::jsonNumber;
  std::printf(
      "{\"engine\": \"joinery\", \"label\": \"%s\", \"integrator\": \"%s\", \"tol\": %s, \"dt\": %s, \"N\": %d, \"T\": %s, "
      "\"spin\": %s, \"stabilization\": \"%s\", \"n\": %d, \"m\": %d, \"build_s\": %s, \"wall_s\": %s, \"cpu_s\": %s, "
      "\"steps\": %lld, \"rejected\": %lld, \"evaluations\": %lld, \"structured_evals\": %lld, "
      "\"dense_evals\": %lld, \"projections\": %lld, \"fast_eval_s\": %s, \"dense_eval_s\": %s, "
      "\"projection_s\": %s, \"min_step\": %s, \"max_step\": %s, "
      "\"tip\": [%s, %s, %s], \"energy\": %s, \"pos_residual\": %s, \"vel_residual\": %s, "
      "\"tip_err\": %s, \"t_final\": %s, \"outcome\": \"%s\"}\n",
      label.c_str(), integrator.c_str(), adaptive ? num(tol).c_str() : "null",
      integrator == "rk4" ? num(dt).c_str() : "null", N, num(T).c_str(), num(spin).c_str(),
      stabilization.c_str(), sys.numCoordinates(), sys.numConstraintRows(), num(build).c_str(),
      num(wall).c_str(), num(cpu).c_str(), is.steps, is.rejected, is.evaluations, sys.structuredEvaluations(),
      sys.denseEvaluations(), r.stats.projections, num(timed.fastSeconds).c_str(),
      num(timed.denseSeconds).c_str(), num(timed.projectionSeconds).c_str(), num(is.minStep).c_str(), num(is.maxStep).c_str(),
      num(tip.x()).c_str(), num(tip.y()).c_str(), num(tip.z()).c_str(),
      num(energy ? *energy : NAN).c_str(), num(res.position).c_str(), num(res.velocity).c_str(),
      num(tipErr).c_str(), num(r.t).c_str(), toString(r.outcome));
  if (!r.completed()) {
    std::fprintf(stderr, "chain_sim: run did not complete: %s\n", r.message.c_str());
    return 1;
  }
  return 0;
}
