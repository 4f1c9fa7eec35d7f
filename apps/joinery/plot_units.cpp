// Units of table columns (plot_units.hpp).
#include "plot_units.hpp"

#include <array>
#include <utility>

namespace joinery::cli {

std::string columnBaseName(const std::string& name) {
  if (name.size() < 4 || name.back() != ']') return name;
  const auto open = name.rfind(" [");
  return open == std::string::npos ? name : name.substr(0, open);
}

std::string columnUnit(const std::string& column) {
  if (const std::string base = columnBaseName(column); base.size() != column.size())
    return column.substr(base.size() + 2, column.size() - base.size() - 3);
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

ColumnInUnits columnInUnits(const std::string& siUnit, const UnitSystem& u) {
  const auto per = [&siUnit](std::size_t base) { return siUnit.substr(base); };  // "/s", "/s²" or ""
  const auto starts = [&siUnit](const char* s) { return siUnit.rfind(s, 0) == 0; };
  const std::string L = u.lengthName, M = u.massName;
  // mm with tonnes makes newtons (the system of most finite-element codes)
  const bool newtons = (u.mass * u.length == 1.0 && u.massName != "kg") || u.isSi();
  const std::string force = newtons ? "N" : M + "·" + L + "/s²";
  if (siUnit == "s") return {1.0, "s"};
  if (siUnit == "m" || starts("m/")) return {u.length, L + per(1)};
  if (siUnit == "rad" || starts("rad/")) return {u.angle, u.angleName + per(3)};
  if (siUnit == "N") return {u.mass * u.length, force};
  const double work = u.mass * u.length * u.length;
  if (siUnit == "N·m") return {work, newtons ? "N·" + L : M + "·" + L + "²/s²"};
  if (siUnit == "J") return {work, u.isSi() ? "J" : newtons ? "N·" + L : M + "·" + L + "²/s²"};
  if (siUnit == "W") return {work, u.isSi() ? "W" : newtons ? "N·" + L + "/s" : M + "·" + L + "²/s³"};
  return {};
}

}  // namespace joinery::cli
