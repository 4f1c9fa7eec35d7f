// Recorders: in memory and streamed CSV.
#include "joinery/integrators/recorder.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <ostream>
#include <system_error>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {

void MemoryRecorder::begin(const std::vector<std::string>& coordinateNames) { names = coordinateNames; }

std::vector<std::string> tableColumns(const std::vector<std::string>& coordinateNames,
                                      const TableLayout& layout) {
  std::vector<std::string> cols;
  cols.reserve(3 * coordinateNames.size() + 4 + layout.channels.size());
  cols.emplace_back("t");
  for (const auto& n : coordinateNames) cols.push_back(n);
  for (const auto& n : coordinateNames) cols.push_back(n + "_dot");
  if (layout.accelerations)
    for (const auto& n : coordinateNames) cols.push_back(n + "_ddot");
  cols.emplace_back("energy");
  cols.emplace_back("position_residual");
  cols.emplace_back("velocity_residual");
  cols.insert(cols.end(), layout.channels.begin(), layout.channels.end());
  if (!layout.unitLabels.empty()) {
    if (layout.unitLabels.size() != cols.size())
      throw SimulationError("the table has " + std::to_string(cols.size()) + " columns but " +
                            std::to_string(layout.unitLabels.size()) + " unit labels");
    for (std::size_t k = 0; k < cols.size(); ++k)
      if (!layout.unitLabels[k].empty()) cols[k] += " [" + layout.unitLabels[k] + "]";
  }
  return cols;
}

std::size_t energyColumn(std::size_t n, const TableLayout& layout) {
  return 1 + (layout.accelerations ? 3 : 2) * n;
}

void fillRow(const Sample& s, const TableLayout& layout, double* row) {
  const auto n = static_cast<std::size_t>(s.state.q.size());
  std::size_t k = 0;
  row[k++] = s.state.t;
  for (std::size_t i = 0; i < n; ++i) row[k++] = s.state.q(static_cast<Eigen::Index>(i));
  for (std::size_t i = 0; i < n; ++i) row[k++] = s.state.v(static_cast<Eigen::Index>(i));
  if (layout.accelerations) {
    if (!s.accelerations || static_cast<std::size_t>(s.accelerations->size()) != n)
      throw SimulationError("the output asks for accelerations but the sample has none");
    for (std::size_t i = 0; i < n; ++i) row[k++] = (*s.accelerations)(static_cast<Eigen::Index>(i));
  }
  row[k++] = s.energy ? *s.energy : std::numeric_limits<double>::quiet_NaN();
  row[k++] = s.residuals.position;
  row[k++] = s.residuals.velocity;
  if (s.channels.size() != layout.channels.size())
    throw SimulationError("the output has " + std::to_string(layout.channels.size()) +
                          " channel columns but the sample carries " + std::to_string(s.channels.size()));
  for (double x : s.channels) row[k++] = x;
  if (!layout.divisors.empty()) {
    if (layout.divisors.size() != k)
      throw SimulationError("the table has " + std::to_string(k) + " columns but " +
                            std::to_string(layout.divisors.size()) + " unit divisors");
    for (std::size_t i = 0; i < k; ++i) row[i] /= layout.divisors[i];
  }
}

void MemoryRecorder::record(const Sample& s) {
  t.push_back(s.state.t);
  q.push_back(s.state.q);
  v.push_back(s.state.v);
  energy.push_back(s.energy);
  positionResidual.push_back(s.residuals.position);
  velocityResidual.push_back(s.residuals.velocity);
  if (s.accelerations) qdd.push_back(*s.accelerations);
  if (!s.channels.empty()) channels.emplace_back(s.channels.begin(), s.channels.end());
}

CsvRecorder::CsvRecorder(const std::string& path, TableLayout layout)
    : out_(nullptr), path_(path), layout_(std::move(layout)) {
  file_.open(path, std::ios::out | std::ios::trunc);
  if (!file_) throw InputError("cannot open the output file for writing", path);
  out_ = &file_;
}

CsvRecorder::CsvRecorder(std::ostream& out, TableLayout layout) : out_(&out), layout_(std::move(layout)) {}

CsvRecorder::~CsvRecorder() = default;

std::vector<std::string> CsvRecorder::columns(const std::vector<std::string>& coordinateNames) {
  return tableColumns(coordinateNames, TableLayout{});
}

void CsvRecorder::begin(const std::vector<std::string>& coordinateNames) {
  const std::vector<std::string> cols = tableColumns(coordinateNames, layout_);
  row_.assign(cols.size(), 0.0);
  energyColumn_ = energyColumn(coordinateNames.size(), layout_);
  line_.clear();
  bool first = true;
  for (const auto& c : cols) {
    if (!first) line_ += ',';
    line_ += c;
    first = false;
  }
  line_ += '\n';
  errno = 0;
  writeLine("cannot write the CSV header");
}

void CsvRecorder::writeLine(const char* what) {
  out_->write(line_.data(), static_cast<std::streamsize>(line_.size()));
  out_->flush();  // a run that dies keeps every sample so far
  if (*out_) {
    written_ += line_.size();
    return;
  }
  const int err = errno;
  std::string msg = std::string(what) + (path_.empty() ? "" : " to " + path_);
  if (err != 0) msg += std::string(": ") + std::strerror(err);
  if (!path_.empty()) {
    // never leave a torn last line: cut the file back to the last complete one
    file_.clear();
    file_.close();
    std::error_code ec;
    if (std::filesystem::is_regular_file(path_, ec)) std::filesystem::resize_file(path_, written_, ec);
  }
  throw SimulationError(msg);
}

void CsvRecorder::writeNumber(double x) {
  if (!std::isfinite(x))
    throw SimulationError("refusing to write a non-finite value to the CSV output");
  char buf[32];
  // shortest representation that reads back to the same double
  const auto res = std::to_chars(buf, buf + sizeof buf, x);
  line_.append(buf, res.ptr);
}

void CsvRecorder::record(const Sample& s) {
  if (row_.empty()) throw SimulationError("CsvRecorder::record before begin");
  fillRow(s, layout_, row_.data());
  line_.clear();
  for (std::size_t i = 0; i < row_.size(); ++i) {
    if (i > 0) line_ += ',';
    if (i == energyColumn_ && !std::isfinite(row_[i])) continue;  // undefined energy: empty field
    writeNumber(row_[i]);
  }
  line_ += '\n';
  errno = 0;
  writeLine("cannot write a sample");
}

void CsvRecorder::end(const SimulationResult& result) {
  (void)result;
  if (!path_.empty() && !file_.is_open()) return;  // closed after a write error
  out_->flush();
}

}  // namespace joinery
