// The C++ side of bench/python_overhead.py: N calls of solveForwardDynamics (the call behind
// joinery solve and the Python Model.solve) on one scene at one state, one workspace reused.
// usage: solve_loop SCENE [N] [REPEATS]  -> JSON {"calls": N, "best_us_per_call": ..., ...}
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/scene.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: solve_loop SCENE [N] [REPEATS]\n");
    return 2;
  }
  const long n = argc > 2 ? std::stol(argv[2]) : 10000;
  const int repeats = argc > 3 ? std::stoi(argv[3]) : 5;
  const joinery::Scene scene = joinery::loadScene(argv[1]);
  const joinery::Model& model = scene.model;
  joinery::ModelWorkspace ws = model.makeWorkspace();
  const joinery::State s = model.initialState();
  // wall time, and the process CPU time (robust on a machine shared with other jobs)
  const auto cpuNow = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  double best = 1e300, sum = 0, bestCpu = 1e300, check = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpuNow();
    for (long i = 0; i < n; ++i) check += solveForwardDynamics(model, s, ws).qdd(0);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
    bestCpu = std::min(bestCpu, 1e6 * (cpuNow() - c0) / static_cast<double>(n));
    best = std::min(best, us);
    sum += us;
  }
  std::printf("{\"calls\": %ld, \"repeats\": %d, \"best_us_per_call\": %.4f, \"mean_us_per_call\": %.4f, "
              "\"best_cpu_us_per_call\": %.4f, \"checksum\": %.6g}\n",
              n, repeats, best, sum / repeats, bestCpu, check);
  return 0;
}
