#pragma once
/// @file run_outputs.hpp
/// What a run writes besides the CSV (docs/outputs.md): output channels and accelerations
/// evaluated at every sample (ChannelRecorder), the run summary of `simulate --summary`
/// (SummaryRecorder), a NumPy `.npy` table (NpyRecorder), and several recorders at once
/// (TeeRecorder).
///
///     OutputChannels channels(scene.model, scene.outputs);
///     TableLayout layout{accelerations, channels.columns()};
///     CsvRecorder csv(path, layout);
///     SummaryRecorder summary(layout);
///     TeeRecorder both({&csv, &summary});
///     ChannelRecorder rec(system, channels, accelerations, both);
///     SimulationResult r = runSimulation(system, settings, rec);
///     nlohmann::json j = summary.toJson();

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/model_system.hpp"
#include "joinery/core/outputs.hpp"
#include "joinery/integrators/recorder.hpp"

namespace joinery {

/// Forwards every call to each of its recorders, in order.
class TeeRecorder final : public Recorder {
 public:
  explicit TeeRecorder(std::vector<Recorder*> recorders) : recorders_(std::move(recorders)) {}
  void begin(const std::vector<std::string>& coordinateNames) override;
  void record(const Sample& s) override;
  void end(const SimulationResult& result) override;
  /// True when any of its recorders asks to stop.
  bool stopRequested() const override;

 private:
  std::vector<Recorder*> recorders_;
};

/// Evaluates the output channels (and, on request, the accelerations) at every sample and
/// hands the sample on to `inner` with them. A channel that is NaN or infinite stops the run
/// (SimulationError naming the channel, the column and the time: outcome Failed, exit 5);
/// the samples written before stay. Buffers are sized at begin(): no allocation per sample
/// beyond what the system's solve and the joint results need. Accelerations and joint results
/// come from one solve at the sample's state, shared by every channel; on the structured path
/// it reuses the factorization of the sample's velocity projection (ModelSystem::
/// reusedFactorizations), with the answer of a solve from scratch.
class ChannelRecorder final : public Recorder {
 public:
  /// `system` must be the ModelSystem of the model `channels` was compiled against; all
  /// references must outlive the recorder.
  ChannelRecorder(ModelSystem& system, const OutputChannels& channels, bool accelerations, Recorder& inner);
  ~ChannelRecorder() override;
  void begin(const std::vector<std::string>& coordinateNames) override;
  void record(const Sample& s) override;
  void end(const SimulationResult& result) override;
  /// What the wrapped recorder says (a Python callback, a TeeRecorder, ...).
  bool stopRequested() const override { return inner_.stopRequested(); }

 private:
  struct Buffers;
  ModelSystem& system_;
  const OutputChannels& channels_;
  bool accelerations_;
  Recorder& inner_;
  std::unique_ptr<Buffers> buf_;
};

/// Per-column statistics over a run's samples and the run's figures: the JSON of
/// `simulate --summary` (toJson()).
class SummaryRecorder final : public Recorder {
 public:
  explicit SummaryRecorder(TableLayout layout = {});
  void begin(const std::vector<std::string>& coordinateNames) override;
  void record(const Sample& s) override;
  void end(const SimulationResult& result) override;

  /// {"outcome", "t", "steps", "evaluations", "wall_s", "samples", "message",
  ///  "energy": {"initial", "final", "max_abs_drift"},
  ///  "channels": {COLUMN: {"min", "t_min", "max", "t_max", "final", "rms"}}} for every column
  /// but `t`. `initial` is the energy of the first sample: the state after the initial
  /// conditions were made consistent. Undefined values (no energy) are null.
  nlohmann::json toJson() const;

  struct Stat {
    double min = 0, tMin = 0, max = 0, tMax = 0, final = 0, sumSquares = 0;
    long long count = 0;
  };
  const std::vector<std::string>& columns() const noexcept { return columns_; }
  const std::vector<Stat>& stats() const noexcept { return stats_; }
  /// Energy of the first / last sample and the largest |E - E_first| (NaN when undefined).
  double energyInitial() const noexcept { return e0_; }
  double energyFinal() const noexcept { return e1_; }
  double energyMaxDrift() const noexcept { return eDrift_; }

 private:
  TableLayout layout_;
  std::vector<std::string> columns_;
  std::vector<Stat> stats_;
  std::vector<double> row_;
  std::size_t energyColumn_ = 0;
  double e0_, e1_, eDrift_;
  nlohmann::json run_;
};

/// Writes the table as a NumPy `.npy` file: a one-dimensional structured array, one record per
/// sample, one little-endian float64 field per column named as in the CSV
/// (`numpy.load("run.npy")["bob.x"]`). Rows are written as they come; the header's row count
/// is rewritten at end() (also after a failed run, so the samples so far stay readable). An
/// undefined energy is NaN.
class NpyRecorder final : public Recorder {
 public:
  /// @throws InputError if the file cannot be opened.
  explicit NpyRecorder(const std::string& path, TableLayout layout = {});
  void begin(const std::vector<std::string>& coordinateNames) override;
  void record(const Sample& s) override;
  void end(const SimulationResult& result) override;

 private:
  void writeHeader(long long rows);
  std::ofstream file_;
  std::string path_;
  TableLayout layout_;
  std::vector<std::string> columns_;
  std::vector<double> row_;
  long long rows_ = 0;
  std::size_t headerSize_ = 0;
  bool version2_ = false;
};

}  // namespace joinery
