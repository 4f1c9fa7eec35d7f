// Benchmark of DenseSolver::solve (SVD-based reference solver with full diagnosis) on
// planar-chain-like problems. A body has coordinates (x, y, theta); consecutive bodies are
// joined by revolute-like joints (2 rows each), and body 0 is pinned to the ground.
//
// Sizes: the nominal n (10, 30, 100, 300) is rounded down to whole bodies, n = 3 * (n / 3);
// the actual n is reported in the counter "n". Items per second = solves per second.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "joinery/core/dense_solver.hpp"

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

struct Chain {
  MatrixXd M, A;
  VectorXd Q, b;
};

/// Planar chain of `bodies` bodies. If `massless` is true, every third interior body
/// (index 1, 4, 7, ... that has a successor) is a massless link: M is singular, but both of
/// its joints pin two distinct points of it, so [M; A] keeps full column rank.
Chain makeChain(int bodies, bool massless, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = 3 * bodies;
  const int m = 2 * bodies;  // one ground pin + (bodies - 1) joints
  Chain c;
  c.M = MatrixXd::Zero(n, n);
  c.A = MatrixXd::Zero(m, n);
  VectorXd theta(bodies);
  for (int i = 0; i < bodies; ++i) {
    theta(i) = std::numbers::pi * u(g);
    const bool light = massless && i % 3 == 1 && i + 1 < bodies;
    const double mass = light ? 0.0 : 1.0 + 0.5 * u(g);
    const double inertia = light ? 0.0 : 0.1 * (1.0 + 0.5 * u(g));
    c.M(3 * i, 3 * i) = mass;
    c.M(3 * i + 1, 3 * i + 1) = mass;
    c.M(3 * i + 2, 3 * i + 2) = inertia;
  }
  // Joint point p = (x, y) + R(theta) r: d/dq = [1, 0, -(R r)_y; 0, 1, (R r)_x].
  auto addPoint = [&](int row, int body, double sign, double rx, double ry) {
    const double ct = std::cos(theta(body)), st = std::sin(theta(body));
    const double px = ct * rx - st * ry, py = st * rx + ct * ry;
    c.A(row, 3 * body) += sign;
    c.A(row, 3 * body + 2) += -sign * py;
    c.A(row + 1, 3 * body + 1) += sign;
    c.A(row + 1, 3 * body + 2) += sign * px;
  };
  addPoint(0, 0, 1.0, -0.5 + 0.1 * u(g), 0.1 * u(g));  // ground pin of body 0
  for (int i = 0; i + 1 < bodies; ++i) {
    // joint at the "tip" of body i (local (+0.5, .)) and the "base" of body i+1 (local (-0.5, .))
    addPoint(2 + 2 * i, i, 1.0, 0.5 + 0.1 * u(g), 0.1 * u(g));
    addPoint(2 + 2 * i, i + 1, -1.0, -0.5 + 0.1 * u(g), 0.1 * u(g));
  }
  VectorXd qddRandom(n);
  for (int i = 0; i < n; ++i) qddRandom(i) = u(g);
  c.b = c.A * qddRandom;  // consistent by construction
  c.Q = VectorXd(n);
  for (int i = 0; i < n; ++i) c.Q(i) = (i % 3 == 1) ? -9.81 * c.M(i, i) : 0.1 * u(g);
  return c;
}

void runSolve(benchmark::State& state, bool massless) {
  const int bodies = std::max(1, static_cast<int>(state.range(0)) / 3);
  const Chain c = makeChain(bodies, massless, 42);
  const joinery::DenseSolver solver;
  {
    const auto check = solver.solve(c.M, c.Q, c.A, c.b);
    if (!check.diagnosis.wellPosed) {
      state.SkipWithError("benchmark problem is not well posed");
      return;
    }
  }
  for (auto _ : state) {
    auto sol = solver.solve(c.M, c.Q, c.A, c.b);
    benchmark::DoNotOptimize(sol.qdd.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["n"] = static_cast<double>(c.M.rows());
  state.counters["m"] = static_cast<double>(c.A.rows());
}

void BM_DenseSolve_Chain(benchmark::State& state) { runSolve(state, false); }
void BM_DenseSolve_ChainSingularM(benchmark::State& state) { runSolve(state, true); }

}  // namespace

BENCHMARK(BM_DenseSolve_Chain)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DenseSolve_ChainSingularM)
    ->Arg(10)
    ->Arg(30)
    ->Arg(100)
    ->Arg(300)
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
