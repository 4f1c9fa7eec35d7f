// Per-case overhead of a study (issue 15, docs/performance.md "Studies"): the time a study
// spends per case beyond the simulation itself — worker start-up, scene parse with the
// case's overrides, pipes, table write — measured against the simulation time.
//
//   study_overhead STUDY.json [--jobs N] [--repeat R]
//
// 1. in this process, for every case: parse (sceneFromJson with the case's overrides) and
//    simulate (runSimulation with the summary recorder the study uses), timed apart;
// 2. runStudy() with N worker processes (default 1), timed as a whole;
// and prints both per case as JSON: overhead = study time per case x N - simulation per case.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/dynamic_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/study/study.hpp"

using namespace joinery;
using Clock = std::chrono::steady_clock;

namespace {
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
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
  for (int rep = 0; rep < repeat; ++rep) {
    double parse = 0, sim = 0;
    const auto all = Clock::now();
    for (const auto& c : s.cases) {
      const auto t0 = Clock::now();
      SceneOptions o;
      for (std::size_t k = 0; k < s.parameters.size(); ++k) o.overrides.push_back({s.parameters[k], c.values[k]});
      const Scene scene = sceneFromJson(s.scene, s.sceneFile, o);
      parse += since(t0);
      const auto t1 = Clock::now();
      ModelSystem system(scene.model);
      NullRecorder none;
      const auto r = runSimulation(system, scene.simulation, none);
      (void)r;
      sim += since(t1);
    }
    best_parse = std::min(best_parse, parse / n);
    best_sim = std::min(best_sim, sim / n);
    // runCase: what a worker does per case (parse + simulate + statistics), in this process
    const auto t2 = Clock::now();
    for (const auto& c : s.cases) (void)study::runCase(s, c);
    best_case = std::min(best_case, since(t2) / n);
    (void)all;
    // the whole study: worker processes, pipes, table
    const std::string table = (std::filesystem::temp_directory_path() / "joinery_study_overhead.csv").string();
    study::RunOptions ro;
    ro.table = table;
    ro.jobs = jobs;
    const auto t3 = Clock::now();
    (void)study::runStudy(s, ro);
    best_study = std::min(best_study, since(t3) / n);
    std::filesystem::remove(table);
  }
  const double perCaseCpu = best_study * jobs;  // wall per case x workers: CPU time per case
  nlohmann::json j = {{"study", argv[1]},
                      {"cases", s.cases.size()},
                      {"jobs", jobs},
                      {"simulation_s_per_case", best_sim},
                      {"parse_s_per_case", best_parse},
                      {"run_case_s_per_case", best_case},
                      {"study_wall_s_per_case", best_study},
                      {"cases_per_s", 1.0 / best_study},
                      {"overhead_vs_simulation", (perCaseCpu - best_sim) / best_sim},
                      {"overhead_beyond_parse_vs_simulation", (perCaseCpu - best_sim - best_parse) / best_sim}};
  std::cout << j.dump(2) << "\n";
  return 0;
}
