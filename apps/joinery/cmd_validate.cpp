// joinery validate: runs a validation manifest (a list of scenes with reference values and
// invariants to check) and prints a table of errors against tolerances. See
// docs/validation.md for the manifest format and the cases bundled in examples/validation.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/dense_solver.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/expression.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/simulation.hpp"
#include "report.hpp"
#include "steady_cli.hpp"
#include "joinery/analyses/steady.hpp"

namespace joinery::cli {

namespace {

const char* kValidateHelp =
    "usage: joinery validate MANIFEST [--quick] [--case ID]... [--json] [-o REPORT.md]\n\n"
    "Runs every case of a validation manifest (scenes with reference values, invariants\n"
    "and structural facts to check; format in docs/validation.md) and prints a table:\n"
    "case, check, reference, joinery's value, error, tolerance, verdict.\n"
    "The bundled set: joinery validate examples/validation/cases.json\n\n"
    "exit status: 0 every check passed, 6 some check failed, 2 invalid input\n\noptions:\n";

/// What a check compares (the manifest's `kind`, docs/validation.md).
enum class CheckKind {
  Value, EnergyDrift, PositionResidual, VelocityResidual,  // from a run
  MobilityRank, MobilityCount, Redundant, WellPosed,       // structural, at the initial state
  SteadyEigenvalues, StabilityBoundary                     // about the steady motion of the initial state
};

const std::vector<std::pair<CheckKind, std::string>> kCheckKinds{
    {CheckKind::Value, "value"},
    {CheckKind::EnergyDrift, "energy_drift"},
    {CheckKind::PositionResidual, "position_residual"},
    {CheckKind::VelocityResidual, "velocity_residual"},
    {CheckKind::MobilityRank, "mobility_rank"},
    {CheckKind::MobilityCount, "mobility_count"},
    {CheckKind::Redundant, "redundant"},
    {CheckKind::WellPosed, "well_posed"},
    {CheckKind::SteadyEigenvalues, "steady_eigenvalues"},
    {CheckKind::StabilityBoundary, "stability_boundary"}};

const std::string& nameOf(CheckKind k) {
  for (const auto& [kind, name] : kCheckKinds)
    if (kind == k) return name;
  static const std::string unknown = "unknown";
  return unknown;
}

/// True for the kinds checked on the samples of a run (the others are structural facts).
bool needsRun(CheckKind k) {
  return k == CheckKind::Value || k == CheckKind::EnergyDrift || k == CheckKind::PositionResidual ||
         k == CheckKind::VelocityResidual;
}

/// One check of a case.
struct Check {
  CheckKind kind = CheckKind::Value;
  std::string quantity;  ///< value: expression over the sample columns
  double t = 0;          ///< value: sample time
  double reference = 0;  ///< value: reference; structural kinds: expected number
  double tolerance = 0;  ///< value / invariants: allowed error
  bool relative = false; ///< error relative to |reference| (value) or to max(1, |E0|) (energy)
  std::string why;       ///< the reason for the tolerance
  std::string label;     ///< what the table shows
  /// steady_eigenvalues: parameter overrides and the expected eigenvalues (zeros left out);
  /// stability_boundary: the sweep NAME=a:b:n and the direction of the change
  std::vector<Override> set;
  std::vector<std::complex<double>> eigenvalues;
  std::string sweep;
  bool becomesStable = false;
};

struct Case {
  std::string id, title, source, scene, notes;
  std::optional<double> tEnd, quickTEnd;
  std::vector<Check> checks;
  std::string path;  ///< JSON path of the case in the manifest
};

struct Row {
  std::string caseId, label;
  std::string reference, value, error, tolerance, verdict, why;
  bool failed = false;
};

std::string fmt(double x, int digits = 10) {
  std::ostringstream s;
  s << std::setprecision(digits) << x;
  return s.str();
}

std::string fmtErr(double x) {
  std::ostringstream s;
  s << std::scientific << std::setprecision(2) << x;
  return s.str();
}

Check readCheck(const JsonCursor& c) {
  c.requireObject();
  Check k;
  const std::string kind = c.at("kind").string();
  std::vector<std::string> kinds;
  for (const auto& [value, name] : kCheckKinds) {
    kinds.push_back(name);
    if (name == kind) k.kind = value;
  }
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    c.at("kind").fail("one of value, energy_drift, position_residual, velocity_residual, "
                      "mobility_rank, mobility_count, redundant, well_posed, steady_eigenvalues, "
                      "stability_boundary" +
                      didYouMean(kind, kinds));
  if (c.has("why")) k.why = c.at("why").string();
  if (c.has("relative")) {
    if (!c.at("relative").value().is_boolean()) c.at("relative").fail("true or false");
    k.relative = c.at("relative").value().get<bool>();
  }
  if (k.kind == CheckKind::Value) {
    c.rejectUnknownKeys({"kind", "quantity", "t", "reference", "tolerance", "relative", "why"});
    k.quantity = c.at("quantity").string();
    k.t = c.at("t").number();
    k.reference = c.at("reference").number();
    k.tolerance = c.at("tolerance").number();
    k.label = k.quantity + " at t=" + fmt(k.t, 6);
  } else if (needsRun(k.kind)) {
    c.rejectUnknownKeys({"kind", "tolerance", "relative", "why"});
    k.tolerance = c.at("tolerance").number();
    k.label = k.kind == CheckKind::EnergyDrift ? (k.relative ? "max |E-E0|/max(1,|E0|)" : "max |E-E0|")
                                               : "max " + nameOf(k.kind);
  } else if (k.kind == CheckKind::SteadyEigenvalues) {
    c.rejectUnknownKeys({"kind", "set", "reference", "tolerance", "why"});
    std::string at;
    if (c.has("set")) {
      c.at("set").requireObject();
      for (const auto& [name, value] : c.at("set").value().items()) {
        k.set.push_back(Override{name, value});
        at += (at.empty() ? " at " : ", ") + name + "=" + value.dump();
      }
    }
    const JsonCursor ref = c.at("reference");
    ref.requireArray();
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const JsonCursor z = ref.at(i);
      z.requireArray();
      if (z.size() != 2) z.fail("[re, im]");
      k.eigenvalues.emplace_back(z.at(0).number(), z.at(1).number());
    }
    k.tolerance = c.at("tolerance").number();
    if (!(k.tolerance > 0)) c.at("tolerance").fail("a tolerance > 0");
    k.label = "steady eigenvalues" + at;
  } else if (k.kind == CheckKind::StabilityBoundary) {
    c.rejectUnknownKeys({"kind", "sweep", "becomes", "reference", "tolerance", "why"});
    k.sweep = c.at("sweep").string();
    try {
      parseSweep(k.sweep);
    } catch (const UsageError& e) {
      c.at("sweep").fail("NAME=a:b:n, e.g. v=3:7:9 (" + e.message + ")");
    }
    const std::string becomes = c.at("becomes").string();
    if (becomes != "stable" && becomes != "unstable") c.at("becomes").fail("stable or unstable");
    k.becomesStable = becomes == "stable";
    k.reference = c.at("reference").number();
    k.tolerance = c.at("tolerance").number();
    if (!(k.tolerance > 0)) c.at("tolerance").fail("a tolerance > 0");
    k.label = "boundary (" + becomes + " above), sweep " + k.sweep;
  } else if (k.kind == CheckKind::WellPosed) {
    c.rejectUnknownKeys({"kind", "expected", "why"});
    if (!c.at("expected").value().is_boolean()) c.at("expected").fail("true or false");
    k.reference = c.at("expected").value().get<bool>() ? 1 : 0;
    k.label = "well posed";
  } else {
    c.rejectUnknownKeys({"kind", "expected", "why"});
    k.reference = c.at("expected").integer();
    k.label = k.kind == CheckKind::MobilityRank    ? "mobility n - rank A"
              : k.kind == CheckKind::MobilityCount ? "Gruebler count n - m"
                                                   : "redundant rows m - rank A";
  }
  if (needsRun(k.kind) && !(k.tolerance > 0))
    c.at("tolerance").fail("a tolerance > 0");
  return k;
}

std::vector<Case> readManifest(const std::string& file) {
  const nlohmann::json doc = readJsonFile(file);
  const JsonCursor root(doc, file);
  root.requireObject();
  root.rejectUnknownKeys({"joinery_validation", "title", "cases"});
  if (root.at("joinery_validation").integer() != 1)
    root.at("joinery_validation").fail("1 (the manifest format version)");
  const JsonCursor cases = root.at("cases");
  cases.requireArray();
  std::vector<Case> out;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const JsonCursor c = cases.at(i);
    c.requireObject();
    c.rejectUnknownKeys({"id", "title", "source", "scene", "t_end", "quick_t_end", "checks", "notes"});
    Case k;
    k.path = c.displayPath();
    k.id = c.at("id").string();
    k.scene = c.at("scene").string();
    if (c.has("title")) k.title = c.at("title").string();
    if (c.has("source")) k.source = c.at("source").string();
    if (c.has("notes")) k.notes = c.at("notes").string();
    if (c.has("t_end")) {
      k.tEnd = c.at("t_end").number();
      if (!(*k.tEnd > 0)) c.at("t_end").fail("an end time > 0");
    }
    if (c.has("quick_t_end")) {
      k.quickTEnd = c.at("quick_t_end").number();
      if (!(*k.quickTEnd > 0)) c.at("quick_t_end").fail("an end time > 0");
    }
    for (const Case& prev : out)
      if (prev.id == k.id) c.at("id").fail("a case id not used before (\"" + k.id + "\" repeats)");
    const JsonCursor checks = c.at("checks");
    checks.requireArray();
    for (std::size_t j = 0; j < checks.size(); ++j) k.checks.push_back(readCheck(checks.at(j)));
    out.push_back(std::move(k));
  }
  return out;
}

