// Spatial joints that keep a point on a line or in a plane of another body (docs/joints.md):
//   point_on_line   point2 on the line through point1 along axis1 (body-1 frame)        2 rows
//   point_on_plane  point2 in the plane through point1 with normal `normal` (body 1)     1 row
//   planar3d        point2 in that plane and R2 axis2 parallel to R1 normal: body 2
//                   slides and turns in the plane of body 1                            3 rows
// Body 1 needs a frame; body 2 of the point joints only a point (a particle will do).
#include "joinery/joints/nonideal.hpp"
#include "spatial_support.hpp"

namespace joinery {
namespace {

class PointJoint final : public detail::TwoPointJoint {
 public:
  PointJoint(const detail::TwoBodyInput& in, std::string_view type, std::string axisKey, const Vector3d& axis,
             std::optional<Vector3d> axis2)
      : TwoPointJoint(in, false), type_(type), axisKey_(std::move(axisKey)), axis_(axis), axis2_(axis2) {
    if (type == "point_on_line") {
      addRows(detail::pointOnLineRows(frame1(), point1(), point2(), axis));
    } else {
      addRows(std::make_unique<detail::PointOnLine>(frame1(), point1(), point2(), axis.normalized()));
      if (axis2) addRows(detail::parallelAxesRows(frame1(), axis, frame2(), *axis2));
    }
  }
  std::string_view typeName() const override { return type_; }
  /// point_on_line: the travel of point2 along axis1.
  std::optional<AxisMotion> axisMotion() const override {
    if (axisKey_ != "axis1") return std::nullopt;
    AxisMotion m = baseAxisMotion();
    m.axis1 = m.axis2 = axis_;
    m.travel = true;
    return m;
  }
  nlohmann::json toJson() const override {
    nlohmann::json j = baseJson();
    j[axisKey_] = detail::vectorJson(axis_, false);
    if (axis2_) j["axis2"] = detail::vectorJson(*axis2_, false);
    return j;
  }

 private:
  std::string_view type_;
  std::string axisKey_;
  Vector3d axis_;
  std::optional<Vector3d> axis2_;
};

std::unique_ptr<Constraint> makePointJoint(const JsonCursor& c, const FactoryContext& ctx, std::string_view type,
                                           const std::string& axisKey, bool withAxis2) {
  std::vector<std::string> keys = {"name", "type", "body1", "point1", "body2", "point2", "nonideal", axisKey};
  if (withAxis2) keys.emplace_back("axis2");
  c.rejectUnknownKeys(keys);
  const std::string what = std::string(type) + " joint";
  const detail::MarkerNeeds frameNeeds{.points = true, .frames = true, .planar = false};
  (void)detail::parseBody(c.at("body1"), ctx, frameNeeds, what);  // body 1 carries the line / plane
  const detail::MarkerNeeds pointNeeds{.points = true, .frames = withAxis2, .planar = false};
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, pointNeeds, what, true);
  const Vector3d axis = detail::parseAxis(c.at(axisKey), ctx);
  std::optional<Vector3d> axis2;
  if (withAxis2) axis2 = detail::parseAxis(c.at("axis2"), ctx);
  auto joint = std::make_unique<PointJoint>(in, type, axisKey, axis, axis2);
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {"point_on_line",
                  [](const JsonCursor& c, const FactoryContext& ctx) {
                    return makePointJoint(c, ctx, "point_on_line", "axis1", false);
                  },
                  "point2 of body2 stays on the line through point1 along axis1 (body-1 frame) (2 rows)",
                  nlohmann::json::parse(R"json({"name": "rail", "type": "point_on_line",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "axis1": [1, 0, 0],
                    "body2": "body2", "point2": [-0.3, 0.1, 0.2]})json")})

JOINERY_REGISTER(ConstraintRegistry,
                 {"point_on_plane",
                  [](const JsonCursor& c, const FactoryContext& ctx) {
                    return makePointJoint(c, ctx, "point_on_plane", "normal", false);
                  },
                  "point2 of body2 stays in the plane through point1 with normal `normal` (body-1 frame) (1 row)",
                  nlohmann::json::parse(R"json({"name": "table", "type": "point_on_plane",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "normal": [0, 0, 1],
                    "body2": "body2", "point2": [-0.3, 0.1, 0.2]})json")})

JOINERY_REGISTER(ConstraintRegistry,
                 {"planar3d",
                  [](const JsonCursor& c, const FactoryContext& ctx) {
                    return makePointJoint(c, ctx, "planar3d", "normal", true);
                  },
                  "body2 moves in a plane of body1: point2 in the plane through point1 with normal "
                  "`normal` (body-1 frame) and R2 axis2 parallel to R1 normal (3 rows)",
                  nlohmann::json::parse(R"json({"name": "puck", "type": "planar3d",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "normal": [0, 0, 1],
                    "body2": "body2", "point2": [-0.3, 0.1, 0.2], "axis2": [0, 0, 1]})json")})

}  // namespace joinery
