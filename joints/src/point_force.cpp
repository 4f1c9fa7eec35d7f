// force: a world-frame force F = value applied at a point of a body: Q += J^T F. The value
// components are expressions of t (and, as an extension, of coordinates "b.x" and velocities
// "b.x_dot" of any bodies; those bodies join bodies(), but receive no force).
#include "element_input.hpp"
#include "marker_access.hpp"

namespace joinery {
namespace {

constexpr std::string_view kPointForceType = "force";

struct PointForceInput {
  std::string name;
  std::vector<const Body*> bodies;
  Vector3d point = Vector3d::Zero();
  detail::StateVariables vars;
  std::vector<Expression> value;
  nlohmann::json valueSource;
};

class PointForce final : public ForceElement {
 public:
  explicit PointForce(PointForceInput in)
      : ForceElement(in.name, in.bodies),
        point_(in.point),
        vars_(std::move(in.vars)),
        value_(std::move(in.value)),
        valueSource_(std::move(in.valueSource)),
        p_(bodies(), 0, in.point) {}

  std::string_view typeName() const override { return kPointForceType; }

  void addForces(const LocalState& s, VecRef Q) const override {
    detail::SlotBuffer slots(vars_.numSlots());
    vars_.gather(s, nullptr, slots.data());
    Vector3d F = Vector3d::Zero();
    for (std::size_t i = 0; i < value_.size(); ++i) F(static_cast<Eigen::Index>(i)) = value_[i].evaluate(slots.data());
    p_.addForce(s, F, Q);
  }

  /// Exact Jacobians when the value depends on t alone: only the point's geometric term.
  bool providesForceJacobians() const override { return vars_.numSlots() == 1 && bodies().size() == 1; }
  void addForceJacobians(const LocalState& s, MatRef dQdq, MatRef) const override {
    Vector3d F = Vector3d::Zero();
    for (std::size_t i = 0; i < value_.size(); ++i) F(static_cast<Eigen::Index>(i)) = value_[i].evaluate(&s.t);
    p_.addForceHessian(s, F, dQdq);
  }

  nlohmann::json toJson() const override {
    return {{"name", name()},
            {"type", std::string(kPointForceType)},
            {"body", bodies().front()->name()},
            {"point", detail::vectorJson(point_, false)},
            {"value", valueSource_}};
  }

 private:
  Vector3d point_;
  detail::StateVariables vars_;
  std::vector<Expression> value_;
  nlohmann::json valueSource_;
  detail::BodyPoint p_;
};

std::unique_ptr<ForceElement> makePointForce(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body", "point", "value"});
  PointForceInput in;
  in.name = c.at("name").string();
  const detail::MarkerNeeds needs{.points = true, .frames = false, .planar = false};
  const Body& body = detail::parseBody(c.at("body"), ctx, needs, "point force");
  if (body.isGround()) c.at("body").failWith("a force on the ground has no effect; name a moving body");
  in.bodies.push_back(&body);
  in.point = detail::parseVector(c, "point", ctx);
  const JsonCursor value = c.at("value");
  value.requireArray();
  if (value.size() != 2 && value.size() != 3)
    value.fail("a world-frame force of 2 or 3 expressions ([Fx, Fy] or [Fx, Fy, Fz])");
  detail::StateVariables::Options opts;
  opts.addBodies = true;
  opts.owner = "force '" + in.name + "'";
  for (std::size_t i = 0; i < value.size(); ++i)
    in.value.push_back(in.vars.parse(value.at(i), ctx, in.bodies, opts));
  in.valueSource = value.value();
  return std::make_unique<PointForce>(std::move(in));
}

}  // namespace

JOINERY_REGISTER(ForceRegistry,
                 {std::string(kPointForceType), makePointForce,
                  "applied force: world-frame vector value(t) at a point of a body",
                  nlohmann::json::parse(R"json({"name": "push", "type": "force", "body": "body1",
                    "point": [0.5, 0.2], "value": ["3*cos(t)", "-2 + t"]})json")})

}  // namespace joinery
