// generalized: Q_k += value for one coordinate k ("body.coord"); value is an expression of t,
// coordinates "b.x" and velocities "b.x_dot" of any bodies (they join bodies()).
#include "element_input.hpp"
#include "marker_access.hpp"

namespace joinery {
namespace {

constexpr std::string_view kGeneralizedForceType = "generalized";

struct GeneralizedInput {
  std::string name;
  std::vector<const Body*> bodies;
  int coordinate = 0;
  detail::StateVariables vars;
  Expression value;
  nlohmann::json valueSource;
};

class GeneralizedForce final : public ForceElement {
 public:
  explicit GeneralizedForce(GeneralizedInput in)
      : ForceElement(in.name, in.bodies),
        coordinate_(in.coordinate),
        vars_(std::move(in.vars)),
        value_(std::move(in.value)),
        valueSource_(std::move(in.valueSource)) {}

  std::string_view typeName() const override { return kGeneralizedForceType; }

  void addForces(const LocalState& s, VecRef Q) const override {
    detail::SlotBuffer slots(vars_.numSlots());
    vars_.gather(s, nullptr, slots.data());
    Q(coordinate_) += value_.evaluate(slots.data());  // the target body is bodies()[0]
  }

  nlohmann::json toJson() const override {
    const Body& b = *bodies().front();
    return {{"name", name()},
            {"type", std::string(kGeneralizedForceType)},
            {"coordinate", b.name() + "." + b.coordinateNames()[static_cast<std::size_t>(coordinate_)]},
            {"value", valueSource_}};
  }

 private:
  int coordinate_;
  detail::StateVariables vars_;
  Expression value_;
  nlohmann::json valueSource_;
};

std::unique_ptr<ForceElement> makeGeneralizedForce(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "coordinate", "value"});
  GeneralizedInput in;
  in.name = c.at("name").string();
  const detail::QualifiedCoordinate qc = detail::parseCoordinateField(c.at("coordinate"), ctx);
  if (qc.body->isGround()) c.at("coordinate").failWith("the ground has no coordinates");
  in.bodies.push_back(qc.body);
  in.coordinate = qc.coordinate;
  detail::StateVariables::Options opts;
  opts.addBodies = true;
  opts.owner = "force '" + in.name + "'";
  in.value = in.vars.parse(c.at("value"), ctx, in.bodies, opts);
  in.valueSource = c.at("value").value();
  return std::make_unique<GeneralizedForce>(std::move(in));
}

}  // namespace

JOINERY_REGISTER(ForceRegistry,
                 {std::string(kGeneralizedForceType), makeGeneralizedForce,
                  "generalized force on one coordinate: value(coordinates, velocities, t)",
                  nlohmann::json::parse(R"json({"name": "drag", "type": "generalized",
                    "coordinate": "body1.x", "value": "-0.3*body1.x_dot + 0.5*sin(t) - 2*body2.x"})json")})

}  // namespace joinery
