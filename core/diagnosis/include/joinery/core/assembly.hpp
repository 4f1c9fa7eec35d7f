#pragma once
/// @file assembly.hpp
/// Assembly of the initial state as a step of its own (docs/diagnosis.md): which joints the
/// given initial positions and velocities violate, by how much in each joint's own units,
/// the least-squares correction onto the constraints (ModelSystem's Gauss-Newton projection,
/// the one `simulate` applies) and how far each body moved; or, when the joints cannot
/// close, which of them stay open and by how much.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/model.hpp"
#include "joinery/core/state.hpp"

namespace joinery {

/// One constraint row's residual.
struct RowResidual {
  int row = 0;       ///< global row (Model::rowNames())
  std::string name;  ///< "joint[k]"
  double value = 0;  ///< residual in `unit`
};

/// A joint (or a body's internal constraint) that a state violates.
struct JointResidual {
  std::string joint;  ///< joint name (RowBlock::name)
  /// Units of the residual inferred from the coordinates its rows act on: "m" when a row
  /// moves a position coordinate, "rad" when only angles or quaternions, "" (the
  /// coordinates' own units) for linear / expression bodies; "/s" appended at velocity level.
  std::string unit;
  double residual = 0;            ///< Euclidean norm over the joint's rows
  std::vector<RowResidual> rows;  ///< its rows above tolerance
};

/// How far the assembly moved one body.
struct BodyMotion {
  std::string body;
  double translation = 0;  ///< |dx| of its position coordinates, m
  double rotation = 0;     ///< angle turned, rad (rigid bodies)
  double other = 0;        ///< max |dq| of coordinates of other kinds (linear, expression)
};

/// A coordinate whose initial velocity the assembly changed.
struct VelocityChange {
  int coordinate = 0;
  std::string name;  ///< "body.coord"
  double before = 0, after = 0;
};

/// Why a mechanism cannot be assembled, by joint: with `joint` left open the other joints
/// assemble (each of `loop` has that property: the joints of the loop that cannot close), and
/// `gap` is the least it then stays open. `joint` is the last declared of the loop that
/// prescribes no motion: the joint whose placement the rest of the loop cannot reach.
struct ClosureFinding {
  std::string joint;              ///< empty: not searched (a large model) or no single joint
  std::string type;               ///< its type ("prismatic2d", "revolute2d", ...)
  std::vector<std::string> bodies;  ///< its bodies' names (ground included)
  double gap = 0;                 ///< least |phi| of its rows with the others closed
  std::string unit;               ///< "m", "rad" or ""
  std::vector<std::string> loop;  ///< every joint whose removal lets the others assemble
};

/// What assembling the initial state found and did.
struct AssemblyReport {
  std::vector<JointResidual> positionBefore;  ///< joints violated by the given positions
  std::vector<JointResidual> velocityBefore;  ///< ... by the given velocities
  std::vector<JointResidual> positionAfter;   ///< joints still open after assembly
  std::vector<JointResidual> velocityAfter;   ///< velocity rows still violated after assembly
  std::vector<BodyMotion> moved;              ///< bodies the position assembly moved
  std::vector<VelocityChange> velocities;     ///< velocities the assembly changed
  bool assembled = true;  ///< a consistent state was found (positionAfter, velocityAfter empty)
  /// When the positions cannot be assembled (models up to 60 coordinates): the joint whose
  /// geometry makes it impossible, and by how much.
  ClosureFinding closure;
  State given;            ///< the initial state of the model
  State state;            ///< the assembled state (the best found when !assembled)
  /// True when the given state violates a constraint beyond tolerance.
  bool needed() const noexcept { return !positionBefore.empty() || !velocityBefore.empty(); }
};

/// Options of assembleInitialState.
struct AssemblyOptions {
  /// Relative tolerance: a residual counts when above `tolerance * max(1, |q|_inf)` (positions)
  /// or `tolerance * max(1, |v|_inf)` (velocities), as `simulate` decides.
  double tolerance = 1e-9;
  int maxIterations = 50;  ///< Gauss-Newton iterations of each projection
  /// Starts of the kinematic search (kinematics.hpp: searchAssembly) when the projection from
  /// the given state cannot close the joints: dense minimum-norm steps from the given state on
  /// models of up to 300 coordinates, and from these perturbed starts on up to 60.
  int starts = 48;
};

/// Tests the model's initial state against its constraints and assembles it (least-squares
/// position correction, then velocity correction, as `simulate` does before its first step).
AssemblyReport assembleInitialState(const Model& model, const AssemblyOptions& options = {});

/// The residuals of a state by joint, only joints with a row above `tolerance` (absolute).
std::vector<JointResidual> jointResiduals(const Model& model, const State& s, bool velocities,
                                          double tolerance);

/// The unit of coordinate i: "m" (positions), "rad" (angles), "" (quaternions and the
/// coordinates of linear and expression bodies, in the user's units).
std::string coordinateUnit(const Model& model, int i);

/// One line per violated joint: "crank_pin: 0.05 m (crank_pin[0] 0.03, crank_pin[1] 0.04)".
std::string describe(const JointResidual& r);

/// The first line of the assembly's finding (empty when nothing was needed): what to change.
std::string assemblySummary(const AssemblyReport& r);

/// The report as JSON (`joinery assemble --json`, and "assembly" in `check --json`):
/// needed, assembled, summary, the violations by joint before and after ({joint: {residual,
/// unit, rows}}), moved ({body: {translation, rotation, other}}) and velocity_changes.
nlohmann::json assemblyToJson(const AssemblyReport& r);

/// The scene document `resolved` (Scene::resolved()) with every body's initial state replaced
/// by `s`: positions, angles, orientations and velocities in each body type's own fields.
/// @throws ModelError for a body type whose initial state cannot be written.
nlohmann::json withInitialState(const nlohmann::json& resolved, const Model& model, const State& s);

}  // namespace joinery
