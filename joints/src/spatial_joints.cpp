// The spatial joints of the contract besides spherical and revolute3d, each a stack of the row
// blocks of spatial_support.hpp (docs/joints.md):
//   universal    points coincide (3) + R1 axis1 perpendicular to R2 axis2 (1)        4 rows
//   cylindrical  axes parallel (2) + point2 on the line through point1 along axis1 (2)   4 rows
//   prismatic3d  point2 on the line (2) + relative orientation held (3)               5 rows
//   weld3d       points coincide (3) + relative orientation held (3)                  6 rows
#include "joinery/joints/nonideal.hpp"
#include "one_sided_support.hpp"
#include "spatial_support.hpp"

namespace joinery {
namespace {

const detail::MarkerNeeds kSpatialNeeds{.points = true, .frames = true, .planar = false};

/// A two-point joint with axis1 and (optionally) axis2 and a held orientation, written back
/// by toJson().
class AxisJoint : public detail::TwoPointJoint {
 public:
  struct Fields {
    std::optional<Vector3d> axis1, axis2;
    std::optional<Eigen::Quaterniond> orientation;
    bool turn = false, travel = false;  // what moves about / along axis1 (axisMotion())
  };
  AxisJoint(const detail::TwoBodyInput& in, std::string_view type, Fields f)
      : TwoPointJoint(in, false), type_(type), f_(std::move(f)) {}
  std::string_view typeName() const override { return type_; }
  /// axis1 (body1); on body2 axis2, or axis1 carried by the held orientation (R2 = R1 Rq).
  Vector3d jointAxis(int k) const override {
    if (!f_.axis1) return Vector3d::Zero();
    if (k == 0) return *f_.axis1;
    if (f_.axis2) return *f_.axis2;
    return f_.orientation ? Vector3d(f_.orientation->toRotationMatrix().transpose() * *f_.axis1) : *f_.axis1;
  }
  std::optional<AxisMotion> axisMotion() const override {
    if (!f_.axis1 || !(f_.turn || f_.travel)) return std::nullopt;
    AxisMotion m = baseAxisMotion();
    m.axis1 = *f_.axis1;
    m.axis2 = jointAxis(1);
    m.turn = f_.turn;
    m.travel = f_.travel;
    return m;
  }
  nlohmann::json toJson() const override {
    nlohmann::json j = baseJson();
    if (f_.axis1) j["axis1"] = detail::vectorJson(*f_.axis1, false);
    if (f_.axis2) j["axis2"] = detail::vectorJson(*f_.axis2, false);
    if (f_.orientation) j["orientation"] = detail::quaternionJson(*f_.orientation);
    return j;
  }
  using TwoPointJoint::addLimitRows;
  using TwoPointJoint::input;
  using TwoPointJoint::addRows;
  using TwoPointJoint::frame1;
  using TwoPointJoint::frame2;
  using TwoPointJoint::point1;
  using TwoPointJoint::point2;

