// Stiff models, implicit (radau5) against explicit (dopri5) at equal accuracy
// (docs/performance.md "Stiff models"). For one model, a reference run (radau5 at rtol = atol =
// 1e-11 unless --ref-tol), then each integrator at each tolerance of --tols; the error is the
// largest |q - q_ref| over every coordinate and every sample (output interval 0.01 s).
//   stiff_sim --model chain --k 1e6 [--N 4] [--T 1] [--tols 1e-4,1e-6,1e-8]
//   stiff_sim --model beam --ne 20 [--T 1]
//   stiff_sim --model a05 --scene examples/validation/a05_flyball_governor.json [--T 1]
// --integrators radau5,radau5-fd,dopri5 (default all three; radau5-fd: the finite-difference
// Jacobian of q''), --reuse X (radau5's Jacobian reuse threshold, 0: default), --sparse-from X
// (radau5's sparse-LU threshold in unknowns, 0: always dense; default: its own);
// --lin-timing 1: only the CPU
// of one force linearization, dense and sparse form, at the initial state.
// One JSON line per run on stdout: model, k/ne, integrator, tol, error, evaluations (calls of
// calcAccelerations, jacobian_evaluations of them in Jacobians), force_evaluations (Q alone), steps,
// rejected, wall_s, cpu_s (median of --repeat runs, default 3), outcome; a05 also s_err (largest |s - published reference| at 0.1 s steps).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/simulation.hpp"
#include <spdlog/spdlog.h>

