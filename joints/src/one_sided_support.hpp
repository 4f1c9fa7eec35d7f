#pragma once
// Private to joinery::joints. One-sided rows of joints built from row primitives
// (docs/contact.md): a candidate wraps a one-row primitive phi; its row is sign * phi - offset
// (a positive multiple of the gap's gradient), written only while the candidate is active
// (a zero row otherwise). Joint limits (`limit` on revolute2d, prismatic2d, revolute3d,
// prismatic3d, cylindrical), ropes and contacts are made of them.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "joinery/core/one_sided.hpp"
#include "joinery/core/registry.hpp"
#include "marker_access.hpp"

namespace joinery::detail {

/// The signed gap of a candidate when it is not sign * phi - offset (ropes, sphere pairs).
using GapFunction = std::function<double(const LocalState&)>;

class TangentRow;

/// The one-sided candidates of one joint.
class OneSidedSet : public OneSidedRows {
 public:
  struct Candidate {
    const RowPrimitive* inner = nullptr;
    double sign = 1;
    double offset = 0;
    GapFunction gap;    // empty: sign * phi - offset
    GapFunction scale;  // |d phi / d g|; empty: 1
  };
  /// Registers candidate `row` (the joint's own row index) over `inner` (owned by the joint).
  void add(int row, const Candidate& c, double restitution, std::string label) {
    candidates_.push_back(c);
    addCandidate(row, restitution, std::move(label));
  }
  void setCoulomb(double mu) { setFriction(mu); }
  /// Gives candidate k the tangential row `row` (the joint's own row index) over `tangent`
  /// (owned by the joint; TangentRow::calcRawRow writes it whatever the mode).
  void addTangent(int k, int row, const TangentRow* tangent);
  /// Gives candidate k its second tangential row (spatial contacts: along t2).
  void addTangent2(int k, int row, const TangentRow* tangent);
  double calcGap(const LocalState& s, int k) const override;
  void calcRow(const LocalState& s, int k, MatRef a, double& b) const override;
  double calcRowScale(const LocalState& s, int k) const override;
  void calcTangentRow(const LocalState& s, int k, MatRef a, double& b) const override;
  void calcTangentRow2(const LocalState& s, int k, MatRef a, double& b) const override;
  /// The sliding velocity of candidate k along its tangent j (0: t, t1; 1: t2); 0 without one.
  double calcSlidingVelocity(const LocalState& s, int k, int j) const;

 private:
  std::vector<Candidate> candidates_;
  std::vector<const TangentRow*> tangents_, tangents2_;
};

/// The tangential (stick) row of a contact candidate on a plane (docs/contact.md,
/// "Friction"): the sliding velocity of body `x`'s material point at the contact, relative to
/// the plane's body, along the plane's tangent t = R1 t_local:
///   v_s = d/dt [t . (x - o)] - r (w_x - w_1) . k,    k = R1 (n_local x t_local)
/// (x the point or the sphere's centre, r the sphere's radius, w the bodies' angular velocities;
/// the second term only when r > 0 and x's body has an orientation). Exact in 3-D as well
/// (-r n is the contact point from the centre): a planar contact has one (t = ez x n), a
/// spatial one two (t1, t2). Written only while the candidate is active and sticks (zeros
/// otherwise), with velocity error v_s - target.
class TangentRow final : public RowPrimitive {
 public:
  TangentRow(BodyFrame plane, BodyPoint origin, BodyPoint x, std::optional<BodyFrame> xFrame, const Vector3d& normalLocal,
             const Vector3d& tangentLocal, double radius, const OneSidedSet& set, int k)
      : plane_(plane), xFrame_(xFrame), k_(normalLocal.cross(tangentLocal)),
        line_(plane, origin, x, tangentLocal), r_(radius), set_(set), cand_(k) {}
  int numRows() const override { return 1; }
  void calcPositionError(const LocalState&, VecRef phi) const override { phi(0) = 0; }
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;
  /// The row whatever the mode: A (1 row, added to: zero it first) and b.
  void calcRawRow(const LocalState& s, MatRef A, double& b) const;
  /// v_s.
  double calcSlidingVelocity(const LocalState& s) const;

 private:
  bool sticks() const { return set_.active(cand_) && set_.frictionMode(cand_) == OneSidedRows::kStick; }
  BodyFrame plane_;
  std::optional<BodyFrame> xFrame_;
  Vector3d k_;
  PointOnLine line_;
  double r_;
  const OneSidedSet& set_;
  int cand_;
};

/// The row primitive of candidate k of `set`: the wrapped primitive's row (times sign, minus
/// offset) while active, zeros while inactive.
class OneSidedRow final : public RowPrimitive {
 public:
  OneSidedRow(std::unique_ptr<const RowPrimitive> inner, double sign, double offset, const OneSidedSet& set, int k)
      : inner_(std::move(inner)), sign_(sign), offset_(offset), set_(set), k_(k) {}
  const RowPrimitive* inner() const noexcept { return inner_.get(); }
  int numRows() const override { return 1; }
  void calcPositionError(const LocalState& s, VecRef phi) const override;
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;

 private:
  std::unique_ptr<const RowPrimitive> inner_;
  double sign_, offset_;
  const OneSidedSet& set_;
  int k_;
};

/// `"limit": {"min": a, "max": b, "restitution": e}` of a joint (either bound may be left out).
struct LimitInput {
  std::optional<double> min, max;
  double restitution = 0;
  bool turn = false;        ///< the limited quantity is an angle (rad), else a travel (m)
  nlohmann::json source;    ///< as written (toJson)
};

/// Reads the optional field `limit` of joint `c`. `turn`: the quantity is an angle (then
/// max - min must be below 2 pi: the angle is measured within a turn). `allowOn`: cylindrical's
/// `"on": "travel"` (default) or `"turn"`, which sets `turn`.
/// @throws InputError at the field (not an object, unknown key, no bound, min >= max, e outside [0, 1]).
std::optional<LimitInput> parseLimit(const JsonCursor& c, const FactoryContext& ctx, bool turn, bool allowOn = false);

/// The primitive measuring the limited quantity: for travels phi = travel, for angles
/// phi = wrap(angle - center) (wrapped into [-pi, pi]).
using LimitPrimitive = std::function<std::unique_ptr<const RowPrimitive>(double center)>;

}  // namespace joinery::detail

namespace joinery::detail {
/// The turn of body2 about the joint axis from the initial state (docs/joints.md, the axial
/// joints' turn): phi = wrap(theta - center). `held` is R1^T R2 at the initial state.
std::unique_ptr<const RowPrimitive> makeTurnRow(const BodyFrame& f1, const BodyFrame& f2, const BodyPoint& p1,
                                                const BodyPoint& p2, const Vector3d& axis1, const Vector3d& axis2,
                                                const Eigen::Quaterniond& held, double center);
}  // namespace joinery::detail
