// rope and contact: one-sided joints (docs/contact.md).
//   rope     |r2 - r1| <= length, can only pull: the distance row (|d|^2 - L^2)/2 with sign -1,
//            gap L - |d|                                                          1 row
//   contact  shape1 of body1 against shape2 of body2; per contact point one row:
//              plane / sphere or point  (R_P n).(c - P) - r >= 0   (PointOnLine)
//              sphere / sphere         |c2 - c1| - r1 - r2 >= 0    (PointDistance)
//            `points` gives one row (and one gap) per point
//            friction > 0 (against a plane): per point a tangential row (planar bodies: along
//              t = ez x n) or two (spatial bodies: along t1, t2; spatialTangents) (TangentRow,
//              written while the point sticks) and the Coulomb law ContactFriction
//              (C = -mu N d . a_t while it slips in direction d)
#include <Eigen/QR>
#include <cmath>
#include <optional>
#include <utility>

#include "joinery/core/format.hpp"
#include "joinery/joints/nonideal.hpp"
#include "contact_shape.hpp"
#include "primitive_joint.hpp"

namespace joinery {
namespace {

constexpr std::string_view kRopeType = "rope";
constexpr std::string_view kContactType = "contact";

double readRestitution(const JsonCursor& c, const FactoryContext& ctx) {
  const double e = ctx.numberOr(c, "restitution", 0.0);
  if (!(e >= 0 && e <= 1)) c.at("restitution").failWith("restitution = " + formatNumber(e) + " is outside [0, 1]");
  return e;
}

class Rope final : public detail::TwoPointJoint {
 public:
  /// Joint results: the signed tension along the line between the points (>= 0 while taut).
  JointResultKind resultKind() const override { return JointResultKind::Tension; }
  Rope(const detail::TwoBodyInput& in, double length, double restitution)
      : TwoPointJoint(in, false), length_(length), restitution_(restitution) {
    const detail::BodyPoint p1 = point1(), p2 = point2();
    addOneSidedRow(std::make_unique<detail::PointDistance>(p1, p2, length), -1.0, 0.0, restitution, "",
                   [p1, p2, length](const LocalState& s) { return length - (p2.calcPosition(s) - p1.calcPosition(s)).norm(); },
                   [p1, p2](const LocalState& s) { return (p2.calcPosition(s) - p1.calcPosition(s)).norm(); });
  }
  std::string_view typeName() const override { return kRopeType; }
  nlohmann::json toJson() const override {
    nlohmann::json j = baseJson();
    j["length"] = length_;
    if (restitution_ != 0) j["restitution"] = restitution_;
    return j;
  }

 private:
  double length_, restitution_;
};

std::unique_ptr<Constraint> makeRope(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "body2", "point2", "length", "restitution"});
  const detail::MarkerNeeds needs{.points = true, .frames = false, .planar = false};
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, needs, "rope joint", true);
  const double length = ctx.number(c.at("length"));
  if (!(length > 0)) c.at("length").failWith("length must be > 0, got " + formatNumber(length));
  return std::make_unique<Rope>(in, length, readRestitution(c, ctx));
}

using Shape = detail::ContactShape;

/// The tangents of a spatial contact's plane (docs/contact.md, "Friction in 3-D"), in the
/// plane's body frame: t1 the unit projection onto the plane of the axis (x, y, z, the first
/// on a tie) least aligned with the unit normal n, t2 = n x t1.
std::pair<Vector3d, Vector3d> spatialTangents(const Vector3d& n) {
  Eigen::Index axis = 0;
  n.cwiseAbs().minCoeff(&axis);
  const Vector3d e = Vector3d::Unit(axis);
  const Vector3d t1 = (e - e.dot(n) * n).normalized();
  return {t1, n.cross(t1)};
}

