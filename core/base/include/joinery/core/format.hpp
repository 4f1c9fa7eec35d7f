#pragma once
/// @file format.hpp
/// Text for messages and reports: numbers with a given number of significant digits (as
/// std::ostream with that precision prints them) and lists of names.
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

/// "a, b, c"
inline std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace joinery
