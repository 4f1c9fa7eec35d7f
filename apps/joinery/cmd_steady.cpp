// joinery modes --at steady [--sweep NAME=a:b:n]: stability of a steady motion
// (docs/analyses.md, "Stability of steady motions").
#include "steady_cli.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report.hpp"
#include "run_files.hpp"
#include "joinery/analyses/steady.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/scene.hpp"

namespace joinery::cli {

namespace {

nlohmann::json eigenJson(const SteadyModesResult& r) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& z : r.eigenvalues) a.push_back({z.real(), z.imag()});
  return a;
}

/// One linearisation of the scene with the overrides of the command and `extra`.
SteadyModesResult linearise(const std::string& file, const Args& args, const std::vector<Override>& extra) {
  SceneOptions options;
  options.overrides = overridesFrom(args);
  options.overrides.insert(options.overrides.end(), extra.begin(), extra.end());
  const Scene scene = loadSceneForCommand(file, options).scene;
  return computeSteadyModes(scene.model, scene.model.initialState());
}

void writeCsv(const std::string& path, const Sweep& sw, const std::vector<double>& values,
              const std::vector<SteadyModesResult>& rows) {
  std::size_t k = 0;
  for (const auto& r : rows) k = std::max(k, r.eigenvalues.size());
  std::ostringstream os;
  os.precision(17);
  os << sw.name;
  for (std::size_t i = 0; i < k; ++i) os << ",re" << i + 1 << ",im" << i + 1;
  os << ",max_re,stable\n";
  for (std::size_t j = 0; j < rows.size(); ++j) {
    os << values[j];
    for (std::size_t i = 0; i < k; ++i) {
      if (i < rows[j].eigenvalues.size()) os << "," << rows[j].eigenvalues[i].real() << "," << rows[j].eigenvalues[i].imag();
      else os << ",,";
    }
    os << "," << rows[j].maxRealPart << "," << (rows[j].stable ? 1 : 0) << "\n";
  }
  writeFileAtomically(path, os.str(), "output file");
}

void printEigenvalues(const SteadyModesResult& r) {
  std::printf("  eigenvalue [1/s]: real part, imaginary part\n");
  int shown = 0;
  for (std::size_t i = 0; i < r.eigenvalues.size(); ++i) {
    const auto z = r.eigenvalues[i];
    if (z == std::complex<double>(0, 0)) continue;  // eliminated: counted above
    std::printf("  %4d   %+.10g  %+.10gi\n", ++shown, z.real(), z.imag());
  }
}

}  // namespace

std::vector<double> Sweep::values() const {
  std::vector<double> v;
  for (int i = 0; i < count; ++i) v.push_back(count == 1 ? from : from + (to - from) * i / (count - 1));
  return v;
}

Sweep parseSweep(const std::string& text) {
  const auto fail = [&](const std::string& why) {
    throw UsageError{"--sweep '" + text + "': " + why + " (expected NAME=a:b:n, e.g. v=0:10:101)"};
  };
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) fail("no NAME=");
  Sweep s;
  s.name = text.substr(0, eq);
  std::vector<std::string> parts;
  std::stringstream ss(text.substr(eq + 1));
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
  if (parts.size() != 3) fail("expected three fields a:b:n after '='");
  try {
    std::size_t pos = 0;
    s.from = std::stod(parts[0], &pos);
    if (pos != parts[0].size()) fail("a is not a number");
    s.to = std::stod(parts[1], &pos);
    if (pos != parts[1].size()) fail("b is not a number");
    s.count = std::stoi(parts[2], &pos);
    if (pos != parts[2].size()) fail("n is not an integer");
  } catch (const std::logic_error&) {
    fail("a and b must be numbers and n an integer");
  }
  if (!std::isfinite(s.from) || !std::isfinite(s.to)) fail("a and b must be finite");
  if (s.count < 1 || s.count > 100000) fail("n must be between 1 and 100000");
  if (s.count > 1 && !(s.to > s.from)) fail("b must be greater than a");
  return s;
}