class Contact final : public detail::TwoPointJoint {
 public:
  Contact(const detail::TwoBodyInput& in, Shape s1, Shape s2, double restitution, double friction)
      : TwoPointJoint(in, false), s1_(std::move(s1)), s2_(std::move(s2)), restitution_(restitution), friction_(friction) {
    setCoulomb(friction);
    const bool plane1 = s1_.kind == Shape::Kind::Plane, plane2 = s2_.kind == Shape::Kind::Plane;
    if (plane1 || plane2) {
      const int ip = plane1 ? 0 : 1, ix = 1 - ip;
      const Shape& plane = plane1 ? s1_ : s2_;
      const Shape& other = plane1 ? s2_ : s1_;
      const detail::BodyFrame frame(bodies(), ip);
      const detail::BodyPoint origin(bodies(), ip, plane.point);
      for (std::size_t i = 0; i < other.points.size(); ++i) {
        const detail::BodyPoint x(bodies(), ix, other.points[i]);
        addOneSidedRow(std::make_unique<detail::PointOnLine>(frame, origin, x, plane.normal), 1.0, other.radius,
                       restitution, other.kind == Shape::Kind::Points ? "point " + std::to_string(i + 1) : "");
      }
      if (friction > 0) {
        // planar bodies: the tangent t = ez x n; spatial bodies: t1, t2 (the factory checked
        // that the bodies are all planar or all spatial, the ground aside)
        const bool planar = bodies()[0]->isPlanar() && bodies()[1]->isPlanar();
        const Vector3d t = Vector3d::UnitZ().cross(plane.normal);
        const auto [t1, t2] = spatialTangents(plane.normal);
        std::optional<detail::BodyFrame> xFrame;
        if (other.radius > 0 && bodies()[static_cast<std::size_t>(ix)]->frames() != nullptr)
          xFrame.emplace(bodies(), ix);
        for (std::size_t i = 0; i < other.points.size(); ++i) {
          const detail::BodyPoint x(bodies(), ix, other.points[i]);
          const int k = static_cast<int>(i);
          addTangentRow(k, std::make_unique<detail::TangentRow>(frame, origin, x, xFrame, plane.normal, planar ? t : t1,
                                                                 other.radius, *this, k));
          if (!planar)
            addTangentRow2(k, std::make_unique<detail::TangentRow>(frame, origin, x, xFrame, plane.normal, t2,
                                                                    other.radius, *this, k));
        }
      }
      return;
    }
    // sphere (or point) against sphere: the distance of the centres
    const detail::BodyPoint c1(bodies(), 0, s1_.points.front()), c2(bodies(), 1, s2_.points.front());
    const double r = s1_.radius + s2_.radius;
    addOneSidedRow(std::make_unique<detail::PointDistance>(c1, c2, r), 1.0, 0.0, restitution, "",
                   [c1, c2, r](const LocalState& s) { return (c2.calcPosition(s) - c1.calcPosition(s)).norm() - r; },
                   [c1, c2](const LocalState& s) { return (c2.calcPosition(s) - c1.calcPosition(s)).norm(); });
  }
  std::string_view typeName() const override { return kContactType; }
  nlohmann::json toJson() const override {
    nlohmann::json j = {{"name", name()}, {"type", std::string(kContactType)}, {"body1", bodies()[0]->name()},
                        {"shape1", s1_.source}, {"body2", bodies()[1]->name()}, {"shape2", s2_.source}};
    if (restitution_ != 0) j["restitution"] = restitution_;
    if (friction_ != 0) j["friction"] = friction_;
    return j;
  }

 private:
  Shape s1_, s2_;
  double restitution_, friction_;
};

