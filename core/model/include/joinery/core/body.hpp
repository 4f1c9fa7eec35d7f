#pragma once
/// @file body.hpp
/// A body is an independent, unconstrained subsystem with its own coordinates `q_i`:
///
///     M_i(q_i, t) q_i'' = Q_i(q_i, q_i', t)
///
/// `M_i` is symmetric positive semi-definite and may be singular. `Q_i` holds the body's own
/// applied forces (e.g. its `force` expressions) and its velocity-product inertial terms.
/// Gravity is added by the gravity force element through addGravityForce().
///
/// Joints reach bodies only through markers: PointMarker (points fixed in the body) and
/// FrameMarker (the body's orientation). A body type implements the ones it can and returns
/// them from points()/frames(); a joint that needs a marker a body lacks is a ModelError at
/// assembly.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "joinery/core/symbolic.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

/// Points fixed in a body. `local` is the point in the body's own frame (for planar bodies
/// the z component is ignored; for the ground, `local` is the world position).
/// World position r(q); velocity r' = J q'; acceleration r'' = J q'' + bias(q, q').
class PointMarker {
 public:
  virtual ~PointMarker() = default;
  /// World position of the point (m).
  virtual Vector3d calcPointPosition(CVecRef q, const Vector3d& local) const = 0;
  /// Jacobian J (3 x n_i) of the world position with respect to the body's coordinates.
  virtual void calcPointJacobian(CVecRef q, const Vector3d& local, MatRef J) const = 0;
  /// Velocity-product term J' q' of the point's acceleration.
  virtual Vector3d calcPointBias(CVecRef q, CVecRef v, const Vector3d& local) const = 0;
  /// J (into `J`, 3 x n_i) and the bias J' q' in one call, for the joints that need both (a
  /// body may share the work between them; the default calls the two methods above).
  virtual Vector3d calcPointJacobianAndBias(CVecRef q, CVecRef v, const Vector3d& local, MatRef J) const;
  /// A += sign * (the first A.rows() rows of J), A of 1 to 3 rows and n_i columns, and returns
  /// the bias J' q': the selection rows of the joints that pin a point (coincident points,
  /// point paths), evaluated per constraint row block. The default goes through
  /// calcPointJacobianAndBias() on a zeroed 3 x n_i scratch; a body may add its entries
  /// directly (Rigid3d: fixed-size, no scratch and no zeros).
  virtual Vector3d addPointJacobianRows(CVecRef q, CVecRef v, const Vector3d& local, double sign, MatRef A) const;
  /// Velocity J q' of the point (world, m/s): the joints' velocity errors. The default forms J
  /// in a zeroed 3 x n_i scratch and multiplies; a body may compute it directly (Rigid3d:
  /// x' + w x R p, fixed-size).
  virtual Vector3d calcPointVelocity(CVecRef q, CVecRef v, const Vector3d& local) const;
  /// World position of the point as expression texts over the coordinate names `q` (one per
  /// coordinate of the body); no value when the marker has no closed form (the default).
  virtual SymbolicPoint symbolicPointPosition(const Vector3d& local,
                                              const std::vector<std::string>& q) const;
};

/// The orientation of a body: rotation R(q) taking body-frame vectors to the world frame,
/// angular velocity (world frame) w = Jw q', angular acceleration w' = Jw q'' + bias.
/// Planar bodies rotate about the world z axis: R = Rz(theta), Jw = [0; 0; e_theta^T].
class FrameMarker {
 public:
  virtual ~FrameMarker() = default;
  virtual Matrix3d calcOrientation(CVecRef q) const = 0;
  /// Jacobian Jw (3 x n_i) of the world angular velocity.
  virtual void calcAngularJacobian(CVecRef q, MatRef Jw) const = 0;
  /// Velocity-product term Jw' q' of the world angular acceleration.
  virtual Vector3d calcAngularBias(CVecRef q, CVecRef v) const = 0;
};

/// What a body coordinate measures: the unit the diagnosis writes a residual or a motion in.
enum class CoordinateKind {
  Length,      ///< a world position, m
  Angle,       ///< a rotation angle, rad
  Quaternion,  ///< one of four consecutive Euler parameters (dimensionless, unit norm)
  Other        ///< the user's own units (linear, expression and user-defined bodies)
};

/// The rigid mass of a body whose leading coordinates are the world position of its centre of
/// mass and then its orientation (particle, rigid2d, rigid3d; Body::massProperties()).
struct MassProperties {
  double mass = 0;                      ///< kg (>= 0)
  Matrix3d inertia = Matrix3d::Zero();  ///< body frame, about the centre of mass, kg m^2 (planar: only (2, 2))
  /// Coordinates 0 .. translations-1 are the world x (y, z) of the centre of mass, m.
  int translations = 0;
  /// 0 (a point), 1 (a planar angle about world z) or 3 (a spatial orientation): the body axes
  /// Body::rotationRates() answers for are z only, or x, y and z.
  int rotations = 0;
};

/// Base of every body type. A body type overrides the public virtual `calc*` methods; callers
/// (Model) pass blocks of the sizes numCoordinates() and numInternalConstraints() give.
class Body {
 public:
  explicit Body(std::string name);
  virtual ~Body() = default;
  Body(const Body&) = delete;
  Body& operator=(const Body&) = delete;

  const std::string& name() const noexcept { return name_; }
  /// Registered type name ("particle", "rigid2d", ...).
  virtual std::string_view typeName() const = 0;
  /// Coordinate names in order ("x", "y", "theta"); their count is numCoordinates().
  virtual const std::vector<std::string>& coordinateNames() const = 0;
  int numCoordinates() const { return static_cast<int>(coordinateNames().size()); }

