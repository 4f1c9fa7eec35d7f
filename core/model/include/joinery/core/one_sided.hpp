#pragma once
/// @file one_sided.hpp
/// One-sided rows of a constraint (joint limits, ropes, contacts; docs/contact.md).
///
/// A one-sided row k has a signed gap g_k(q) (m or rad, admissible when >= 0) and a row
/// a_k q'' = b_k oriented so that a_k is a positive multiple of the gap's gradient: the force
/// a_k^T lambda_k it applies is admissible (compressive for a contact or a limit, tensile for a
/// rope) exactly when lambda_k >= 0. While the row is *active* it is an ordinary constraint row
/// of the model (the singular-mass solve, the [M; A] check, the projections and the joint
/// results all see it); while it is inactive the constraint writes a zero row (A = 0, b = 0,
/// no position or velocity error), which every solver treats as an absent row.
///
/// Which rows are active is decided outside the model, by the event handling of a run
/// (ModelSystem::resolveOneSided: impacts and the acceleration-level complementarity), and kept
/// here as mutable state of the constraint: a model with one-sided rows is evaluated by one
/// system at a time (as every ModelSystem of a process in joinery's studies).

#include <string>
#include <vector>

#include "joinery/core/constraint.hpp"
#include "joinery/core/state.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

/// The one-sided rows of one constraint (Constraint::oneSided()).
class OneSidedRows {
 public:
  virtual ~OneSidedRows() = default;

  /// Number of one-sided candidates (each its own row and gap).
  int count() const noexcept { return static_cast<int>(rows_.size()); }
  /// The constraint's own row (0-based within its rows) of candidate k.
  int localRow(int k) const { return rows_[static_cast<std::size_t>(k)].row; }
  /// Newton's coefficient of restitution of candidate k, in [0, 1].
  double restitution(int k) const { return rows_[static_cast<std::size_t>(k)].restitution; }
  /// Coulomb coefficient (contacts; 0 otherwise).
  double friction() const noexcept { return friction_; }
  /// "min", "max" (limits), "" (rope, single contact), "point 3" (points contacts).
  const std::string& label(int k) const { return rows_[static_cast<std::size_t>(k)].label; }

  /// The signed gap of candidate k (m for travels and contacts, rad for angles).
  virtual double calcGap(const LocalState& s, int k) const = 0;
  /// |d phi_k / d g_k|: the row's multiplier times this is the physical force (N, N m) along the
  /// gap (1 for rows written on the gap itself; |r2 - r1| for the distance rows of ropes and
  /// sphere pairs).
  virtual double calcRowScale(const LocalState& s, int k) const {
    (void)s;
    (void)k;
    return 1.0;
  }
  /// Candidate k's row whatever its activity: a (1 x numLocalCoordinates, written whole) and b.
  /// At a state where the gap rate vanishes, a q'' - b has the sign of the gap's acceleration.
  virtual void calcRow(const LocalState& s, int k, MatRef a, double& b) const = 0;

  bool active(int k) const { return rows_[static_cast<std::size_t>(k)].active != 0; }
  void setActive(int k, bool on) const { rows_[static_cast<std::size_t>(k)].active = on ? 1 : 0; }
  /// While active, the row's velocity error is a_k q' - target (0 normally; an impact sets the
  /// separation Newton's law asks for, and the velocity projection then applies the impulse).
  double velocityTarget(int k) const { return rows_[static_cast<std::size_t>(k)].target; }
  void setVelocityTarget(int k, double v) const { rows_[static_cast<std::size_t>(k)].target = v; }

