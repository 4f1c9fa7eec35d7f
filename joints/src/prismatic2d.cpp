// prismatic2d: planar slider. point2 of body2 stays on the line through point1 of body1 along
// `axis` (body-1 frame), and the relative angle is fixed (2 rows). Supports Coulomb friction.
#include <cmath>

#include "joinery/core/joint_results.hpp"
#include "joinery/joints/nonideal.hpp"
#include "primitive_joint.hpp"

namespace joinery {
namespace {

constexpr std::string_view kPrismatic2dType = "prismatic2d";

class Prismatic2d final : public detail::TwoPointJoint, public SlidingJoint {
 public:
  /// `axis`: direction in body-1 frame (x, y used; non-zero); `angle`: theta2 - theta1.
  Prismatic2d(const detail::TwoBodyInput& in, const Vector3d& axis, double angle,
              const std::optional<detail::LimitInput>& limit)
      : TwoPointJoint(in, true),
        axisGiven_(axis.x(), axis.y(), 0.0),
        axis_(axisGiven_.normalized()),
        angle_(angle),
        frame1_(frame1()),
        point1_(point1()),
        point2_(point2()) {
    // rows: n.(r2 - r1) with n = R1 (ez x axis), and theta2 - theta1 - angle
    addRows(std::make_unique<detail::PointOnLine>(frame1(), point1(), point2(),
                                                  Vector3d::UnitZ().cross(axis_)));
    addRows(std::make_unique<detail::PlanarRelativeAngle>(frame1(), frame2(), angle));
    // limit rows on the travel (R1 axis).(r2 - r1) (docs/contact.md)
    if (limit)
      addLimitRows(*limit, [this](double) {
        return std::make_unique<detail::PointOnLine>(frame1(), point1(), point2(), axis_);
      });
  }
  std::string_view typeName() const override { return kPrismatic2dType; }
  std::optional<PlanarPair> planarPair() const override { return PlanarPair::Slider; }
  /// The sliding axis in body1's frame; in body2's, turned back by the held angle.
  Vector3d jointAxis(int k) const override {
    return k == 0 ? axis_ : Vector3d(Eigen::AngleAxisd(-angle_, Vector3d::UnitZ()) * axis_);
  }
  nlohmann::json toJson() const override {
    nlohmann::json j = baseJson();
    j["axis"] = detail::vectorJson(axisGiven_, true);
    j["angle"] = angle_;
    return j;
  }

  // v_rel = d/dt (a . d), a = R1 axis, d = r2 - r1:  v_rel = (w1 x a).d + a.d'
  double calcSlidingVelocity(const LocalState& s) const override {
    const Vector3d a = frame1_.calcOrientation(s) * axis_;
    const Vector3d d = point2_.calcPosition(s) - point1_.calcPosition(s);
    const Vector3d dd = point2_.calcVelocity(s) - point1_.calcVelocity(s);
    return frame1_.calcAngularVelocity(s).cross(a).dot(d) + a.dot(dd);
  }
  // F = f a on body2 at point2, -F on body1 at point1 (exact on the constraint manifold: there
  // d is parallel to a, so the reaction has no moment about the contact point).
  void addSlidingForce(const LocalState& s, double f, VecRef C) const override {
    const Vector3d F = f * (frame1_.calcOrientation(s) * axis_);
    point2_.addForce(s, F, C);
    point1_.addForce(s, -F, C);
  }
  // N: the ideal force on body2 at point2 (on body1 at point1 when body2 is the ground; the
  // same magnitude, opposite) projected on the normal R1 (ez x axis) of the sliding axis.
  double calcNormalForce(const LocalState& s, const double* g) const override {
    const Vector3d n = frame1_.calcOrientation(s) * Vector3d::UnitZ().cross(axis_);
    const BodyStateView& b1 = s.bodies[0];
    const BodyStateView& b2 = s.bodies[1];
    const bool onBody2 = b2.n > 0;
    const BodyStateView& b = onBody2 ? b2 : b1;
    const Eigen::Map<const VectorXd> gb(g + (onBody2 ? b1.n : 0), b.n);
    Vector3d F, tau;
    if (!wrenchAtPoint(*b.body, s.t, b.coords(), b.velocities(), onBody2 ? point2_.local() : point1_.local(),
                       gb, F, tau))
      return 0;
    return std::abs(F.dot(n));
  }

 private:
  Vector3d axisGiven_, axis_;
  double angle_;
  detail::BodyFrame frame1_;
  detail::BodyPoint point1_, point2_;
};

std::unique_ptr<Constraint> makePrismatic2d(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "body2", "point2", "axis", "angle", "nonideal", "limit"});
  const detail::MarkerNeeds needs{.points = true, .frames = true, .planar = true};
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, needs, "prismatic2d joint", true);
  const Vector3d axis = ctx.vector3(c.at("axis"));
  if (!(std::hypot(axis.x(), axis.y()) > 0))
    c.at("axis").failWith("the axis [" + std::to_string(axis.x()) + ", " + std::to_string(axis.y()) +
                          "] has no length in the x-y plane; expected a non-zero direction");
  auto joint = std::make_unique<Prismatic2d>(in, axis, ctx.numberOr(c, "angle", 0.0), detail::parseLimit(c, ctx, false));
  attachNonideal(c, ctx, *joint, joint.get());
  return joint;
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kPrismatic2dType), makePrismatic2d,
                  "planar slider: point2 on the line through point1 along axis (body-1 frame), "
                  "theta2 - theta1 = angle (default 0) (2 rows); nonideal coulomb supported",
                  nlohmann::json::parse(R"json({"name": "slider", "type": "prismatic2d",
                    "body1": "body1", "point1": [0.5, 0.2], "body2": "body2", "point2": [-0.3, 0.1],
                    "axis": [0.6, 0.8], "nonideal": {"coulomb": 0.3}})json")})

}  // namespace joinery
