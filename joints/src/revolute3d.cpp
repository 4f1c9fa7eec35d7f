// revolute3d: spatial hinge. The points coincide (3 rows) and the world axes stay parallel:
// R2 axis2 is perpendicular to R1 p and R1 q, where p, q are body-1 vectors perpendicular to
// axis1 chosen at construction (2 rows, spatial_support.hpp).
#include "joinery/core/errors.hpp"
#include "joinery/joints/joints.hpp"
#include "joinery/joints/nonideal.hpp"
#include "one_sided_support.hpp"
#include "spatial_support.hpp"

namespace joinery {
namespace {

constexpr std::string_view kRevolute3dType = "revolute3d";
const detail::MarkerNeeds kRevolute3dNeeds{.points = true, .frames = true, .planar = false};

class Revolute3d final : public detail::TwoPointJoint {
 public:
  Revolute3d(const detail::TwoBodyInput& in, const Vector3d& axis1, const Vector3d& axis2,
             const std::optional<detail::LimitInput>& limit, const Eigen::Quaterniond& held)
      : TwoPointJoint(in, false), axis1_(axis1), axis2_(axis2) {
    addRows(std::make_unique<detail::CoincidentPoints>(point1(), point2(), 3));
    addRows(detail::parallelAxesRows(frame1(), axis1, frame2(), axis2));
    // limit rows on the turn about the axis, zero at the initial state (docs/contact.md)
    if (limit)
      addLimitRows(*limit, [&, this](double center) {
        return detail::makeTurnRow(frame1(), frame2(), point1(), point2(), axis1_, axis2_, held, center);
      });
  }
  std::string_view typeName() const override { return kRevolute3dType; }
  Vector3d jointAxis(int k) const override { return k == 0 ? axis1_ : axis2_; }
  /// The turn about axis1 (its zero: the defaults of AxisMotion).
  std::optional<AxisMotion> axisMotion() const override {
    AxisMotion m = baseAxisMotion();
    m.axis1 = axis1_;
    m.axis2 = axis2_;
    m.turn = true;
    return m;
  }
  nlohmann::json toJson() const override {
    nlohmann::json j = baseJson();
    j["axis1"] = detail::vectorJson(axis1_, false);
    j["axis2"] = detail::vectorJson(axis2_, false);
    return j;
  }

 private:
  Vector3d axis1_, axis2_;
};

std::unique_ptr<Constraint> makeRevolute3d(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "axis1", "body2", "point2", "axis2", "nonideal", "limit"});
  const detail::MarkerNeeds needs{.points = true, .frames = true, .planar = false};
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, needs, "revolute3d joint", true);
  const std::optional<detail::LimitInput> limit = detail::parseLimit(c, ctx, true);
  const Eigen::Quaterniond held = limit ? detail::parseHeldOrientation(c, ctx, in) : Eigen::Quaterniond::Identity();
  auto joint = std::make_unique<Revolute3d>(in, detail::parseAxis(c.at("axis1"), ctx),
                                              detail::parseAxis(c.at("axis2"), ctx), limit, held);
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

ConstraintPtr joints::revolute3d(std::string name, const Body& body1, const Vector3d& point1, const Vector3d& axis1,
                                 const Body& body2, const Vector3d& point2, const Vector3d& axis2) {
  for (const Vector3d* a : {&axis1, &axis2})
    if (!(a->norm() > 0)) throw ModelError("revolute3d joint '" + name + "': an axis must be a non-zero direction");
  return std::make_unique<Revolute3d>(
      detail::twoBodies(std::move(name), body1, point1, body2, point2, kRevolute3dNeeds, "revolute3d joint"), axis1, axis2,
      std::nullopt, Eigen::Quaterniond::Identity());
}

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kRevolute3dType), makeRevolute3d,
                  "spatial hinge: the points coincide and R1 axis1 stays parallel to R2 axis2 (5 rows)",
                  nlohmann::json::parse(R"json({"name": "hinge", "type": "revolute3d",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "axis1": [0, 0, 1],
                    "body2": "body2", "point2": [-0.3, 0.1, 0.2], "axis2": [0, 0.6, 0.8]})json")})

}  // namespace joinery
