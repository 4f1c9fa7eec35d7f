// Running one case of a study in this process, and the interim run statistics (summary.hpp).
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

#include <algorithm>

#include "exit_status.hpp"  // the exit status of `joinery simulate` (apps/joinery)
#include "joinery/core/dynamic_system.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/integrators/settings.hpp"
#include "summary.hpp"

namespace joinery::study {

namespace {
const std::vector<std::string> kRunFigures{"steps", "evaluations", "t", "wall_s"};

/// Test hook (docs/studies.md, "Isolation"): JOINERY_STUDY_TEST_FAULT="crash:3,hang:5" makes
/// case 3 abort its process and case 5 never return, to prove that the study survives both.
void testFault(long index) {
  const char* env = std::getenv("JOINERY_STUDY_TEST_FAULT");
  if (!env) return;
  std::stringstream ss(env);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos || std::atol(item.c_str() + colon + 1) != index) continue;
    const std::string what = item.substr(0, colon);
    if (what == "crash") std::abort();
    if (what == "hang")
      for (;;) pause();
    if (what == "throw") throw std::runtime_error("test fault: an unexpected exception");
  }
}
}  // namespace

bool isRunFigure(const std::string& name) {
  return std::find(kRunFigures.begin(), kRunFigures.end(), name) != kRunFigures.end();
}
std::string runFigureNames() { return "steps, evaluations, t, wall_s"; }

std::vector<std::string> runColumns(const Scene& scene) {
  ModelSystem system(scene.model);
  return CsvRecorder::columns(system.coordinateNames());
}

void ColumnStats::add(double t, double x) {
  if (!std::isfinite(x)) return;
  if (count == 0 || x < min) min = x, tMin = t;
  if (count == 0 || x > max) max = x, tMax = t;
  final = x;
  sumSquares += x * x;
  ++count;
}

std::optional<double> ColumnStats::get(const std::string& stat) const {
  if (count == 0) return std::nullopt;
  if (stat == "min") return min;
  if (stat == "max") return max;
  if (stat == "t_min") return tMin;
  if (stat == "t_max") return tMax;
  if (stat == "final") return final;
  if (stat == "rms") return std::sqrt(sumSquares / static_cast<double>(count));
  return std::nullopt;
}

void SummaryRecorder::begin(const std::vector<std::string>& coordinateNames) {
  const auto columns = CsvRecorder::columns(coordinateNames);
  index_.clear();
  for (const auto& w : wanted_) {
    const auto it = std::find(columns.begin(), columns.end(), w);
    if (it == columns.end()) throw InputError("the run has no column '" + w + "'" + didYouMean(w, columns));
    index_.push_back(static_cast<int>(it - columns.begin()));
  }
  stats_.assign(wanted_.size(), ColumnStats{});
  row_.assign(columns.size(), 0.0);
}

void SummaryRecorder::record(const Sample& s) {
  // the CSV row of CsvRecorder: t, q, v, energy, position_residual, velocity_residual
  std::size_t k = 0;
  row_[k++] = s.state.t;
  for (Eigen::Index i = 0; i < s.state.q.size(); ++i) row_[k++] = s.state.q(i);
  for (Eigen::Index i = 0; i < s.state.v.size(); ++i) row_[k++] = s.state.v(i);
  row_[k++] = s.energy ? *s.energy : std::nan("");
  row_[k++] = s.residuals.position;
  row_[k++] = s.residuals.velocity;
  for (std::size_t w = 0; w < index_.size(); ++w) stats_[w].add(s.state.t, row_[static_cast<std::size_t>(index_[w])]);
}

const ColumnStats& SummaryRecorder::stats(const std::string& column) const {
  const auto it = std::find(wanted_.begin(), wanted_.end(), column);
  return stats_[static_cast<std::size_t>(it - wanted_.begin())];
}

namespace {
void fillCollected(const Study& study, const SimulationResult& r, const SummaryRecorder& summary, Row& row) {
  for (const auto& item : study.collect) {
    std::optional<double> v;
    if (item.column.empty()) {
      if (item.stat == "steps") v = static_cast<double>(r.stats.integrator.steps);
      if (item.stat == "evaluations") v = static_cast<double>(r.stats.integrator.evaluations);
      if (item.stat == "t") v = r.t;
      if (item.stat == "wall_s") v = r.stats.wallSeconds;
    } else {
      v = summary.stats(item.column).get(item.stat);
    }
    row.collected.push_back(v);
  }
}

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
  try {
    testFault(c.index);
    SceneOptions sceneOptions;
    sceneOptions.overrides = caseOverrides(study, c);
    const Scene scene = sceneFromJson(study.scene, study.sceneFile, sceneOptions);
    std::vector<std::string> wanted;
    for (const auto& item : study.collect)
      if (!item.column.empty()) wanted.push_back(item.column);
    SummaryRecorder summary(wanted);
    ModelSystem system(scene.model);
    const SimulationSettings settings = parseSimulationSettings(scene.simulation);
    SimulationResult r;
    if (options.csvFolder.empty()) {
      r = runSimulation(system, settings, summary);
    } else {
      CsvRecorder csv(caseCsvPath(options.csvFolder, c.index));
      TeeRecorder tee(summary, csv);
      r = runSimulation(system, settings, tee);
    }
    row.exit = cli::exitCode(r.outcome);
    row.message = r.message;
    if (r.completed()) fillCollected(study, r, summary, row);
  } catch (const InputError& e) {
    row.exit = cli::kInvalidInput;
    row.message = e.what();
  } catch (const SimulationError& e) {
    row.exit = cli::kRunFailed;
    row.message = e.what();
  } catch (const Error& e) {
    row.exit = cli::kInvalidInput;
    row.message = e.what();
  } catch (const std::exception& e) {
    row.exit = cli::kInternal;
    row.message = std::string("internal error: ") + e.what();
  } catch (...) {
    row.exit = cli::kInternal;
    row.message = "internal error: an unknown exception";
  }
  if (row.exit != 0) row.collected.clear();
  return row;
}

}  // namespace joinery::study
