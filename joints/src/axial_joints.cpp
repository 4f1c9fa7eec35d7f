// Joints on the travel s and the turn theta about a joint axis (docs/joints.md):
//   screw             cylindrical rows (4) + s - h theta - offset (h = pitch / 2 pi)   5 rows
//   revolute_driver   theta - value(t)                                                  1 row
//   prismatic_driver  s - value(t)                                                      1 row
// s = (R1 a1).(r2 - r1) is the travel of point2 along axis1 from point1; theta is the angle
// about R1 a1 from R1 reference1 to R2 reference2 (references perpendicular to the axes; by
// default reference2 is the body-2 direction that coincides with R1 reference1 at the initial
// state, so theta starts at 0). The one AxisRow primitive below writes all three rows, and the
// gear and rack_pinion rows between the turns and travels of joints (makeAxisCoupling, called
// by gear.cpp).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "axis_quantity.hpp"
#include "joinery/joints/nonideal.hpp"
#include "one_sided_support.hpp"
#include "spatial_support.hpp"

namespace joinery {
namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

using detail::AxisQuantity;

/// One row phi = sum_k c_k Q_k + sum_j c_j q_j - f(t), Q_k axis quantities (travels, turns),
/// q_j coordinates; wrapped into [-P/2, P/2] when the period P > 0 (a turn through 2 pi
/// changes phi by a multiple of P: the configurations that differ by it all satisfy the row).
/// A = sum_k c_k dQ_k/dq + c_j e_j, b = f''(t) - sum_k c_k bias_k.
class AxisRow final : public detail::RowPrimitive {
 public:
  struct Term {
    AxisQuantity quantity;
    double coefficient;
  };
  AxisRow(std::vector<Term> terms, std::vector<detail::LinearTerm> coordinates, double period, detail::TimeFunction f)
      : terms_(std::move(terms)), coordinates_(std::move(coordinates)), period_(period), f_(std::move(f)) {}
  int numRows() const override { return 1; }

  void calcPositionError(const LocalState& s, VecRef phi) const override {
    double raw = -f_.value(s.t);
    for (const Term& t : terms_) raw += t.coefficient * t.quantity.value(s);
    for (const detail::LinearTerm& c : coordinates_)
      raw += c.coefficient * s.bodies[static_cast<std::size_t>(c.body)].q[c.coordinate];
    phi(0) = period_ > 0 ? std::remainder(raw, period_) : raw;
  }

  void calcVelocityError(const LocalState& s, VecRef psi) const override {
    double rate = -f_.rate(s.t);
    for (const Term& t : terms_) rate += t.coefficient * t.quantity.rate(s);
    for (const detail::LinearTerm& c : coordinates_)
      rate += c.coefficient * s.bodies[static_cast<std::size_t>(c.body)].v[c.coordinate];
    psi(0) = rate;
  }

  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override {
    double beta = 0;  // phi'' = A q'' + beta - f''
    for (const Term& t : terms_) beta += t.quantity.addRow(s, t.coefficient, A);
    for (const detail::LinearTerm& c : coordinates_) A(0, c.column) += c.coefficient;
    b(0) = f_.acceleration(s.t) - beta;
  }

