// spherical: point1 of body1 and point2 of body2 coincide in space (3 rows).
#include "joinery/joints/joints.hpp"
#include "joinery/joints/nonideal.hpp"
#include "primitive_joint.hpp"

namespace joinery {
namespace {

constexpr std::string_view kSphericalType = "spherical";
const detail::MarkerNeeds kSphericalNeeds{.points = true, .frames = false, .planar = false};

class Spherical final : public detail::TwoPointJoint {
 public:
  explicit Spherical(const detail::TwoBodyInput& in) : TwoPointJoint(in, false) {
    // rows: x2 - x1, y2 - y1, z2 - z1 of the world positions of the points
    addRows(std::make_unique<detail::CoincidentPoints>(point1(), point2(), 3));
  }
  std::string_view typeName() const override { return kSphericalType; }
  nlohmann::json toJson() const override { return baseJson(); }
};

std::unique_ptr<Constraint> makeSpherical(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "body2", "point2", "nonideal"});
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, kSphericalNeeds, "spherical joint", true);
  auto joint = joints::spherical(in.name, *in.body1, in.point1, *in.body2, in.point2);
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

ConstraintPtr joints::spherical(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                                const Vector3d& point2) {
  return std::make_unique<Spherical>(
      detail::twoBodies(std::move(name), body1, point1, body2, point2, kSphericalNeeds, "spherical joint"));
}

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kSphericalType), makeSpherical,
                  "ball joint: point1 of body1 and point2 of body2 coincide (3 rows)",
                  nlohmann::json::parse(R"json({"name": "ball", "type": "spherical",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "body2": "body2", "point2": [-0.3, 0.1, 0.2]})json")})

}  // namespace joinery