/// Structural facts at the initial state (as `joinery check` reports them).
struct Structure {
  int mobilityRank = 0, mobilityCount = 0, redundant = 0;
  bool wellPosed = false;
};

Structure structureOf(const Scene& scene) {
  const CheckReport r = checkScene(scene);
  Structure s;
  const Diagnosis& d = r.solution.diagnosis;
  s.mobilityCount = r.graph.calcMobilityCount();
  s.mobilityRank = r.graph.numCoordinates - d.rankA;
  s.redundant = r.graph.numConstraintRows - d.rankA;
  s.wellPosed = d.wellPosed;
  return s;
}

/// The rows of one case as they are added (table rows and the case's JSON).
struct CaseReport {
  const Case& c;
  std::vector<Row>& rows;
  nlohmann::json& jcase;
  bool ok = true;

  void add(const Check* k, std::string ref, std::string val, std::string err, std::string tol,
           const std::string& verdict) {
    Row r;
    r.caseId = c.id;
    r.label = k ? k->label : "run";
    r.reference = std::move(ref);
    r.value = std::move(val);
    r.error = std::move(err);
    r.tolerance = std::move(tol);
    r.verdict = verdict;
    r.why = k ? k->why : "";
    r.failed = verdict == "FAIL";
    if (r.failed) ok = false;
    jcase["checks"].push_back({{"check", r.label}, {"reference", r.reference}, {"value", r.value},
                               {"error", r.error}, {"tolerance", r.tolerance}, {"verdict", verdict}});
    rows.push_back(std::move(r));
  }
};