  /// Initial coordinates and velocities from the body's definition.
  virtual void getInitialState(VecRef q0, VecRef v0) const = 0;

  /// Mass matrix block (n_i x n_i), symmetric positive semi-definite.
  virtual void calcMassMatrix(double t, CVecRef q, MatRef M) const = 0;
  /// The body's own generalized forces and velocity-product inertial terms (n_i); gravity excluded.
  virtual void calcForces(double t, CVecRef q, CVecRef v, VecRef Q) const = 0;
  /// Adds the generalized force of uniform gravity `g` (m/s^2, world frame). Bodies without
  /// mass in space (expression, linear) add nothing.
  virtual void addGravityForce(CVecRef q, const Vector3d& g, VecRef Q) const;
  /// Whether addForceJacobians() gives the exact Jacobians of calcForces() + addGravityForce()
  /// (false by default: an implicit integrator then differences them, docs/integrators.md).
  virtual bool providesForceJacobians() const { return false; }
  /// Adds d(calcForces + addGravityForce)/dq and /dq' (n_i x n_i) into `dQdq`, `dQdv`. Called
  /// only when providesForceJacobians(); the default adds nothing.
  virtual void addForceJacobians(double t, CVecRef q, CVecRef v, const Vector3d& g, MatRef dQdq,
                                 MatRef dQdv) const;
  /// calcForces() as expression texts over `names` (see symbolic.hpp); no value when the
  /// body has no closed form (the default). Used to write force balances (completion.hpp).
  virtual SymbolicVector symbolicForces(const SymbolicNames& names) const;
  /// addGravityForce() as expression texts over `names`. Default: zeros when `g` is zero,
  /// otherwise no value (types that add gravity override both).
  virtual SymbolicVector symbolicGravityForce(const Vector3d& g, const SymbolicNames& names) const;
  /// Potential energy of gravity, consistent with addGravityForce() (0 by default).
  virtual double calcGravityPotential(CVecRef q, const Vector3d& g) const;
  /// Kinetic energy (1/2 v^T M v by default).
  virtual double calcKineticEnergy(double t, CVecRef q, CVecRef v) const;
  /// Potential energy of the body's own conservative forces (0 unless the type knows it).
  virtual double calcPotentialEnergy(double t, CVecRef q) const;

  /// The body's own constraints (the quaternion norm), holonomic, in local coordinates.
  virtual int numInternalConstraints() const { return 0; }
  /// Acceleration-level rows A (k x n_i) and b (k) of the internal constraints.
  virtual void calcInternalConstraints(double t, CVecRef q, CVecRef v, MatRef A, VecRef b) const;
  /// Position-level residual phi (k) of the internal constraints.
  virtual void calcInternalPositionError(double t, CVecRef q, VecRef phi) const;
  /// Brings q back onto the internal constraints after a step (quaternion renormalization).
  virtual void normalizeCoordinates(VecRef q) const;

  /// Markers this body offers (nullptr if none).
  virtual const PointMarker* points() const { return nullptr; }
  virtual const FrameMarker* frames() const { return nullptr; }
  /// True for bodies moving in the world x-y plane (rigid2d, particle dim <= 2, ground counts as both).
  virtual bool isPlanar() const { return false; }
  /// True for the fixed world body.
  virtual bool isGround() const { return false; }
  /// The named part of the body that coordinate k belongs to, as messages write it (a
  /// flexible body's "interface node 'tip'"), or empty: the coordinate speaks for itself (the
  /// default). The diagnosis names the part with the free coordinates it holds.
  virtual std::string coordinateGroup(int k) const {
    (void)k;
    return {};
  }

  // ---- capability queries: what the diagnosis, the viewer and the tools ask a body ------------
  // Each has a neutral default, so a body type defined outside the library works with all of
  // them (it is assembled, checked, simulated and drawn) and answers more by overriding.

  /// What coordinate k measures (default: CoordinateKind::Other, the user's units).
  virtual CoordinateKind coordinateKind(int k) const {
    (void)k;
    return CoordinateKind::Other;
  }
  /// The body's rigid mass, when its leading coordinates are a centre of mass and an
  /// orientation (particle, rigid2d, rigid3d); none by default (the diagnosis then reasons
  /// per coordinate).
  virtual std::optional<MassProperties> massProperties() const { return std::nullopt; }
  /// The coordinate rates `u` (n_i) of a unit angular velocity about body axis `axis` (0, 1, 2
  /// = x, y, z) at `q`, for bodies with massProperties()->rotations > 0 (planar bodies: axis 2
  /// only). The default writes zeros.
  virtual void calcRotationRates(CVecRef q, int axis, VecRef u) const;
  /// Writes the state (q, v) (n_i each) into the body's scene definition `definition` as its
  /// initial-state fields (`joinery assemble` writes the assembled state this way). The
  /// default throws ModelError: the body type cannot write its initial state.
  virtual void writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const;
  /// Body-local points that `joinery view` draws as a curve bending with the body (through
  /// points()): a flexible beam's axis, a linear body's interface nodes; none by default.
  virtual std::vector<Vector3d> drawingCurve() const { return {}; }

  /// The body's definition as scene JSON (type, name and fields); round-trips through the registry.
  virtual nlohmann::json toJson() const = 0;

 private:
  std::string name_;
};

using BodyPtr = std::unique_ptr<Body>;

}  // namespace joinery
