#pragma once
/// @file constraint.hpp
/// Joints and other constraints contribute rows `A_j q'' = b_j` on the coordinates of the
/// bodies they connect. A constraint sees only its own bodies: its local coordinate layout is
/// the concatenation of the coordinates of bodies() in order.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "joinery/core/body.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

/// View of one body's state inside the global state vectors (no copies).
struct BodyStateView {
  const Body* body = nullptr;
  const double* q = nullptr;
  const double* v = nullptr;
  int n = 0;
  Eigen::Map<const VectorXd> coords() const { return Eigen::Map<const VectorXd>(q, n); }
  Eigen::Map<const VectorXd> velocities() const { return Eigen::Map<const VectorXd>(v, n); }
};

/// What a constraint or force element is evaluated at: the time and its bodies' states,
/// in the order of its bodies().
struct LocalState {
  double t = 0;
  std::span<const BodyStateView> bodies;
};

/// The level at which a constraint is defined, which tells how drift is corrected and how
/// initial conditions are checked.
enum class ConstraintLevel {
  Position,      ///< holonomic phi(q, t) = 0 (velocity: phi_q q' + phi_t = 0)
  Velocity,      ///< nonholonomic psi(q, q', t) = 0
  Acceleration   ///< rows given at acceleration level only
};

class Constraint;

/// What joint results (joint_results.hpp) report for a constraint.
enum class JointResultKind {
  Generalized,  ///< no body points (expression joints): generalized forces only
  Points,       ///< force and torque at the joint's points (Constraint::actionPoint)
  Tension,      ///< Points plus the signed tension along the line between the points (distance)
  Effort        ///< one row sum c_i q_i'' = b with A = c: effort = its multiplier, and power
};

/// The ideal force of a joint, what a non-ideal law may depend on.
struct IdealForce {
  double Fi = 0;  ///< |A_j^T lambda_j| (minimum-norm multipliers; a body listed twice summed)
  /// A_j^T lambda_j over the joint's local coordinates (numLocalCoordinates() entries);
  /// nullptr when unknown (a law then falls back on Fi, e.g. Coulomb friction uses N = Fi).
  const double* local = nullptr;
};

/// A non-ideal constraint law: the work vector C (generalized D'Alembert principle) over the
/// constraint's local coordinates, given the constraint's ideal force.
class NonidealLaw {
 public:
  virtual ~NonidealLaw() = default;
  /// Writes C (local size) for constraint `c` at state `s` from its ideal force `f`.
  virtual void calcWork(const Constraint& c, const LocalState& s, const IdealForce& f, VecRef C) const = 0;
  /// Same with only the magnitude Fi known.
  void calcWork(const Constraint& c, const LocalState& s, double Fi, VecRef C) const {
    calcWork(c, s, IdealForce{Fi, nullptr}, C);
  }
  virtual nlohmann::json toJson() const = 0;
};

/// A joint's axis, with the turn about it and/or the travel along it (Constraint::axisMotion()):
/// the travel is s = (R1 axis1).(r2 - r1) of point2 from point1, the turn the angle about
/// R1 axis1 from R1 reference1 to R2 reference2. A gear or a rack and pinion couples them.
struct AxisMotion {
  const Body* body1 = nullptr;
  const Body* body2 = nullptr;
  Vector3d point1 = Vector3d::Zero();  ///< body-1 frame, m
  Vector3d point2 = Vector3d::Zero();  ///< body-2 frame, m
  Vector3d axis1 = Vector3d::UnitZ();  ///< body-1 frame, non-zero (not necessarily unit)
  Vector3d axis2 = Vector3d::UnitZ();  ///< body-2 frame (the turn's axis on body 2)
  bool turn = false;                   ///< the joint leaves (or drives) the turn about the axis
  bool travel = false;                 ///< the joint leaves (or drives) the travel along the axis
  /// The turn's zero (body-1 and body-2 frames) when the joint defines one; empty: a direction
  /// perpendicular to axis1, and the body-2 direction along it at the initial state.
  std::optional<Vector3d> reference1, reference2;
};

/// What a planar two-body joint leaves free between its bodies (Constraint::planarPair()):
/// the turn about the world z axis (a pin, revolute2d) or the travel along one axis (a slider,
/// prismatic2d). The kinematic analyses recognise four-bar and slider-crank loops by it.
enum class PlanarPair { Pin, Slider };

/// A thin disk rolling without slipping on a plane fixed in the world
/// (Constraint::rollingContact()): the steady-motion analyses keep its contact height.
struct RollingContact {
  const Body* disk = nullptr;
  Vector3d planePoint = Vector3d::Zero();  ///< a point of the plane, world frame, m
  Vector3d normal = Vector3d::UnitZ();     ///< the plane's unit normal, world frame
  Vector3d centre = Vector3d::Zero();      ///< the disk centre, disk frame, m
  Vector3d axis = Vector3d::UnitZ();       ///< the disk axis, disk frame, unit
  double radius = 0;                       ///< m
  int normalRow = 2;                       ///< the joint's row that keeps the contact height
};

/// Base of joints and constraints.
class Constraint {
 public:
  Constraint(std::string name, std::vector<const Body*> bodies);
  virtual ~Constraint() = default;
  Constraint(const Constraint&) = delete;
  Constraint& operator=(const Constraint&) = delete;

  const std::string& name() const noexcept { return name_; }
  virtual std::string_view typeName() const = 0;
  /// Bodies whose coordinates the rows touch (ground included when connected).
  const std::vector<const Body*>& bodies() const noexcept { return bodies_; }
  /// Sum of the bodies' coordinate counts: the column count of the local A block.
  int numLocalCoordinates() const;