/// The structural checks at the initial state (mobility, redundant rows, well posed).
void checkStructure(const Scene& scene, CaseReport& out) {
  bool needStructure = false;
  for (const Check& k : out.c.checks) needStructure = needStructure || !needsRun(k.kind);
  if (!needStructure) return;
  const Structure s = structureOf(scene);
  for (const Check& k : out.c.checks) {
    int got = 0;
    switch (k.kind) {
      case CheckKind::MobilityRank: got = s.mobilityRank; break;
      case CheckKind::MobilityCount: got = s.mobilityCount; break;
      case CheckKind::Redundant: got = s.redundant; break;
      case CheckKind::WellPosed: got = s.wellPosed ? 1 : 0; break;
      default: continue;
    }
    const bool pass = got == static_cast<int>(k.reference);
    if (k.kind == CheckKind::WellPosed)
      out.add(&k, k.reference != 0 ? "yes" : "no", got ? "yes" : "no", "", "exact", pass ? "pass" : "FAIL");
    else
      out.add(&k, fmt(k.reference), fmt(got), fmt(got - k.reference), "exact", pass ? "pass" : "FAIL");
  }
}

/// The samples of a run as expression variables: t, the coordinates, the velocities
/// (`<coordinate>_dot`), with the scene's parameters as constants.
struct SampleColumns {
  SymbolTable names;
  std::vector<double> vars;
  const MemoryRecorder& rec;

  SampleColumns(const Scene& scene, const MemoryRecorder& recorder)
      : names(SymbolTable::forState(recorder.names)), rec(recorder) {
    const nlohmann::json& resolved = scene.resolved();
    if (resolved.is_object() && resolved.contains("parameters") && resolved["parameters"].is_object())
      for (const auto& [key, v] : resolved["parameters"].items())
        if (v.is_number()) names.setConstant(key, v.get<double>());
    vars.assign(static_cast<std::size_t>(names.numVariables()), 0.0);
  }
  void load(std::size_t i) {
    const std::size_t n = rec.names.size();
    vars[0] = rec.t[i];
    for (std::size_t j = 0; j < n; ++j) {
      vars[1 + j] = rec.q[i](static_cast<Eigen::Index>(j));
      vars[1 + n + j] = rec.v[i](static_cast<Eigen::Index>(j));
    }
  }
};

