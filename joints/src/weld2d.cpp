// weld2d: no relative motion in the plane: the points coincide and the relative angle is fixed
// (3 rows).
#include "joinery/joints/nonideal.hpp"
#include "primitive_joint.hpp"

namespace joinery {
namespace {

constexpr std::string_view kWeld2dType = "weld2d";

class Weld2d final : public detail::TwoPointJoint {
 public:
  Weld2d(const detail::TwoBodyInput& in, double angle) : TwoPointJoint(in, true), angle_(angle) {
    // rows: x2 - x1, y2 - y1 (world positions of the points), theta2 - theta1 - angle
    addRows(std::make_unique<detail::CoincidentPoints>(point1(), point2(), 2));
    addRows(std::make_unique<detail::PlanarRelativeAngle>(frame1(), frame2(), angle));
  }
  std::string_view typeName() const override { return kWeld2dType; }
  nlohmann::json toJson() const override {
    nlohmann::json j = baseJson();
    j["angle"] = angle_;
    return j;
  }

 private:
  double angle_;
};

std::unique_ptr<Constraint> makeWeld2d(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "body2", "point2", "angle", "nonideal"});
  const detail::MarkerNeeds needs{.points = true, .frames = true, .planar = true};
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, needs, "weld2d joint", true);
  auto joint = std::make_unique<Weld2d>(in, ctx.numberOr(c, "angle", 0.0));
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kWeld2dType), makeWeld2d,
                  "planar weld: the points coincide and theta2 - theta1 = angle (default 0) (3 rows)",
                  nlohmann::json::parse(R"json({"name": "weld", "type": "weld2d",
                    "body1": "body1", "point1": [0.5, 0.2], "body2": "body2", "point2": [-0.3, 0.1],
                    "angle": 0.3})json")})

}  // namespace joinery
