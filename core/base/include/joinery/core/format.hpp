#pragma once
/// @file format.hpp
/// Text for messages and reports: numbers with a given number of significant digits (as
/// std::ostream with that precision prints them), numbers in their shortest exact form, and
/// lists of names.
#include <charconv>
#include <sstream>
#include <string>
#include <vector>

namespace joinery {

inline std::string formatNumber(double v, int significantDigits = 6) {
  std::ostringstream os;
  os.precision(significantDigits);
  os << v;
  return os.str();
}

/// The shortest text that reads back as exactly `v` (std::to_chars): numbers written into
/// expressions, tables and scene texts.
inline std::string formatExact(double v) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

/// "a, b, c"
inline std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace joinery
