// distance: point1 of body1 and point2 of body2 stay `length` apart (1 row, 2-D or 3-D):
// phi = (|r2 - r1|^2 - length^2) / 2.
#include <algorithm>
#include <cmath>

#include "joinery/core/errors.hpp"
#include "joinery/joints/joints.hpp"
#include "joinery/joints/nonideal.hpp"
#include "primitive_joint.hpp"

namespace joinery {
namespace {

constexpr std::string_view kDistanceType = "distance";
const detail::MarkerNeeds kDistanceNeeds{.points = true, .frames = false, .planar = false};

class Distance final : public detail::TwoPointJoint {
 public:
  /// Joint results also give the signed tension along the line between the points.
  JointResultKind resultKind() const override { return JointResultKind::Tension; }
  Distance(const detail::TwoBodyInput& in, double length) : TwoPointJoint(in, false), length_(length) {
    addRows(std::make_unique<detail::PointDistance>(point1(), point2(), length));
  }
  std::string_view typeName() const override { return kDistanceType; }
  /// The row (|d|^2 - L^2) / 2 as a length: |d| - L (positions), about |d|' (velocities: / L).
  double measuredResidual(int, double value, bool velocity) const override {
    return velocity ? value / length_ : std::sqrt(std::max(0.0, length_ * length_ + 2 * value)) - length_;
  }
  nlohmann::json toJson() const override {
    nlohmann::json j = baseJson();
    j["length"] = length_;
    return j;
  }

 private:
  double length_;
};

std::unique_ptr<Constraint> makeDistance(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "body2", "point2", "length", "nonideal"});
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, kDistanceNeeds, "distance joint", true);
  const double length = ctx.number(c.at("length"));
  if (!(length > 0))
    c.at("length").failWith("length must be > 0, got " + std::to_string(length) +
                            " (use revolute2d or spherical to make two points coincide)");
  auto joint = joints::distance(in.name, *in.body1, in.point1, *in.body2, in.point2, length);
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

ConstraintPtr joints::distance(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                               const Vector3d& point2, double length) {
  if (!(length > 0))
    throw ModelError("distance joint '" + name + "': the length must be > 0 (m), got " + std::to_string(length));
  return std::make_unique<Distance>(
      detail::twoBodies(std::move(name), body1, point1, body2, point2, kDistanceNeeds, "distance joint"), length);
}

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kDistanceType), makeDistance,
                  "rod: point1 of body1 and point2 of body2 stay `length` apart (1 row)",
                  nlohmann::json::parse(R"json({"name": "rod", "type": "distance",
                    "body1": "body1", "point1": [0.5, 0.2], "body2": "body2", "point2": [-0.3, 0.1],
                    "length": 1.5})json")})

}  // namespace joinery
