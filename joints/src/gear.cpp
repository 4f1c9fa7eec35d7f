// Named linear couplings (docs/joints.md), one row each, written with the coupling's row
// primitive (LinearCombination):
//   gear         coordinate2 - ratio * coordinate1 - offset = 0   (q2' = ratio q1')
//   rack_pinion  rack - radius * pinion - offset = 0              (rack' = radius pinion')
// Sign conventions: a gear's ratio is signed, q2'/q1': an external mesh of z1 and z2 teeth is
// -z1/z2, an internal (ring) mesh +z1/z2. A rack_pinion with radius > 0 advances the rack along
// its coordinate's positive direction when the pinion's angle grows. offset defaults to the
// value that the initial state satisfies. A side may instead name a joint written earlier
// (joint1/joint2, pinion_joint/rack_joint): its turn or travel; that form is built by
// detail::makeAxisCoupling (axial_joints.cpp, with the turn/travel math of the screw).
#include "joinery/joints/nonideal.hpp"
#include "primitive_joint.hpp"
#include "spatial_support.hpp"

namespace joinery {
namespace {

struct Field {
  std::string key;              // "coordinate1", "pinion", ...
  detail::QualifiedCoordinate coordinate;
};

class NamedCoupling final : public detail::PrimitiveJoint {
 public:
  /// Row: fields[1] - factor * fields[0] - offset.
  NamedCoupling(const std::string& name, std::string_view type, std::vector<Field> fields, std::string factorKey,
                double factor, double offset, std::vector<const Body*> bodies)
      : PrimitiveJoint(name, std::move(bodies)), type_(type), fields_(std::move(fields)),
        factorKey_(std::move(factorKey)), factor_(factor), offset_(offset) {
    addRows(std::make_unique<detail::LinearCombination>(terms(), detail::TimeFunction(Expression::constant(offset))));
  }
  std::string_view typeName() const override { return type_; }
  /// One row with A = the coefficients: the multiplier is the effort (joint results).
  JointResultKind resultKind() const override { return JointResultKind::Effort; }
  nlohmann::json toJson() const override {
    nlohmann::json j = {{"name", name()}, {"type", std::string(type_)}};
    for (const Field& f : fields_) {
      const Body& b = *f.coordinate.body;
      j[f.key] = b.name() + "." + b.coordinateNames()[static_cast<std::size_t>(f.coordinate.coordinate)];
    }
    j[factorKey_] = factor_;
    j["offset"] = offset_;
    addNonidealJson(j);
    return j;
  }

  /// The terms -factor * q1 + q2 in the local layout.
  std::vector<detail::LinearTerm> terms() const {
    const std::vector<int> offsets = detail::localOffsets(bodies());
    std::vector<detail::LinearTerm> out;
    for (std::size_t i = 0; i < 2; ++i) {
      detail::LinearTerm t;
      std::vector<const Body*> list = bodies();
      t.body = detail::indexOfBody(list, fields_[i].coordinate.body, false);
      t.coordinate = fields_[i].coordinate.coordinate;
      t.column = offsets[static_cast<std::size_t>(t.body)] + t.coordinate;
      t.coefficient = i == 0 ? -factor_ : 1.0;
      out.push_back(t);
    }
    return out;
  }

 private:
  std::string_view type_;
  std::vector<Field> fields_;
  std::string factorKey_;
  double factor_, offset_;
};

/// The initial value of a coordinate.
double initialValue(const detail::QualifiedCoordinate& qc) {
  VectorXd q0(qc.body->numCoordinates()), v0(qc.body->numCoordinates());
  qc.body->getInitialState(q0, v0);
  return q0(qc.coordinate);
}

std::unique_ptr<Constraint> makeNamed(const JsonCursor& c, const FactoryContext& ctx, std::string_view type,
                                      const std::string& key1, const std::string& key2, const std::string& factorKey) {
  c.rejectUnknownKeys({"name", "type", key1, key2, factorKey, "offset", "nonideal"});
  const std::string name = c.at("name").string();
  std::vector<Field> fields;
  std::vector<const Body*> bodies;
  for (const std::string& key : {key1, key2}) {
    const detail::QualifiedCoordinate qc = detail::parseCoordinateField(c.at(key), ctx);
    if (qc.body->isGround()) c.at(key).failWith("the ground has no coordinates");
    if (!fields.empty() && qc.body == fields[0].coordinate.body && qc.coordinate == fields[0].coordinate.coordinate)
      c.at(key).failWith("the same coordinate as '" + key1 + "'; expected another coordinate");
    (void)detail::indexOfBody(bodies, qc.body, true);
    fields.push_back({key, qc});
  }
  const double factor = ctx.number(c.at(factorKey));
  if (!std::isfinite(factor)) c.at(factorKey).failWith("expected a finite number");
  const double offset = c.has("offset") ? ctx.number(c.at("offset"))
                                        : initialValue(fields[1].coordinate) - factor * initialValue(fields[0].coordinate);
  auto joint = std::make_unique<NamedCoupling>(name, type, std::move(fields), factorKey, factor, offset, bodies);
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {"gear",
                  [](const JsonCursor& c, const FactoryContext& ctx) {
                    if (c.has("joint1") || c.has("joint2"))
                      return detail::makeAxisCoupling(c, ctx, "gear",
                                                      {"coordinate1", "joint1", "coordinate2", "joint2", "ratio", false});
                    return makeNamed(c, ctx, "gear", "coordinate1", "coordinate2", "ratio");
                  },
                  "gear pair: coordinate2 = ratio * coordinate1 + offset, ratio signed (external mesh "
                  "-z1/z2, internal +z1/z2); joint1/joint2 instead of a coordinate: the turn of a "
                  "revolute3d, cylindrical, screw or revolute_driver joint; offset default from the "
                  "initial state (1 row)",
                  nlohmann::json::parse(R"json({"name": "mesh", "type": "gear",
                    "coordinate1": "body1.theta", "coordinate2": "body2.theta", "ratio": -0.5})json")})

JOINERY_REGISTER(ConstraintRegistry,
                 {"rack_pinion",
                  [](const JsonCursor& c, const FactoryContext& ctx) {
                    if (c.has("pinion_joint") || c.has("rack_joint"))
                      return detail::makeAxisCoupling(c, ctx, "rack_pinion",
                                                      {"pinion", "pinion_joint", "rack", "rack_joint", "radius", true});
                    return makeNamed(c, ctx, "rack_pinion", "pinion", "rack", "radius");
                  },
                  "rack and pinion: rack = radius * pinion + offset (rack a translation, pinion an "
                  "angle); pinion_joint / rack_joint instead of a coordinate: the turn of a revolute3d, "
                  "cylindrical, screw or revolute_driver joint / the travel of a prismatic3d, "
                  "cylindrical, point_on_line, prismatic_driver or screw joint; offset default from "
                  "the initial state (1 row)",
                  nlohmann::json::parse(R"json({"name": "steering", "type": "rack_pinion",
                    "pinion": "body1.theta", "rack": "body2.x", "radius": 0.02})json")})

}  // namespace joinery
