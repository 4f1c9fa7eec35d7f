// joinery check / graph / simulate, and solve on scene files.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <sstream>

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/assembly.hpp"
#include "joinery/core/findings.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/one_sided_handler.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/run_outputs.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/integrators/events.hpp"
#include "exit_status.hpp"
#include "hdf5_output.hpp"
#include "plot_units.hpp"
#include "report.hpp"
#include "run_files.hpp"

namespace joinery::cli {

namespace {

std::string requireOneFile(const Args& args, const char* cmd) {
  if (args.positional.size() != 1)
    throw UsageError{std::string(cmd) + " takes exactly one SCENE file (got " +
                     std::to_string(args.positional.size()) + ")"};
  return args.positional[0];
}

double parseDoubleOption(const std::string& opt, const std::string& text) {
  try {
    std::size_t pos = 0;
    const double v = std::stod(text, &pos);
    if (pos != text.size() || !std::isfinite(v)) throw std::invalid_argument("x");
    return v;
  } catch (const std::exception&) {
    throw UsageError{opt + " '" + text + "': expected a number"};
  }
}

/// A progress bar on stderr, only when stderr is a terminal.
class ProgressBar {
 public:
  ProgressBar() : active_(isatty(STDERR_FILENO) != 0) {}
  ~ProgressBar() { finish(); }
  void update(double f) {
    if (!active_) return;
    const int pct = static_cast<int>(std::floor(f * 100.0));
    if (pct == last_) return;
    last_ = pct;
    const int width = 40, filled = static_cast<int>(f * width);
    std::cerr << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
              << std::string(static_cast<std::size_t>(width - filled), ' ') << "] " << pct << "%"
              << std::flush;
    shown_ = true;
  }
  void finish() {
    if (active_ && shown_) std::cerr << "\r" << std::string(50, ' ') << "\r" << std::flush;
    shown_ = false;
  }

