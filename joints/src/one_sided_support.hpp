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
  double calcGap(const LocalState& s, int k) const override;
  void calcRow(const LocalState& s, int k, MatRef a, double& b) const override;
  double calcRowScale(const LocalState& s, int k) const override;

 private:
  std::vector<Candidate> candidates_;
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
