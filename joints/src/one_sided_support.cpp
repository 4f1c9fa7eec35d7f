// One-sided rows of joints (one_sided_support.hpp, docs/contact.md).
#include "one_sided_support.hpp"

#include <cmath>
#include <numbers>

#include "joinery/core/format.hpp"
#include "primitive_joint.hpp"

namespace joinery::detail {

double OneSidedSet::calcGap(const LocalState& s, int k) const {
  const Candidate& c = candidates_[static_cast<std::size_t>(k)];
  if (c.gap) return c.gap(s);
  Eigen::Matrix<double, 1, 1> phi;
  c.inner->calcPositionError(s, phi);
  return c.sign * phi(0) - c.offset;
}

double OneSidedSet::calcRowScale(const LocalState& s, int k) const {
  const Candidate& c = candidates_[static_cast<std::size_t>(k)];
  return c.scale ? c.scale(s) : 1.0;
}

void OneSidedSet::calcRow(const LocalState& s, int k, MatRef a, double& b) const {
  const Candidate& c = candidates_[static_cast<std::size_t>(k)];
  a.setZero();
  Eigen::Matrix<double, 1, 1> bb;
  c.inner->calcAccelerationRows(s, a, bb);
  a *= c.sign;
  b = c.sign * bb(0);
}

void OneSidedSet::addTangent(int k, int row, const TangentRow* tangent) {
  if (tangents_.size() < static_cast<std::size_t>(count())) tangents_.resize(static_cast<std::size_t>(count()), nullptr);
  tangents_[static_cast<std::size_t>(k)] = tangent;
  setTangentRow(k, row);
}

void OneSidedSet::addTangent2(int k, int row, const TangentRow* tangent) {
  if (tangents2_.size() < static_cast<std::size_t>(count())) tangents2_.resize(static_cast<std::size_t>(count()), nullptr);
  tangents2_[static_cast<std::size_t>(k)] = tangent;
  setTangentRow2(k, row);
}

void OneSidedSet::calcTangentRow2(const LocalState& s, int k, MatRef a, double& b) const {
  a.setZero();
  b = 0;
  if (static_cast<std::size_t>(k) < tangents2_.size() && tangents2_[static_cast<std::size_t>(k)] != nullptr)
    tangents2_[static_cast<std::size_t>(k)]->calcRawRow(s, a, b);
}

double OneSidedSet::calcSlidingVelocity(const LocalState& s, int k, int j) const {
  const std::vector<const TangentRow*>& t = j == 0 ? tangents_ : tangents2_;
  const auto u = static_cast<std::size_t>(k);
  return u < t.size() && t[u] != nullptr ? t[u]->calcSlidingVelocity(s) : 0.0;
}

void OneSidedSet::calcTangentRow(const LocalState& s, int k, MatRef a, double& b) const {
  a.setZero();
  b = 0;
  if (static_cast<std::size_t>(k) < tangents_.size() && tangents_[static_cast<std::size_t>(k)] != nullptr)
    tangents_[static_cast<std::size_t>(k)]->calcRawRow(s, a, b);
}

// ---- TangentRow: v_s = d/dt [t . (x - o)] - r (w_x - w_1) . k ----------------------------
// d/dt v_s = [PointOnLine(t) row] q'' - b_line
//            - r [(Jw_x - Jw_1) q'' + bias_x - bias_1] . k - r (w_x - w_1) . (w_1 x k)

double TangentRow::calcSlidingVelocity(const LocalState& s) const {
  Eigen::Matrix<double, 1, 1> psi;
  line_.calcVelocityError(s, psi);
  double v = psi(0);
  if (r_ > 0 && xFrame_) {
    const Vector3d k = plane_.calcOrientation(s) * k_;
    v -= r_ * (xFrame_->calcAngularVelocity(s) - plane_.calcAngularVelocity(s)).dot(k);
  }
  return v;
}

void TangentRow::calcRawRow(const LocalState& s, MatRef A, double& b) const {
  Eigen::Matrix<double, 1, 1> bb;
  line_.calcAccelerationRows(s, A, bb);
  b = bb(0);
  if (r_ > 0 && xFrame_) {
    const Vector3d k = plane_.calcOrientation(s) * k_;
    const Vector3d w1 = plane_.calcAngularVelocity(s), w2 = xFrame_->calcAngularVelocity(s);
    xFrame_->addJacobian(s, k.transpose(), -r_, A);
    plane_.addJacobian(s, k.transpose(), r_, A);
    b += r_ * ((xFrame_->calcAngularBias(s) - plane_.calcAngularBias(s)).dot(k) + (w2 - w1).dot(w1.cross(k)));
  }
}

void TangentRow::calcVelocityError(const LocalState& s, VecRef psi) const {
  psi(0) = sticks() ? calcSlidingVelocity(s) - set_.tangentTarget(cand_) : 0.0;
}

void TangentRow::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  if (!sticks()) {  // A is zeroed by the caller: an absent row
    b(0) = 0;
    return;
  }
  double bb = 0;
  calcRawRow(s, A, bb);
  b(0) = bb;
}

void OneSidedRow::calcPositionError(const LocalState& s, VecRef phi) const {
  if (!set_.active(k_)) {
    phi(0) = 0;
    return;
  }
  inner_->calcPositionError(s, phi);
  phi(0) = sign_ * phi(0) - offset_;
}

