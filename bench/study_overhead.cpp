// Per-case overhead of a study (docs/performance.md "Studies"): the time a study
// spends per case beyond the simulation itself — worker start-up, scene parse with the
// case's overrides, pipes, table write — measured against the simulation time.
//
//   study_overhead STUDY.json [--jobs N] [--repeat R]
//
// 1. in this process, for every case: parse (sceneFromJson with the case's overrides) and
//    simulate (runSimulation evaluating the scene's output channels, as `joinery simulate`
//    does), timed apart;
// 2. runStudy() with N worker processes (default 1), timed as a whole;
// and prints both per case as JSON. The overhead is the study's CPU time per case (parent and
// workers) minus the simulation's CPU time, over the latter; wall-clock figures beside it.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/settings.hpp"
#include "joinery/core/outputs.hpp"
#include "joinery/integrators/run_outputs.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/study/study.hpp"

using namespace joinery;
using Clock = std::chrono::steady_clock;

namespace {
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
/// CPU time of this process and of its reaped children (the study's workers), s.
double cpuWithChildren() {
  rusage self{}, kids{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  const auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return sec(self.ru_utime) + sec(self.ru_stime) + sec(kids.ru_utime) + sec(kids.ru_stime);
}
double cpuSelf() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: study_overhead STUDY.json [--jobs N] [--repeat R]\n";
    return 2;
  }
  int jobs = 1, repeat = 3;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--jobs") jobs = std::atoi(argv[i + 1]);
    if (a == "--repeat") repeat = std::atoi(argv[i + 1]);
  }
  const study::Study s = study::loadStudy(argv[1]);
  const double n = static_cast<double>(s.cases.size());
  double best_parse = 1e300, best_sim = 1e300, best_case = 1e300, best_study = 1e300;
  double best_sim_cpu = 1e300, best_study_cpu = 1e300;
  for (int rep = 0; rep < repeat; ++rep) {
    double parse = 0, sim = 0, simCpu = 0;
    for (const auto& c : s.cases) {
      const auto t0 = Clock::now();
      SceneOptions o;
      for (std::size_t k = 0; k < s.parameters.size(); ++k) o.overrides.push_back({s.parameters[k], c.values[k]});
      const Scene scene = sceneFromJson(s.scene, s.sceneFile, o);
      parse += since(t0);
      const auto t1 = Clock::now();
      const double c1 = cpuSelf();
      ModelSystem system(scene.model);
      // what `joinery simulate` computes per sample: the output channels
      const OutputChannels channels(scene.model, scene.outputs);
      NullRecorder none;
      ChannelRecorder rec(system, channels, false, none);
      const auto r = runSimulation(system, parseSimulationSettings(scene.simulation), rec);
      (void)r;
      sim += since(t1);
      simCpu += cpuSelf() - c1;
    }
    best_parse = std::min(best_parse, parse / n);
    best_sim = std::min(best_sim, sim / n);
    best_sim_cpu = std::min(best_sim_cpu, simCpu / n);
    // runCase: what a worker does per case (parse + simulate + statistics), in this process
    const auto t2 = Clock::now();
    for (const auto& c : s.cases) (void)study::runCase(s, c);
    best_case = std::min(best_case, since(t2) / n);
    // the whole study: worker processes, pipes, table
    const std::string table = (std::filesystem::temp_directory_path() / "joinery_study_overhead.csv").string();
    study::RunOptions ro;
    ro.table = table;
    ro.jobs = jobs;
    const auto t3 = Clock::now();
    const double c3 = cpuWithChildren();
    (void)study::runStudy(s, ro);  // its workers are reaped when it returns
    best_study = std::min(best_study, since(t3) / n);
    best_study_cpu = std::min(best_study_cpu, (cpuWithChildren() - c3) / n);
    std::filesystem::remove(table);
  }
  nlohmann::json j = {{"study", argv[1]},
                      {"cases", s.cases.size()},
                      {"jobs", jobs},
                      {"simulation_s_per_case", best_sim},
                      {"parse_s_per_case", best_parse},
                      {"run_case_s_per_case", best_case},
                      {"study_wall_s_per_case", best_study},
                      {"cases_per_s", 1.0 / best_study},
                      {"simulation_cpu_s_per_case", best_sim_cpu},
                      {"study_cpu_s_per_case", best_study_cpu},
                      // CPU time is what the study adds whatever else the machine runs; wall
                      // time on a loaded machine also holds the waits for a core
                      {"overhead_cpu_vs_simulation", (best_study_cpu - best_sim_cpu) / best_sim_cpu},
                      {"overhead_wall_vs_simulation", (best_study * jobs - best_sim) / best_sim}};
  std::cout << j.dump(2) << "\n";
  return 0;
}
