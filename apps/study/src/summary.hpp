#pragma once
// The run summary a study collects from: per CSV column min, t_min, max, t_max, final, rms,
// and run figures (steps, evaluations, t, wall_s).
//
// INTERIM: the output channels and `simulate --summary` of the results issue (branch h14b)
// will provide the columns and their statistics as library code; when they land this file
// switches to them (one implementation only). Until then the columns are those of
// CsvRecorder and the statistics are computed here over the written samples.

#include <optional>
#include <string>
#include <vector>

#include "joinery/core/scene.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/study/study.hpp"

namespace joinery::study {

/// The CSV columns a run of this scene writes (`t` included).
std::vector<std::string> runColumns(const Scene& scene);

bool isRunFigure(const std::string& name);
std::string runFigureNames();

/// The overrides of one case.
std::vector<Override> caseOverrides(const Study& s, const Case& c);

/// Statistics of a column over the samples: min/max with the first time they occur, the
/// last value, the root mean square of the samples.
struct ColumnStats {
  double min = 0, tMin = 0, max = 0, tMax = 0, final = 0, sumSquares = 0;
  long count = 0;
  void add(double t, double x);
  std::optional<double> get(const std::string& stat) const;
};

/// A recorder that keeps the statistics of the columns `wanted` (names of runColumns()).
class SummaryRecorder final : public Recorder {
 public:
  explicit SummaryRecorder(std::vector<std::string> wanted) : wanted_(std::move(wanted)) {}
  /// @throws InputError for a wanted column the run does not write.
  void begin(const std::vector<std::string>& coordinateNames) override;
  void record(const Sample& s) override;
  const ColumnStats& stats(const std::string& column) const;

 private:
  std::vector<std::string> wanted_;
  std::vector<int> index_;  // column index in the CSV row
  std::vector<ColumnStats> stats_;
  std::vector<double> row_;
};

/// Sends every call to two recorders.
class TeeRecorder final : public Recorder {
 public:
  TeeRecorder(Recorder& a, Recorder& b) : a_(a), b_(b) {}
  void begin(const std::vector<std::string>& names) override { a_.begin(names); b_.begin(names); }
  void record(const Sample& s) override { a_.record(s); b_.record(s); }
  void end(const SimulationResult& r) override { a_.end(r); b_.end(r); }

 private:
  Recorder& a_;
  Recorder& b_;
};

}  // namespace joinery::study