/// Coulomb friction of a contact's slipping candidates (docs/contact.md, "Friction"): on each
/// active candidate k slipping in direction d_k (OneSidedRows::frictionMode), a force of
/// magnitude mu N_k against the sliding, at the contact point: C = -mu N_k d_k a_t,k^T, with
/// a_t,k the candidate's tangential row and N_k its normal force, the multiplier of its normal row
/// in the ideal force A_j^T lambda_j (least squares over the joint's rows; minimum norm where
/// they are redundant). Spatial contacts (mode kSlip): C = -mu N_k (d1 a_t1 + d2 a_t2)^T with
/// d the current sliding direction, (v_s + eps d_ref) / |v_s + eps d_ref| (kDirectionBlend),
/// and d_ref past a stop (v_s . d_ref <= 0).
class ContactFriction final : public NonidealLaw {
 public:
  /// eps (m/s): at zero sliding speed (a slip just starting) the direction is the reference
  /// d_ref; above the speed tolerance's scale it is the sliding's own (d_ref is moved to it
  /// after every accepted step, so the blend changes no direction that does not turn).
  static constexpr double kDirectionBlend = 1e-9;
  ContactFriction(const detail::OneSidedSet& set, double mu) : set_(set), mu_(mu) {}
  using NonidealLaw::calcWork;
  void calcWork(const Constraint& c, const LocalState& s, const IdealForce& f, VecRef C) const override {
    C.setZero();
    int slipping = 0;
    for (int k = 0; k < set_.count(); ++k) {
      const int mode = set_.frictionMode(k);
      if (set_.active(k) && (mode == 1 || mode == -1 || mode == OneSidedRows::kSlip)) ++slipping;
    }
    if (slipping == 0) return;
    const int m = c.numRows(), nl = c.numLocalCoordinates();
    A_.resize(m, nl);
    b_.resize(m);
    a_.resize(1, nl);
    c.calcAccelerationRows(s, A_, b_);
    if (f.local != nullptr) {
      cod_.compute(A_.transpose());
      lambda_ = cod_.solve(Eigen::Map<const VectorXd>(f.local, nl));
    } else {  // only the magnitude known: one active row carries it
      lambda_ = VectorXd::Constant(m, f.Fi);
    }
    for (int k = 0; k < set_.count(); ++k) {
      const int mode = set_.frictionMode(k);
      if (!set_.active(k) || (mode != 1 && mode != -1 && mode != OneSidedRows::kSlip)) continue;
      const double N = std::max(0.0, lambda_(set_.localRow(k)));
      double bt = 0;
      set_.calcTangentRow(s, k, a_, bt);
      if (mode != OneSidedRows::kSlip) {
        C -= (mu_ * N * mode) * a_.row(0).transpose();
        continue;
      }
      const Eigen::Vector2d d = calcDirection(s, k);
      C -= (mu_ * N * d(0)) * a_.row(0).transpose();
      set_.calcTangentRow2(s, k, a_, bt);
      C -= (mu_ * N * d(1)) * a_.row(0).transpose();
    }
  }
  nlohmann::json toJson() const override { return {{"coulomb", mu_}}; }

 private:
  /// A spatial slipping candidate's sliding direction (a unit 2-vector over t1, t2).
  Eigen::Vector2d calcDirection(const LocalState& s, int k) const {
    const Eigen::Vector2d ref = set_.slipDirection(k);
    const Eigen::Vector2d v(set_.calcSlidingVelocity(s, k, 0), set_.calcSlidingVelocity(s, k, 1));
    // past a stop (v_s . d_ref <= 0: the event's far side) the force keeps d_ref, as the planar
    // law keeps its sign: the sliding then goes through zero and the stop is a crossing of the
    // event function; turned against the new sliding it would hold the point at zero (a
    // chattering the event function does not see)
    if (!(v.dot(ref) > 0)) return ref;
    const Eigen::Vector2d w = v + kDirectionBlend * ref;
    const double n = w.norm();
    return n > 0 && std::isfinite(n) ? Eigen::Vector2d(w / n) : ref;
  }
  const detail::OneSidedSet& set_;
  double mu_;
  mutable MatrixXd A_, a_;
  mutable VectorXd b_, lambda_;
  mutable Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod_;
};

