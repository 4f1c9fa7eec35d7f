// Benchmark of Expression::evaluate (joinery's compiled form: a flat postfix program run over a
// fixed-size stack) against the same formulas hand-coded in C++.
//
// Three representative expressions of scenes:
//  - spring:     a damped spring force in one coordinate, "-k*(x - L0) - c*x_dot";
//  - pendulum:   a trig-heavy double-pendulum generalized force in (th1, th2, th1_dot, th2_dot);
//  - derivative: d(pendulum)/d(th1), produced by Expression::derivative (GiNaC), as a joint's
//                A and b are.
// Parameters (k, L0, c, m1, m2, L1, L2, g) are folded into the compiled program when parsed;
// the hand-coded versions use the same values as compile-time constants, so both sides may
// fold them. The variables are not foldable: each iteration reads the next of kStates random
// states (the index wraps), and every result goes through benchmark::DoNotOptimize.
// Items per second = evaluations per second; the ratio joinery / hand-coded is in
// docs/performance.md ("Expression evaluation").
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "joinery/core/expression.hpp"

namespace {

using joinery::Expression;
using joinery::SymbolTable;

constexpr std::size_t kStates = 1024;  // power of two: index wraps with a mask
constexpr std::size_t kVars = 4;

// parameter values (same in both forms)
constexpr double k = 40.0, L0 = 0.5, c = 0.3;
constexpr double m1 = 1.5, m2 = 0.8, L1 = 1.2, L2 = 0.7, g = 9.81;

const char* const kSpring = "-k*(x - L0) - c*x_dot";
const char* const kPendulum =
    "-(m1 + m2)*g*L1*sin(th1) - m2*L1*L2*sin(th1 - th2)*th2_dot^2"
    " + m2*g*L1*cos(th1 - th2)*sin(th2) - 0.1*th1_dot";

double springByHand(const double* v) { return -k * (v[0] - L0) - c * v[1]; }

double pendulumByHand(const double* v) {
  const double th1 = v[0], th2 = v[1], w1 = v[2], w2 = v[3];
  return -(m1 + m2) * g * L1 * std::sin(th1) - m2 * L1 * L2 * std::sin(th1 - th2) * w2 * w2 +
         m2 * g * L1 * std::cos(th1 - th2) * std::sin(th2) - 0.1 * w1;
}

// d/dth1 of the pendulum term, by hand
double pendulumDerivativeByHand(const double* v) {
  const double th1 = v[0], th2 = v[1], w2 = v[3];
  return -(m1 + m2) * g * L1 * std::cos(th1) - m2 * L1 * L2 * std::cos(th1 - th2) * w2 * w2 -
         m2 * g * L1 * std::sin(th1 - th2) * std::sin(th2);
}

SymbolTable table(const std::vector<const char*>& variables) {
  SymbolTable t;
  for (const auto& [name, value] : std::vector<std::pair<const char*, double>>{
           {"k", k}, {"L0", L0}, {"c", c}, {"m1", m1}, {"m2", m2}, {"L1", L1}, {"L2", L2}, {"g", g}})
    t.setConstant(name, value);
  for (const char* v : variables) t.addVariable(v);
  return t;
}

const std::vector<double>& states() {
  static const std::vector<double> s = [] {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-3.0, 3.0);
    std::vector<double> v(kStates * kVars);
    for (double& x : v) x = u(rng);
    return v;
  }();
  return s;
}

Expression springExpression() { return Expression::parse(kSpring, table({"x", "x_dot"})); }
Expression pendulumExpression() {
  return Expression::parse(kPendulum, table({"th1", "th2", "th1_dot", "th2_dot"}));
}

template <class F>
void runLoop(benchmark::State& st, F&& f) {
  const double* data = states().data();
  std::size_t i = 0;
  for (auto _ : st) {
    double r = f(data + kVars * (i & (kStates - 1)));
    benchmark::DoNotOptimize(r);
    ++i;
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()));
}

void BM_SpringJoinery(benchmark::State& st) {
  const Expression e = springExpression();
  runLoop(st, [&](const double* v) { return e.evaluate(v); });
}
void BM_SpringHandCoded(benchmark::State& st) { runLoop(st, springByHand); }

void BM_PendulumJoinery(benchmark::State& st) {
  const Expression e = pendulumExpression();
  runLoop(st, [&](const double* v) { return e.evaluate(v); });
}
void BM_PendulumHandCoded(benchmark::State& st) { runLoop(st, pendulumByHand); }

void BM_DerivativeJoinery(benchmark::State& st) {
  const Expression e = pendulumExpression().derivative(0);
  runLoop(st, [&](const double* v) { return e.evaluate(v); });
}
void BM_DerivativeHandCoded(benchmark::State& st) { runLoop(st, pendulumDerivativeByHand); }

// Checks once that each pair computes the same values (a benchmark of two different formulas
// would be meaningless); aborts the run with an error otherwise.
void BM_Check(benchmark::State& st) {
  const Expression s = springExpression(), p = pendulumExpression(), d = p.derivative(0);
  double worst = 0;
  for (std::size_t i = 0; i < kStates; ++i) {
    const double* v = states().data() + kVars * i;
    worst = std::max({worst, std::abs(s.evaluate(v) - springByHand(v)) / (1 + std::abs(springByHand(v))),
                      std::abs(p.evaluate(v) - pendulumByHand(v)) / (1 + std::abs(pendulumByHand(v))),
                      std::abs(d.evaluate(v) - pendulumDerivativeByHand(v)) /
                          (1 + std::abs(pendulumDerivativeByHand(v)))});
  }
  // round-off only: the compiled program may order the operations differently
  if (worst > 1e-12) st.SkipWithError("compiled and hand-coded formulas disagree");
  for (auto _ : st) benchmark::DoNotOptimize(worst);
  st.counters["max_rel_diff"] = worst;
}

}  // namespace

BENCHMARK(BM_Check)->Iterations(1);
BENCHMARK(BM_SpringJoinery);
BENCHMARK(BM_SpringHandCoded);
BENCHMARK(BM_PendulumJoinery);
BENCHMARK(BM_PendulumHandCoded);
BENCHMARK(BM_DerivativeJoinery);
BENCHMARK(BM_DerivativeHandCoded);

BENCHMARK_MAIN();
