#pragma once
/// @file recorder.hpp
/// Where the samples of a run go. The run calls begin() once, record() for every sample as
/// soon as it is produced, and end() once, whether the run completed or not.

#include <fstream>
#include <iosfwd>
#include <optional>
#include <span>
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
  /// Accelerations q'' at this state, when requested (ChannelRecorder fills them).
  const VectorXd* accelerations = nullptr;
  /// Values of the output channels (OutputChannels::columns() order), when there are any.
  std::span<const double> channels{};
};

/// The columns of a run's table (CSV, npy, summary): `t`, every coordinate, every velocity
/// (`_dot`), with `accelerations` every acceleration (`_ddot`), then `energy`,
/// `position_residual`, `velocity_residual`, then the output channels' columns.
struct TableLayout {
  bool accelerations = false;
  std::vector<std::string> channels;  ///< OutputChannels::columns()
  /// Results in units other than SI (`simulate --units scene`): column k's value is divided
  /// by divisors[k], and its name written "name [unitLabels[k]]" where that label is not
  /// empty. Both empty (the default): SI, names as they are. When given, each has one entry
  /// per column of tableColumns().
  std::vector<double> divisors{};
  std::vector<std::string> unitLabels{};
};

/// The column names of the table for these coordinate names.
std::vector<std::string> tableColumns(const std::vector<std::string>& coordinateNames,
                                      const TableLayout& layout);
/// Index of the `energy` column in tableColumns().
std::size_t energyColumn(std::size_t numCoordinates, const TableLayout& layout);
/// One row of the table (tableColumns().size() values) from a sample; an undefined energy is
/// NaN. @throws SimulationError when the layout asks for accelerations or channels the sample
/// does not carry.
void fillRow(const Sample& s, const TableLayout& layout, double* row);

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
  std::vector<VectorXd> qdd;                   ///< when the samples carry accelerations
  std::vector<std::vector<double>> channels;   ///< when the samples carry channel values
  std::size_t size() const noexcept { return t.size(); }
};

/// Writes CSV: header `t`, every coordinate name (`body.coord`), every velocity
/// (`body.coord_dot`), then `energy`, `position_residual`, `velocity_residual` (the columns of
/// tableColumns(): accelerations and output channels when the layout has them). One line per
/// sample, written and flushed as soon as the sample is produced, so that a run that dies
/// keeps every sample so far. Numbers use the shortest representation that reads back to
/// the same double; an undefined energy is an empty field.
class CsvRecorder final : public Recorder {
 public:
  /// Writes to a file (created or truncated). @throws InputError if it cannot be opened.
  explicit CsvRecorder(const std::string& path, TableLayout layout = {});
  /// Writes to a stream the caller owns (kept alive for the recorder's lifetime).
  explicit CsvRecorder(std::ostream& out, TableLayout layout = {});
  ~CsvRecorder() override;

  void begin(const std::vector<std::string>& coordinateNames) override;
  /// @throws SimulationError if the line cannot be written (disk full, closed pipe); a file
  /// is then cut back to its last complete line.
  void record(const Sample& s) override;
  void end(const SimulationResult& result) override;

  /// The column names of the CSV header for these coordinate names.
  static std::vector<std::string> columns(const std::vector<std::string>& coordinateNames);

 private:
  void writeNumber(double x);
  /// Writes line_ and flushes; on failure cuts a file back to its last complete line (no
  /// torn row) and throws SimulationError(`what` + the path + the system's reason).
  void writeLine(const char* what);
  std::size_t written_ = 0;  ///< bytes of complete lines written
  std::ofstream file_;
  std::ostream* out_;
  std::string path_;
  std::string line_;
  TableLayout layout_;
  std::vector<double> row_;
  std::size_t energyColumn_ = 0;
};

}  // namespace joinery