/// A `value` check: the quantity at the sample at time t against the reference.
void checkValue(const Check& k, double horizon, const std::string& scenePath, SampleColumns& cols,
                CaseReport& out) {
  if (k.t > horizon * (1 + 1e-12)) {
    out.add(&k, fmt(k.reference, 15), "", "", (k.relative ? "rel " : "") + fmtErr(k.tolerance), "skipped");
    return;
  }
  const Expression e = [&] {
    try {
      return Expression::parse(k.quantity, cols.names);
    } catch (const Error& ex) {
      throw InputError(std::string("case ") + out.c.id + ": quantity '" + k.quantity + "': " + ex.what(),
                       scenePath);
    }
  }();
  std::optional<std::size_t> at;
  for (std::size_t i = 0; i < cols.rec.size(); ++i)
    if (std::abs(cols.rec.t[i] - k.t) <= 1e-9 * std::max(1.0, std::abs(k.t))) at = i;
  if (!at) {
    out.add(&k, fmt(k.reference), "no sample at t", "", fmt(k.tolerance, 3), "FAIL");
    return;
  }
  cols.load(*at);
  const double v = e.evaluate(cols.vars.data());
  double err = std::abs(v - k.reference);
  if (k.relative) err /= std::max(std::abs(k.reference), 1e-300);
  const bool pass = std::isfinite(v) && err <= k.tolerance;
  out.add(&k, fmt(k.reference, 15), fmt(v, 15), fmtErr(err), (k.relative ? "rel " : "") + fmtErr(k.tolerance),
          pass ? "pass" : "FAIL");
}

/// An `energy_drift` check: max |E - E0| over the samples (relative: over max(1, |E0|)).
void checkEnergyDrift(const Check& k, const MemoryRecorder& rec, CaseReport& out) {
  double e0 = 0, drift = 0;
  bool have = false;
  for (std::size_t i = 0; i < rec.size(); ++i) {
    if (!rec.energy[i]) continue;
    if (!have) e0 = *rec.energy[i], have = true;
    drift = std::max(drift, std::abs(*rec.energy[i] - e0));
  }
  if (!have) {
    out.add(&k, "0", "energy undefined", "", fmtErr(k.tolerance), "FAIL");
    return;
  }
  if (k.relative) drift /= std::max(1.0, std::abs(e0));
  out.add(&k, "0", fmtErr(drift), fmtErr(drift), (k.relative ? "rel " : "") + fmtErr(k.tolerance),
          drift <= k.tolerance ? "pass" : "FAIL");
}

/// Runs the case's simulation and checks its samples (values, energy drift, residuals).
void checkRun(const Scene& scene, const SimulationSettings& settings, const std::string& scenePath,
              CaseReport& out) {
  bool needRun = false;
  for (const Check& k : out.c.checks) needRun = needRun || needsRun(k.kind);
  if (!needRun) return;
  const double horizon = settings.tEnd;
  ModelSystem system(scene.model);
  MemoryRecorder rec;
  const SimulationResult res = runSimulation(system, settings, rec);
  out.jcase["outcome"] = toString(res.outcome);
  out.jcase["t_reached"] = res.t;
  out.jcase["steps"] = res.stats.integrator.steps;
  if (!res.completed()) out.add(nullptr, "t_end " + fmt(horizon, 6), "stopped at " + fmt(res.t, 6), "", "", "FAIL");
  SampleColumns cols(scene, rec);
  for (const Check& k : out.c.checks) {
    switch (k.kind) {
      case CheckKind::Value: checkValue(k, horizon, scenePath, cols, out); break;
      case CheckKind::EnergyDrift: checkEnergyDrift(k, rec, out); break;
      case CheckKind::PositionResidual:
      case CheckKind::VelocityResidual: {
        const auto& src = k.kind == CheckKind::PositionResidual ? rec.positionResidual : rec.velocityResidual;
        double worst = 0;
        for (double r : src) worst = std::max(worst, r);
        out.add(&k, "0", fmtErr(worst), fmtErr(worst), fmtErr(k.tolerance), worst <= k.tolerance ? "pass" : "FAIL");
        break;
      }
      default: break;
    }
  }
}