std::unique_ptr<Constraint> makeContact(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "shape1", "body2", "shape2", "restitution", "friction", "model",
                       "stiffness", "damping", "exponent"});
  if (c.has("model")) {
    const JsonCursor m = c.at("model");
    const std::string model = m.value().is_string() ? m.value().get<std::string>() : std::string();
    // the scene loader builds a `joints` entry with "model": "compliant" as a force element
    // (ForceRegistry "contact", compliant_contact.cpp); only a direct call of this factory gets here
    if (model == "compliant")
      m.failWith("a compliant (Hunt-Crossley) contact is a force element, not a joint: build it with the force "
                 "registry (the scene loader does so for a 'joints' entry); expected \"rigid\" here");
    if (model != "rigid") m.fail("\"rigid\" (the default) or \"compliant\"");
  }
  for (const char* key : {"stiffness", "damping", "exponent"})
    if (c.has(key)) c.at(key).failWith(std::string("'") + key + "' belongs to a compliant contact (\"model\": \"compliant\")");
  const detail::ContactInput input = detail::parseContactInput(c, ctx);
  const detail::TwoBodyInput& in = input.in;
  const Shape& s1 = input.shape1;
  const Shape& s2 = input.shape2;
  using K = Shape::Kind;
  const bool plane1 = s1.kind == K::Plane, plane2 = s2.kind == K::Plane;
  const double friction = ctx.numberOr(c, "friction", 0.0);
  if (!(friction >= 0) || !std::isfinite(friction)) c.at("friction").failWith("friction = " + formatNumber(friction) + "; expected a Coulomb coefficient >= 0");
  if (friction > 0) {
    // Coulomb friction: a point, points or a sphere (circle) against a plane, between planar
    // bodies (2-D: a tangent line) or spatial bodies (3-D: a tangent plane), the ground aside
    if (!plane1 && !plane2)
      c.at("friction").failWith("Coulomb friction between two spheres is not available in this build (a frictionless "
                                "contact would be a silently wrong answer); expected 0, or a plane as one of the shapes");
    const bool ground1 = in.body1->isGround(), ground2 = in.body2->isGround();
    if (!ground1 && !ground2 && in.body1->isPlanar() != in.body2->isPlanar()) {
      const Body& planar = in.body1->isPlanar() ? *in.body1 : *in.body2;
      const Body& spatial = in.body1->isPlanar() ? *in.body2 : *in.body1;
      c.at("friction").failWith("Coulomb friction between the planar body '" + planar.name() + "' and the spatial body '" +
                                spatial.name() + "' is not defined (a tangent line or a tangent plane?); expected 0, or "
                                "two planar or two spatial bodies");
    }
  }
  auto contact = std::make_unique<Contact>(in, s1, s2, readRestitution(c, ctx), friction);
  if (friction > 0) contact->setNonideal(std::make_unique<ContactFriction>(*contact, friction));
  return contact;
}

}  // namespace

