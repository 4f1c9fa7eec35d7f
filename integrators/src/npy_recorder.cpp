// The NumPy .npy table (run_outputs.hpp): a structured array of float64 fields, one per column.
#include <bit>
#include <cstdint>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/run_outputs.hpp"

namespace joinery {

namespace {
static_assert(std::endian::native == std::endian::little, "the npy writer assumes a little-endian machine");

constexpr std::size_t kMagicSize = 6 + 2;  // "\x93NUMPY" and the version
constexpr std::size_t kRowDigits = 20;     // room for any row count in the rewritten header

std::string headerDict(const std::vector<std::string>& columns, long long rows) {
  std::string d = "{'descr': [";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) d += ", ";
    d += "('" + columns[i] + "', '<f8')";
  }
  d += "], 'fortran_order': False, 'shape': (" + std::to_string(rows) + ",), }";
  return d;
}
}  // namespace

NpyRecorder::NpyRecorder(const std::string& path, TableLayout layout) : path_(path), layout_(std::move(layout)) {
  file_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!file_) throw InputError("cannot open the output file for writing", path);
}

void NpyRecorder::writeHeader(long long rows) {
  std::string dict = headerDict(columns_, rows);
  const std::size_t lenField = version2_ ? 4 : 2;
  const std::size_t dictRoom = headerSize_ - kMagicSize - lenField;
  if (dict.size() + 1 > dictRoom) throw SimulationError("npy header does not fit (internal error)");
  dict.append(dictRoom - dict.size() - 1, ' ');
  dict += '\n';
  std::string h = "\x93NUMPY";
  h += static_cast<char>(lenField == 2 ? 1 : 2);
  h += static_cast<char>(0);
  const auto n = static_cast<std::uint32_t>(dict.size());
  for (std::size_t k = 0; k < lenField; ++k) h += static_cast<char>((n >> (8 * k)) & 0xffu);
  h += dict;
  file_.seekp(0);
  file_.write(h.data(), static_cast<std::streamsize>(h.size()));
}

void NpyRecorder::begin(const std::vector<std::string>& coordinateNames) {
  columns_ = tableColumns(coordinateNames, layout_);
  row_.assign(columns_.size(), 0.0);
  rows_ = 0;
  const std::size_t dict = headerDict(columns_, 0).size() + kRowDigits + 1;
  std::size_t total = kMagicSize + 2 + dict;
  version2_ = total > 65535;
  if (version2_) total = kMagicSize + 4 + dict;  // format version 2.0: 4-byte header length
  headerSize_ = (total + 63) / 64 * 64;             // the data starts 64-byte aligned
  writeHeader(0);
  file_.flush();
  if (!file_) throw SimulationError("cannot write the npy header to " + path_);
}

void NpyRecorder::record(const Sample& s) {
  fillRow(s, layout_, row_.data());
  file_.write(reinterpret_cast<const char*>(row_.data()), static_cast<std::streamsize>(row_.size() * sizeof(double)));
  if (!file_) throw SimulationError("cannot write a sample to the npy output " + path_);
  ++rows_;
}

void NpyRecorder::end(const SimulationResult&) {
  writeHeader(rows_);
  file_.seekp(0, std::ios::end);
  file_.flush();
  if (!file_) throw SimulationError("cannot finish the npy output " + path_);
}

}  // namespace joinery
