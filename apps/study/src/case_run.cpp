// Running one case of a study in this process, and what it collects from the run summary.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include <algorithm>

#include "joinery/core/dynamic_system.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/one_sided_handler.hpp"
#include "joinery/integrators/events.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/integrators/settings.hpp"
#include "joinery/core/outputs.hpp"
#include "joinery/integrators/run_outputs.hpp"
#include "joinery/study/exit_codes.hpp"
#include "summary.hpp"

namespace joinery::study {

namespace {
const std::vector<std::string> kRunFigures{"steps", "evaluations", "t", "wall_s"};
}  // namespace

bool isRunFigure(const std::string& name) {
  return std::find(kRunFigures.begin(), kRunFigures.end(), name) != kRunFigures.end();
}
std::string runFigureNames() { return "steps, evaluations, t, wall_s"; }

std::vector<std::string> runColumns(const Scene& scene) {
  ModelSystem system(scene.model);
  const OutputChannels channels(scene.model, scene.outputs);
  return joinery::tableColumns(system.coordinateNames(), TableLayout{false, channels.columns()});
}

std::optional<double> collectedValue(const Collect& item, const nlohmann::json& summary, const SimulationResult& r) {
  if (item.column.empty()) {
    if (item.stat == "steps") return static_cast<double>(r.stats.integrator.steps);
    if (item.stat == "evaluations") return static_cast<double>(r.stats.integrator.evaluations);
    if (item.stat == "t") return r.t;
    if (item.stat == "wall_s") return r.stats.wallSeconds;
    return std::nullopt;
  }
  const nlohmann::json* v = nullptr;
  if (item.column == "energy" && item.stat == "max_abs_drift")
    v = &summary["energy"]["max_abs_drift"];
  else if (summary["channels"].contains(item.column))
    v = &summary["channels"][item.column][item.stat];
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

namespace {
std::string caseCsvPath(const std::string& folder, long index) {
  char name[32];
  std::snprintf(name, sizeof name, "case_%06ld.csv", index);
  return (std::filesystem::path(folder) / name).string();
}
}  // namespace

Row runCase(const Study& study, const Case& c, const CaseOptions& options) {
  Row row;
  row.caseIndex = c.index;
  row.values = c.values;
  bool partial = false;  // a failed run's values, collected over the samples it wrote
  try {
    if (options.beforeCase) options.beforeCase(c);
    SceneOptions sceneOptions;
    sceneOptions.overrides = caseOverrides(study, c);
    sceneOptions.confineIncludes = study.confineIncludes;  // --confine-includes
    sceneOptions.includeRoot = study.includeRoot;
    const Scene scene = sceneFromJson(study.scene, study.sceneFile, sceneOptions);
    ModelSystem system(scene.model);
    const SimulationSettings settings = parseSimulationSettings(scene.simulation);
    const OutputChannels channels(scene.model, scene.outputs);
    const TableLayout layout{false, channels.columns()};
    SummaryRecorder summary(layout);
    std::vector<Recorder*> recorders{&summary};
    std::optional<CsvRecorder> csv;
    if (!options.csvFolder.empty()) recorders.push_back(&csv.emplace(caseCsvPath(options.csvFolder, c.index), layout));
    TeeRecorder tee(recorders);
    ChannelRecorder rec(system, channels, false, tee);
    OneSidedHandler oneSided(system);  // limits, ropes, contacts (docs/contact.md)
    const SimulationResult r = oneSided.empty() ? runSimulation(system, settings, rec)
                                                : runSimulation(system, settings, rec, oneSided);
    row.exit = exitCodeOf(r.outcome);
    row.message = r.message;
    // a run that failed after writing samples: collected over the samples that exist, and
    // its row says so (the exit status stays the run's)
    if (r.completed() || r.stats.samples > 0) {
      const nlohmann::json j = summary.toJson();
      for (const auto& item : study.collect) row.collected.push_back(collectedValue(item, j, r));
    }
    if (!r.completed() && r.stats.samples > 0) {
      std::ostringstream note;
      note << "partial: collected over the " << r.stats.samples << " sample(s) up to t = " << r.t << "; " << r.message;
      row.message = note.str();
      partial = true;
    }
  } catch (const InputError& e) {
    row.exit = kExitInvalidInput;
    row.message = e.what();
  } catch (const SimulationError& e) {
    row.exit = kExitRunFailed;
    row.message = e.what();
  } catch (const Error& e) {
    row.exit = kExitInvalidInput;
    row.message = e.what();
  } catch (const std::exception& e) {
    row.exit = kExitInternal;
    row.message = std::string("internal error: ") + e.what();
  } catch (...) {
    row.exit = kExitInternal;
    row.message = "internal error: an unknown exception";
  }
  if (row.exit != 0 && !partial) row.collected.clear();
  return row;
}

}  // namespace joinery::study