/// The checks about the steady motion of the initial state (steady.hpp): the eigenvalues
/// other than the eliminated zeros against the reference (largest distance from one to the
/// nearest of the other, both ways), and the stability boundaries found on a sweep.
void checkSteady(const std::string& scenePath, CaseReport& out) {
  const auto at = [&](const std::vector<Override>& set) {
    SceneOptions options;
    options.overrides = set;
    const Scene scene = loadSceneForCommand(scenePath, options).scene;
    return computeSteadyModes(scene.model, scene.model.initialState());
  };
  for (const Check& k : out.c.checks) {
    if (k.kind == CheckKind::SteadyEigenvalues) {
      std::vector<std::complex<double>> got;
      for (const auto& z : at(k.set).eigenvalues)
        if (z != std::complex<double>(0, 0)) got.push_back(z);
      double err = got.size() == k.eigenvalues.size() ? 0 : INFINITY;
      for (int pass = 0; pass < 2; ++pass)
        for (const auto& a : pass ? got : k.eigenvalues) {
          double best = INFINITY;
          for (const auto& b : pass ? k.eigenvalues : got) best = std::min(best, std::abs(a - b));
          err = std::max(err, best);
        }
      std::ostringstream val;
      val << got.size() << " non-zero, max real part ";
      double mr = -INFINITY;
      for (const auto& z : got) mr = std::max(mr, z.real());
      val << fmt(mr, 12);
      out.add(&k, std::to_string(k.eigenvalues.size()) + " listed", val.str(), fmtErr(err), fmtErr(k.tolerance),
              err <= k.tolerance ? "pass" : "FAIL");
    } else if (k.kind == CheckKind::StabilityBoundary) {
      Sweep sw;
      try {
        sw = parseSweep(k.sweep);
      } catch (const UsageError& e) {
        throw InputError("case " + out.c.id + ": " + e.message, scenePath);
      }
      std::vector<double> values = sw.values();
      std::vector<SteadyModesResult> rows;
      const auto eval = [&](double p) { return at({Override{sw.name, p}}); };
      for (double v : values) rows.push_back(eval(v));
      const double a = sw.from, b = sw.to;
      double best = NAN, err = INFINITY;
      for (const auto& bd : findStabilityBoundaries(values, rows, eval, 1e-11 * std::max({1.0, std::abs(a), std::abs(b)})))
        if (bd.becomesStable == k.becomesStable && std::abs(bd.value - k.reference) < err)
          best = bd.value, err = std::abs(bd.value - k.reference);
      out.add(&k, fmt(k.reference, 12), std::isfinite(best) ? fmt(best, 12) : "none found", fmtErr(err),
              fmtErr(k.tolerance), err <= k.tolerance ? "pass" : "FAIL");
    }
  }
}

/// Runs one case and appends its rows. Returns false if a check failed.
bool runCase(const Case& c, const std::filesystem::path& dir, bool quick, std::vector<Row>& rows,
             nlohmann::json& jcase) {
  const auto start = std::chrono::steady_clock::now();
  const std::string scenePath = (dir / c.scene).string();
  const LoadedScene loaded = loadSceneForCommand(scenePath);
  SimulationSettings settings = loaded.settings;
  if (c.tEnd) settings.tEnd = *c.tEnd;
  if (quick && c.quickTEnd) settings.tEnd = std::min(settings.tEnd, *c.quickTEnd);
  CaseReport out{c, rows, jcase};
  checkStructure(loaded.scene, out);
  checkSteady(scenePath, out);
  checkRun(loaded.scene, settings, scenePath, out);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  jcase["id"] = c.id;
  jcase["title"] = c.title;
  jcase["source"] = c.source;
  jcase["scene"] = c.scene;
  jcase["t_end"] = settings.tEnd;
  jcase["wall_seconds"] = secs;
  jcase["passed"] = out.ok;
  return out.ok;
}