namespace detail {

namespace {

ContactShape parseContactShape(const JsonCursor& c, const FactoryContext& ctx) {
  const char* expected =
      "one of {\"plane\": {\"point\": P, \"normal\": N}}, {\"sphere\": {\"center\": C, \"radius\": r}}, "
      "{\"point\": P}, {\"points\": [P1, P2, ...]}";
  if (!c.value().is_object() || c.value().size() != 1) c.fail(expected);
  ContactShape s;
  s.source = c.value();
  if (c.has("plane")) {
    const JsonCursor p = c.at("plane");
    if (!p.value().is_object()) p.fail("an object {\"point\": P, \"normal\": N}");
    p.rejectUnknownKeys({"point", "normal"});
    s.kind = ContactShape::Kind::Plane;
    s.point = detail::parseVector(p, "point", ctx);
    const Vector3d n = ctx.vector3(p.at("normal"));
    if (!(n.norm() > 0) || !std::isfinite(n.norm())) p.at("normal").failWith("the normal has no length; expected a non-zero direction");
    s.normal = n.normalized();
  } else if (c.has("sphere")) {
    const JsonCursor p = c.at("sphere");
    if (!p.value().is_object()) p.fail("an object {\"center\": C, \"radius\": r}");
    p.rejectUnknownKeys({"center", "radius"});
    s.kind = ContactShape::Kind::Sphere;
    s.point = detail::parseVector(p, "center", ctx);
    s.radius = ctx.number(p.at("radius"));
    if (!(s.radius >= 0) || !std::isfinite(s.radius)) p.at("radius").failWith("radius = " + formatNumber(s.radius) + "; expected a finite radius >= 0");
    s.points = {s.point};
  } else if (c.has("point")) {
    s.kind = ContactShape::Kind::Point;
    s.point = ctx.vector3(c.at("point"));
    s.points = {s.point};
  } else if (c.has("points")) {
    const JsonCursor p = c.at("points");
    if (!p.value().is_array() || p.size() == 0) p.fail("a non-empty list of points");
    s.kind = ContactShape::Kind::Points;
    for (std::size_t i = 0; i < p.size(); ++i) s.points.push_back(ctx.vector3(p.at(i)));
  } else {
    c.fail(expected);
  }
  return s;
}

}  // namespace

ContactInput parseContactInput(const JsonCursor& c, const FactoryContext& ctx) {
  const MarkerNeeds needs{.points = true, .frames = false, .planar = false};
  ContactInput out{parseTwoBodies(c, ctx, needs, "contact joint", false), parseContactShape(c.at("shape1"), ctx),
                   parseContactShape(c.at("shape2"), ctx)};
  const ContactShape& s1 = out.shape1;
  const ContactShape& s2 = out.shape2;
  using K = ContactShape::Kind;
  const bool plane1 = s1.kind == K::Plane, plane2 = s2.kind == K::Plane;
  if (plane1 && plane2) c.at("shape2").failWith("a plane against a plane is not a contact joinery handles; expected a sphere, point or points against the plane");
  if (!plane1 && !plane2) {
    if (s1.kind == K::Points || s2.kind == K::Points)
      c.at(s1.kind == K::Points ? "shape1" : "shape2").failWith("points touch a plane only; expected a plane as the other shape");
    if (s1.kind == K::Point && s2.kind == K::Point)
      c.at("shape2").failWith("a point against a point never touches; expected a plane or a sphere as one of the shapes");
  }
  if (plane1 || plane2) {
    const Body& planeBody = plane1 ? *out.in.body1 : *out.in.body2;
    const MarkerNeeds frames{.points = true, .frames = true, .planar = false};
    const std::string problem = markerProblem(planeBody, frames, "contact plane");
    if (!problem.empty()) c.at(plane1 ? "body1" : "body2").failWith(problem);
  }
  out.in.point1 = s1.kind == K::Points ? s1.points.front() : s1.point;
  out.in.point2 = s2.kind == K::Points ? s2.points.front() : s2.point;
  return out;
}

}  // namespace detail

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kRopeType), makeRope,
                  "rope: point1 of body1 and point2 of body2 stay at most `length` apart; it can only pull "
                  "(one-sided, 1 row while taut)",
                  nlohmann::json::parse(R"json({"name": "cable", "type": "rope",
                    "body1": "body1", "point1": [0.5, 0.2], "body2": "body2", "point2": [-0.3, 0.1],
                    "length": 1.5})json")})

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kContactType), makeContact,
                  "rigid contact between shape1 of body1 and shape2 of body2 (plane, sphere/circle, point, "
                  "points): one one-sided row per contact point, Newton restitution",
                  nlohmann::json::parse(R"json({"name": "floor", "type": "contact",
                    "body1": "ground", "shape1": {"plane": {"point": [0, 0], "normal": [0, 1]}},
                    "body2": "body2", "shape2": {"sphere": {"center": [0, 0], "radius": 0.1}},
                    "restitution": 0.5})json")})

}  // namespace joinery
