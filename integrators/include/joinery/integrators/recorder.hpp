#pragma once
/// @file recorder.hpp
/// Where the samples of a run go. The run calls begin() once, record() for every sample as
/// soon as it is produced, and end() once, whether the run completed or not.

#include <fstream>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/dynamic_system.hpp"

namespace joinery {

struct SimulationResult;

/// One output sample. Every value is finite (the run never records a non-finite state).
struct Sample {
  const State& state;
  std::optional<double> energy;   ///< kinetic + potential, when the system defines it
  ConstraintResiduals residuals;  ///< max |phi|, max |phi'| / |psi| at this sample
};

class Recorder {
 public:
  virtual ~Recorder() = default;
  /// Called before the first sample with the coordinate names (n).
  virtual void begin(const std::vector<std::string>& coordinateNames) = 0;
  virtual void record(const Sample& s) = 0;
  /// Called once at the end of the run (also after a failure).
  virtual void end(const SimulationResult& result) { (void)result; }
  /// Asked after every record(): true ends the run there with RunOutcome::Stopped (the
  /// samples so far are kept; a sample inside a step ends the run at the end of that step).
  virtual bool stopRequested() const { return false; }
};

/// Discards everything.
class NullRecorder final : public Recorder {
 public:
  void begin(const std::vector<std::string>&) override {}
  void record(const Sample&) override {}
};

/// Keeps every sample in memory.
class MemoryRecorder final : public Recorder {
 public:
  void begin(const std::vector<std::string>& coordinateNames) override;
  void record(const Sample& s) override;

  std::vector<std::string> names;
  std::vector<double> t;
  std::vector<VectorXd> q, v;
  std::vector<std::optional<double>> energy;
  std::vector<double> positionResidual, velocityResidual;
  std::size_t size() const noexcept { return t.size(); }
};

/// Writes CSV: header `t`, every coordinate name (`body.coord`), every velocity
/// (`body.coord_dot`), then `energy`, `position_residual`, `velocity_residual`. One line per
/// sample, written and flushed as soon as the sample is produced, so that a run that dies
/// keeps every sample so far. Numbers use the shortest representation that reads back to
/// the same double; an undefined energy is an empty field.
class CsvRecorder final : public Recorder {
 public:
  /// Writes to a file (created or truncated). @throws InputError if it cannot be opened.
  explicit CsvRecorder(const std::string& path);
  /// Writes to a stream the caller owns (kept alive for the recorder's lifetime).
  explicit CsvRecorder(std::ostream& out);
  ~CsvRecorder() override;

  void begin(const std::vector<std::string>& coordinateNames) override;
  /// @throws SimulationError if the line cannot be written (disk full, closed pipe).
  void record(const Sample& s) override;
  void end(const SimulationResult& result) override;

  /// The column names of the CSV header for these coordinate names.
  static std::vector<std::string> columns(const std::vector<std::string>& coordinateNames);

 private:
  void writeNumber(double x);
  std::ofstream file_;
  std::ostream* out_;
  std::string path_;
  std::string line_;
};

}  // namespace joinery
