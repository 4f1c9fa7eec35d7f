// The no-allocation rule for whole runs: once a run is going, its steps — integration, drift
// control (projection, quaternion renormalisation), sampling by dense output, the energy and
// residuals of a sample — make no heap allocation, for every integrator. The recorder below
// counts malloc calls (malloc_counter.cpp: it also sees Eigen's allocations) between an early
// and a late sample, so every step in between is covered.
#include <catch2/catch.hpp>
#include <string>

#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/simulation.hpp"
#include "allocation_counter.hpp"

namespace joinery {
namespace {

/// Counts the malloc calls made between sample `from` and sample `to` (the counting window
/// holds the steps between them, including the library's own work for those samples).
class CountingRecorder final : public Recorder {
 public:
  CountingRecorder(int from, int to) : from_(from), to_(to) {}
  void begin(const std::vector<std::string>&) override {}
  void record(const Sample&) override {
    if (samples_ == from_) start_ = test::mallocCount();
    if (samples_ == to_) counted_ = test::mallocCount() - start_;
    ++samples_;
  }
  int samples() const { return samples_; }
  long counted() const { return counted_; }

 private:
  int from_, to_, samples_ = 0;
  long start_ = 0, counted_ = -1;
};

std::string example(const std::string& name) {
  return std::string(joinery_test_source_dir()) + "/examples/scenes/" + name;
}

TEST_CASE("a running simulation allocates nothing per step or sample", "[integrators][allocation]") {
  if (!test::mallocCounting()) return;  // AddressSanitizer build: malloc is not interposed
  // a planar closed loop (drift control by projection), a spatial body with a
  // quaternion (renormalised after every step) and a nonholonomic model
  const std::string scene = GENERATE(std::string("slider_crank.json"), std::string("spatial_weld_tumbling.json"),
                                     std::string("spatial_universal_pendulum.json"), std::string("nh_rolling_disk.json"));
  const std::string integrator = GENERATE(std::string("rk4"), std::string("dopri5"), std::string("rkm"),
                                              std::string("radau5"));
  const Scene s = loadScene(example(scene));
  ModelSystem sys(s.model);
  SimulationSettings set;
  set.integrator = *parseIntegratorKind(integrator);
  set.tEnd = 0.5;
  set.outputInterval = 0.01;  // 51 samples, several steps between some of them
  set.step = 1e-3;
  set.rtol = set.atol = 1e-7;
  CountingRecorder rec(5, 45);
  const SimulationResult r = runSimulation(sys, set, rec);
  INFO(scene << " with " << integrator << ": " << r.message);
  REQUIRE(r.completed());
  REQUIRE(rec.samples() == 51);
  INFO("steps " << r.stats.integrator.steps);
  CHECK(r.stats.integrator.steps >= 5);  // steps inside the window, and samples between steps
  CHECK(rec.counted() == 0);
}

}  // namespace
}  // namespace joinery