 private:
  std::vector<Term> terms_;
  std::vector<detail::LinearTerm> coordinates_;
  double period_;
  detail::TimeFunction f_;
};

/// The row cs s + ct theta - f(t) of one joint axis (screw, drivers), wrapped into
/// [-pi |ct|, pi |ct|] when ct != 0 (theta turns through 2 pi).
std::unique_ptr<AxisRow> axialRow(detail::BodyFrame f1, detail::BodyFrame f2, detail::BodyPoint p1,
                                  detail::BodyPoint p2, const AxisQuantity::Geometry& g, double cs, double ct,
                                  detail::TimeFunction f) {
  std::vector<AxisRow::Term> terms;
  if (cs != 0) terms.push_back({AxisQuantity(AxisQuantity::Kind::Travel, f1, f1, p1, p2, g), cs});
  if (ct != 0) terms.push_back({AxisQuantity(AxisQuantity::Kind::Turn, f1, f2, p1, p2, g), ct});
  return std::make_unique<AxisRow>(std::move(terms), std::vector<detail::LinearTerm>{},
                                   ct != 0 ? kTwoPi * std::abs(ct) : 0.0, std::move(f));
}

const detail::MarkerNeeds kAxialJointsNeeds{.points = true, .frames = true, .planar = false};

/// What the three types read besides the two bodies and points.
struct AxialInput {
  Vector3d axis1 = Vector3d::UnitZ();
  std::optional<Vector3d> axis2;
  bool turns = false;                   // reads references (screw, revolute_driver)
  Vector3d reference1, reference2;      // as given (the rows use their unit parts perpendicular to the axes)
  std::optional<double> pitch, offset;  // screw
  Expression value;                     // drivers
  nlohmann::json valueSource;
};

/// The unit part of `r` perpendicular to the unit `axis` (a fixed perpendicular when `r` lies
/// along it).
Vector3d perpendicularPart(const Vector3d& r, const Vector3d& axis) {
  const Vector3d p = r - axis * axis.dot(r);
  return p.norm() > 1e-9 * r.norm() ? Vector3d(p.normalized()) : detail::perpendicularBasis(axis).first;
}

class AxialJoint final : public detail::TwoPointJoint {
 public:
  AxialJoint(const detail::TwoBodyInput& in, std::string_view type, AxialInput a)
      : TwoPointJoint(in, false), type_(type), a_(std::move(a)) {
    const Vector3d n1 = a_.axis1.normalized(), n2 = a_.axis2 ? a_.axis2->normalized() : n1;
    AxisQuantity::Geometry g{n1, perpendicularPart(a_.reference1, n1), perpendicularPart(a_.reference2, n2)};
    const bool screw = type == "screw";
    if (screw) {
      addRows(detail::parallelAxesRows(frame1(), a_.axis1, frame2(), *a_.axis2));
      addRows(detail::pointOnLineRows(frame1(), point1(), point2(), a_.axis1));
    }
    const double cs = type == "revolute_driver" ? 0.0 : 1.0;
    const double ct = type == "prismatic_driver" ? 0.0 : screw ? -*a_.pitch / kTwoPi : 1.0;
    const Expression f = screw ? Expression::constant(*a_.offset) : a_.value;
    addRows(axialRow(frame1(), frame2(), point1(), point2(), g, cs, ct, detail::TimeFunction(f)));
  }
  std::string_view typeName() const override { return type_; }
  Vector3d jointAxis(int k) const override { return k == 0 || !a_.axis2 ? a_.axis1 : *a_.axis2; }
  /// The drivers prescribe their turn or travel; a screw's offset is constant.
  bool prescribesMotion() const override { return !a_.pitch; }
  /// screw: turn and travel; revolute_driver: the turn; prismatic_driver: the travel.
  std::optional<AxisMotion> axisMotion() const override {
    AxisMotion m = baseAxisMotion();
    m.axis1 = a_.axis1;
    m.axis2 = jointAxis(1);
    m.turn = a_.turns;
    m.travel = a_.pitch.has_value() || !a_.turns;
    if (a_.turns) {
      m.reference1 = a_.reference1;
      m.reference2 = a_.reference2;
    }
    return m;
  }
  nlohmann::json toJson() const override {
    nlohmann::json j = baseJson();
    j["axis1"] = detail::vectorJson(a_.axis1, false);
    if (a_.axis2) j["axis2"] = detail::vectorJson(*a_.axis2, false);
    if (a_.turns) {
      j["reference1"] = detail::vectorJson(a_.reference1, false);
      j["reference2"] = detail::vectorJson(a_.reference2, false);
    }
    if (a_.pitch) j["pitch"] = *a_.pitch;
    if (a_.offset) j["offset"] = *a_.offset;
    if (!a_.valueSource.is_null()) j["value"] = a_.valueSource;
    return j;
  }

