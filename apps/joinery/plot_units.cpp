// Units of table columns (plot_units.hpp).
#include "plot_units.hpp"

#include <array>
#include <utility>

namespace joinery::cli {

std::string columnUnit(const std::string& column) {
  // a study's collected column: COLUMN:STATISTIC (max, min, final, rms, ...)
  const std::string name = column.substr(0, column.find(':'));
  if (name == "t") return "s";
  if (name == "energy") return "J";
  const auto dot = name.rfind('.');
  if (dot == std::string::npos) return "";
  std::string last = name.substr(dot + 1);
  static const std::array<std::pair<const char*, const char*>, 13> kLast{{
      {"fx", "N"}, {"fy", "N"}, {"fz", "N"}, {"tx", "N·m"}, {"ty", "N·m"}, {"tz", "N·m"}, {"power", "W"},
      {"vx", "m/s"}, {"vy", "m/s"}, {"vz", "m/s"}, {"ax", "m/s²"}, {"ay", "m/s²"}, {"az", "m/s²"}}};
  for (const auto& [suffix, unit] : kLast)
    if (last == suffix) return unit;
  int order = 0;
  auto strip = [&last](const std::string& s) {
    if (last.size() <= s.size() || last.compare(last.size() - s.size(), s.size(), s) != 0) return false;
    last.resize(last.size() - s.size());
    return true;
  };
  if (strip("_ddot")) order = 2;
  else if (strip("_dot")) order = 1;
  std::string base;
  if (last == "x" || last == "y" || last == "z") base = "m";
  else if (last == "theta") base = "rad";
  else return "";
  static const std::array<const char*, 3> kPer{"", "/s", "/s²"};
  return base + kPer[static_cast<std::size_t>(order)];
}

}  // namespace joinery::cli
