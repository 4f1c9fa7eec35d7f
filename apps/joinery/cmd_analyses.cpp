// joinery equilibrium / modes (docs/analyses.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "report.hpp"
#include "run_files.hpp"
#include "steady_cli.hpp"
#include "joinery/analyses/analyses.hpp"
#include "joinery/core/check.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/scene.hpp"

namespace joinery::cli {

namespace {

const char* kEquilibriumHelp =
    "usage: joinery equilibrium SCENE [--json] [-o OUT.json]\n\n"
    "Finds a static equilibrium from the scene's initial positions (velocities ignored, time\n"
    "t = 0): Q(q) + A^T lambda = 0 on the constraints, by Newton with a line search and\n"
    "Levenberg-Marquardt steps; from far starts, where Newton stalls or reaches an unstable\n"
    "equilibrium, dynamic relaxation to a stable one (\"fallback\": true). A start that is\n"
    "already an equilibrium is reported as it is. Reports the state, the residual force and whether the\n"
    "equilibrium is stable (reduced tangent stiffness positive definite). A mechanism with a\n"
    "net force along a free direction has none: the direction is named.\n\n"
    "-o OUT.json writes the scene (flattened, as `joinery graph` resolves it) with the\n"
    "equilibrium as its initial state, every velocity zero: `joinery simulate OUT.json` starts\n"
    "at rest in equilibrium. Written only when an equilibrium was found.\n\n"
    "exit status: 0 equilibrium found, 2 invalid input, 5 no equilibrium found\n\noptions:\n";
const char* kModesHelp =
    "usage: joinery modes SCENE [--at initial|equilibrium|steady] [-n K] [--sweep NAME=a:b:n] [--json]\n"
    "                    [-o OUT.json|TABLE.csv]\n\n"
    "Linearises the model on its constraints about the static equilibrium (default) or the\n"
    "initial state and prints the natural frequencies (Hz, ascending; rigid-body modes 0),\n"
    "modal damping ratios and mode shapes by coordinate. Massless directions are condensed\n"
    "out and counted.\n\n"
    "exit status: 0 done, 2 invalid input, 3 massless directions without stiffness (ill posed),\n"
    "             5 no equilibrium to linearise about (try --at initial)\n\n"
    "--at steady [--sweep NAME=a:b:n]: the initial state taken as a steady motion (a wheel rolling\n"
    "straight on, a rotor spinning, a bicycle at constant speed), rolling constraints included: the\n"
    "eigenvalues [1/s] of the linearisation on the constraints, the symmetry directions eliminated\n"
    "(exact zeros); --sweep repeats it over a scene parameter and prints the stability boundaries\n"
    "(-o TABLE.csv: one row per value). Exit 5: the state is not a steady motion.\n\noptions:\n";

std::string requireScene(const Args& args, const char* cmd) {
  if (args.positional.size() != 1)
    throw UsageError{std::string(cmd) + " takes exactly one SCENE file (got " +
                     std::to_string(args.positional.size()) + ")"};
  return args.positional[0];
}

nlohmann::json byCoordinate(const Model& model, const VectorXd& x) {
  nlohmann::json j = nlohmann::json::object();
  const auto& names = model.coordinateNames();
  for (std::size_t i = 0; i < names.size(); ++i) j[names[i]] = x(static_cast<Eigen::Index>(i));
  return j;
}

nlohmann::json equilibriumJson(const Model& model, const EquilibriumResult& r) {
  nlohmann::json j;
  j["converged"] = r.converged;
  j["q"] = byCoordinate(model, r.state.q);
  j["stable"] = r.stable;
  j["residual"] = r.residual;
  j["constraint_residual"] = r.constraintResidual;
  j["min_reduced_stiffness"] = r.minStiffness;
  j["free_directions"] = r.freeDirections;
  j["iterations"] = r.iterations;
  j["fallback"] = r.usedFallback;
  j["message"] = r.message;
  j["joints"] = jointResultsJson(staticJointResults(model, r.state), model.coordinateNames());
  if (!r.converged) {
    nlohmann::json d = nlohmann::json::object();
    for (const auto& [name, value] : r.direction) d[name] = value;
    j["direction"] = d;
  }
  return j;
}

/// The resolved scene with `s` (velocities zero) as every body's initial state: the fields
/// each body type reads its initial state from (docs/bodies.md).
nlohmann::json sceneAtRest(const Scene& scene, const State& s) {
  nlohmann::json doc = scene.resolved();
  doc.erase("overrides");  // already applied to the resolved numbers
  const Model& model = scene.model;
  for (auto& b : doc["bodies"]) {
    const Body* body = model.findBody(b.value("name", ""));
    if (!body || body->isGround()) continue;
    const BodySlot& sl = model.slotOf(*body);
    // each body type writes its own initial-state fields (Body::writeInitialState), the
    // coordinates normalized as the body keeps them (unit Euler parameters)
    VectorXd q = s.q.segment(sl.offset, sl.size);
    body->normalizeCoordinates(q);
    body->writeInitialState(q, VectorXd::Zero(sl.size), b);
  }
  return doc;
}

void writeJson(const std::string& path, const nlohmann::json& j) {
  writeFileAtomically(path, j.dump(2) + "\n", "output file");  // run_files.hpp
}

/// Equilibrium and modes work on dense n x n matrices (Jacobians, the eigenproblem): refused
/// before any allocation past the limit `check` applies to its dense diagnosis
/// (CheckOptions::maxDenseBytes, with its estimate of about eight (n + m) x n matrices).
void refuseDenseAnalysisPastLimit(const Model& model, const char* command) {
  const double n = model.numCoordinates(), m = model.numConstraintRows();
  const double bytes = 8.0 * 8.0 * (n + m) * n, limit = CheckOptions{}.maxDenseBytes;
  if (bytes > limit)
    throw ModelError(std::string(command) + ": the model has " + std::to_string(model.numCoordinates()) +
                     " coordinates and " + std::to_string(model.numConstraintRows()) +
                     " constraint rows; its dense matrices would need about " +
                     std::to_string(static_cast<long long>(bytes / 1e6)) + " MB, over the limit of " +
                     std::to_string(static_cast<long long>(limit / 1e6)) + " MB (nothing was computed)");
}

/// The scene with the command's `--set` overrides, loaded and checked as every scene command
/// loads it (settings validated: bad input is exit 2 before anything runs).
Scene loadSceneWithOverrides(const std::string& file, const Args& args) {
  SceneOptions options;
  options.overrides = overridesFrom(args);
  return loadSceneForCommand(file, options).scene;
}

Args parseAnalysisArgs(const std::vector<std::string>& argv, std::vector<OptionSpec>& specs) {
  specs.push_back({"--json", "", false, "print the result as JSON"});
  specs.push_back({"--output", "-o", true, "write to this file (equilibrium: the scene at rest in equilibrium; modes: the JSON result)"});
  specs.push_back(setOption());
  return parseArgs(argv, specs);
}

}  // namespace

int runEquilibrium(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  const Args args = parseAnalysisArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kEquilibriumHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  const std::string file = requireScene(args, "equilibrium");
  if (auto out = args.get("--output")) refuseOutputOverInput(*out, "-o", {file});
  const Scene scene = loadSceneWithOverrides(file, args);
  if (auto out = args.get("--output")) refuseOutputOverInput(*out, "-o", scene.filesRead);  // an include
  refuseDenseAnalysisPastLimit(scene.model, "equilibrium");
  const EquilibriumResult r = findEquilibrium(scene.model, scene.model.initialState());
  const nlohmann::json j = equilibriumJson(scene.model, r);
  if (auto out = args.get("--output"); out && r.converged) writeJson(*out, sceneAtRest(scene, r.state));
  if (args.has("--json")) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "joinery equilibrium " << file << "\n  " << r.message << "\n";
    std::cout << "  residual force " << r.residual << ", constraint residual " << r.constraintResidual
              << ", " << r.freeDirections << " free direction(s)\n";
    const auto& names = scene.model.coordinateNames();
    for (std::size_t i = 0; i < names.size(); ++i)
      std::cout << "  " << names[i] << " = " << r.state.q(static_cast<Eigen::Index>(i)) << "\n";
  }
  if (!r.converged) std::cerr << "joinery equilibrium: " << r.message << "\n";
  return r.converged ? kOk : kRunFailed;
}