 private:
  std::string_view type_;
  AxialInput a_;
};

/// The last row's position error at the bodies' initial states (t = 0).
double initialResidual(const Constraint& joint) {
  std::vector<VectorXd> q, v;
  for (const Body* b : joint.bodies()) {
    q.emplace_back(b->numCoordinates());
    v.emplace_back(b->numCoordinates());
    b->getInitialState(q.back(), v.back());
  }
  std::vector<BodyStateView> views;
  for (std::size_t k = 0; k < q.size(); ++k)
    views.push_back({joint.bodies()[k], q[k].data(), v[k].data(), static_cast<int>(q[k].size())});
  LocalState s;
  s.bodies = std::span<const BodyStateView>(views);
  VectorXd phi(joint.numRows());
  joint.calcPositionError(s, phi);
  return phi(phi.size() - 1);
}

/// reference1 (default: a direction perpendicular to axis1) and reference2 (default: the body-2
/// direction along R1 reference1 at the initial state).
void readReferences(const JsonCursor& c, const FactoryContext& ctx, const detail::TwoBodyInput& in, AxialInput& a) {
  a.turns = true;
  const Vector3d n1 = a.axis1.normalized(), n2 = a.axis2 ? a.axis2->normalized() : n1;
  auto given = [&](const std::string& key, const Vector3d& axis) {
    const Vector3d r = detail::parseAxis(c.at(key), ctx);
    if (!((r - axis * axis.dot(r)).norm() > 1e-9 * r.norm()))
      c.at(key).failWith("the reference lies along the axis; expected a direction perpendicular to it");
    return r;
  };
  a.reference1 = c.has("reference1") ? given("reference1", n1) : detail::perpendicularBasis(n1).first;
  if (c.has("reference2")) {
    a.reference2 = given("reference2", n2);
  } else {
    const Eigen::Quaterniond C = detail::parseHeldOrientation(c, ctx, in);  // R1^T R2 initially
    a.reference2 = C.toRotationMatrix().transpose() * perpendicularPart(a.reference1, n1);
  }
}

std::unique_ptr<Constraint> makeAxial(const JsonCursor& c, const FactoryContext& ctx, std::string_view type) {
  const bool screw = type == "screw", revolute = type == "revolute_driver";
  std::vector<std::string> keys = {"name", "type", "body1", "point1", "axis1", "body2", "point2", "nonideal"};
  if (screw) keys.insert(keys.end(), {"axis2", "pitch", "offset"});
  if (revolute) keys.emplace_back("axis2");
  if (screw || revolute) keys.insert(keys.end(), {"reference1", "reference2"});
  if (!screw) keys.emplace_back("value");
  c.rejectUnknownKeys(keys);
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, kAxialJointsNeeds, std::string(type) + " joint", true);
  AxialInput a;
  a.axis1 = detail::parseAxis(c.at("axis1"), ctx);
  if (screw || revolute) a.axis2 = detail::parseAxis(c.at("axis2"), ctx);
  if (screw || revolute) readReferences(c, ctx, in, a);
  if (screw) {
    a.pitch = ctx.number(c.at("pitch"));
    if (!std::isfinite(*a.pitch)) c.at("pitch").failWith("expected a finite length per turn");
  } else {
    a.value = detail::parseTimeExpression(c.at("value"), ctx);
    a.valueSource = c.at("value").value();
  }
  if (screw) {
    // offset: default s - h theta at the initial state (so that the initial state holds)
    a.offset = 0.0;
    a.offset = c.has("offset") ? ctx.number(c.at("offset")) : initialResidual(AxialJoint(in, type, a));
  }
  auto joint = std::make_unique<AxialJoint>(in, type, a);
  attachNonideal(c, ctx, *joint);
  return joint;
}

// ---- gear and rack_pinion between the turns and travels of joints --------------------------

const std::vector<std::string> kTurnTypes{"revolute3d", "cylindrical", "screw", "revolute_driver"};
const std::vector<std::string> kTravelTypes{"prismatic3d", "cylindrical", "point_on_line", "prismatic_driver", "screw"};

std::string joinTypes(const std::vector<std::string>& types) {
  std::string out;
  for (std::size_t i = 0; i < types.size(); ++i) out += (i == 0 ? "" : i + 1 == types.size() ? " or " : ", ") + types[i];
  return out;
}

/// One side of the row: a body coordinate, or the turn (travel) of a joint written earlier.
struct CouplingSide {
  std::string key;  // the field as written: "coordinate1", "joint1", "pinion_joint", ...
  bool joint = false;
  std::string jointName;
  detail::QualifiedCoordinate coordinate;
  AxisQuantity::Kind kind = AxisQuantity::Kind::Turn;
  detail::TwoBodyInput in;  // the joint's bodies and points
  AxisQuantity::Geometry geometry;
};