int runSteadyModes(const std::string& file, const Args& args) {
  if (auto out = args.get("--output")) refuseOutputOverInput(*out, "-o", {file});
  std::optional<Sweep> sweep;
  if (auto s = args.get("--sweep")) sweep = parseSweep(*s);
  nlohmann::json j;
  j["at"] = "steady";
  SteadyModesResult base;
  std::vector<double> values;
  std::vector<SteadyModesResult> rows;
  std::vector<StabilityBoundary> bounds;
  try {
    base = linearise(file, args, {});
    if (sweep) {
      values = sweep->values();
      for (double v : values) rows.push_back(linearise(file, args, {Override{sweep->name, v}}));
      const double tol = 1e-11 * std::max({1.0, std::abs(sweep->from), std::abs(sweep->to)});
      bounds = findStabilityBoundaries(
          values, rows, [&](double p) { return linearise(file, args, {Override{sweep->name, p}}); }, tol);
    }
  } catch (const ModelError& e) {
    std::cerr << "joinery modes: " << e.what() << "\n";
    return kRunFailed;
  }
  j["eigenvalues"] = eigenJson(base);
  j["stable"] = base.stable;
  j["zero_modes"] = base.zeroModes;
  j["unstable_modes"] = base.unstableModes;
  j["eliminated"] = base.eliminated;
  j["state_dimension"] = base.stateDimension;
  j["speed_held"] = base.speedHeld;
  j["symmetries"] = base.symmetries;
  nlohmann::json gen = nlohmann::json::object();
  for (const auto& [name, rate] : base.generator) gen[name] = rate;
  j["generator"] = gen;
  j["steady_residual"] = base.steadyResidual;
  if (sweep) {
    j["sweep_parameter"] = sweep->name;
    j["sweep"] = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i)
      j["sweep"].push_back({{"value", values[i]}, {"eigenvalues", eigenJson(rows[i])}, {"stable", rows[i].stable}});
    j["boundaries"] = nlohmann::json::array();
    for (const auto& b : bounds)
      j["boundaries"].push_back({{"value", b.value}, {"becomes", b.becomesStable ? "stable" : "unstable"}});
  }
  if (auto out = args.get("--output")) {
    const bool csv = out->size() >= 4 && out->compare(out->size() - 4, 4, ".csv") == 0;
    if (csv && !sweep) throw UsageError{"-o " + *out + ": a CSV table needs --sweep (otherwise write .json)"};
    if (csv) writeCsv(*out, *sweep, values, rows);
    else writeFileAtomically(*out, j.dump(2) + "\n", "output file");
  }
  if (args.has("--json")) {
    std::cout << j.dump(2) << "\n";
    return kOk;
  }
  std::cout << "joinery modes " << file << " (about the steady motion of the initial state): "
            << base.stateDimension << " state(s) on the constraints, " << base.eliminated
            << " eliminated (symmetry directions" << (base.speedHeld ? " and the speed" : "") << ": zero), "
            << base.zeroModes << " zero mode(s), " << (base.stable ? "stable" : "unstable") << "\n";
  std::cout << "  symmetries:";
  for (std::size_t i = 0; i < base.symmetries.size(); ++i) std::cout << (i ? "; " : " ") << base.symmetries[i];
  std::cout << "\n  motion:";
  for (std::size_t i = 0; i < base.generator.size(); ++i)
    std::cout << (i ? ", " : " ") << base.generator[i].first << " at " << base.generator[i].second;
  std::cout << "\n";
  printEigenvalues(base);
  if (sweep) {
    std::printf("  sweep of %s over [%g, %g], %d values: %s\n", sweep->name.c_str(), sweep->from, sweep->to,
                sweep->count, bounds.empty() ? "no change of stability" : "stability boundaries");
    for (const auto& b : bounds)
      std::printf("    %s = %.10f: %s above\n", sweep->name.c_str(), b.value, b.becomesStable ? "stable" : "unstable");
  }
  std::fflush(stdout);
  return kOk;
}

}  // namespace joinery::cli
