#pragma once
/// @file format.hpp
/// Numbers in messages and reports: the shortest form with a given number of significant
/// digits (as std::ostream with that precision prints it).
#include <sstream>
#include <string>

namespace joinery {

inline std::string formatNumber(double v, int significantDigits = 6) {
  std::ostringstream os;
  os.precision(significantDigits);
  os << v;
  return os.str();
}

}  // namespace joinery