int runModes(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--at", "", true, "equilibrium (default), initial or steady: the state to linearise about"});
  specs.push_back({"--count", "-n", true, "report the K lowest modes (default: all)"});
  specs.push_back({"--sweep", "", true, "with --at steady: NAME=a:b:n, n values of scene parameter NAME from a to b"});
  const Args args = parseAnalysisArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kModesHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  const std::string at = args.get("--at").value_or("equilibrium");
  if (at == "steady") return runSteadyModes(requireScene(args, "modes"), args);
  if (args.has("--sweep")) throw UsageError{"--sweep needs --at steady"};
  if (at != "equilibrium" && at != "initial") throw UsageError{"--at '" + at + "': expected initial, equilibrium or steady"};
  ModesOptions mo;
  if (auto k = args.get("--count")) {
    try {
      std::size_t pos = 0;
      mo.count = std::stoi(*k, &pos);
      if (pos != k->size() || mo.count < 1) throw std::invalid_argument("n");
    } catch (const std::exception&) {
      throw UsageError{"-n '" + *k + "': expected a positive integer"};
    }
  }
  const std::string file = requireScene(args, "modes");
  if (auto out = args.get("--output")) refuseOutputOverInput(*out, "-o", {file});
  const Scene scene = loadSceneWithOverrides(file, args);
  if (auto out = args.get("--output")) refuseOutputOverInput(*out, "-o", scene.filesRead);  // an include
  refuseDenseAnalysisPastLimit(scene.model, "modes");
  State s = scene.model.initialState();
  if (at == "equilibrium") {
    const EquilibriumResult eq = findEquilibrium(scene.model, s);
    if (!eq.converged) {
      std::cerr << "joinery modes: " << eq.message << " (use --at initial to linearise about the initial state)\n";
      return kRunFailed;
    }
    s = eq.state;
  }
  ModesResult r;
  try {
    r = computeModes(scene.model, s, mo);
  } catch (const ModelError& e) {
    std::cerr << "joinery modes: " << e.what() << "\n";
    return kIllPosed;
  }
  nlohmann::json j;
  j["at"] = at;
  j["frequencies_hz"] = r.frequenciesHz;
  j["damping_ratios"] = r.dampingRatios;
  j["zero_modes"] = r.zeroModes;
  j["unstable_modes"] = r.unstableModes;
  j["massless_excluded"] = r.masslessExcluded;
  j["free_directions"] = r.freeDirections;
  j["shapes"] = nlohmann::json::array();
  for (const VectorXd& x : r.shapes) j["shapes"].push_back(byCoordinate(scene.model, x));
  j["q"] = byCoordinate(scene.model, s.q);
  if (auto out = args.get("--output")) writeJson(*out, j);
  if (args.has("--json")) {
    std::cout << j.dump(2) << "\n";
    return kOk;
  }
  std::cout << "joinery modes " << file << " (at the " << (at == "initial" ? "initial state" : "static equilibrium")
            << "): " << r.freeDirections << " free direction(s), " << r.masslessExcluded
            << " massless excluded, " << r.zeroModes << " zero mode(s)";
  if (r.unstableModes) std::cout << ", " << r.unstableModes << " unstable (negative: imaginary frequency)";
  std::cout << "\n  mode   frequency [Hz]   damping ratio   largest components of the shape\n";
  const auto& names = scene.model.coordinateNames();
  for (std::size_t i = 0; i < r.frequenciesHz.size(); ++i) {
    std::printf("  %4zu   %14.6g   %13.4g  ", i + 1, r.frequenciesHz[i], r.dampingRatios[i]);
    std::vector<std::pair<double, std::size_t>> c;
    for (std::size_t k = 0; k < names.size(); ++k) c.emplace_back(std::abs(r.shapes[i](static_cast<Eigen::Index>(k))), k);
    std::sort(c.rbegin(), c.rend());
    for (std::size_t k = 0; k < std::min<std::size_t>(3, c.size()) && c[k].first > 1e-3; ++k)
      std::printf(" %s %.3g", names[c[k].second].c_str(), r.shapes[i](static_cast<Eigen::Index>(c[k].second)));
    std::printf("\n");
  }
  std::fflush(stdout);
  return kOk;
}

JOINERY_REGISTER_COMMAND({"equilibrium",
    "equilibrium SCENE [--json]       static equilibrium, its stability and residual",
    70, runEquilibrium})
JOINERY_REGISTER_COMMAND({"modes",
    "modes SCENE [--at initial|equilibrium|steady] [-n K] [--sweep P=a:b:n] [--json]   linearised modes; steady motions",
    80, runModes})

}  // namespace joinery::cli
