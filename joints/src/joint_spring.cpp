// joint_spring: a spring and a damper on a joint's own quantity, its turn about its axis or its
// travel along it (Constraint::axisMotion(): revolute3d, cylindrical, screw, prismatic3d,
// point_on_line, the drivers):
//   generalized force   Q = -(stiffness (x - rest) + damping x') dx/dq,
//   potential energy    stiffness (x - rest)^2 / 2,
// with x the turn (rad, zero at the initial state, measured modulo 2 pi: x - rest is wrapped
// into [-pi, pi]) or the travel (m, the offset of point2 from point1 along the axis). This is
// a joint's passive spring and damper as MuJoCo's hinge and slide joints have them
// (qfrc_passive = -stiffness (q - springref) - damping q'); the MJCF importer writes one per
// joint with a stiffness or a damping.
#include <cmath>
#include <numbers>

#include "axis_quantity.hpp"
#include "joinery/core/errors.hpp"

namespace joinery {
namespace {

using detail::AxisQuantity;

constexpr std::string_view kJointSpringType = "joint_spring";

class JointSpring final : public ForceElement {
 public:
  JointSpring(std::string name, std::string jointName, const detail::JointAxis& axis, AxisQuantity::Kind kind,
              double stiffness, double damping, double rest)
      : ForceElement(std::move(name), bodiesOf(axis)),
        jointName_(std::move(jointName)),
        quantity_(makeQuantity(axis, kind, bodies())),
        k_(stiffness),
        c_(damping),
        rest_(rest) {}

  std::string_view typeName() const override { return kJointSpringType; }

  void addForces(const LocalState& s, VecRef Q) const override {
    const double tau = k_ * stretch(s) + c_ * quantity_.rate(s);
    if (tau == 0.0) return;
    // Q -= tau (dx/dq)^T: the row of dx/dq written straight into Q seen as a 1 x n matrix
    Eigen::Map<MatrixXd> row(Q.data(), 1, Q.size());
    (void)quantity_.addRow(s, -tau, row);
  }

  double calcPotentialEnergy(const LocalState& s) const override {
    const double e = stretch(s);
    return 0.5 * k_ * e * e;
  }

  nlohmann::json toJson() const override {
    nlohmann::json j = {{"name", name()}, {"type", std::string(kJointSpringType)}, {"joint", jointName_}};
    if (k_ != 0.0) j["stiffness"] = k_;
    if (c_ != 0.0) j["damping"] = c_;
    if (rest_ != 0.0) j["rest"] = rest_;
    if (quantityWasChosen_) j["quantity"] = quantity_.isTurn() ? "turn" : "travel";
    return j;
  }

  void setQuantityWasChosen() { quantityWasChosen_ = true; }

 private:
  static std::vector<const Body*> bodiesOf(const detail::JointAxis& axis) {
    if (axis.in.body1 == axis.in.body2) return {axis.in.body1};
    return {axis.in.body1, axis.in.body2};
  }
  static AxisQuantity makeQuantity(const detail::JointAxis& axis, AxisQuantity::Kind kind,
                                   const std::vector<const Body*>& list) {
    const int i1 = 0, i2 = list.size() > 1 ? 1 : 0;
    const detail::BodyFrame f1(list, i1);
    const detail::BodyFrame f2 = kind == AxisQuantity::Kind::Turn ? detail::BodyFrame(list, i2) : f1;
    return AxisQuantity(kind, f1, f2, detail::BodyPoint(list, i1, axis.in.point1),
                        detail::BodyPoint(list, i2, axis.in.point2), axis.geometry);
  }
  /// x - rest; for a turn wrapped into [-pi, pi].
  double stretch(const LocalState& s) const {
    const double e = quantity_.value(s) - rest_;
    return quantity_.isTurn() ? std::remainder(e, 2 * std::numbers::pi) : e;
  }

  std::string jointName_;
  AxisQuantity quantity_;
  double k_, c_, rest_;
  bool quantityWasChosen_ = false;
};

std::unique_ptr<ForceElement> makeJointSpring(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "joint", "stiffness", "damping", "rest", "quantity"});
  const std::string name = c.at("name").string();
  const JsonCursor at = c.at("joint");
  if (!at.value().is_string()) at.fail("a joint name (a string)");
  const std::string jointName = at.value().get<std::string>();
  const Constraint* joint = ctx.findConstraint(jointName);
  const std::string expected =
      "the name of a joint with a turn about its axis or a travel along it (revolute3d, prismatic3d, cylindrical, "
      "screw, point_on_line, revolute_driver, prismatic_driver) written in \"joints\"";
  if (joint == nullptr) at.failWith("unknown joint '" + jointName + "'" + didYouMean(jointName, ctx.constraintNames()) + "; expected " + expected);
  const std::optional<AxisMotion> motion = joint->axisMotion();
  if (!motion || !(motion->turn || motion->travel))
    at.failWith("joint '" + jointName + "' is a " + std::string(joint->typeName()) +
                " joint, which has no turn about one axis and no travel along one; expected " + expected);
  AxisQuantity::Kind kind = motion->turn ? AxisQuantity::Kind::Turn : AxisQuantity::Kind::Travel;
  bool chosen = false;
  if (c.has("quantity")) {
    const JsonCursor qc = c.at("quantity");
    const std::string q = qc.value().is_string() ? qc.value().get<std::string>() : std::string();
    if (q == "turn" && motion->turn) {
      kind = AxisQuantity::Kind::Turn;
    } else if (q == "travel" && motion->travel) {
      kind = AxisQuantity::Kind::Travel;
    } else {
      qc.fail(std::string("\"turn\" or \"travel\", one that joint '") + jointName + "' has (" +
              (motion->turn && motion->travel ? "both" : motion->turn ? "a turn only" : "a travel only") + ")");
    }
    chosen = true;
  } else if (motion->turn && motion->travel) {
    c.failWith("joint '" + jointName + "' has both a turn and a travel; expected \"quantity\": \"turn\" or \"travel\"");
  }
  const bool turn = kind == AxisQuantity::Kind::Turn;
  auto readNonNegative = [&](const char* key, const char* unit) {
    const double v = ctx.numberOr(c, key, 0.0);
    if (!(v >= 0) || !std::isfinite(v))
      c.at(key).failWith(std::string(key) + " = " + formatNumber(v) + "; expected a finite number >= 0 (" + unit + ")");
    return v;
  };
  const double k = readNonNegative("stiffness", turn ? "N m/rad" : "N/m");
  const double damping = readNonNegative("damping", turn ? "N m s/rad" : "N s/m");
  if (!c.has("stiffness") && !c.has("damping"))
    c.failWith("a joint_spring needs a 'stiffness' or a 'damping' (or both)");
  const double rest = ctx.numberOr(c, "rest", 0.0);
  if (!std::isfinite(rest)) c.at("rest").failWith("rest = " + formatNumber(rest) + "; expected a finite number");
  auto spring = std::make_unique<JointSpring>(name, jointName, detail::jointAxisOf(*joint, kind), kind, k, damping, rest);
  if (chosen) spring->setQuantityWasChosen();
  return spring;
}

}  // namespace

JOINERY_REGISTER(ForceRegistry,
                 {std::string(kJointSpringType), makeJointSpring,
                  "spring and damper on a joint's turn (rad) or travel (m): generalized force "
                  "-(stiffness (x - rest) + damping x') on that quantity; energy stiffness (x - rest)^2 / 2",
                  nlohmann::json::parse(R"json({"name": "knee_spring", "type": "joint_spring",
                    "joint": "knee", "stiffness": 10, "damping": 0.5, "rest": 0.2})json")})

}  // namespace joinery