 private:
  std::string_view type_;
  Fields f_;
};

/// Reads the common fields of `type` and builds its rows with `build`.
template <class Build>
std::unique_ptr<Constraint> makeAxisJoint(const JsonCursor& c, const FactoryContext& ctx, std::string_view type,
                                          bool axis1, bool axis2, bool orientation, Build build,
                                          bool turn = false, bool travel = false, bool limits = false) {
  std::vector<std::string> keys = {"name", "type", "body1", "point1", "body2", "point2", "nonideal"};
  if (limits) keys.emplace_back("limit");
  if (axis1) keys.emplace_back("axis1");
  if (axis2) keys.emplace_back("axis2");
  if (orientation) keys.emplace_back("orientation");
  c.rejectUnknownKeys(keys);
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, kSpatialNeeds, std::string(type) + " joint", true);
  AxisJoint::Fields f;
  f.turn = turn;
  f.travel = travel;
  if (axis1) f.axis1 = detail::parseAxis(c.at("axis1"), ctx);
  if (axis2) f.axis2 = detail::parseAxis(c.at("axis2"), ctx);
  if (orientation) f.orientation = detail::parseHeldOrientation(c, ctx, in);
  auto joint = std::make_unique<AxisJoint>(in, type, f);
  build(*joint, f);
  attachNonideal(c, ctx, *joint);
  return joint;
}

std::unique_ptr<Constraint> makeUniversal(const JsonCursor& c, const FactoryContext& ctx) {
  return makeAxisJoint(c, ctx, "universal", true, true, false, [](AxisJoint& j, const AxisJoint::Fields& f) {
    j.addRows(std::make_unique<detail::CoincidentPoints>(j.point1(), j.point2(), 3));
    j.addRows(std::make_unique<detail::PerpendicularAxes>(j.frame1(), f.axis1->normalized(), j.frame2(),
                                                          f.axis2->normalized()));
  });
}

std::unique_ptr<Constraint> makeCylindrical(const JsonCursor& c, const FactoryContext& ctx) {
  return makeAxisJoint(c, ctx, "cylindrical", true, true, false, [&c, &ctx](AxisJoint& j, const AxisJoint::Fields& f) {
    j.addRows(detail::parallelAxesRows(j.frame1(), *f.axis1, j.frame2(), *f.axis2));
    j.addRows(detail::pointOnLineRows(j.frame1(), j.point1(), j.point2(), *f.axis1));
    // a limit on the travel (default) or, with "on": "turn", on the turn (docs/contact.md)
    const std::optional<detail::LimitInput> limit = detail::parseLimit(c, ctx, false, true);
    if (!limit) return;
    if (!limit->turn) {
      j.addLimitRows(*limit, [&](double) { return std::make_unique<detail::PointOnLine>(j.frame1(), j.point1(), j.point2(), f.axis1->normalized()); });
      return;
    }
    const Eigen::Quaterniond held = detail::parseHeldOrientation(c, ctx, j.input());
    j.addLimitRows(*limit, [&](double center) {
      return detail::makeTurnRow(j.frame1(), j.frame2(), j.point1(), j.point2(), *f.axis1, *f.axis2, held, center);
    });
  }, /*turn=*/true, /*travel=*/true, /*limits=*/true);
}

std::unique_ptr<Constraint> makePrismatic3d(const JsonCursor& c, const FactoryContext& ctx) {
  return makeAxisJoint(c, ctx, "prismatic3d", true, false, true, [&c, &ctx](AxisJoint& j, const AxisJoint::Fields& f) {
    j.addRows(detail::pointOnLineRows(j.frame1(), j.point1(), j.point2(), *f.axis1));
    j.addRows(detail::fixedOrientationRows(j.frame1(), j.frame2(), *f.orientation));
    // a limit on the travel (R1 axis1).(r2 - r1) (docs/contact.md)
    if (const std::optional<detail::LimitInput> limit = detail::parseLimit(c, ctx, false))
      j.addLimitRows(*limit, [&](double) { return std::make_unique<detail::PointOnLine>(j.frame1(), j.point1(), j.point2(), f.axis1->normalized()); });
  }, /*turn=*/false, /*travel=*/true, /*limits=*/true);
}

std::unique_ptr<Constraint> makeWeld3d(const JsonCursor& c, const FactoryContext& ctx) {
  return makeAxisJoint(c, ctx, "weld3d", false, false, true, [](AxisJoint& j, const AxisJoint::Fields& f) {
    j.addRows(std::make_unique<detail::CoincidentPoints>(j.point1(), j.point2(), 3));
    j.addRows(detail::fixedOrientationRows(j.frame1(), j.frame2(), *f.orientation));
  });
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {"universal", makeUniversal,
                  "Cardan joint: the points coincide and R1 axis1 stays perpendicular to R2 axis2 (4 rows)",
                  nlohmann::json::parse(R"json({"name": "cardan", "type": "universal",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "axis1": [0, 0, 1],
                    "body2": "body2", "point2": [-0.3, 0.1, 0.2], "axis2": [1, 0, 0]})json")})

JOINERY_REGISTER(ConstraintRegistry,
                 {"cylindrical", makeCylindrical,
                  "cylindrical joint: R2 axis2 stays parallel to R1 axis1 and point2 on the line "
                  "through point1 along axis1 (4 rows)",
                  nlohmann::json::parse(R"json({"name": "sleeve", "type": "cylindrical",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "axis1": [0, 0, 1],
                    "body2": "body2", "point2": [-0.3, 0.1, 0.2], "axis2": [0, 0.6, 0.8]})json")})

JOINERY_REGISTER(ConstraintRegistry,
                 {"prismatic3d", makePrismatic3d,
                  "spatial slider: point2 on the line through point1 along axis1, the relative "
                  "orientation held (orientation, default the initial one) (5 rows)",
                  nlohmann::json::parse(R"json({"name": "slider", "type": "prismatic3d",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "axis1": [1, 1, 0],
                    "body2": "body2", "point2": [-0.3, 0.1, 0.2],
                    "orientation": {"axis": [0, 0, 1], "angle": 30, "unit": "deg"}})json")})

JOINERY_REGISTER(ConstraintRegistry,
                 {"weld3d", makeWeld3d,
                  "spatial weld: the points coincide and the relative orientation is held "
                  "(orientation, default the initial one) (6 rows)",
                  nlohmann::json::parse(R"json({"name": "weld", "type": "weld3d",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "body2": "body2", "point2": [-0.3, 0.1, 0.2],
                    "orientation": {"euler": {"sequence": "ZYX", "angles": [0.3, -0.2, 0.1]}}})json")})

}  // namespace joinery
