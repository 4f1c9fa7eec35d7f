// driver: prescribed motion. Either a coordinate follows value(t) (1 row), or a point of a body
// follows a world path [x(t), y(t)(, z(t))] (2 or 3 rows). Derivatives of the value are exact
// (symbolic).
#include "joinery/joints/nonideal.hpp"
#include "primitive_joint.hpp"

namespace joinery {
namespace {

constexpr std::string_view kDriverType = "driver";

/// Coordinate mode: q_k - f(t) = 0.
class CoordinateDriver final : public detail::PrimitiveJoint {
 public:
  CoordinateDriver(const std::string& name, const Body& body, int coordinate, const Expression& value,
                   nlohmann::json valueSource)
      : PrimitiveJoint(name, {&body}), coordinate_(coordinate), valueSource_(std::move(valueSource)) {
    detail::LinearTerm term;
    term.body = 0;
    term.coordinate = coordinate;
    term.column = coordinate;
    addRows(std::make_unique<detail::LinearCombination>(std::vector<detail::LinearTerm>{term},
                                                        detail::TimeFunction(value)));
  }
  std::string_view typeName() const override { return kDriverType; }
  bool prescribesMotion() const override { return true; }
  /// One row q_k'' = f'': the multiplier is the driving force or torque (joint results).
  JointResultKind resultKind() const override { return JointResultKind::Effort; }
  nlohmann::json toJson() const override {
    const Body& b = *bodies().front();
    nlohmann::json j = {{"name", name()},
                        {"type", std::string(kDriverType)},
                        {"coordinate", b.name() + "." + b.coordinateNames()[static_cast<std::size_t>(coordinate_)]},
                        {"value", valueSource_}};
    addNonidealJson(j);
    return j;
  }

 private:
  int coordinate_;
  nlohmann::json valueSource_;
};

/// Point mode: S (r(q) - f(t)) = 0.
class PointDriver final : public detail::PrimitiveJoint {
 public:
  PointDriver(const std::string& name, const Body& body, const Vector3d& point,
              const std::vector<Expression>& path, nlohmann::json valueSource)
      : PrimitiveJoint(name, {&body}), point_(point), valueSource_(std::move(valueSource)) {
    std::vector<detail::TimeFunction> f;
    for (const auto& e : path) f.emplace_back(e);
    addRows(std::make_unique<detail::PointPath>(detail::BodyPoint(bodies(), 0, point), std::move(f)));
  }
  std::string_view typeName() const override { return kDriverType; }
  bool prescribesMotion() const override { return true; }
  /// Joint results: the force (and torque) that makes the point follow its path.
  JointResultKind resultKind() const override { return JointResultKind::Points; }
  Vector3d actionPoint(int) const override { return point_; }
  nlohmann::json toJson() const override {
    nlohmann::json j = {{"name", name()},
                        {"type", std::string(kDriverType)},
                        {"body", bodies().front()->name()},
                        {"point", detail::vectorJson(point_, false)},
                        {"value", valueSource_}};
    addNonidealJson(j);
    return j;
  }

 private:
  Vector3d point_;
  nlohmann::json valueSource_;
};

std::unique_ptr<Constraint> makeDriver(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "coordinate", "body", "point", "value", "nonideal"});
  const std::string name = c.at("name").string();
  if (c.has("coordinate") == c.has("body"))
    c.failWith("a driver takes exactly one of 'coordinate' (\"body.coord\" following value(t)) or "
               "'body' with 'point' (a point following the path value = [x(t), y(t)(, z(t))])");
  const JsonCursor value = c.at("value");
  std::unique_ptr<Constraint> joint;
  if (c.has("coordinate")) {
    if (c.has("point")) c.at("point").failWith("'point' goes with 'body', not with 'coordinate'");
    const detail::QualifiedCoordinate qc = detail::parseCoordinateField(c.at("coordinate"), ctx);
    if (qc.body->isGround()) c.at("coordinate").failWith("the ground has no coordinates to drive");
    if (value.value().is_array())
      value.fail("one expression in t (a coordinate driver follows a scalar function)");
    joint = std::make_unique<CoordinateDriver>(name, *qc.body, qc.coordinate,
                                               detail::parseTimeExpression(value, ctx), value.value());
  } else {
    const detail::MarkerNeeds needs{.points = true, .frames = false, .planar = false};
    const Body& body = detail::parseBody(c.at("body"), ctx, needs, "point driver");
    if (body.isGround()) c.at("body").failWith("the ground cannot be driven; name a moving body");
    value.requireArray();
    if (value.size() != 2 && value.size() != 3)
      value.fail("a world path of 2 or 3 expressions in t ([x(t), y(t)] or [x(t), y(t), z(t)])");
    std::vector<Expression> path;
    for (std::size_t i = 0; i < value.size(); ++i) path.push_back(detail::parseTimeExpression(value.at(i), ctx));
    joint = std::make_unique<PointDriver>(name, body, detail::parseVector(c, "point", ctx), path, value.value());
  }
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kDriverType), makeDriver,
                  "prescribed motion: a coordinate follows value(t) (1 row), or a point of a body "
                  "follows a world path [x(t), y(t)(, z(t))] (2 or 3 rows)",
                  nlohmann::json::parse(R"json({"name": "motor", "type": "driver",
                    "coordinate": "body1.x", "value": "0.5*sin(2*t) + 0.1*t^3"})json")})

}  // namespace joinery
