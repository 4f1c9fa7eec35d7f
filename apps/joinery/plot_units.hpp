#pragma once
// The unit of a table's column from its name (docs/outputs.md, "Columns of a run"); the
// viewer's plots apply the same rules (apps/viewer/web/src/units.js).
#include <string>

namespace joinery::cli {

/// "s" for t, "m" for body.x, "rad/s" for body.theta_dot, "N" for pin.fx, "N·m" for pin.tz,
/// "W" for motor.power, "J" for energy; a study's collected column (`pin.fx:max`) has its
/// column's unit. "" when the name does not say (expressions, efforts, parameters).
std::string columnUnit(const std::string& name);

}  // namespace joinery::cli