  virtual int numRows() const = 0;
  virtual ConstraintLevel level() const { return ConstraintLevel::Position; }

  /// Acceleration-level rows: A (numRows x numLocalCoordinates) and b (numRows). Writes every
  /// entry of A and b (zeros included: callers pass them unzeroed, e.g. Model's row blocks).
  virtual void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const = 0;
  /// True when, as the constraint stands now, every row is identically zero whatever the state
  /// (a contact or rope none of whose candidates is active): its A, b, phi and psi are then all
  /// zero, and the model skips evaluating them (Model::calcRowBlock). False by default.
  virtual bool rowsAbsent() const { return false; }
  /// Position-level residual phi(q, t) (numRows) for Position-level constraints.
  /// Other levels write zeros.
  virtual void calcPositionError(const LocalState& s, VecRef phi) const;
  /// Velocity-level residual: phi_q q' + phi_t for holonomic rows, psi(q, q', t) for
  /// nonholonomic rows; zeros for acceleration-level ones. The default uses the
  /// acceleration rows: A q' (valid for scleronomic Position constraints).
  virtual void calcVelocityError(const LocalState& s, VecRef psi) const;

  /// What joint results report for it (default: generalized forces only).
  virtual JointResultKind resultKind() const { return JointResultKind::Generalized; }
  /// Points/Tension kinds: the point where the joint acts on its k-th body (frame of
  /// bodies()[k]; world for ground).
  virtual Vector3d actionPoint(int k) const {
    (void)k;
    return Vector3d::Zero();
  }
  /// Points/Tension kinds: the joint's axis in the frame of bodies()[k] (prismatic2d: the
  /// sliding axis; revolute3d, cylindrical, universal, prismatic3d: axis1/axis2), zero when the
  /// joint has none. Joint results express forces in the joint's own frame built on it
  /// (docs/results.md#the-joints-own-frame).
  virtual Vector3d jointAxis(int k) const {
    (void)k;
    return Vector3d::Zero();
  }

  // ---- capability queries (neutral defaults; a joint type overrides what it has) ---------------

  /// True when the rows prescribe a motion in time (drivers, couplings with a time function):
  /// the diagnosis checks that it starts smoothly. False by default.
  virtual bool prescribesMotion() const { return false; }
  /// The residual `value` of row `row` (its position error, or its velocity error when
  /// `velocity`) in the joint's own measure, for messages: a distance joint's squared form
  /// becomes a length in m. The default returns `value`.
  virtual double measuredResidual(int row, double value, bool velocity) const {
    (void)row;
    (void)velocity;
    return value;
  }
  /// The joint's axis with its turn or travel (revolute3d, cylindrical, prismatic3d, screw,
  /// point_on_line, the axial drivers); none by default.
  virtual std::optional<AxisMotion> axisMotion() const { return std::nullopt; }
  /// What a planar joint between two bodies leaves free (revolute2d: Pin, prismatic2d:
  /// Slider); none by default.
  virtual std::optional<PlanarPair> planarPair() const { return std::nullopt; }
  /// The geometry of a disk rolling on a fixed plane (rolling_disk); none by default.
  virtual std::optional<RollingContact> rollingContact() const { return std::nullopt; }

  /// Optional non-ideal law (friction, ...): C over the local coordinates.
  const NonidealLaw* nonideal() const noexcept { return nonideal_.get(); }
  void setNonideal(std::unique_ptr<NonidealLaw> law) { nonideal_ = std::move(law); }

  /// Scene JSON of the joint (type, name, bodies, fields, nonideal); round-trips through the registry.
  virtual nlohmann::json toJson() const = 0;

 protected:
  /// Helper for toJson(): adds the non-ideal law when there is one.
  void addNonidealJson(nlohmann::json& j) const;

 private:
  std::string name_;
  std::vector<const Body*> bodies_;
  std::unique_ptr<NonidealLaw> nonideal_;
};

using ConstraintPtr = std::unique_ptr<Constraint>;

/// A force element (spring, damper, applied force, gravity) adds to the Q blocks of its bodies.
class ForceElement {
 public:
  ForceElement(std::string name, std::vector<const Body*> bodies);
  virtual ~ForceElement() = default;
  ForceElement(const ForceElement&) = delete;
  ForceElement& operator=(const ForceElement&) = delete;

  const std::string& name() const noexcept { return name_; }
  virtual std::string_view typeName() const = 0;
  const std::vector<const Body*>& bodies() const noexcept { return bodies_; }
  int numLocalCoordinates() const;
  /// Adds the generalized force over the local coordinates (concatenated bodies()).
  virtual void addForces(const LocalState& s, VecRef Q) const = 0;
  /// Potential energy stored in the element (0 for non-conservative ones).
  virtual double calcPotentialEnergy(const LocalState& s) const;
  /// addForces() as expression texts over `names` (the concatenated coordinates of bodies(),
  /// see symbolic.hpp); no value when the element has no closed form (the default).
  virtual SymbolicVector symbolicForces(const SymbolicNames& names) const;
  /// Whether addForceJacobians() gives the exact Jacobians (decided at construction; false by
  /// default: an implicit integrator then differences addForces(), docs/integrators.md).
  virtual bool providesForceJacobians() const { return false; }
  /// Adds dQ/dq and dQ/dq' of addForces() (local coordinates, both numLocalCoordinates()
  /// square) into `dQdq`, `dQdv`. Called only when providesForceJacobians(); default: nothing.
  virtual void addForceJacobians(const LocalState& s, MatRef dQdq, MatRef dQdv) const;
  virtual nlohmann::json toJson() const = 0;

 private:
  std::string name_;
  std::vector<const Body*> bodies_;
};

using ForceElementPtr = std::unique_ptr<ForceElement>;

}  // namespace joinery