namespace {

using nlohmann::json;
using namespace joinery;

std::string arg(const std::map<std::string, std::string>& a, const std::string& k, const std::string& def) {
  const auto it = a.find(k);
  return it == a.end() ? def : it->second;
}

/// N rods (1 kg, 1 m) in a plane, the first pinned to the ground, each next one held to the
/// previous one's tip by a zero-length spring k (undamped: the line of a zero-length damper is
/// undefined): a pendulum chain with stiff compliant pins, released horizontally.
json chainScene(int N, double k) {
  json bodies = json::array(), joints = json::array(), forces = json::array();
  for (int i = 0; i < N; ++i)
    bodies.push_back({{"name", "rod" + std::to_string(i)}, {"type", "rigid2d"}, {"mass", 1}, {"inertia", 1.0 / 12},
                      {"position", {i + 0.5, 0}}});
  joints.push_back({{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                    {"body2", "rod0"}, {"point2", {-0.5, 0}}});
  for (int i = 1; i < N; ++i)
    forces.push_back({{"name", "bush" + std::to_string(i)}, {"type", "spring"}, {"body1", "rod" + std::to_string(i - 1)},
                      {"point1", {0.5, 0}}, {"body2", "rod" + std::to_string(i)}, {"point2", {-0.5, 0}},
                      {"stiffness", k}, {"free_length", 0}});
  return {{"joinery", 1}, {"gravity", {0, -9.81, 0}}, {"bodies", bodies}, {"joints", joints}, {"forces", forces}};
}

/// A steel cantilever (2 m, EI = 2.1e5 N m^2, rho A = 7.85 kg/m) of `ne` Euler-Bernoulli
/// elements (a `linear` body, consistent mass, stiffness-proportional damping 1e-6 K), a
/// massless tip point held to the beam's tip deflection by couplings, and a rigid 1 m, 10 kg
/// pendulum hanging from it, released at 60 degrees.
json beamScene(int ne) {
  const int n = 2 * ne;
  const double EI = 2.1e5, rhoA = 7.85, Lt = 2.0, l = Lt / ne;
  std::vector<std::vector<double>> M(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), 0.0)), K = M, D = M;
  const double ke[4][4] = {{12, 6 * l, -12, 6 * l}, {6 * l, 4 * l * l, -6 * l, 2 * l * l},
                           {-12, -6 * l, 12, -6 * l}, {6 * l, 2 * l * l, -6 * l, 4 * l * l}};
  const double me[4][4] = {{156, 22 * l, 54, -13 * l}, {22 * l, 4 * l * l, 13 * l, -3 * l * l},
                           {54, 13 * l, 156, -22 * l}, {-13 * l, -3 * l * l, -22 * l, 4 * l * l}};
  for (int e = 0; e < ne; ++e)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const int gi = 2 * e + i - 2, gj = 2 * e + j - 2;
        if (gi < 0 || gj < 0) continue;
        K[static_cast<std::size_t>(gi)][static_cast<std::size_t>(gj)] += EI / (l * l * l) * ke[i][j];
        M[static_cast<std::size_t>(gi)][static_cast<std::size_t>(gj)] += rhoA * l / 420 * me[i][j];
      }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) D[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = 1e-6 * K[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  json coords = json::array();
  for (int i = 1; i <= ne; ++i) coords.push_back("w" + std::to_string(i)), coords.push_back("th" + std::to_string(i));
  const double a = std::acos(-1.0) / 3;
  json bodies = json::array(
      {{{"name", "beam"}, {"type", "linear"}, {"coordinates", coords}, {"mass_matrix", M}, {"stiffness_matrix", K},
        {"damping_matrix", D}},
       {{"name", "tip"}, {"type", "particle"}, {"dim", 2}, {"mass", 0}, {"position", {Lt, 0}}},
       {{"name", "bob"}, {"type", "rigid2d"}, {"mass", 10}, {"inertia", 10.0 / 12},
        {"position", {Lt + 0.5 * std::sin(a), -0.5 * std::cos(a)}}, {"angle", a - std::acos(-1.0) / 2}}});
  const std::string wt = "beam.w" + std::to_string(ne);
  json joints = json::array(
      {{{"name", "tip_x"}, {"type", "coupling"}, {"terms", {{{"coordinate", "tip.x"}}}}, {"value", Lt}},
       {{"name", "tip_y"}, {"type", "coupling"}, {"terms", {{{"coordinate", "tip.y"}}, {{"coordinate", wt}, {"coefficient", -1}}}}},
       {{"name", "hang"}, {"type", "revolute2d"}, {"body1", "tip"}, {"point1", {0, 0}}, {"body2", "bob"}, {"point2", {-0.5, 0}}}});
  return {{"joinery", 1}, {"gravity", {0, -9.81, 0}}, {"bodies", bodies}, {"joints", joints}};
}

struct Run {
  SimulationResult r;
  MemoryRecorder rec;
  double cpu = 0;  // process CPU seconds of runSimulation
};

/// `integ`: dopri5, radau5 (the force-linearization Newton matrix) or radau5-fd (the
/// finite-difference Jacobian of q'', the Newton matrix of the first radau5).
int gSparseFrom = -1;  // --sparse-from: radau5's sparse LU threshold (-1: its default, 0: dense)

Run run(const Model& model, const std::string& integ, double tol, double T, double reuse = 0) {
  ModelSystem sys(model);
  SimulationSettings set;
  RunOptions opt;
  opt.radauSparseFrom = gSparseFrom;
  opt.forceLinearization = integ != "radau5-fd";
  opt.jacobianReuse = reuse;
  set.tEnd = T;
  set.integrator = *parseIntegratorKind(integ == "radau5-fd" ? "radau5" : integ);
  set.rtol = tol;
  set.atol = tol;
  set.step = 1e-5;
  set.outputInterval = 0.01;
  Run out;
  const std::clock_t c0 = std::clock();
  out.r = runSimulation(sys, set, out.rec, {}, opt);
  out.cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  return out;
}

double sErrorA05(const Model& model, const MemoryRecorder& rec) {
  static const double ref[] = {0.500000, 0.523836, 0.585079, 0.658632, 0.717713, 0.743249, 0.727631, 0.675467,
                               0.603181, 0.536282, 0.501420, 0.513713, 0.567730, 0.640878, 0.705698, 0.740684,
                               0.735264, 0.691027, 0.621601, 0.550746, 0.505909, 0.506231, 0.551569, 0.622584,
                               0.691814, 0.735602, 0.740475, 0.705002, 0.639911, 0.566833, 0.513246};
  const auto& names = model.coordinateNames();
  const auto it = std::find(names.begin(), names.end(), "slider.z");
  if (it == names.end()) return NAN;
  const auto c = static_cast<Eigen::Index>(it - names.begin());
  double worst = 0;
  for (std::size_t i = 0; i < rec.size(); i += 10) {
    const std::size_t k = i / 10;
    if (k >= sizeof(ref) / sizeof(ref[0])) break;
    worst = std::max(worst, std::abs(rec.q[i](c) - ref[k]));
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a;
  for (int i = 1; i + 1 < argc; i += 2) a[argv[i]] = argv[i + 1];
  if (arg(a, "--debug", "0") == "1") spdlog::set_level(spdlog::level::debug);  // radau5 counters
  const std::string model = arg(a, "--model", "chain");
  const double T = std::stod(arg(a, "--T", "1"));
  const double k = std::stod(arg(a, "--k", "1e6"));
  const int N = std::stoi(arg(a, "--N", "4")), ne = std::stoi(arg(a, "--ne", "20"));
  std::vector<double> tols;
  std::stringstream ts(arg(a, "--tols", "1e-4,1e-6,1e-8"));
  for (std::string t; std::getline(ts, t, ',');) tols.push_back(std::stod(t));
  std::vector<std::string> integrators;
  std::stringstream is(arg(a, "--integrators", "radau5,radau5-fd,dopri5"));
  for (std::string t; std::getline(is, t, ',');) integrators.push_back(t);
  const double reuse = std::stod(arg(a, "--reuse", "0"));
  gSparseFrom = std::stoi(arg(a, "--sparse-from", "-1"));
  if (const std::string w = arg(a, "--write-scene", ""); !w.empty()) {  // the scene as a file
    json doc = model == "beam" ? beamScene(ne) : chainScene(N, k);
    doc["simulation"] = {{"t_end", T}, {"integrator", "implicit"}, {"rtol", 1e-6}, {"atol", 1e-6}, {"output_interval", 0.01}};
    std::FILE* f = std::fopen(w.c_str(), "w");
    if (!f) return 2;
    std::fprintf(f, "%s\n", doc.dump(1).c_str());
    std::fclose(f);
    return 0;
  }
  Scene scene = model == "a05"    ? loadScene(arg(a, "--scene", "examples/validation/a05_flyball_governor.json"))
                : model == "beam" ? sceneFromJson(beamScene(ne), "")
                                  : sceneFromJson(chainScene(N, k), "");
  if (arg(a, "--lin-timing", "0") == "1") {
    // CPU of one force linearization (M, A, dQ/dq, dQ/dq') at the initial state, in the dense
    // n x n form and in the sparse form assembled element by element: median of repeats
    ModelSystem sys(scene.model);
    const State s0 = scene.model.initialState();
    for (const bool sp : {false, true}) {
      ForceLinearization lin;
      lin.wantSparse = sp;
      if (!sys.calcForceLinearization(s0, lin)) return 1;  // warm-up: sizes every buffer
      std::vector<double> per;
      for (int rep = 0; rep < 5; ++rep) {
        int calls = 0;
        const std::clock_t c0 = std::clock();
        std::clock_t c1 = c0;
        do {
          sys.calcForceLinearization(s0, lin);
          ++calls;
          c1 = std::clock();
        } while (static_cast<double>(c1 - c0) / CLOCKS_PER_SEC < 0.05);
        per.push_back(static_cast<double>(c1 - c0) / CLOCKS_PER_SEC / calls);
      }
      std::sort(per.begin(), per.end());
      std::printf("%s\n", json({{"model", model}, {"N", N}, {"n", scene.model.numCoordinates()},
                                 {"m", scene.model.numConstraintRows()}, {"form", sp ? "sparse" : "dense"},
                                 {"linearization_cpu_s", per[per.size() / 2]}}).dump().c_str());
    }
    return 0;
  }
  // the reference: radau5 (default) or --ref-integrator dopri5 / radau5-fd at --ref-tol
  const Run ref = run(scene.model, arg(a, "--ref-integrator", "radau5"), std::stod(arg(a, "--ref-tol", "1e-11")), T);
  if (!ref.r.completed()) {
    std::fprintf(stderr, "reference run failed: %s\n", ref.r.message.c_str());
    return 1;
  }
  std::fprintf(stderr, "reference: %lld evaluations, %.3f s%s\n", ref.r.stats.integrator.evaluations, ref.r.stats.wallSeconds,
               model == "a05" ? (", s error against the published table " + std::to_string(sErrorA05(scene.model, ref.rec))).c_str() : "");
  for (const std::string& integ : integrators)
    for (double tol : tols) {
      if (integ == "dopri5" && arg(a, "--skip-dopri5", "0") == "1") continue;
      // --repeat R (default 3): the CPU time is the median of R identical runs (the
      // evaluation counts do not change between them)
      const int repeat = std::stoi(arg(a, "--repeat", "3"));
      std::vector<double> cpus;
      Run x = run(scene.model, integ, tol, T, reuse);
      cpus.push_back(x.cpu);
      for (int r = 1; r < repeat; ++r) cpus.push_back(run(scene.model, integ, tol, T, reuse).cpu);
      std::sort(cpus.begin(), cpus.end());
      const double cpuMedian = cpus[cpus.size() / 2];
      double err = 0;
      for (std::size_t i = 0; i < std::min(x.rec.size(), ref.rec.size()); ++i)
        err = std::max(err, (x.rec.q[i] - ref.rec.q[i]).cwiseAbs().maxCoeff());
      json j = {{"model", model}, {"integrator", integ}, {"tol", tol}, {"error", err},
                {"evaluations", x.r.stats.integrator.evaluations},
                {"jacobian_evaluations", x.r.stats.integrator.jacobianEvaluations},
                {"force_evaluations", x.r.stats.integrator.forceEvaluations}, {"steps", x.r.stats.integrator.steps},
                {"rejected", x.r.stats.integrator.rejected}, {"wall_s", x.r.stats.wallSeconds}, {"cpu_s", cpuMedian},
                {"outcome", toString(x.r.outcome)}, {"n", scene.model.numCoordinates()}};
      if (model == "chain") j["k"] = k, j["N"] = N;
      if (gSparseFrom >= 0) j["sparse_from"] = gSparseFrom;
      if (model == "beam") j["ne"] = ne;
      j["T"] = T;
      if (model == "a05") j["s_err"] = sErrorA05(scene.model, x.rec), j["ref_s_err"] = sErrorA05(scene.model, ref.rec);
      std::printf("%s\n", j.dump().c_str());
      std::fflush(stdout);
    }
  return 0;
}
