#pragma once
// Private to joinery::joints. Base of the joints built from row blocks (marker_access.hpp:
// coincident points, point distance, relative angle, point on line, perpendicular axes, linear
// combinations, paths), each written once against PointMarker/FrameMarker (docs/joints.md).
// The base stacks their position errors, velocity errors and acceleration rows A q'' = b.

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "element_input.hpp"
#include "joinery/core/constraint.hpp"
#include "marker_access.hpp"
#include "one_sided_support.hpp"

namespace joinery::detail {

/// A constraint made of row blocks over its bodies' local coordinates; its one-sided candidates
/// (limit, rope and contact rows, none for most joints) are its OneSidedRows side
/// (joinery::oneSidedRows(constraint) finds them).
class PrimitiveJoint : public Constraint, public OneSidedSet {
 public:
  ~PrimitiveJoint() override;

  int numRows() const override { return numRows_; }
  /// Writes A (numRows x numLocalCoordinates, zeros included) and b of every block, in order.
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override;
  /// phi(q, t) of every block.
  void calcPositionError(const LocalState& s, VecRef phi) const override;
  /// phi_q q' + phi_t of every block (exact for rheonomic blocks; allocation-free).
  void calcVelocityError(const LocalState& s, VecRef psi) const override;
  /// Every row one-sided (a candidate's or its tangential row) and no candidate active.
  bool rowsAbsent() const override;

 protected:
  PrimitiveJoint(std::string name, std::vector<const Body*> bodies);
  /// Appends a block of rows (constructors only).
  void addRows(std::unique_ptr<const RowPrimitive> rows);
  /// Appends blocks in order (constructors only).
  void addRows(std::vector<std::unique_ptr<const RowPrimitive>> blocks) {
    for (auto& b : blocks) addRows(std::move(b));
  }
  /// Appends a one-sided candidate row over the one-row primitive `inner`: the row
  /// sign * phi - offset while active (constructors only).
  void addOneSidedRow(std::unique_ptr<const RowPrimitive> inner, double sign, double offset, double restitution,
                      std::string label, GapFunction gap = {}, GapFunction scale = {});
  /// Appends candidate k's tangential (stick) row (constructors only; docs/contact.md, "Friction").
  void addTangentRow(int k, std::unique_ptr<const TangentRow> row);
  /// Appends candidate k's second tangential row (spatial contacts: along t2).
  void addTangentRow2(int k, std::unique_ptr<const TangentRow> row);
  /// Appends the rows of a limit (the bound given first: min, then max) over the quantity
  /// `make` measures; kept for toJson (limitJson()).
  void addLimitRows(const LimitInput& limit, const LimitPrimitive& make);
  /// The limit as written (null without one).
  const nlohmann::json& limitJson() const noexcept { return limitSource_; }

 private:
  std::vector<std::unique_ptr<const RowPrimitive>> blocks_;
  int numRows_ = 0;
  int oneSidedRows_ = 0;  // rows of candidates and their tangential rows (zero while inactive)
  nlohmann::json limitSource_;
};

/// A joint between point1 of body1 and point2 of body2 (bodies() = {body1, body2}).
class TwoPointJoint : public PrimitiveJoint {
 protected:
  /// `planar`: the points are written as [x, y] in toJson().
  TwoPointJoint(const TwoBodyInput& in, bool planar)
      : PrimitiveJoint(in.name, {in.body1, in.body2}), in_(in), planar_(planar) {}

  const TwoBodyInput& input() const noexcept { return in_; }
 public:
  /// Joint results: force and torque at point1 / point2.
  JointResultKind resultKind() const override { return JointResultKind::Points; }
  Vector3d actionPoint(int k) const override { return k == 0 ? in_.point1 : in_.point2; }

 protected:
  BodyPoint point1() const { return BodyPoint(bodies(), 0, in_.point1); }
  BodyPoint point2() const { return BodyPoint(bodies(), 1, in_.point2); }
  BodyFrame frame1() const { return BodyFrame(bodies(), 0); }
  BodyFrame frame2() const { return BodyFrame(bodies(), 1); }
  /// The bodies and points of axisMotion(); derived types add the axis and what moves.
  AxisMotion baseAxisMotion() const {
    AxisMotion m;
    m.body1 = in_.body1;
    m.body2 = in_.body2;
    m.point1 = in_.point1;
    m.point2 = in_.point2;
    return m;
  }
  /// name, type, bodies, points and the non-ideal law; derived types add their fields.
  nlohmann::json baseJson() const {
    nlohmann::json j = twoBodyJson(name(), typeName(), *in_.body1, in_.point1, *in_.body2,
                                   in_.point2, planar_);
    if (!limitJson().is_null()) j["limit"] = limitJson();
    addNonidealJson(j);
    return j;
  }

 private:
  TwoBodyInput in_;
  bool planar_;
};

}  // namespace joinery::detail
