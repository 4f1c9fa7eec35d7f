// revolute2d: point1 of body1 and point2 of body2 coincide in the world x-y plane (2 rows).
#include "joinery/joints/joints.hpp"
#include "joinery/joints/nonideal.hpp"
#include "primitive_joint.hpp"

namespace joinery {
namespace {

constexpr std::string_view kRevolute2dType = "revolute2d";
const detail::MarkerNeeds kRevolute2dNeeds{.points = true, .frames = false, .planar = true};

class Revolute2d final : public detail::TwoPointJoint {
 public:
  Revolute2d(const detail::TwoBodyInput& in, const std::optional<detail::LimitInput>& limit)
      : TwoPointJoint(in, true) {
    // rows: x2 - x1, y2 - y1 of the world positions of the points
    addRows(std::make_unique<detail::CoincidentPoints>(point1(), point2(), 2));
    // limit rows on theta2 - theta1 (docs/contact.md)
    if (limit)
      addLimitRows(*limit, [this](double center) {
        return std::make_unique<detail::PlanarRelativeAngle>(frame1(), frame2(), center);
      });
  }
  std::string_view typeName() const override { return kRevolute2dType; }
  std::optional<PlanarPair> planarPair() const override { return PlanarPair::Pin; }
  nlohmann::json toJson() const override { return baseJson(); }
};

std::unique_ptr<Constraint> makeRevolute2d(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "body2", "point2", "nonideal", "limit"});
  const detail::MarkerNeeds needs{.points = true, .frames = c.has("limit"), .planar = true};
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, needs, "revolute2d joint", true);
  auto joint = std::make_unique<Revolute2d>(in, detail::parseLimit(c, ctx, true));
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

ConstraintPtr joints::revolute2d(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                                 const Vector3d& point2) {
  return std::make_unique<Revolute2d>(
      detail::twoBodies(std::move(name), body1, point1, body2, point2, kRevolute2dNeeds, "revolute2d joint"), std::nullopt);
}

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kRevolute2dType), makeRevolute2d,
                  "planar pin: point1 of body1 and point2 of body2 coincide (2 rows)",
                  nlohmann::json::parse(R"json({"name": "pin", "type": "revolute2d",
                    "body1": "body1", "point1": [0.5, 0.2], "body2": "body2", "point2": [-0.3, 0.1]})json")})

}  // namespace joinery