void OneSidedRow::calcVelocityError(const LocalState& s, VecRef psi) const {
  if (!set_.active(k_)) {
    psi(0) = 0;
    return;
  }
  inner_->calcVelocityError(s, psi);
  psi(0) = sign_ * psi(0) - set_.velocityTarget(k_);
}

void OneSidedRow::calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const {
  if (!set_.active(k_)) {  // A is zeroed by the caller: an absent row
    b(0) = 0;
    return;
  }
  inner_->calcAccelerationRows(s, A, b);
  if (sign_ < 0) {
    A = -A;
    b(0) = -b(0);
  }
}

std::optional<LimitInput> parseLimit(const JsonCursor& c, const FactoryContext& ctx, bool turn, bool allowOn) {
  if (!c.has("limit")) return std::nullopt;
  const JsonCursor l = c.at("limit");
  if (!l.value().is_object())
    l.fail("an object {\"min\": a, \"max\": b, \"restitution\": e} (either bound may be left out)");
  if (allowOn)
    l.rejectUnknownKeys({"min", "max", "restitution", "on"});
  else
    l.rejectUnknownKeys({"min", "max", "restitution"});
  LimitInput in;
  in.turn = turn;
  in.source = l.value();
  if (allowOn && l.has("on")) {
    const JsonCursor on = l.at("on");
    const std::string what = on.value().is_string() ? on.value().get<std::string>() : std::string();
    if (what != "travel" && what != "turn") on.fail("\"travel\" (the default) or \"turn\"");
    in.turn = what == "turn";
  }
  const char* unit = in.turn ? " rad" : " m";
  if (l.has("min")) in.min = ctx.number(l.at("min"));
  if (l.has("max")) in.max = ctx.number(l.at("max"));
  if (!in.min && !in.max) l.failWith("a limit without \"min\" or \"max\" limits nothing; expected at least one bound");
  if (in.min && !std::isfinite(*in.min)) l.at("min").failWith("expected a finite bound");
  if (in.max && !std::isfinite(*in.max)) l.at("max").failWith("expected a finite bound");
  if (in.min && in.max && !(*in.min < *in.max))
    l.at("max").failWith("max = " + formatNumber(*in.max) + unit + " is not above min = " + formatNumber(*in.min) + unit +
                         "; expected min < max (a joint held at one value is a driver or a weld)");
  if (in.turn && in.min && in.max && !(*in.max - *in.min < 2 * std::numbers::pi))
    l.at("max").failWith("the range max - min = " + formatNumber(*in.max - *in.min) +
                         " rad is a whole turn or more; an angle limit is measured within a turn, expected a range below 2 pi");
  if (l.has("restitution")) {
    in.restitution = ctx.number(l.at("restitution"));
    if (!(in.restitution >= 0 && in.restitution <= 1))
      l.at("restitution").failWith("restitution = " + formatNumber(in.restitution) + " is outside [0, 1]");
  }
  return in;
}

}  // namespace joinery::detail

namespace joinery::detail {

void PrimitiveJoint::addOneSidedRow(std::unique_ptr<const RowPrimitive> inner, double sign, double offset,
                                    double restitution, std::string label, GapFunction gap, GapFunction scale) {
  const int k = count();
  const RowPrimitive* raw = inner.get();
  const int row = numRows_;
  addRows(std::make_unique<OneSidedRow>(std::move(inner), sign, offset, *this, k));
  ++oneSidedRows_;
  add(row, {raw, sign, offset, std::move(gap), std::move(scale)}, restitution, std::move(label));
}

bool PrimitiveJoint::rowsAbsent() const {
  // (a tangential row is written only while its candidate is active and sticks)
  // (a joint without candidates: never; numRows(): derived joints may add rows of their own)
  if (count() == 0 || oneSidedRows_ != numRows()) return false;
  for (int k = 0; k < count(); ++k)
    if (active(k)) return false;
  return true;
}

void PrimitiveJoint::addTangentRow(int k, std::unique_ptr<const TangentRow> row) {
  const TangentRow* raw = row.get();
  const int r = numRows_;
  addRows(std::move(row));
  ++oneSidedRows_;
  addTangent(k, r, raw);
}

void PrimitiveJoint::addTangentRow2(int k, std::unique_ptr<const TangentRow> row) {
  const TangentRow* raw = row.get();
  const int r = numRows_;
  addRows(std::move(row));
  ++oneSidedRows_;
  addTangent2(k, r, raw);
}

void PrimitiveJoint::addLimitRows(const LimitInput& limit, const LimitPrimitive& make) {
  limitSource_ = limit.source;
  // angles: phi = wrap(angle - center) with the center mid-range (or half a turn inside a lone
  // bound), so that the gap is exact over the whole range and a turn beyond it
  const double pi = std::numbers::pi;
  double center = 0;
  if (limit.turn) center = limit.min && limit.max ? 0.5 * (*limit.min + *limit.max) : limit.min ? *limit.min + 0.5 * pi : *limit.max - 0.5 * pi;
  if (limit.min) addOneSidedRow(make(center), 1.0, *limit.min - center, limit.restitution, "min");
  if (limit.max) addOneSidedRow(make(center), -1.0, center - *limit.max, limit.restitution, "max");
}

}  // namespace joinery::detail
