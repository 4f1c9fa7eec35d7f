#pragma once
// The unit of a table's column from its name (docs/outputs.md, "Columns of a run"); the
// viewer's plots apply the same rules (apps/viewer/web/src/units.js).
#include <string>

#include "joinery/core/scene.hpp"

namespace joinery::cli {

/// A column written in other units than SI: its value is the SI value divided by `divisor`,
/// and `label` names the unit ("mm/s", "g·mm/s²"); an empty label: not converted.
struct ColumnInUnits {
  double divisor = 1;
  std::string label;
};

/// The column of SI unit `siUnit` (a unit columnUnit() gives) in the units `u`: lengths,
/// velocities and accelerations by u.length, angles and their rates by u.angle, forces by
/// u.mass u.length, torques, powers and energies by u.mass u.length²; time stays in s. An
/// unknown or empty unit: divisor 1 and no label (the column stays in SI, unlabelled).
ColumnInUnits columnInUnits(const std::string& siUnit, const UnitSystem& u);

/// `name` without a trailing " [unit]" (a table written with --units scene).
std::string columnBaseName(const std::string& name);

/// "s" for t, "m" for body.x, "rad/s" for body.theta_dot, "N" for pin.fx, "N·m" for pin.tz,
/// "W" for motor.power, "J" for energy; a study's collected column (`pin.fx:max`) has its
/// column's unit; a name written "crank.x [mm]" has the unit in brackets. "" when the name
/// does not say (expressions, efforts, parameters).
std::string columnUnit(const std::string& name);

}  // namespace joinery::cli