/// Reads the side `coordinateKey` (a coordinate, the existing form) or `jointKey` (a joint's
/// quantity `kind`): the joint's bodies, points, axis and references from its axisMotion(),
/// with the defaults the joint's own turn would take (reference2 from the initial state, so
/// that its turn starts at 0).
CouplingSide readSide(const JsonCursor& c, const FactoryContext& ctx, std::string_view type,
                      const std::string& coordinateKey, const std::string& jointKey, AxisQuantity::Kind kind) {
  CouplingSide side;
  const bool hasCoordinate = c.has(coordinateKey), hasJoint = c.has(jointKey);
  if (hasCoordinate && hasJoint)
    c.at(jointKey).failWith("'" + jointKey + "' and '" + coordinateKey + "' are two ways of giving the same side; expected one of them");
  if (!hasCoordinate && !hasJoint)
    c.failWith("missing field '" + coordinateKey + "' (a coordinate \"body.coord\") or '" + jointKey + "' (a joint's name)");
  if (hasCoordinate) {
    side.key = coordinateKey;
    side.coordinate = detail::parseCoordinateField(c.at(coordinateKey), ctx);
    if (side.coordinate.body->isGround()) c.at(coordinateKey).failWith("the ground has no coordinates");
    return side;
  }
  const bool turn = kind == AxisQuantity::Kind::Turn;
  const std::vector<std::string>& types = turn ? kTurnTypes : kTravelTypes;
  const std::string expected = std::string(turn ? "a joint with a turn about its axis" : "a joint with a travel along its axis") +
                               " (" + joinTypes(types) + ")";
  const JsonCursor at = c.at(jointKey);
  if (!at.value().is_string()) at.fail("a joint name (a string)");
  side.key = jointKey;
  side.joint = true;
  side.kind = kind;
  side.jointName = at.value().get<std::string>();
  const Constraint* named = ctx.findConstraint(side.jointName);
  if (named == nullptr)
    at.failWith("unknown joint '" + side.jointName + "'" + didYouMean(side.jointName, ctx.constraintNames()) +
                "; expected the name of " + expected + " written before this " + std::string(type) + " joint");
  const std::optional<AxisMotion> motion = named->axisMotion();
  if (!motion || !(turn ? motion->turn : motion->travel))
    at.failWith("joint '" + side.jointName + "' is a " + std::string(named->typeName()) + " joint, which has no " +
                (turn ? "turn about one axis" : "travel along one axis") + "; expected " + expected);
  const detail::JointAxis axis = detail::jointAxisOf(*named, kind);
  side.in = axis.in;
  side.geometry = axis.geometry;
  return side;
}

/// The smallest q <= 10000 making x q a whole number (to 1e-9 relative), or nothing.
std::optional<int> denominatorOf(double x) {
  for (int q = 1; q <= 10000; ++q) {
    const double xq = x * q;
    if (std::abs(xq - std::round(xq)) <= 1e-9 * std::max(1.0, std::abs(xq))) return q;
  }
  return std::nullopt;
}

/// gear / rack_pinion with a joint on one side or both: the row Q2 - factor Q1 - offset over
/// the bodies of both sides (up to four).
class AxisCoupling final : public detail::PrimitiveJoint {
 public:
  AxisCoupling(const std::string& name, std::string_view type, std::vector<CouplingSide> sides, std::string factorKey,
               double factor, double offset, double period, std::vector<const Body*> bodies)
      : PrimitiveJoint(name, std::move(bodies)), type_(type), sides_(std::move(sides)),
        factorKey_(std::move(factorKey)), factor_(factor), offset_(offset) {
    std::vector<const Body*> list = this->bodies();
    const std::vector<int> offsets = detail::localOffsets(list);
    std::vector<AxisRow::Term> terms;
    std::vector<detail::LinearTerm> coordinates;
    for (std::size_t k = 0; k < 2; ++k) {
      const CouplingSide& side = sides_[k];
      const double coefficient = k == 0 ? -factor_ : 1.0;
      if (!side.joint) {
        detail::LinearTerm t;
        t.body = detail::indexOfBody(list, side.coordinate.body, false);
        t.coordinate = side.coordinate.coordinate;
        t.column = offsets[static_cast<std::size_t>(t.body)] + t.coordinate;
        t.coefficient = coefficient;
        coordinates.push_back(t);
        continue;
      }
      const int i1 = detail::indexOfBody(list, side.in.body1, false), i2 = detail::indexOfBody(list, side.in.body2, false);
      const detail::BodyFrame f1(list, i1);
      const detail::BodyFrame f2 = side.kind == AxisQuantity::Kind::Turn ? detail::BodyFrame(list, i2) : f1;
      terms.push_back({AxisQuantity(side.kind, f1, f2, detail::BodyPoint(list, i1, side.in.point1),
                                    detail::BodyPoint(list, i2, side.in.point2), side.geometry),
                       coefficient});
    }
    addRows(std::make_unique<AxisRow>(std::move(terms), std::move(coordinates), period,
                                      detail::TimeFunction(Expression::constant(offset))));
  }
  std::string_view typeName() const override { return type_; }
  /// One row: the multiplier is the effort (the torque or force on side 2's quantity).
  JointResultKind resultKind() const override { return JointResultKind::Effort; }
  nlohmann::json toJson() const override {
    nlohmann::json j = {{"name", name()}, {"type", std::string(type_)}};
    for (const CouplingSide& side : sides_) {
      if (side.joint) {
        j[side.key] = side.jointName;
      } else {
        const Body& b = *side.coordinate.body;
        j[side.key] = b.name() + "." + b.coordinateNames()[static_cast<std::size_t>(side.coordinate.coordinate)];
      }
    }
    j[factorKey_] = factor_;
    j["offset"] = offset_;
    addNonidealJson(j);
    return j;
  }

