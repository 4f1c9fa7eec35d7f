// coupling: sum_i c_i q_i = value(t) over coordinates of any bodies (1 row, rheonomic when
// value depends on t).
#include "joinery/joints/nonideal.hpp"
#include "primitive_joint.hpp"

namespace joinery {
namespace {

constexpr std::string_view kCouplingType = "coupling";

struct CouplingInput {
  std::string name;
  std::vector<const Body*> bodies;
  std::vector<detail::LinearTerm> terms;
  Expression value;
  nlohmann::json valueSource;
};

class Coupling final : public detail::PrimitiveJoint {
 public:
  explicit Coupling(CouplingInput in)
      : PrimitiveJoint(in.name, in.bodies), terms_(in.terms), valueSource_(in.valueSource) {
    const std::vector<int> offsets = detail::localOffsets(bodies());
    for (auto& term : terms_) term.column = offsets[static_cast<std::size_t>(term.body)] + term.coordinate;
    addRows(std::make_unique<detail::LinearCombination>(terms_, detail::TimeFunction(in.value)));
  }
  std::string_view typeName() const override { return kCouplingType; }
  bool prescribesMotion() const override { return true; }
  /// One row sum c_i q_i'' = b with A = c: the multiplier is the effort (joint results).
  JointResultKind resultKind() const override { return JointResultKind::Effort; }
  nlohmann::json toJson() const override {
    nlohmann::json terms = nlohmann::json::array();
    for (const auto& term : terms_) {
      const Body& b = *bodies()[static_cast<std::size_t>(term.body)];
      terms.push_back({{"coordinate", b.name() + "." + b.coordinateNames()[static_cast<std::size_t>(term.coordinate)]},
                       {"coefficient", term.coefficient}});
    }
    nlohmann::json j = {{"name", name()}, {"type", std::string(kCouplingType)}, {"terms", terms},
                        {"value", valueSource_}};
    addNonidealJson(j);
    return j;
  }

 private:
  std::vector<detail::LinearTerm> terms_;
  nlohmann::json valueSource_;
};

std::unique_ptr<Constraint> makeCoupling(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "terms", "value", "nonideal"});
  CouplingInput in;
  in.name = c.at("name").string();
  const JsonCursor terms = c.at("terms");
  terms.requireArray();
  if (terms.size() == 0) terms.fail("a non-empty list of {\"coordinate\": \"body.coord\", \"coefficient\": c}");
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const JsonCursor t = terms.at(i);
    t.requireObject();
    t.rejectUnknownKeys({"coordinate", "coefficient"});
    const detail::QualifiedCoordinate qc = detail::parseCoordinateField(t.at("coordinate"), ctx);
    if (qc.body->isGround()) t.at("coordinate").failWith("the ground has no coordinates");
    detail::LinearTerm term;
    term.body = detail::indexOfBody(in.bodies, qc.body, true);
    term.coordinate = qc.coordinate;
    term.coefficient = ctx.numberOr(t, "coefficient", 1.0);
    in.terms.push_back(term);
  }
  if (c.has("value")) {
    in.value = detail::parseTimeExpression(c.at("value"), ctx);
    in.valueSource = c.at("value").value();
  } else {
    in.value = Expression::constant(0.0);
    in.valueSource = 0.0;
  }
  auto joint = std::make_unique<Coupling>(std::move(in));
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kCouplingType), makeCoupling,
                  "linear coupling: sum of coefficient * coordinate = value(t) (1 row)",
                  nlohmann::json::parse(R"json({"name": "gear", "type": "coupling",
                    "terms": [{"coordinate": "body1.x", "coefficient": 2},
                              {"coordinate": "body2.x", "coefficient": -0.5}],
                    "value": "0.1*sin(3*t) + 0.2*t^2",
                    "nonideal": {"C": {"body1.x": "-0.1*Fi*body1.x_dot"}}})json")})

}  // namespace joinery
