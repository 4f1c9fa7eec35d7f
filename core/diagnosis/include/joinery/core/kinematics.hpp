#pragma once
/// @file kinematics.hpp
/// Kinematic analysis without dynamics (docs/kinematics.md): position solves by damped
/// minimum-norm Gauss-Newton steps (no mass metric, so they work on ill-posed models too), a
/// multi-start search for an assembly that exists, and the sweep of a coordinate driver over
/// its range with the configurations where the mechanism cannot follow (dead points / toggles,
/// ends of the range of motion, changes of mobility). Used by `joinery kinematics`, by the
/// assembly (assembly.hpp) and by `check` on driven mechanisms of mobility 0.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/model.hpp"
#include "joinery/core/state.hpp"

namespace joinery {

/// Options of the kinematic position solve.
struct KinematicSolveOptions {
  double tolerance = 1e-10;  ///< max |phi| (absolute, in each row's units) to accept
  int maxIterations = 60;
};

/// Moves s.q onto the holonomic constraints (every Position-level row, the bodies' internal
/// rows included) by damped minimum-norm Gauss-Newton steps from s.q; `fixed` (optional): a
/// coordinate held at s.q(fixed) by an extra row that replaces the rows of row block
/// `replacedBlock` (>= 0), as a sweep holds the driven coordinate. True when converged.
bool solveKinematicPositions(const Model& model, State& s, const KinematicSolveOptions& options = {},
                             int replacedBlock = -1, int fixed = -1);

/// Moves s.v onto the velocity-level rows by the minimum-norm correction. True when they hold.
bool solveKinematicVelocities(const Model& model, State& s, double tolerance = 1e-9);

/// A position assembly from several starts: s.q first, then deterministic perturbations of
/// every coordinate (angles over a full turn, lengths over the model's extent). Of those that
/// converge, the one closest to s.q is kept (in s). True when one converged. `starts`: the
/// number of perturbed starts (0 for the given one only).
bool searchAssembly(const Model& model, State& s, int starts = 48, const KinematicSolveOptions& options = {});

/// With the rows of row block `block` left out, an assembly of the other holonomic rows (from
/// s.q, then up to `starts` perturbed starts as searchAssembly), and on it the smallest residual
/// of `block`'s rows (constrained Gauss-Newton: |phi_block| decreased while the other rows stay
/// closed). True when the others can be assembled; `gap` is then the least |phi_block| found
/// (Euclidean norm of its rows, in the joint's measure) and `s` that configuration.
bool minimizeJointGap(const Model& model, int block, State& s, double& gap, int starts = 16,
                      const KinematicSolveOptions& options = {});

/// A coordinate driver: a one-row holonomic constraint that holds one coordinate.
struct CoordinateDriverInfo {
  int block = -1;       ///< Model::rowBlocks() index
  int coordinate = -1;  ///< the driven coordinate
  std::string name;     ///< the joint's name
  bool rotary = false;  ///< the coordinate is an angle (rad)
  double rate = 0;      ///< its prescribed speed at t = 0 (units/s)
};

/// The coordinate drivers of the model (single-row holonomic blocks on one coordinate whose
/// value depends on time), in row-block order.
std::vector<CoordinateDriverInfo> coordinateDrivers(const Model& model);

/// Options of sweepDriver().
struct SweepOptions {
  std::string driver;         ///< the driver's name (empty: the first coordinate driver)
  std::optional<double> from, to;  ///< the range (default: one turn of a rotary driver from
                                   ///< its initial value in the direction of its speed, or its
                                   ///< values over [0, t_end])
  int count = 0;              ///< values (default: 361 for a turn, 201 otherwise)
  double tEnd = 0;            ///< the scene's t_end (range of a non-rotary driver)
};

/// A configuration where the mechanism cannot follow the driver, or changes its mobility.
struct SingularConfiguration {
  double value = 0;  ///< the driver's value there
  std::string kind;  ///< "dead_point", "end_of_range" or "mobility_change"
  std::vector<std::string> joints;  ///< the joints involved, most involved first
  std::string message;  ///< what the mechanism does there, in words
};

/// One row of the sweep's table.
struct SweepSample {
  double value = 0;
  VectorXd q, v, a;  ///< positions, velocities, accelerations
  double transmission = 0;  ///< the transmission angle, rad (when SweepResult::transmission has a joint)
};

/// Where the transmission angle of a planar linkage is measured: at the pin `joint` between
/// the coupler and the output (a link pinned to the ground, or a slider on a ground guide).
/// Four-bar: the angle at the pin between the coupler (towards its other pin `couplerJoint`)
/// and the output (towards its ground pivot `outputJoint`), in [0, pi]. Slider: the angle
/// between the coupler and the normal of the guide `outputJoint`'s axis, in [0, pi/2].
struct TransmissionSpec {
  std::string joint;         ///< the coupler-output pin (empty: the linkage has none)
  std::string couplerJoint;  ///< the coupler's other pin
  std::string outputJoint;   ///< the output's ground pivot, or its guide
  bool slider = false;       ///< the output slides on a guide
  int c = -1, b = -1, d = -1;  ///< their Model::constraints() indices
};

/// The transmission joints of a planar linkage driven on a rotary coordinate of body `input`
/// (revolute2d pins, a prismatic2d guide): the first coupler-output pin, or an empty spec.
TransmissionSpec findTransmission(const Model& model, const Body& input);

/// The transmission angle at positions q (rad).
double transmissionAngle(const Model& model, const TransmissionSpec& t, const VectorXd& q);

/// The sweep of a coordinate driver (docs/kinematics.md).
struct SweepResult {
  CoordinateDriverInfo driver;
  std::string coordinateName;  ///< "crank.theta"
  std::string unit;            ///< the driven coordinate's unit ("rad", "m" or "")
  double from = 0, to = 0;
  int mobility = 0;            ///< mobility of the mechanism without the driver at the start
  double rate = 1;             ///< the driver speed the velocities are given at (units/s)
  std::vector<SweepSample> samples;
  std::vector<SingularConfiguration> singular;
  bool completed = true;  ///< the whole range was followed
  TransmissionSpec transmission;  ///< where SweepSample::transmission is measured (planar linkages)
};

/// Sweeps a coordinate driver over its range: at every value the positions (continuation
/// from the previous value, Newton with a tangent predictor), the velocities at the driver's
/// speed and the accelerations at constant speed. Where the position solve cannot continue,
/// bisection finds the last value it reaches (to 1e-10 of the range) and the point is
/// classified by the rank of the constraint Jacobian there.
/// @throws ModelError when the model has no such driver or the start cannot be assembled.
SweepResult sweepDriver(const Model& model, const SweepOptions& options = {});

/// "the mechanism cannot pass crank.theta = 0.5236 rad (30°): a dead point where ..."
std::string describe(const SweepResult& r, const SingularConfiguration& c);

/// `joinery kinematics --json`: driver, coordinate, range, mobility, "singular": [{value,
/// kind, joints, message}], "completed", and the sample count.
nlohmann::json sweepToJson(const SweepResult& r);

/// The table: the driver value, then every coordinate, its velocity (name + "'") and
/// acceleration (name + "''"), then (planar linkages) the transmission angle in degrees,
/// "transmission_angle_deg(pin)", one line per value.
std::string sweepToCsv(const Model& model, const SweepResult& r);

}  // namespace joinery