 private:
  std::string_view type_;
  std::vector<CouplingSide> sides_;
  std::string factorKey_;
  double factor_, offset_;
};

}  // namespace

namespace detail {

JointAxis jointAxisOf(const Constraint& joint, AxisQuantity::Kind kind) {
  const std::optional<AxisMotion> motion = joint.axisMotion();
  JOINERY_ASSERT(motion.has_value(), "jointAxisOf: a joint with an axis");
  JointAxis out;
  out.in.name = joint.name();
  out.in.body1 = motion->body1;
  out.in.body2 = motion->body2;
  out.in.point1 = motion->point1;
  out.in.point2 = motion->point2;
  const Vector3d n1 = motion->axis1.normalized();
  out.geometry = {n1, perpendicularBasis(n1).first, Vector3d::UnitZ()};
  if (kind == AxisQuantity::Kind::Turn) {
    const Vector3d reference1 = motion->reference1.value_or(perpendicularBasis(n1).first);
    const Vector3d reference2 =
        motion->reference2 ? *motion->reference2
                           : Vector3d(initialRelativeOrientation(*motion->body1, *motion->body2)
                                          .toRotationMatrix()
                                          .transpose() *
                                      perpendicularPart(reference1, n1));
    out.geometry.reference1 = perpendicularPart(reference1, n1);
    out.geometry.reference2 = perpendicularPart(reference2, motion->axis2.normalized());
  }
  return out;
}

std::unique_ptr<Constraint> makeAxisCoupling(const JsonCursor& c, const FactoryContext& ctx, std::string_view type,
                                             const AxisCouplingKeys& keys) {
  c.rejectUnknownKeys({"name", "type", keys.coordinate1, keys.joint1, keys.coordinate2, keys.joint2, keys.factor,
                       "offset", "nonideal"});
  const std::string name = c.at("name").string();
  const AxisQuantity::Kind kind2 = keys.travel2 ? AxisQuantity::Kind::Travel : AxisQuantity::Kind::Turn;
  std::vector<CouplingSide> sides;
  sides.push_back(readSide(c, ctx, type, keys.coordinate1, keys.joint1, AxisQuantity::Kind::Turn));
  sides.push_back(readSide(c, ctx, type, keys.coordinate2, keys.joint2, kind2));
  if (sides[0].joint && sides[1].joint && sides[0].jointName == sides[1].jointName)
    c.at(keys.joint2).failWith("the same joint as '" + keys.joint1 + "'" +
                               (keys.travel2 ? "; a joint whose turn drives its own travel is a screw (type screw)"
                                             : "; expected another joint"));
  std::vector<const Body*> bodies;
  for (const CouplingSide& side : sides) {
    if (side.joint) {
      (void)indexOfBody(bodies, side.in.body1, true);
      (void)indexOfBody(bodies, side.in.body2, true);
    } else {
      (void)indexOfBody(bodies, side.coordinate.body, true);
    }
  }
  const double factor = ctx.number(c.at(keys.factor));
  if (!std::isfinite(factor)) c.at(keys.factor).failWith("expected a finite number");
  // the wrap period: a turn through 2 pi changes the row by 2 pi times its coefficient
  std::vector<double> turns;
  for (std::size_t k = 0; k < 2; ++k)
    if (sides[k].joint && sides[k].kind == AxisQuantity::Kind::Turn && (k == 1 || factor != 0))
      turns.push_back(k == 0 ? factor : 1.0);
  double period = 0;
  if (turns.size() == 1) {
    period = kTwoPi * std::abs(turns[0]);
  } else if (turns.size() == 2) {
    // both sides turn: the row is defined modulo 2 pi Z + 2 pi ratio Z = (2 pi / q) Z for ratio p/q
    const std::optional<int> q = denominatorOf(factor);
    if (!q)
      c.at(keys.factor).failWith("a gear between the turns of two joints needs a ratio of whole numbers (teeth: "
                                 "-z1/z2, e.g. -18/30) with a denominator up to 10000: the turns are measured "
                                 "modulo a full turn, and the mesh repeats every 2 pi / q of joint2's turn");
    period = kTwoPi / *q;
  }
  auto build = [&](double offset) {
    return std::make_unique<AxisCoupling>(name, type, sides, keys.factor, factor, offset, period, bodies);
  };
  const double offset = c.has("offset") ? ctx.number(c.at("offset")) : initialResidual(*build(0.0));
  if (!std::isfinite(offset)) c.at("offset").failWith("expected a finite number");
  auto joint = build(offset);
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace detail

namespace {
}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {"screw", [](const JsonCursor& c, const FactoryContext& ctx) { return makeAxial(c, ctx, "screw"); },
                  "screw: the cylindrical rows, and point2 advances `pitch` along axis1 per turn of body2 "
                  "about it (right-handed for pitch > 0) (5 rows)",
                  nlohmann::json::parse(R"json({"name": "lead_screw", "type": "screw",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "axis1": [0, 0, 1],
                    "body2": "body2", "point2": [-0.3, 0.1, 0.2], "axis2": [0, 0.6, 0.8], "pitch": 0.004})json")})

JOINERY_REGISTER(ConstraintRegistry,
                 {"revolute_driver",
                  [](const JsonCursor& c, const FactoryContext& ctx) { return makeAxial(c, ctx, "revolute_driver"); },
                  "prescribed turn: the angle about axis1 from R1 reference1 to R2 reference2 follows value(t) (1 row)",
                  nlohmann::json::parse(R"json({"name": "motor", "type": "revolute_driver",
                    "body1": "body1", "axis1": [0, 0, 1], "body2": "body2", "axis2": [0, 0, 1],
                    "value": "2*t + 0.1*sin(3*t)"})json")})

JOINERY_REGISTER(ConstraintRegistry,
                 {"prismatic_driver",
                  [](const JsonCursor& c, const FactoryContext& ctx) { return makeAxial(c, ctx, "prismatic_driver"); },
                  "prescribed travel: (R1 axis1).(r2 - r1) of point2 from point1 follows value(t) (1 row)",
                  nlohmann::json::parse(R"json({"name": "actuator", "type": "prismatic_driver",
                    "body1": "body1", "point1": [0.5, 0.2, 0.1], "axis1": [1, 0, 0],
                    "body2": "body2", "point2": [-0.3, 0.1, 0.2], "value": "0.2 + 0.05*sin(t)"})json")})

}  // namespace joinery

namespace joinery::detail {

std::unique_ptr<const RowPrimitive> makeTurnRow(const BodyFrame& f1, const BodyFrame& f2, const BodyPoint& p1,
                                                const BodyPoint& p2, const Vector3d& axis1, const Vector3d& axis2,
                                                const Eigen::Quaterniond& held, double center) {
  // the references of the axial joints' turn by default (readReferences): theta = 0 initially
  const Vector3d n1 = axis1.normalized(), n2 = axis2.normalized();
  const Vector3d r1 = perpendicularBasis(n1).first;
  const AxisQuantity::Geometry g{n1, r1, perpendicularPart(held.toRotationMatrix().transpose() * r1, n2)};
  return axialRow(f1, f2, p1, p2, g, 0.0, 1.0, TimeFunction(Expression::constant(center)));
}

}  // namespace joinery::detail
