// spherical: point1 of body1 and point2 of body2 coincide in space (3 rows).
#include "joinery/joints/nonideal.hpp"
#include "primitive_joint.hpp"

namespace joinery {
namespace {

constexpr std::string_view kSphericalType = "spherical";

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
  const detail::MarkerNeeds needs{.points = true, .frames = false, .planar = false};
  auto joint = std::make_unique<Spherical>(detail::parseTwoBodies(c, ctx, needs, "spherical joint", true));
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kSphericalType), makeSpherical,
                  "ball joint: point1 of body1 and point2 of body2 coincide (3 rows)",
                  nlohmann::json::parse(R"json({"name": "ball", "type": "spherical",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "body2": "body2", "point2": [-0.3, 0.1, 0.2]})json")})

}  // namespace joinery
