// What output costs (docs/outputs.md, docs/performance.md "Output channels and table formats").
//
//   outputs_cost channels [--N 256] [--T 1] [--tol 1e-6] [--interval 0.01] [--repeat 5]
//     The benchmark chain (bench/chain_model.hpp) simulated by runSimulation with dopri5, the
//     CSV written to /dev/null: without channels, and with ten channels (3 points, 3 values,
//     2 energies, 2 joint reactions), alternately, `repeat` times each. One JSON line: the
//     smallest wall and thread-CPU time of each and their ratios, the medians of the CPU times,
//     and the structured evaluations of a run (and how many reused the factorization of the
//     velocity projection at their state, ModelSystem::reusedFactorizations). `--only point|value|energy|
//     reaction` keeps the channels of that kind alone, `--only accel` a value channel of an
//     acceleration.
//   outputs_cost formats [--N 1024] [--rows 200] [--dir /tmp] [--repeat 3]
//     Writes `rows` samples of the N-link chain (every coordinate and velocity perturbed, so that
//     the numbers have all their digits) as CSV, as npy and (when built with HDF5) as HDF5.
//     One JSON line: the columns, the smallest write time and the size of each file.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "chain_model.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/outputs.hpp"
#include "joinery/integrators/run_outputs.hpp"
#include "joinery/integrators/simulation.hpp"
#ifdef JOINERY_HAVE_HDF5
#include "joinery/hdf5_table.hpp"
#endif
#include "timing.hpp"

using namespace joinery;

namespace {

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 2; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  return fallback;
}

std::vector<OutputSpec> tenChannels(int N) {
  std::vector<OutputSpec> specs;
  const auto link = [](int i) { return "link" + std::to_string(i); };
  for (int i : {N - 1, N / 2, 0}) {
    OutputSpec s;
    s.name = "p" + std::to_string(i);
    s.kind = OutputKind::Point;
    s.target = link(i);
    s.point = Vector3d(0.5, 0, 0);
    specs.push_back(s);
  }
  for (const std::string& e : {"sqrt(" + link(N - 1) + ".x^2 + " + link(N - 1) + ".z^2)",
                               link(0) + ".z_dot * t", "atan2(" + link(1) + ".z, " + link(1) + ".x)"}) {
    OutputSpec s;
    s.name = "v" + std::to_string(specs.size());
    s.kind = OutputKind::Value;
    s.expression = e;
    specs.push_back(s);
  }
  for (const char* e : {"kinetic", "total"}) {
    OutputSpec s;
    s.name = e;
    s.kind = OutputKind::Energy;
    s.target = e;
    specs.push_back(s);
  }
  for (int i : {0, N - 1}) {
    OutputSpec s;
    s.name = "r" + std::to_string(i);
    s.kind = OutputKind::Reaction;
    s.target = "ball" + std::to_string(i);
    specs.push_back(s);
  }
  return specs;
}

