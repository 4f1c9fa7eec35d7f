// Matrix Market reader (https://math.nist.gov/MatrixMarket/formats.html): the dense square
// real matrices a `linear` body takes from files. Written here, no dependency.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "joinery/bodies/flexible.hpp"

namespace joinery {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& message) { throw std::runtime_error(message); }
[[noreturn]] void failAt(long line, const std::string& message) {
  fail("line " + std::to_string(line) + ": " + message);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool isBlank(const std::string& line) {
  return std::all_of(line.begin(), line.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

long long readInteger(const std::string& w, long line, const std::string& what) {
  long long v = 0;
  const auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec != std::errc() || p != w.data() + w.size()) failAt(line, "'" + w + "' is not an integer (" + what + ")");
  return v;
}

double readReal(const std::string& w, long line) {
  double v = 0;
  const char* b = w.data();
  if (!w.empty() && w[0] == '+') ++b;  // from_chars rejects a leading '+'
  const auto [p, ec] = std::from_chars(b, w.data() + w.size(), v);
  if (ec != std::errc() || p != w.data() + w.size()) failAt(line, "'" + w + "' is not a real number");
  if (!std::isfinite(v)) failAt(line, "'" + w + "' is not finite");
  return v;
}

struct Header {
  bool coordinate = false;
  bool symmetric = false;
};

Header readHeader(const std::string& line) {
  const std::vector<std::string> w = words(line);
  const std::string expected =
      "expected the header '%%MatrixMarket matrix coordinate|array real general|symmetric'";
  if (w.empty() || lower(w[0]) != "%%matrixmarket") failAt(1, "not a Matrix Market file; " + expected);
  if (w.size() != 5) failAt(1, "the header has " + std::to_string(w.size()) + " words; " + expected);
  if (lower(w[1]) != "matrix") failAt(1, "object '" + w[1] + "' is not supported; " + expected);
  Header h;
  const std::string format = lower(w[2]), field = lower(w[3]), symmetry = lower(w[4]);
  if (format != "coordinate" && format != "array")
    failAt(1, "format '" + w[2] + "' is not supported; " + expected);
  if (field != "real" && field != "integer" && field != "double")
    failAt(1, "field '" + w[3] + "' is not supported (a real matrix is needed); " + expected);
  if (symmetry != "general" && symmetry != "symmetric")
    failAt(1, "symmetry '" + w[4] + "' is not supported; " + expected);
  h.coordinate = format == "coordinate";
  h.symmetric = symmetry == "symmetric";
  return h;
}

void checkFile(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) fail("cannot open the matrix file (no such file)");
  if (!fs::is_regular_file(st)) fail("the matrix file is not a regular file");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) fail("cannot read the size of the matrix file");
  if (size > kMaxMatrixFileBytes)
    fail("the matrix file has " + std::to_string(size) + " bytes; the limit is " +
         std::to_string(kMaxMatrixFileBytes) + " (16 MiB)");
}

}  // namespace

MatrixXd readMatrixMarket(const std::string& path, int n) {
  checkFile(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open the matrix file");
  std::string line;
  long lineNo = 1;
  if (!std::getline(in, line)) fail("the matrix file is empty");
  const Header h = readHeader(line);
  // comments and blank lines, then the size line
  std::vector<std::string> w;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.starts_with('%') || isBlank(line)) continue;
    w = words(line);
    break;
  }
  if (w.empty()) fail("no size line after the header");
  if (w.size() != (h.coordinate ? 3u : 2u))
    failAt(lineNo, std::string("the size line must be '") + (h.coordinate ? "rows cols entries" : "rows cols") + "'");
  const long long rows = readInteger(w[0], lineNo, "rows"), cols = readInteger(w[1], lineNo, "columns");
  if (rows != n || cols != n)
    failAt(lineNo, "the matrix is " + std::to_string(rows) + " x " + std::to_string(cols) + "; expected " +
                       std::to_string(n) + " x " + std::to_string(n) + " (one row per coordinate)");
  const long long full = static_cast<long long>(n) * n;
  const long long triangle = static_cast<long long>(n) * (n + 1) / 2;
  long long count = h.coordinate ? readInteger(w[2], lineNo, "entries") : (h.symmetric ? triangle : full);
  if (count < 0 || count > (h.symmetric ? triangle : full) * 64)
    failAt(lineNo, "entry count " + std::to_string(count) + " is out of range");
  MatrixXd A = MatrixXd::Zero(n, n);
  long long k = 0;  // entries read
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.starts_with('%') || isBlank(line)) continue;
    if (k == count) failAt(lineNo, "more entries than the " + std::to_string(count) + " announced");
    w = words(line);
    if (h.coordinate) {
      if (w.size() != 3) failAt(lineNo, "a coordinate entry is 'row col value'");
      const long long i = readInteger(w[0], lineNo, "row"), j = readInteger(w[1], lineNo, "column");
      if (i < 1 || i > n || j < 1 || j > n)
        failAt(lineNo, "entry (" + w[0] + ", " + w[1] + ") is outside 1.." + std::to_string(n));
      if (h.symmetric && j > i)
        failAt(lineNo, "entry (" + w[0] + ", " + w[1] + ") is above the diagonal; a symmetric file stores the lower triangle");
      const double v = readReal(w[2], lineNo);
      A(i - 1, j - 1) += v;
      if (h.symmetric && i != j) A(j - 1, i - 1) += v;
    } else {
      if (w.size() != 1) failAt(lineNo, "an array entry is one value per line");
      const double v = readReal(w[0], lineNo);
      // column-major; a symmetric array lists the lower triangle column by column
      long long col = 0, row = k;
      if (h.symmetric) {
        while (row >= n - col) row -= n - col++;
        row += col;
      } else {
        col = k / n;
        row = k % n;
      }
      A(row, col) = v;
      if (h.symmetric) A(col, row) = v;
    }
    ++k;
  }
  if (k != count)
    fail("the file ends after " + std::to_string(k) + " entries; " + std::to_string(count) + " were announced");
  return A;
}

}  // namespace joinery