  /// Coulomb friction (contacts with friction > 0; docs/contact.md, "Friction"). Candidate k's
  /// tangential row is the constraint's own row tangentRow(k) (-1: none): a_t q' is the sliding
  /// velocity of the contact point (body2's material point relative to body1's), a_t^T the
  /// generalized force of a unit tangential force there. It is written only while the candidate
  /// is active and sticks.
  int tangentRow(int k) const { return rows_[static_cast<std::size_t>(k)].tangent; }
  /// Candidate k's tangential row whatever its mode (a: 1 x numLocalCoordinates, written whole).
  virtual void calcTangentRow(const LocalState& s, int k, MatRef a, double& b) const {
    (void)s;
    (void)k;
    a.setZero();
    b = 0;
  }
  /// Spatial contacts (3-D) have a second tangential row tangentRow2(k) (-1: none, a planar
  /// contact's single tangent line): the two rows are the sliding velocity along the two
  /// orthonormal tangents t1, t2 of the plane (fixed in the plane's body).
  int tangentRow2(int k) const { return rows_[static_cast<std::size_t>(k)].tangent2; }
  /// Candidate k's second tangential row whatever its mode (as calcTangentRow).
  virtual void calcTangentRow2(const LocalState& s, int k, MatRef a, double& b) const {
    (void)s;
    (void)k;
    a.setZero();
    b = 0;
  }
  /// Friction mode of candidate k: kNoFriction (inactive, or no friction), kStick, the
  /// sliding direction +1 / -1 of a planar contact (slipping: a friction force mu N against
  /// it, N the normal force), or kSlip for a spatial contact (slipping against its current
  /// sliding direction d = v_s / |v_s|; slipDirection(k) is the reference direction).
  static constexpr int kNoFriction = 0;
  static constexpr int kStick = 2;
  static constexpr int kSlip = 3;
  /// A spatial slipping candidate's reference sliding direction (a unit 2-vector over t1, t2):
  /// the direction the slip starts in (at zero sliding speed) and, during the slip, the
  /// direction at the start of the last accepted step (docs/contact.md, "Friction in 3-D").
  Eigen::Vector2d slipDirection(int k) const {
    const Row& r = rows_[static_cast<std::size_t>(k)];
    return {r.direction1, r.direction2};
  }
  void setSlipDirection(int k, const Eigen::Vector2d& d) const {
    const Row& r = rows_[static_cast<std::size_t>(k)];
    r.direction1 = d(0);
    r.direction2 = d(1);
  }
  int frictionMode(int k) const { return rows_[static_cast<std::size_t>(k)].mode; }
  void setFrictionMode(int k, int mode) const { rows_[static_cast<std::size_t>(k)].mode = mode; }
  /// While sticking, the tangential row's velocity error is a_t q' - target (0 normally).
  double tangentTarget(int k) const { return rows_[static_cast<std::size_t>(k)].tangentTarget; }
  void setTangentTarget(int k, double v) const { rows_[static_cast<std::size_t>(k)].tangentTarget = v; }
  /// Candidate k as a model is built: inactive, no velocity target, no friction mode, slip
  /// reference along t1. A run starts from it (OneSidedHandler's constructor): the state a
  /// previous run of the same model left here must not decide the next (a second `simulate` of
  /// one loaded scene, a study's cases).
  void resetRunState(int k) const {
    const Row& r = rows_[static_cast<std::size_t>(k)];
    r.active = 0;
    r.target = 0.0;
    r.mode = 0;
    r.tangentTarget = 0.0;
    r.direction1 = 1.0;
    r.direction2 = 0.0;
  }

 protected:
  /// Adds a candidate (constructors only).
  void addCandidate(int row, double restitution, std::string label) {
    rows_.push_back({row, restitution, std::move(label), 0, 0.0, -1, 0, 0.0, -1, 1.0, 0.0});
  }
  /// Gives candidate k the tangential row `row` (constructors only).
  void setTangentRow(int k, int row) { rows_[static_cast<std::size_t>(k)].tangent = row; }
  /// Gives candidate k the second tangential row `row` (spatial contacts; constructors only).
  void setTangentRow2(int k, int row) { rows_[static_cast<std::size_t>(k)].tangent2 = row; }
  void setFriction(double mu) { friction_ = mu; }

 private:
  struct Row {
    int row;
    double restitution;
    std::string label;
    mutable char active;
    mutable double target;
    int tangent;
    mutable int mode;
    mutable double tangentTarget;
    int tangent2;
    mutable double direction1, direction2;
  };
  std::vector<Row> rows_;
  double friction_ = 0;
};

/// The one-sided candidates of constraint `c`, or nullptr when it has none.
inline const OneSidedRows* oneSidedRows(const Constraint& c) {
  const auto* o = dynamic_cast<const OneSidedRows*>(&c);
  return o != nullptr && o->count() > 0 ? o : nullptr;
}

