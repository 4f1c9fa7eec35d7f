// Joints on the travel s and the turn theta about a joint axis (docs/joints.md):
//   screw             cylindrical rows (4) + s - h theta - offset (h = pitch / 2 pi)   5 rows
//   revolute_driver   theta - value(t)                                                  1 row
//   prismatic_driver  s - value(t)                                                      1 row
// s = (R1 a1).(r2 - r1) is the travel of point2 along axis1 from point1; theta is the angle
// about R1 a1 from R1 reference1 to R2 reference2 (references perpendicular to the axes; by
// default reference2 is the body-2 direction that coincides with R1 reference1 at the initial
// state, so theta starts at 0). The one AxialRow primitive below writes all three rows.
#include <cmath>
#include <numbers>

#include "joinery/joints/nonideal.hpp"
#include "spatial_support.hpp"

namespace joinery {
namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

/// phi = cs s + ct theta - f(t), wrapped into [-pi |ct|, pi |ct|] when ct != 0 (theta turns
/// through 2 pi; the configurations s, theta + 2 pi k all satisfy the row).
///   s' = w1.(n x d) + n.d'                                    (PointOnLine, n = R1 a1)
///   x = (R1 u).(R2 w), y = (R1 v).(R2 w), theta = atan2(y, x) (u = reference1, v = a1 x u)
///   x' = (w1 - w2).(u x w), y' = (w1 - w2).(v x w)            (PerpendicularAxes)
///   theta' = (x y' - y x') / r^2,  r^2 = x^2 + y^2
///   theta'' = (x y'' - y x'') / r^2 - 2 (x y' - y x')(x x' + y y') / r^4
class AxialRow final : public detail::RowPrimitive {
 public:
  struct Geometry {
    Vector3d axis1, reference1, reference2;  // unit, reference1 perpendicular to axis1
  };
  AxialRow(detail::BodyFrame f1, detail::BodyFrame f2, detail::BodyPoint p1, detail::BodyPoint p2,
           const Geometry& g, double cs, double ct, detail::TimeFunction f)
      : f1_(f1), f2_(f2), p1_(p1), p2_(p2), a_(g.axis1), u_(g.reference1), v_(g.axis1.cross(g.reference1)),
        w_(g.reference2), cs_(cs), ct_(ct), f_(std::move(f)) {}
  int numRows() const override { return 1; }

  void calcPositionError(const LocalState& s, VecRef phi) const override {
    double raw = -f_.value(s.t);
    if (cs_ != 0) raw += cs_ * (f1_.calcOrientation(s) * a_).dot(p2_.calcPosition(s) - p1_.calcPosition(s));
    if (ct_ != 0) {
      const Turn t = turn(s);
      raw = std::remainder(raw + ct_ * std::atan2(t.y, t.x), kTwoPi * std::abs(ct_));
    }
    phi(0) = raw;
  }