struct Timing {
  double wall = 1e300, cpu = 1e300;
  std::vector<double> walls, cpus;  // every repeat (medians)
  long long samples = 0, steps = 0;
  long long evaluations = 0, reused = 0;  // structured evaluations, of them on a reused factor
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

void runOnce(const Scene& scene, const SimulationSettings& settings, const std::vector<OutputSpec>& specs, Timing& t) {
  ModelSystem system(scene.model);
  const OutputChannels channels(scene.model, specs);
  CsvRecorder csv("/dev/null", TableLayout{false, channels.columns()});
  ChannelRecorder rec(system, channels, false, csv);
  const double c0 = benchtiming::threadCpuSeconds(), w0 = benchtiming::nowSeconds();
  const SimulationResult r = runSimulation(system, settings, rec);
  const double w = benchtiming::nowSeconds() - w0, c = benchtiming::threadCpuSeconds() - c0;
  if (!r.completed()) {
    std::fprintf(stderr, "run failed: %s\n", r.message.c_str());
    std::exit(5);
  }
  t.wall = std::min(t.wall, w);
  t.cpu = std::min(t.cpu, c);
  t.walls.push_back(w);
  t.cpus.push_back(c);
  t.samples = r.stats.samples;
  t.steps = r.stats.integrator.steps;
  t.evaluations = system.structuredEvaluations();
  t.reused = system.reusedFactorizations();
}

int channelsMode(int argc, char** argv) {
  const int N = std::stoi(arg(argc, argv, "--N", "256"));
  const int repeat = std::stoi(arg(argc, argv, "--repeat", "5"));
  SimulationSettings settings;
  settings.tEnd = std::stod(arg(argc, argv, "--T", "1"));
  settings.rtol = settings.atol = std::stod(arg(argc, argv, "--tol", "1e-6"));
  settings.outputInterval = std::stod(arg(argc, argv, "--interval", "0.01"));
  const Scene scene = bench::chainModel(N);
  std::vector<OutputSpec> ten = tenChannels(N);
  const std::string only = arg(argc, argv, "--only", "");  // point|value|energy|reaction: that kind alone
  if (only == "accel") {  // a channel that needs the accelerations alone (one solve per sample)
    OutputSpec a;
    a.name = "a";
    a.expression = "link0.x_ddot";
    ten = {a};
  } else if (!only.empty())
    std::erase_if(ten, [&](const OutputSpec& s) {
      static const char* kinds[] = {"value", "point", "reaction", "effort", "energy"};
      return only != kinds[static_cast<int>(s.kind)];
    });
  Timing base, with;
  runOnce(scene, settings, {}, base);  // warm-up: the first run pays the page faults
  base = Timing{};
  for (int k = 0; k < repeat; ++k) {
    runOnce(scene, settings, {}, base);
    runOnce(scene, settings, ten, with);
  }
  std::printf("{\"mode\": \"channels\", \"N\": %d, \"T\": %g, \"tol\": %g, \"interval\": %g, \"samples\": %lld, "
              "\"steps\": %lld, \"channels\": %zu, \"columns\": %zu, \"base_wall_s\": %.4f, \"channels_wall_s\": %.4f, "
              "\"wall_ratio\": %.4f, \"base_cpu_s\": %.4f, \"channels_cpu_s\": %.4f, \"cpu_ratio\": %.4f, "
              "\"median_base_cpu_s\": %.4f, \"median_channels_cpu_s\": %.4f, \"median_cpu_ratio\": %.4f, "
              "\"base_evaluations\": %lld, \"base_reused\": %lld, \"channels_evaluations\": %lld, "
              "\"channels_reused\": %lld}\n",
              N, settings.tEnd, settings.rtol, settings.outputInterval, with.samples, with.steps, ten.size(),
              OutputChannels(scene.model, ten).columns().size(), base.wall, with.wall, with.wall / base.wall,
              base.cpu, with.cpu, with.cpu / base.cpu, median(base.cpus), median(with.cpus),
              median(with.cpus) / median(base.cpus), base.evaluations, base.reused, with.evaluations, with.reused);
  return 0;
}

/// The time to write the states through the recorder `make()` returns (opening and closing
/// the file included).
template <class Make>
double writeTable(Make make, const std::vector<std::string>& names, const std::vector<State>& states) {
  const double w0 = benchtiming::nowSeconds();
  {
    auto rec = make();
    rec->begin(names);
    for (const State& s : states) rec->record(Sample{s, 1.0, ConstraintResiduals{}});
    rec->end(SimulationResult{});
  }
  return benchtiming::nowSeconds() - w0;
}

int formatsMode(int argc, char** argv) {
  const int N = std::stoi(arg(argc, argv, "--N", "1024"));
  const int rows = std::stoi(arg(argc, argv, "--rows", "200"));
  const int repeat = std::stoi(arg(argc, argv, "--repeat", "3"));
  const std::string dir = arg(argc, argv, "--dir", "/tmp");
  const Scene scene = bench::chainModel(N);
  const State s0 = scene.model.initialState();
  std::mt19937_64 rng(7);
  std::normal_distribution<double> d(0.0, 1e-3);
  std::vector<State> states(static_cast<std::size_t>(rows), s0);
  for (int k = 0; k < rows; ++k) {
    State& s = states[static_cast<std::size_t>(k)];
    s.t = 0.01 * k;
    for (Eigen::Index i = 0; i < s.q.size(); ++i) {
      s.q(i) += d(rng);
      s.v(i) = d(rng) * 1e3;
    }
  }
  const std::string csv = dir + "/outputs_cost.csv", npy = dir + "/outputs_cost.npy", h5 = dir + "/outputs_cost.h5";
  const auto& names = scene.model.coordinateNames();
  double tc = 1e300, tn = 1e300, th = 1e300;
  for (int k = 0; k < repeat; ++k) {
    tc = std::min(tc, writeTable([&] { return std::make_unique<CsvRecorder>(csv, TableLayout{}); }, names, states));
    tn = std::min(tn, writeTable([&] { return std::make_unique<NpyRecorder>(npy, TableLayout{}); }, names, states));
#ifdef JOINERY_HAVE_HDF5
    th = std::min(th, writeTable([&] { return std::make_unique<Hdf5Recorder>(h5, TableLayout{}, Hdf5TableInfo{"chain", "", "bench"}); },
                                 names, states));
#endif
  }
  const auto sc = std::filesystem::file_size(csv), sn = std::filesystem::file_size(npy);
  const std::uintmax_t sh = std::filesystem::exists(h5) ? std::filesystem::file_size(h5) : 0;
  std::printf("{\"mode\": \"formats\", \"N\": %d, \"rows\": %d, \"columns\": %zu, \"csv_write_s\": %.4f, "
              "\"npy_write_s\": %.4f, \"csv_bytes\": %ju, \"npy_bytes\": %ju, \"time_ratio\": %.3f, \"size_ratio\": %.3f, "
              "\"h5_write_s\": %.4f, \"h5_bytes\": %ju, \"h5_time_ratio\": %.3f, \"h5_size_ratio\": %.3f}\n",
              N, rows, tableColumns(names, TableLayout{}).size(), tc, tn,
              static_cast<std::uintmax_t>(sc), static_cast<std::uintmax_t>(sn), tn / tc,
              static_cast<double>(sn) / static_cast<double>(sc), sh ? th : 0.0, sh, sh ? th / tc : 0.0,
              static_cast<double>(sh) / static_cast<double>(sc));
  std::filesystem::remove(csv);
  std::filesystem::remove(npy);
  std::filesystem::remove(h5);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "channels") return channelsMode(argc, argv);
  if (mode == "formats") return formatsMode(argc, argv);
  std::fprintf(stderr, "usage: outputs_cost channels|formats [--N N] ... (see the source's header)\n");
  return 2;
}
