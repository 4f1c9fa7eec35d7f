// Recorders: in memory and streamed CSV.
#include "joinery/integrators/recorder.hpp"

#include <charconv>
#include <cmath>
#include <ostream>
#include <system_error>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {

void MemoryRecorder::begin(const std::vector<std::string>& coordinateNames) { names = coordinateNames; }

void MemoryRecorder::record(const Sample& s) {
  t.push_back(s.state.t);
  q.push_back(s.state.q);
  v.push_back(s.state.v);
  energy.push_back(s.energy);
  positionResidual.push_back(s.residuals.position);
  velocityResidual.push_back(s.residuals.velocity);
}

CsvRecorder::CsvRecorder(const std::string& path) : out_(nullptr), path_(path) {
  file_.open(path, std::ios::out | std::ios::trunc);
  if (!file_) throw InputError("cannot open the output file for writing", path);
  out_ = &file_;
}

CsvRecorder::CsvRecorder(std::ostream& out) : out_(&out) {}

CsvRecorder::~CsvRecorder() = default;

std::vector<std::string> CsvRecorder::columns(const std::vector<std::string>& coordinateNames) {
  std::vector<std::string> cols;
  cols.reserve(2 * coordinateNames.size() + 4);
  cols.emplace_back("t");
  for (const auto& n : coordinateNames) cols.push_back(n);
  for (const auto& n : coordinateNames) cols.push_back(n + "_dot");
  cols.emplace_back("energy");
  cols.emplace_back("position_residual");
  cols.emplace_back("velocity_residual");
  return cols;
}

void CsvRecorder::begin(const std::vector<std::string>& coordinateNames) {
  line_.clear();
  bool first = true;
  for (const auto& c : columns(coordinateNames)) {
    if (!first) line_ += ',';
    line_ += c;
    first = false;
  }
  line_ += '\n';
  out_->write(line_.data(), static_cast<std::streamsize>(line_.size()));
  out_->flush();
  if (!*out_) throw SimulationError("cannot write the CSV header" + (path_.empty() ? "" : " to " + path_));
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
  line_.clear();
  writeNumber(s.state.t);
  for (Eigen::Index i = 0; i < s.state.q.size(); ++i) {
    line_ += ',';
    writeNumber(s.state.q(i));
  }
  for (Eigen::Index i = 0; i < s.state.v.size(); ++i) {
    line_ += ',';
    writeNumber(s.state.v(i));
  }
  line_ += ',';
  if (s.energy && std::isfinite(*s.energy)) writeNumber(*s.energy);
  line_ += ',';
  writeNumber(s.residuals.position);
  line_ += ',';
  writeNumber(s.residuals.velocity);
  line_ += '\n';
  out_->write(line_.data(), static_cast<std::streamsize>(line_.size()));
  out_->flush();  // a run that dies keeps every sample so far
  if (!*out_)
    throw SimulationError("cannot write a sample to the CSV output" + (path_.empty() ? "" : " " + path_));
}

void CsvRecorder::end(const SimulationResult& result) {
  (void)result;
  out_->flush();
}

}  // namespace joinery