  void calcVelocityError(const LocalState& s, VecRef psi) const override {
    double rate = -f_.rate(s.t);
    if (cs_ != 0) {
      const Vector3d n = f1_.calcOrientation(s) * a_;
      const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
      rate += cs_ * (f1_.calcAngularVelocity(s).dot(n.cross(d)) + n.dot(p2_.calcVelocity(s) - p1_.calcVelocity(s)));
    }
    if (ct_ != 0) {
      const Turn t = turn(s);
      const Vector3d w12 = f1_.calcAngularVelocity(s) - f2_.calcAngularVelocity(s);
      if (t.r2 > 0) rate += ct_ * (t.x * w12.dot(t.vxw) - t.y * w12.dot(t.uxw)) / t.r2;
    }
    psi(0) = rate;
  }

  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override {
    double beta = 0;  // phi'' = A q'' + beta - f''
    if (cs_ != 0) {
      const Vector3d n = f1_.calcOrientation(s) * a_;
      const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
      const Vector3d dd = p2_.calcVelocity(s) - p1_.calcVelocity(s);
      const Vector3d w1 = f1_.calcAngularVelocity(s), nxd = n.cross(d), w1xn = w1.cross(n);
      f1_.addJacobian(s, nxd.transpose(), cs_, A);
      p1_.addJacobian(s, n.transpose(), -cs_, A);
      p2_.addJacobian(s, n.transpose(), cs_, A);
      beta += cs_ * (f1_.calcAngularBias(s).dot(nxd) + w1.cross(w1xn).dot(d) + 2 * w1xn.dot(dd) +
                     n.dot(p2_.calcBias(s) - p1_.calcBias(s)));
    }
    if (ct_ != 0) {
      const Turn t = turn(s);
      if (t.r2 > 0) {
        const Vector3d w1 = f1_.calcAngularVelocity(s), w2 = f2_.calcAngularVelocity(s), w12 = w1 - w2;
        const Vector3d c = (t.x * t.vxw - t.y * t.uxw) / t.r2;
        f1_.addJacobian(s, c.transpose(), ct_, A);
        f2_.addJacobian(s, c.transpose(), -ct_, A);
        const Vector3d bias12 = f1_.calcAngularBias(s) - f2_.calcAngularBias(s);
        const double xd = w12.dot(t.uxw), yd = w12.dot(t.vxw);
        const double bx = bias12.dot(t.uxw) + w12.dot(w1.cross(t.u).cross(t.w) + t.u.cross(w2.cross(t.w)));
        const double by = bias12.dot(t.vxw) + w12.dot(w1.cross(t.v).cross(t.w) + t.v.cross(w2.cross(t.w)));
        beta += ct_ * ((t.x * by - t.y * bx) / t.r2 -
                       2 * (t.x * yd - t.y * xd) * (t.x * xd + t.y * yd) / (t.r2 * t.r2));
      }
    }
    b(0) = f_.acceleration(s.t) - beta;
  }

 private:
  struct Turn {
    Vector3d u, v, w, uxw, vxw;
    double x, y, r2;
  };
  Turn turn(const LocalState& s) const {
    const Matrix3d R1 = f1_.calcOrientation(s);
    Turn t;
    t.u = R1 * u_;
    t.v = R1 * v_;
    t.w = f2_.calcOrientation(s) * w_;
    t.uxw = t.u.cross(t.w);
    t.vxw = t.v.cross(t.w);
    t.x = t.u.dot(t.w);
    t.y = t.v.dot(t.w);
    t.r2 = t.x * t.x + t.y * t.y;  // 0 only when R2 reference2 lies along R1 axis1
    return t;
  }

  detail::BodyFrame f1_, f2_;
  detail::BodyPoint p1_, p2_;
  Vector3d a_, u_, v_, w_;
  double cs_, ct_;
  detail::TimeFunction f_;
};

const detail::MarkerNeeds kNeeds{.points = true, .frames = true, .planar = false};

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
    AxialRow::Geometry g{n1, perpendicularPart(a_.reference1, n1), perpendicularPart(a_.reference2, n2)};
    const bool screw = type == "screw";
    if (screw) {
      addRows(detail::parallelAxesRows(frame1(), a_.axis1, frame2(), *a_.axis2));
      addRows(detail::pointOnLineRows(frame1(), point1(), point2(), a_.axis1));
    }
    const double cs = type == "revolute_driver" ? 0.0 : 1.0;
    const double ct = type == "prismatic_driver" ? 0.0 : screw ? -*a_.pitch / kTwoPi : 1.0;
    const Expression f = screw ? Expression::constant(*a_.offset) : a_.value;
    addRows(std::make_unique<AxialRow>(frame1(), frame2(), point1(), point2(), g, cs, ct, detail::TimeFunction(f)));
  }
  std::string_view typeName() const override { return type_; }
  Vector3d jointAxis(int k) const override { return k == 0 || !a_.axis2 ? a_.axis1 : *a_.axis2; }
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
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, kNeeds, std::string(type) + " joint", true);
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