std::string renderTable(const std::vector<Row>& rows, bool markdown) {
  const std::vector<std::string> head = {"case", "check", "reference", "joinery", "error", "tolerance", "verdict"};
  auto cells = [](const Row& r) {
    return std::vector<std::string>{r.caseId, r.label, r.reference, r.value, r.error, r.tolerance, r.verdict};
  };
  std::ostringstream out;
  if (markdown) {
    out << "|";
    for (const auto& h : head) out << " " << h << " |";
    out << "\n|";
    for (std::size_t i = 0; i < head.size(); ++i) out << "---|";
    out << "\n";
    for (const Row& r : rows) {
      out << "|";
      for (auto cell : cells(r)) {
        for (std::size_t p = cell.find('|'); p != std::string::npos; p = cell.find('|', p + 2))
          cell.replace(p, 1, "\\|");
        out << " " << cell << " |";
      }
      out << "\n";
    }
    return out.str();
  }
  std::vector<std::size_t> w(head.size());
  for (std::size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const Row& r : rows) {
    const auto c = cells(r);
    for (std::size_t i = 0; i < c.size(); ++i) w[i] = std::max(w[i], c[i].size());
  }
  auto line = [&](const std::vector<std::string>& c) {
    for (std::size_t i = 0; i < c.size(); ++i)
      out << std::left << std::setw(static_cast<int>(w[i])) << c[i] << (i + 1 < c.size() ? "  " : "\n");
  };
  line(head);
  for (const Row& r : rows) line(cells(r));
  return out.str();
}

}  // namespace

int runValidate(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--quick", "", false, "use each case's quick_t_end (a short run for CI)"});
  specs.push_back({"--case", "", true, "run only the case with this id (comma-separated list allowed)"});
  specs.push_back({"--json", "", false, "print the results as JSON"});
  specs.push_back({"--output", "-o", true, "also write the table as Markdown to this file"});
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kValidateHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  if (args.positional.size() != 1)
    throw UsageError{"validate takes exactly one MANIFEST file (got " +
                     std::to_string(args.positional.size()) + ")"};
  const std::string file = args.positional[0];
  std::vector<Case> cases = readManifest(file);
  if (auto only = args.get("--case")) {
    std::vector<std::string> wanted;
    std::stringstream ss(*only);
    for (std::string id; std::getline(ss, id, ',');) wanted.push_back(id);
    std::vector<std::string> ids;
    for (const Case& c : cases) ids.push_back(c.id);
    for (const auto& w : wanted)
      if (std::find(ids.begin(), ids.end(), w) == ids.end())
        throw UsageError{"--case '" + w + "': no such case in " + file + didYouMean(w, ids)};
    cases.erase(std::remove_if(cases.begin(), cases.end(),
                               [&](const Case& c) {
                                 return std::find(wanted.begin(), wanted.end(), c.id) == wanted.end();
                               }),
                cases.end());
  }
  const std::filesystem::path dir = std::filesystem::path(file).parent_path();
  const bool quick = args.has("--quick");
  const bool json = args.has("--json");
  std::vector<Row> rows;
  nlohmann::json jout = {{"manifest", file}, {"quick", quick}, {"cases", nlohmann::json::array()}};
  int failedCases = 0;
  for (const Case& c : cases) {
    nlohmann::json jcase = {{"checks", nlohmann::json::array()}};
    bool ok = false;
    try {
      ok = runCase(c, dir, quick, rows, jcase);
    } catch (const InputError& e) {
      // a broken case is a failed case; the others still run
      Row r;
      r.caseId = c.id;
      r.label = "load";
      r.value = e.what();
      r.verdict = "FAIL";
      r.failed = true;
      rows.push_back(r);
      jcase["id"] = c.id;
      jcase["error"] = e.what();
    }
    if (!ok) ++failedCases;
    if (!json)
      std::cerr << (ok ? "  pass " : "  FAIL ") << c.id << " (" << c.scene << ")"
                << (jcase.contains("wall_seconds") ? ", " + fmt(jcase["wall_seconds"].get<double>(), 3) + " s"
                                                   : std::string())
                << "\n";
    jout["cases"].push_back(jcase);
  }
  jout["failed_cases"] = failedCases;
  if (json)
    std::cout << jout.dump(2) << "\n";
  else
    std::cout << renderTable(rows, false) << "\n"
              << cases.size() - static_cast<std::size_t>(failedCases) << " of " << cases.size()
              << " case(s) passed" << (quick ? " (quick mode: shortened runs)" : "") << "\n";
  if (auto out = args.get("--output")) {
    std::ofstream f(*out);
    if (!f) throw InputError("cannot open the output file for writing", *out);
    f << renderTable(rows, true);
    if (!f) throw InputError("could not write the output file", *out);
  }
  return failedCases == 0 ? kOk : kValidationFailed;
}

JOINERY_REGISTER_COMMAND({"validate",
    "validate MANIFEST [--quick]      run a validation set, print errors against references",
    60, runValidate})

}  // namespace joinery::cli
