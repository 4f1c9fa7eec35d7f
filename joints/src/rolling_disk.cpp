// rolling_disk: a thin disk (body2) rolls without slipping on a plane fixed in the world
// (body1 = ground). Nonholonomic (velocity level), 3 rows (docs/joints.md):
//   the material point of the disk at the contact point P has zero velocity,
//   psi = E (v_C + w x rho u) = 0,  E = [t1; t2; n] (two tangents of the plane and its normal),
// where C is the disk centre (point2), a = R2 axis2 the disk axis, rho the radius, and
// u = -(n - (n.a) a) / |n - (n.a) a| the unit vector in the disk plane towards the plane, so
// P = C + rho u. The normal row is the time derivative of the contact height
// n.(C - p1) - rho |n - (n.a) a| (kept at velocity level like the others).
//   psi' = E (J_C q'' + w' x rho u + w x rho u') = A q'' + E (bias_C + bias_w x rho u + w x rho u')
//   A = E J_C + K Jw with K rows (rho u x e_i); b = -E (bias_C + rho bias_w x u + rho w x u')
//   u' = -(m' - (m^.m') m^) / |m|,  m = n - (n.a) a,  m' = -(n.a') a - (n.a) a',  a' = w x a.
// Singular where the disk lies flat (|m| = 0): u is then taken as 0.
#include "joinery/joints/nonideal.hpp"
#include "spatial_support.hpp"

namespace joinery {
namespace {

constexpr std::string_view kRollingDiskType = "rolling_disk";

class RollingDisk final : public detail::TwoPointJoint {
 public:
  RollingDisk(const detail::TwoBodyInput& in, const Vector3d& normal, const Vector3d& axis2, double radius)
      : TwoPointJoint(in, false), centre_(point2()), frame_(frame2()), normal_(normal), axis2_(axis2), a_(axis2.normalized()), radius_(radius) {
    const auto [t1, t2] = detail::perpendicularBasis(normal);
    E_.row(0) = t1.transpose();
    E_.row(1) = t2.transpose();
    E_.row(2) = normal.normalized().transpose();
  }
  std::string_view typeName() const override { return kRollingDiskType; }
  int numRows() const override { return 3; }
  ConstraintLevel level() const override { return ConstraintLevel::Velocity; }
  Vector3d jointAxis(int k) const override { return k == 0 ? normal_ : axis2_; }
  std::optional<RollingContact> rollingContact() const override {
    RollingContact r;
    r.disk = bodies()[1];
    r.planePoint = input().point1;
    r.normal = normal_.normalized();
    r.centre = input().point2;
    r.axis = a_;
    r.radius = radius_;
    r.normalRow = 2;
    return r;
  }

  void calcPositionError(const LocalState&, VecRef phi) const override { phi.setZero(); }

  void calcVelocityError(const LocalState& s, VecRef psi) const override {
    const Contact c = contact(s);
    psi = E_ * (centre_.calcVelocity(s) + c.w.cross(radius_ * c.u));
  }

  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override {
    A.setZero();
    const Contact c = contact(s);
    Matrix3d K;
    for (int i = 0; i < 3; ++i) K.row(i) = (radius_ * c.u.cross(E_.row(i).transpose())).transpose();
    centre_.addJacobian(s, E_, 1.0, A);
    frame_.addJacobian(s, K, 1.0, A);
    Vector3d udot = Vector3d::Zero();
    if (c.m > 0) {
      const Vector3d n = E_.row(2).transpose(), adot = c.w.cross(c.a), mhat = -c.u;
      const Vector3d mdot = -n.dot(adot) * c.a - n.dot(c.a) * adot;
      udot = -(mdot - mhat.dot(mdot) * mhat) / c.m;
    }
    b = -E_ * (centre_.calcBias(s) + radius_ * frame_.calcAngularBias(s).cross(c.u) + radius_ * c.w.cross(udot));
  }

  nlohmann::json toJson() const override {
    nlohmann::json j = baseJson();
    j["normal"] = detail::vectorJson(normal_, false);
    j["axis2"] = detail::vectorJson(axis2_, false);
    j["radius"] = radius_;
    return j;
  }

 private:
  struct Contact {
    Vector3d a, u, w;
    double m;  // |n - (n.a) a| = sin of the angle between the disk axis and the normal
  };
  Contact contact(const LocalState& s) const {
    Contact c;
    const Vector3d n = E_.row(2).transpose();
    c.a = frame_.calcOrientation(s) * a_;
    c.w = frame_.calcAngularVelocity(s);
    const Vector3d m = n - n.dot(c.a) * c.a;
    c.m = m.norm();
    c.u = c.m > 0 ? Vector3d(-m / c.m) : Vector3d::Zero();
    return c;
  }

  detail::BodyPoint centre_;
  detail::BodyFrame frame_;
  Vector3d normal_, axis2_, a_;
  double radius_;
  Matrix3d E_;
};

std::unique_ptr<Constraint> makeRollingDisk(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "normal", "body2", "point2", "axis2", "radius", "nonideal"});
  const detail::MarkerNeeds needs{.points = true, .frames = true, .planar = false};
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, needs, "rolling_disk joint", true);
  if (!in.body1->isGround())
    c.at("body1").failWith("the plane of a rolling_disk is fixed in the world: body1 must be \"ground\"");
  const Vector3d normal = detail::parseAxis(c.at("normal"), ctx);
  const Vector3d axis2 = detail::parseAxis(c.at("axis2"), ctx);
  const double radius = ctx.number(c.at("radius"));
  if (!(radius > 0) || !std::isfinite(radius)) c.at("radius").failWith("expected a positive radius");
  auto joint = std::make_unique<RollingDisk>(in, normal, axis2, radius);
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kRollingDiskType), makeRollingDisk,
                  "thin disk body2 (centre point2, axis axis2, radius) rolls without slipping on the plane "
                  "through point1 with normal `normal` fixed in the world (body1 = ground); velocity level (3 rows)",
                  nlohmann::json::parse(R"json({"name": "contact", "type": "rolling_disk",
                    "body1": "ground", "point1": [0, 0, 0], "normal": [0, 0, 1],
                    "body2": "body2", "point2": [0, 0, 0], "axis2": [0, 0, 1], "radius": 0.3})json")})

}  // namespace joinery