 private:
  bool active_;
  bool shown_ = false;
  int last_ = -1;
};

const char* kCheckHelp =
    "usage: joinery check SCENE [--json]\n\n"
    "Assembles the scene and diagnoses it at its initial state: bodies, coordinates,\n"
    "constraints, ranks, mobility (by count and by rank), loops, redundant constraints,\n"
    "and for ill-posed models what is undetermined and how to fix it: the missing force\n"
    "balance of each massless direction, printed as an expression joint to paste, or added\n"
    "with --complete-massless.\n\n"
    "The first line names what to change: the joints the initial state violates (and the\n"
    "least-squares assembly), joints that contradict each other, a locked mechanism, a body\n"
    "with zero inertia about a named axis, plausibility warnings (docs/diagnosis.md).\n\n"
    "exit status: 0 well posed, 3 ill posed, 4 inconsistent constraints or a mechanism that\n"
    "cannot be assembled, 2 invalid input (or a warning under --strict)\n\noptions:\n";
const char* kGraphHelp =
    "usage: joinery graph SCENE -o OUT.dot\n\n"
    "Writes the body-joint graph in Graphviz DOT (render with: dot -Tsvg OUT.dot -o OUT.svg).\n"
    "Bodies are ellipses, ground a box, joints solid edges, force elements dashed edges;\n"
    "edges of independent loops are coloured.\n\nexit status: 0 done, 2 invalid input\n\noptions:\n";
const char* kSimulateHelp =
    "usage: joinery simulate SCENE -o OUT.csv [--t-end T] [--summary FILE.json] [--accelerations]\n\n"
    "Runs the simulation of the scene's `simulation` settings and streams samples to CSV\n"
    "(header t, every coordinate body.coord, every velocity body.coord_dot, with --accelerations\n"
    "every body.coord_ddot, then energy, position_residual, velocity_residual, then the scene's\n"
    "output channels). '-o -' writes the CSV to standard output (the report goes to stderr);\n"
    "'-o OUT.npy' (or --format npy) writes a NumPy structured array instead, '-o OUT.h5' (or\n"
    "--format hdf5) an HDF5 file, a dataset per column. '--units scene' writes the columns in\n"
    "the scene's \"units\" (crank.x [mm]); the default is SI. A failed run keeps\n"
    "every sample written so far. See docs/outputs.md.\n\n"
    "exit status: 0 done, 2 invalid input, 3 ill posed, 4 inconsistent,\n"
    "             5 failed during the run\n\noptions:\n";
}  // namespace

int runSceneSolveOrCheck(const std::string& file, bool json, bool withAccelerations) {
  return runSceneReport(file, json, withAccelerations, SceneOptions{});
}

int runCheck(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--json", "", false, "print the report as JSON"});
  specs.push_back(completeMasslessOption());
  specs.push_back(setOption());
  specs.push_back(strictOption());
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kCheckHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  SceneOptions options;
  options.completeMassless = args.has("--complete-massless");
  options.overrides = overridesFrom(args);
  return runSceneReport(requireOneFile(args, "check"), args.has("--json"), false, options, args.has("--strict"));
}

int runGraph(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--output", "-o", true, "the DOT file to write (required)"});
  specs.push_back(setOption());
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kGraphHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  const std::string file = requireOneFile(args, "graph");
  const auto out = args.get("--output");
  if (!out || out->empty()) throw UsageError{"graph needs -o OUT.dot"};
  refuseOutputOverInput(*out, "-o", {file});
  SceneOptions sceneOptions;
  sceneOptions.overrides = overridesFrom(args);
  const LoadedScene loaded = loadSceneForCommand(file, sceneOptions);
  const Scene& scene = loaded.scene;
  refuseOutputOverInput(*out, "-o", scene.filesRead);  // an included library
  const GraphAnalysis g = analyzeGraph(scene.model);
  const std::string dot = toGraphvizDot(scene.model, g);
  writeFileAtomically(*out, dot, "output file");
  std::cout << "wrote " << *out << ": " << g.numBodies << " bodies, " << scene.model.constraints().size()
            << " joints, " << g.numLoops() << " independent loop(s)\n";
  return kOk;
}

namespace {

/// `layout` with every column whose unit its name says (plot_units.hpp) in the units `u`.
void inSceneUnits(TableLayout& layout, const std::vector<std::string>& coordinateNames, const UnitSystem& u) {
  for (const std::string& name : tableColumns(coordinateNames, layout)) {
    const ColumnInUnits c = columnInUnits(columnUnit(name), u);
    layout.divisors.push_back(c.divisor);
    layout.unitLabels.push_back(c.label);
  }
}

/// Where `simulate` writes its table: CSV to a file or to stdout, or npy.
std::unique_ptr<Recorder> makeTableRecorder(const std::string& out, const std::string& format,
                                            const TableLayout& layout, const Scene& scene) {
  if (format == "hdf5") {
    if (out == "-") throw UsageError{"HDF5 output cannot go to standard output; give -o FILE.h5"};
    return makeHdf5Recorder(out, layout, scene);
  }
  if (format == "npy") {
    if (out == "-") throw UsageError{"npy output cannot go to standard output; give -o FILE.npy"};
    return std::make_unique<NpyRecorder>(out, layout);
  }
  if (out == "-") return std::make_unique<CsvRecorder>(std::cout, layout);
  return std::make_unique<CsvRecorder>(out, layout);
}

std::string tableFormat(const Args& args, const std::string& out) {
  if (auto f = args.get("--format")) {
    if (*f != "csv" && *f != "npy" && *f != "hdf5") throw UsageError{"--format '" + *f + "': expected csv, npy or hdf5"};
    return *f;
  }
  if (isHdf5Path(out)) return "hdf5";
  const bool npy = out.size() > 4 && out.compare(out.size() - 4, 4, ".npy") == 0;
  return npy ? "npy" : "csv";
}

void writeSummaryFile(const std::string& path, const nlohmann::json& j) {
  writeFileAtomically(path, j.dump(2) + "\n", "summary file");
}

/// The run's table file: kept (renamed into place) when the run wrote a sample, else removed
/// and an existing file left as it was. Returns what to tell the user about it.
std::string settleTable(OutputFile& file, const SimulationResult& r) {
  if (r.stats.samples > 0) {
    file.commit();
    return r.completed() ? "" : std::to_string(r.stats.samples) + " sample(s) written so far kept in " + file.path();
  }
  file.discard();
  if (file.writePath() == file.path()) return "";  // a device or pipe, written in place
  return "no sample was written; " + file.path() + " was not touched";
}

/// The last word of a run on stderr and its exit status: 128 + the signal for a run
/// SIGTERM/SIGINT stopped (the shell's status of a process that signal ended).
int endOfRun(const SimulationResult& r, const std::string& kept) {
  if (const int sig = interruptSignal(); sig != 0 && r.outcome == RunOutcome::Stopped) {
    std::cerr << "joinery simulate: " << signalName(sig) << " received: " << r.message
              << (kept.empty() ? "" : "; " + kept) << "\n";
    return 128 + sig;
  }
  if (!r.completed()) std::cerr << "joinery simulate: " << r.message << (kept.empty() ? "" : " (" + kept + ")") << "\n";
  return exitCode(r.outcome);
}

/// A whole number >= 1 given to `option`.
long long countOption(const std::string& option, const std::string& text) {
  const double v = parseDoubleOption(option, text);
  if (!(v >= 1 && v <= 9e15 && std::floor(v) == v))
    throw UsageError{option + " must be a whole number >= 1 (got '" + text + "')"};
  return static_cast<long long>(v);
}

}  // namespace

int runSimulate(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--output", "-o", true, "the CSV (or .npy, .h5) file to write (required); '-' for standard output"});
  specs.push_back({"--t-end", "", true, "end time, overriding the scene's simulation.t_end"});
  specs.push_back({"--strict", "", false, "reject inconsistent initial conditions instead of projecting them"});
  specs.push_back({"--summary", "", true, "write the run summary (per-column min/max/final/rms, energy) as JSON"});
  specs.push_back({"--accelerations", "", false, "also write the accelerations body.coord_ddot"});
  specs.push_back({"--format", "", true, "csv, npy or hdf5 (default: npy for a .npy file, hdf5 for .h5 or .hdf5, else csv)"});
  specs.push_back({"--units", "", true, "si (default) or scene: the table and the summary's columns in the scene's \"units\" (mm, g, deg), each column named with its unit, \"crank.x [mm]\""});
  specs.push_back({"--max-samples", "", true, "most samples the run may write (default 10000000; more is refused before the run)"});
  specs.push_back({"--max-steps", "", true, "most steps the run may take (default 100000000, every integrator: a run that would take more fails, exit 5, as soon as it is sure to)"});
  specs.push_back({"--max-wall-time", "", true, "most seconds of wall time the run's steps may take (default: no limit; a run that takes longer fails, exit 5)"});
  specs.push_back(completeMasslessOption());
  specs.push_back(setOption());
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kSimulateHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  const std::string file = requireOneFile(args, "simulate");
  const auto out = args.get("--output");
  if (!out || out->empty()) throw UsageError{"simulate needs -o OUT.csv"};
  const std::string format = tableFormat(args, *out);
  const std::string resultUnits = args.get("--units").value_or("si");
  if (resultUnits != "si" && resultUnits != "scene")
    throw UsageError{"--units '" + resultUnits + "': expected si or scene"};
  const auto summaryPath = args.get("--summary");
  if (summaryPath && summaryPath->empty()) throw UsageError{"--summary needs a file name"};
  refuseOutputOverInput(*out, "-o", {file});
  if (summaryPath) refuseOutputOverInput(*summaryPath, "--summary", {file});
  if (summaryPath) refuseSharedOutputs({{"-o", *out}, {"--summary", *summaryPath}});
  const bool toStdout = *out == "-";
  std::ostream& report = toStdout ? std::cerr : std::cout;
  SceneOptions sceneOptions;
  sceneOptions.completeMassless = args.has("--complete-massless");
  sceneOptions.overrides = overridesFrom(args);
  const LoadedScene loaded = loadSceneForCommand(file, sceneOptions);
  const Scene& scene = loaded.scene;
  refuseOutputOverInput(*out, "-o", scene.filesRead);  // an included library
  if (summaryPath) refuseOutputOverInput(*summaryPath, "--summary", scene.filesRead);
  if (scene.completeMassless && scene.completion.completable())
    for (const auto& b : scene.completion.balances)
      std::cerr << "note: complete_massless added the force balance joint '" << b.joint["name"].get<std::string>()
                << "': " << b.expression << " = 0 (" << toString(b.level) << " level)\n";
  SimulationSettings settings = loaded.settings;
  if (auto te = args.get("--t-end")) {
    settings.tEnd = parseDoubleOption("--t-end", *te);
    if (!(settings.tEnd > 0)) throw UsageError{"--t-end must be > 0"};
  }
  RunOptions options;
  if (args.has("--strict")) options.initialConditions = InitialConditionMode::Strict;
  if (auto v = args.get("--max-samples")) options.maxSamples = countOption("--max-samples", *v);
  if (auto v = args.get("--max-steps")) options.maxFixedSteps = options.maxSteps = countOption("--max-steps", *v);
  else options.maxSteps = options.maxFixedSteps;  // a default work bound for adaptive runs too (t_end 1e308)
  if (auto v = args.get("--max-wall-time")) {
    options.maxWallSeconds = parseDoubleOption("--max-wall-time", *v);
    if (!(options.maxWallSeconds > 0) || !std::isfinite(options.maxWallSeconds))
      throw UsageError{"--max-wall-time must be a finite number of seconds > 0"};
  }
  installInterruptHandlers();
  options.interrupt = interruptFlag();

  // a small driven mechanism's dead points, said before the run (check's kinematic sweep)
  std::optional<CheckReport> verdict = verdictBeforeRun(scene);
  if (verdict && verdict->status() != Posedness::WellPosed)  // cause first: check's words before the run's
    std::cerr << "joinery simulate: " << severityOf(*verdict) << " (as check finds): " << verdict->headline() << "\n";
  else if (verdict)
    for (const auto& k : verdict->kinematics) std::cerr << "warning: " << k << "\n";
  ModelSystem system(scene.model);
  OneSidedHandler oneSided(system);  // limits, ropes, contacts (docs/contact.md)
  const OutputChannels channels(scene.model, scene.outputs);
  TableLayout layout{args.has("--accelerations"), channels.columns()};
  if (resultUnits == "scene") inSceneUnits(layout, system.coordinateNames(), scene.units);
  std::optional<OutputFile> tableFile;
  if (!toStdout) tableFile.emplace(*out);
  std::unique_ptr<Recorder> table = makeTableRecorder(toStdout ? *out : tableFile->writePath(), format, layout, scene);
  SummaryRecorder summary(layout);
  TeeRecorder both({table.get(), &summary});
  ChannelRecorder recorder(system, channels, layout.accelerations, both);
  ProgressBar bar;
  const ProgressCallback progress = [&bar](double f) { bar.update(f); };
  const SimulationResult r = oneSided.empty() ? runSimulation(system, settings, recorder, progress, options)
                                              : runSimulation(system, settings, recorder, oneSided, progress, options);
  bar.finish();
  table.reset();  // closes the file before the report
  const std::string kept = tableFile ? settleTable(*tableFile, r) : "";

  if (!r.initial.message.empty() && r.initial.projected) std::cerr << "note: " << r.initial.message << "\n";
  // a locked mechanism whose given velocities the projection removed is said, never silent
  std::string locked;
  if (r.initial.velocityCorrection > 0) locked = describeLockedVelocities(scene.model, assembleInitialState(scene.model));
  if (!locked.empty()) std::cerr << "warning: " << locked << "\n";
  report << "joinery simulate " << file << " -> " << (toStdout ? "standard output" : *out) << "\n";
  report << "  outcome: " << toString(r.outcome) << " at t = " << r.t << " (t_end " << settings.tEnd << ")\n";
  report << "  integrator " << toString(settings.integrator) << ", stabilization " << toString(settings.stabilization) << ": "
         << r.stats.integrator.steps << " steps (" << r.stats.integrator.rejected << " rejected), "
         << r.stats.integrator.evaluations << " evaluations, " << r.stats.samples << " samples, "
         << r.stats.wallSeconds << " s wall\n";
  if (r.stats.integrator.jacobianEvaluations > 0 || r.stats.integrator.forceEvaluations > 0)  // implicit: the Jacobians' share
    report << "  Jacobians: " << r.stats.integrator.jacobianEvaluations << " of the evaluations, plus "
           << r.stats.integrator.forceEvaluations << " evaluations of the forces alone\n";
  report << "  worst constraint residual: position " << r.stats.maxPositionResidual << ", velocity "
         << r.stats.maxVelocityResidual << "\n";
  // drift off the constraints (stabilization "none" on a chaotic model: joints metres apart)
  const double lengthScale = modelLengthScale(scene.model, scene.model.initialState().q);
  // at least the run's absolute tolerance: a residual the integrator may leave anyway (a
  // quaternion's norm at round-off on a body of 1e-20 m) is no drift
  const double driftTolerance = std::max(kDriftTolerance * lengthScale, settings.atol);
  const bool drifted = lengthScale > 0 && r.stats.maxPositionResidual > driftTolerance;
  std::string driftWarning;
  if (drifted) {
    std::ostringstream w;
    w << "the constraints drifted: worst position residual " << r.stats.maxPositionResidual << " is over "
      << driftTolerance << " (" << kDriftTolerance << " of the model's size, " << lengthScale << ", or atol), with stabilization "
      << toString(settings.stabilization) << "; the joints no longer hold: use \"stabilization\": \"projection\" or a "
      << "tighter rtol";
    driftWarning = w.str();
    spdlog::warn("{}", driftWarning);
    report << "  warning: " << driftWarning << "\n";
  }
  const std::string energyUnit = resultUnits == "scene" ? " " + columnInUnits("J", scene.units).label : std::string();
  if (std::isfinite(summary.energyInitial()))
    report << "  energy: initial " << summary.energyInitial() << energyUnit << " (after the initial conditions were made "
           << "consistent), final " << summary.energyFinal() << energyUnit << ", max |drift| " << summary.energyMaxDrift()
           << energyUnit << "\n";
  if (!channels.empty()) report << "  " << channels.columns().size() << " output channel column(s)\n";
  if (!oneSided.empty()) {
    std::map<std::string, int> kinds;
    for (const OneSidedEvent& e : oneSided.events()) ++kinds[e.kind];
    report << "  one-sided events: " << oneSided.events().size();
    for (const auto& [kind, count] : kinds) report << ", " << count << " " << kind;
    report << "\n";
  }
  if (!locked.empty()) report << "  warning: " << locked << "\n";
  if (summaryPath) {
    nlohmann::json sj = summary.toJson();
    sj["initial_conditions"] = {{"projected", r.initial.projected}, {"message", r.initial.message},
                                {"position_correction", r.initial.positionCorrection},
                                {"velocity_correction", r.initial.velocityCorrection},
                                {"locked", locked}};
    nlohmann::json events = nlohmann::json::array();
    for (const OneSidedEvent& e : oneSided.events()) {
      nlohmann::json ej = {{"t", e.t}, {"kind", e.kind}, {"joint", e.joint}, {"impulse", e.impulse}};
      if (!e.label.empty()) ej["row"] = e.label;
      if (e.kind == "impact" || e.kind == "rest") ej["speed"] = e.speed;
      // friction at an impact: planar, along t = ez x n; spatial, [along t1, along t2]
      if (e.tangentDimension == 1) ej["tangent_impulse"] = e.tangentImpulse;
      if (e.tangentDimension == 2) ej["tangent_impulse"] = {e.tangentImpulse, e.tangentImpulse2};
      events.push_back(ej);
    }
    sj["events"] = events;  // one-sided rows (docs/contact.md)
    // what the columns and the energy are in (--units); residuals, drift and events stay SI
    const UnitSystem& u = resultUnits == "scene" ? scene.units : UnitSystem{};
    sj["units"] = {{"length", u.lengthName}, {"mass", u.massName}, {"angle", u.angleName}, {"time", "s"},
                   {"energy", columnInUnits("J", u).label}};
    sj["constraint_drift"] = {{"max_position_residual", r.stats.maxPositionResidual},
                              {"length_scale", lengthScale},
                              {"tolerance", driftTolerance},
                              {"exceeded", drifted},
                              {"message", driftWarning}};
    try {
      writeSummaryFile(*summaryPath, sj);
    } catch (const InputError& e) {  // a full disk, a size limit: the run's output failed (exit 5)
      (void)endOfRun(r, kept);
      std::cerr << "joinery simulate: run failed: " << e.what() << "\n";
      return kRunFailed;
    }
    report << "  summary: " << *summaryPath << "\n";
  }
  const int code = endOfRun(r, kept);
  // a failed run: check's verdict, the same words and exit status as `joinery check`
  if (!r.completed() && r.outcome != RunOutcome::Stopped) return verdictAfterFailedRun(scene, verdict, code);
  return code;
}

JOINERY_REGISTER_COMMAND({"check",
    "check SCENE [--json]             assemble and diagnose a scene at its initial state",
    20, runCheck})
JOINERY_REGISTER_COMMAND({"simulate",
    "simulate SCENE -o OUT.csv [--t-end T]   run the simulation, samples to CSV",
    40, runSimulate})
JOINERY_REGISTER_COMMAND({"graph",
    "graph SCENE -o OUT.dot           the body-joint graph in Graphviz DOT",
    50, runGraph})

}  // namespace joinery::cli