/// A compliant contact (a force element, not one-sided rows; docs/contact.md, "Compliant
/// contact"), as output channels (`gap`, `reaction`) and `check --json` see it.
class CompliantContactView {
 public:
  virtual ~CompliantContactView() = default;
  /// Number of contact points (one per point of a `points` shape, else 1).
  virtual int numContactPoints() const = 0;
  /// The signed gap of point k (m), the rigid contact's.
  virtual double calcGap(const LocalState& s, int k) const = 0;
  /// The normal force of point k (N, >= 0: zero while apart).
  virtual double calcNormalForce(const LocalState& s, int k) const = 0;
  /// The force (world, N) and torque (world axes, N m, about the shape's point: point1 of
  /// body1 for `side` 0, point2 of body2 for 1) the contact applies to body `side`.
  virtual void calcWrench(const LocalState& s, int side, Vector3d& force, Vector3d& torque) const = 0;
};

/// Force element `f` as a compliant contact, or nullptr when it is none.
inline const CompliantContactView* compliantContact(const ForceElement& f) {
  return dynamic_cast<const CompliantContactView*>(&f);
}

/// Something that happened to a one-sided row during a run (docs/contact.md, "Events").
struct OneSidedEvent {
  double t = 0;
  /// "impact" (a closing contact or a limit reached with speed: velocities jumped), "release"
  /// (the force would have changed sign: the row left the active set), "contact" (the row
  /// joined the active set without an impact), "rest" (an accumulation of impacts was passed:
  /// the impact was made plastic and the contact persists), "stick" (a sliding contact point
  /// stopped and sticks: Coulomb friction), "slip" (it starts to slide, or slides on past a
  /// stop in the other direction).
  std::string kind;
  std::string joint;
  std::string label;   ///< the candidate ("min", "max", "point 2", or "")
  double impulse = 0;  ///< impact: the normal impulse along the gap (N s, or N m s for angles)
  /// impact with Coulomb friction: the tangential impulse (N s, along the contact's tangent;
  /// spatial contacts: along t1, and tangentImpulse2 along t2)
  double tangentImpulse = 0;
  double tangentImpulse2 = 0;
  /// 0: no tangential impulse (no friction, or not an impact), 1: planar (tangentImpulse),
  /// 2: spatial (tangentImpulse, tangentImpulse2)
  int tangentDimension = 0;
  double speed = 0;    ///< impact: the approach speed (m/s, rad/s) before it
};

/// The event side of a system with one-sided rows, as the simulation loop sees it
/// (integrators/events.hpp). Event functions are continuous along a smooth piece of the run
/// and an event is their crossing from >= 0 to < 0: an inactive candidate's gap closing, an
/// active candidate's force changing sign.
class OneSidedEvents {
 public:
  virtual ~OneSidedEvents() = default;
  virtual int numEventFunctions() const = 0;
  /// The event functions at `s` (one per candidate).
  virtual void calcEventFunctions(const State& s, VecRef values) = 0;
  /// Only the functions `which` (indices, ascending) at `s`; the other entries of `values` may be
  /// left as they were. Locating an event inside a step needs the triggered functions alone,
  /// and a gap is much cheaper than a contact force (a solve). By default all of them.
  virtual void calcSomeEventFunctions(const State& s, VecRef values, const std::vector<int>& which) {
    (void)which;
    calcEventFunctions(s, values);
  }
  /// At `s` (an event located, or the start of the run): impacts (s.v jumps) and the active set
  /// from complementarity. Appends to events().
  virtual void resolve(State& s) = 0;
  /// After a step to `s` accepted without an event: the system may move the references of its
  /// event functions (a spatial sliding point's direction, docs/contact.md); `values` are the
  /// functions at `s` as calcEventFunctions wrote them, rewritten where a reference moved.
  /// Returns true when it rewrote some.
  virtual bool acceptStep(const State& s, VecRef values) {
    (void)s;
    (void)values;
    return false;
  }
  virtual const std::vector<OneSidedEvent>& events() const = 0;
};

}  // namespace joinery
