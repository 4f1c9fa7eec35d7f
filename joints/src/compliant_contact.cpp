// contact with "model": "compliant": a Hunt–Crossley force element (docs/contact.md, "Compliant
// contact"). Per contact point, with the rigid contact's gap g and the penetration delta = -g:
//   F = max(0, k delta^n + c delta^n delta')   (delta > 0; 0 otherwise),
// a push along the gap's gradient: Q += F dg/dq^T (equal and opposite forces on the two bodies
// along the normal, at the contact point). Potential energy k delta^(n+1) / (n+1).
// The gaps, written on body points so that their derivatives are the markers' own:
//   plane / sphere, point  g = (p_n - p_o).(x - p_o) - r   p_o the plane's point, p_n = p_o plus
//                                                           the unit normal (both on the plane's
//                                                           body), x the centre or the point
//   sphere / sphere        g = |c2 - c1| - r1 - r2
// The scene loader builds it from a `joints` entry with "model": "compliant" (a force type of
// the same name, ForceRegistry "contact"), and the flattened scene writes it back there.
#include <cmath>
#include <limits>

#include "contact_shape.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/one_sided.hpp"
#include "marker_access.hpp"

namespace joinery {
namespace {

constexpr std::string_view kCompliantContactType = "contact";

/// The Hunt–Crossley law: the force and its partial derivatives in delta and delta'.
struct CompliantLaw {
  double k = 0, c = 0, n = 1.5;
  struct Value {
    double F = 0, dDelta = 0, dRate = 0;
  };
  Value at(double delta, double rate) const {
    if (!(delta > 0)) return {};
    const double p = std::pow(delta, n);
    const double F = p * (k + c * rate);
    if (!(F > 0)) return {};  // never a pull: the damping only ever brakes the approach
    return {F, n * std::pow(delta, n - 1) * (k + c * rate), c * p};
  }
};

/// One contact point: on a plane (x against the plane through o with normal p_n - p_o) or between
/// two centres (a, b).
struct CompliantPoint {
  bool plane = true;
  detail::BodyPoint a, b, x;  // plane: p_o, p_n, the point; distance: c1, c2 (x = c2)
  double radius = 0;          // r of the gap
  int planeSide = 0;          // plane: the index of the plane's body in bodies()
};

class CompliantContact final : public ForceElement, public CompliantContactView {
 public:
  CompliantContact(const detail::ContactInput& input, const CompliantLaw& law)
      : ForceElement(input.in.name, {input.in.body1, input.in.body2}),
        s1_(input.shape1),
        s2_(input.shape2),
        law_(law),
        ref1_(bodies(), 0, input.in.point1),
        ref2_(bodies(), 1, input.in.point2) {
    using K = detail::ContactShape::Kind;
    const bool plane1 = s1_.kind == K::Plane, plane2 = s2_.kind == K::Plane;
    if (plane1 || plane2) {
      const int ip = plane1 ? 0 : 1, ix = 1 - ip;
      const detail::ContactShape& plane = plane1 ? s1_ : s2_;
      const detail::ContactShape& other = plane1 ? s2_ : s1_;
      const detail::BodyPoint o(bodies(), ip, plane.point), tip(bodies(), ip, plane.point + plane.normal);
      for (const Vector3d& p : other.points)
        points_.push_back({true, o, tip, detail::BodyPoint(bodies(), ix, p), other.radius, ip});
    } else {
      const detail::BodyPoint c1(bodies(), 0, s1_.points.front()), c2(bodies(), 1, s2_.points.front());
      points_.push_back({false, c1, c2, c2, s1_.radius + s2_.radius, 0});
    }
    const int nl = numLocalCoordinates();
    A_.setZero(3, nl);
    B_.setZero(3, nl);
    Wa_.setZero(3, nl);
    Wb_.setZero(3, nl);
    G_.setZero(1, nl);
    Gv_.setZero(1, nl);
  }

  std::string_view typeName() const override { return kCompliantContactType; }

  void addForces(const LocalState& s, VecRef Q) const override {
    for (const CompliantPoint& p : points_) {
      const Kinematics kin = kinematics(s, p);
      const double F = law_.at(-kin.g, -kin.rate).F;
      if (F == 0.0) continue;
      if (p.plane) {
        // F (A^T b + B^T a): the gradient of a.b with a = p_n - p_o, b = x - p_o
        p.b.addForce(s, F * kin.v2, Q);
        p.a.addForce(s, -F * (kin.v1 + kin.v2), Q);
        p.x.addForce(s, F * kin.v1, Q);
      } else {
        p.b.addForce(s, F * kin.v1, Q);
        p.a.addForce(s, -F * kin.v1, Q);
      }
    }
  }

  double calcPotentialEnergy(const LocalState& s) const override {
    double V = 0;
    for (const CompliantPoint& p : points_) {
      const double delta = -gap(s, p);
      if (delta > 0) V += law_.k * std::pow(delta, law_.n + 1) / (law_.n + 1);
    }
    return V;
  }

  bool providesForceJacobians() const override { return true; }

  /// Q = F(delta, delta') G^T with G = dg/dq, delta = -g, delta' = -G q':
  /// dQ/dq = -G^T (F_delta G + F_rate dg'/dq) + F d(G^T)/dq, dQ/dq' = -F_rate G^T G
  /// (docs/contact.md, "Compliant contact").
  void addForceJacobians(const LocalState& s, MatRef dQdq, MatRef dQdv) const override {
    for (const CompliantPoint& p : points_) {
      const Kinematics kin = kinematics(s, p);
      const CompliantLaw::Value f = law_.at(-kin.g, -kin.rate);
      if (f.F == 0.0) continue;
      A_.setZero();
      B_.setZero();
      Wa_.setZero();
      Wb_.setZero();
      if (p.plane) {
        // a = p_n - p_o (unit normal), b = x - p_o; A, B their Jacobians, Wa, Wb of A q', B q'
        p.b.addJacobian(s, Matrix3d::Identity(), 1.0, A_);
        p.a.addJacobian(s, Matrix3d::Identity(), -1.0, A_);
        p.x.addJacobian(s, Matrix3d::Identity(), 1.0, B_);
        p.a.addJacobian(s, Matrix3d::Identity(), -1.0, B_);
        p.b.addVelocityJacobian(s, 1.0, Wa_);
        p.a.addVelocityJacobian(s, -1.0, Wa_);
        p.x.addVelocityJacobian(s, 1.0, Wb_);
        p.a.addVelocityJacobian(s, -1.0, Wb_);
        const Vector3d& a = kin.v1;
        const Vector3d& b = kin.v2;
        G_.noalias() = b.transpose().lazyProduct(A_);
        G_.noalias() += a.transpose().lazyProduct(B_);
        Gv_.noalias() = kin.w1.transpose().lazyProduct(B_);  // (A q')^T B
        Gv_.noalias() += kin.w2.transpose().lazyProduct(A_);  // (B q')^T A
        Gv_.noalias() += b.transpose().lazyProduct(Wa_);
        Gv_.noalias() += a.transpose().lazyProduct(Wb_);
        // F d(A^T b + B^T a)/dq = F (A^T B + B^T A) + the points' geometric terms
        dQdq.noalias() += f.F * A_.transpose().lazyProduct(B_);
        dQdq.noalias() += f.F * B_.transpose().lazyProduct(A_);
        p.b.addForceHessian(s, f.F * b, dQdq);
        p.a.addForceHessian(s, -f.F * (a + b), dQdq);
        p.x.addForceHessian(s, f.F * a, dQdq);
      } else {
        // d = c2 - c1, u = d / |d|, D its Jacobian (A_), Wd of D q' (Wa_); g = |d| - r
        p.b.addJacobian(s, Matrix3d::Identity(), 1.0, A_);
        p.a.addJacobian(s, Matrix3d::Identity(), -1.0, A_);
        p.b.addVelocityJacobian(s, 1.0, Wa_);
        p.a.addVelocityJacobian(s, -1.0, Wa_);
        const Vector3d& u = kin.v1;
        const Matrix3d P = (Matrix3d::Identity() - u * u.transpose()) / kin.length;  // du/dd
        const Vector3d Pw = P * kin.w1;
        G_.noalias() = u.transpose().lazyProduct(A_);
        Gv_.noalias() = Pw.transpose().lazyProduct(A_);  // w^T P D / |d|, w = D q'
        Gv_.noalias() += u.transpose().lazyProduct(Wa_);
        B_.noalias() = P.lazyProduct(A_);
        dQdq.noalias() += f.F * A_.transpose().lazyProduct(B_);
        p.b.addForceHessian(s, f.F * u, dQdq);
        p.a.addForceHessian(s, -f.F * u, dQdq);
      }
      // dF/dq = -(F_delta G + F_rate dg'/dq), dF/dq' = -F_rate G
      Gv_ *= f.dRate;
      Gv_.noalias() += f.dDelta * G_;
      dQdq.noalias() -= G_.transpose().lazyProduct(Gv_);
      dQdv.noalias() -= f.dRate * G_.transpose().lazyProduct(G_);
    }
  }

  // ---- CompliantContactView ----
  int numContactPoints() const override { return static_cast<int>(points_.size()); }
  double calcGap(const LocalState& s, int k) const override { return gap(s, points_[static_cast<std::size_t>(k)]); }
  double calcNormalForce(const LocalState& s, int k) const override {
    const Kinematics kin = kinematics(s, points_[static_cast<std::size_t>(k)]);
    return law_.at(-kin.g, -kin.rate).F;
  }
  void calcWrench(const LocalState& s, int side, Vector3d& force, Vector3d& torque) const override {
    force.setZero();
    torque.setZero();
    const Vector3d ref = (side == 0 ? ref1_ : ref2_).calcPosition(s);
    for (const CompliantPoint& p : points_) {
      const Kinematics kin = kinematics(s, p);
      const double F = law_.at(-kin.g, -kin.rate).F;
      if (F == 0.0) continue;
      // the force on body 2 of the pair (the point's body, or c2) and where it acts
      Vector3d f = F * kin.v1, at;
      if (p.plane) {
        at = p.x.calcPosition(s);
        if (side == p.planeSide) f = -f;
      } else {
        at = side == 0 ? p.a.calcPosition(s) : p.b.calcPosition(s);
        if (side == 0) f = -f;
      }
      force += f;
      torque += (at - ref).cross(f);
    }
  }

  nlohmann::json toJson() const override {
    nlohmann::json j = {{"name", name()},          {"type", std::string(kCompliantContactType)},
                        {"model", "compliant"},    {"body1", bodies()[0]->name()},
                        {"shape1", s1_.source},    {"body2", bodies()[1]->name()},
                        {"shape2", s2_.source},    {"stiffness", law_.k}};
    if (law_.c != 0) j["damping"] = law_.c;
    j["exponent"] = law_.n;
    return j;
  }

 private:
  /// The gap, its rate and the vectors the forces use: plane v1 = a = p_n - p_o, v2 = b =
  /// x - p_o, w1 = A q', w2 = B q'; distance v1 = u, w1 = D q' (w2 unused).
  struct Kinematics {
    double g = 0, rate = 0, length = 0;
    Vector3d v1, v2, w1, w2;
  };
  Kinematics kinematics(const LocalState& s, const CompliantPoint& p) const {
    Kinematics k;
    if (p.plane) {
      const Vector3d o = p.a.calcPosition(s), vo = p.a.calcVelocity(s);
      k.v1 = p.b.calcPosition(s) - o;
      k.v2 = p.x.calcPosition(s) - o;
      k.w1 = p.b.calcVelocity(s) - vo;
      k.w2 = p.x.calcVelocity(s) - vo;
      k.g = k.v1.dot(k.v2) - p.radius;
      k.rate = k.v1.dot(k.w2) + k.v2.dot(k.w1);
    } else {
      const Vector3d d = p.b.calcPosition(s) - p.a.calcPosition(s);
      k.length = d.norm();
      if (!(k.length > 0))
        throw SimulationError("compliant contact '" + name() + "': the centres of the spheres coincide (t = " +
                              formatNumber(s.t) + "), so the contact normal is undefined; expected a penetration "
                              "smaller than the radii (a stiffer contact, or a smaller step)");
      k.v1 = d / k.length;
      k.w1 = p.b.calcVelocity(s) - p.a.calcVelocity(s);
      k.v2 = k.w2 = Vector3d::Zero();
      k.g = k.length - p.radius;
      k.rate = k.v1.dot(k.w1);
    }
    return k;
  }
  double gap(const LocalState& s, const CompliantPoint& p) const {
    if (p.plane) {
      const Vector3d o = p.a.calcPosition(s);
      return (p.b.calcPosition(s) - o).dot(p.x.calcPosition(s) - o) - p.radius;
    }
    return (p.b.calcPosition(s) - p.a.calcPosition(s)).norm() - p.radius;
  }

  detail::ContactShape s1_, s2_;
  CompliantLaw law_;
  detail::BodyPoint ref1_, ref2_;
  std::vector<CompliantPoint> points_;
  mutable MatrixXd A_, B_, Wa_, Wb_, G_, Gv_;  // scratch, sized once
};

std::unique_ptr<ForceElement> makeCompliantContact(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "shape1", "body2", "shape2", "model", "stiffness", "damping",
                       "exponent", "restitution", "friction"});
  const JsonCursor m = c.at("model");
  if (!m.value().is_string() || m.value().get<std::string>() != "compliant")
    m.fail("\"compliant\" (a rigid contact is a joint: it belongs in 'joints' without \"model\" or with "
           "\"model\": \"rigid\")");
  if (c.has("restitution"))
    c.at("restitution").failWith("a compliant contact has no restitution: its damping decides the rebound "
                                 "(Hunt-Crossley); expected no 'restitution' (or \"model\": \"rigid\")");
  if (c.has("friction"))
    c.at("friction").failWith("friction on a compliant contact is not available in this build (a frictionless "
                              "contact would be a silently wrong answer); expected no 'friction' (or a rigid "
                              "contact, \"model\": \"rigid\", for Coulomb friction between planar bodies)");
  CompliantLaw law;
  const JsonCursor kc = c.at("stiffness");
  law.k = ctx.number(kc);
  if (!(law.k > 0) || !std::isfinite(law.k))
    kc.failWith("stiffness = " + formatNumber(law.k) + "; expected a finite stiffness > 0 (N/m^exponent)");
  law.c = ctx.numberOr(c, "damping", 0.0);
  if (!(law.c >= 0) || !std::isfinite(law.c))
    c.at("damping").failWith("damping = " + formatNumber(law.c) +
                             "; expected a finite damping >= 0 (N s/m^(exponent+1); damping/stiffness in s/m)");
  law.n = ctx.numberOr(c, "exponent", 1.5);
  if (!(law.n >= 1) || !std::isfinite(law.n))
    c.at("exponent").failWith("exponent = " + formatNumber(law.n) +
                              "; expected a finite exponent >= 1 (1: linear, 1.5: Hertz)");
  return std::make_unique<CompliantContact>(detail::parseContactInput(c, ctx), law);
}

}  // namespace

JOINERY_REGISTER(ForceRegistry,
                 {std::string(kCompliantContactType), makeCompliantContact,
                  "compliant (Hunt-Crossley) contact, a `contact` with \"model\": \"compliant\" (written in "
                  "'joints'): per contact point a normal force max(0, stiffness delta^exponent (1 + "
                  "damping/stiffness delta')) at penetration delta; energy stiffness delta^(exponent+1) / "
                  "(exponent+1)",
                  nlohmann::json::parse(R"json({"name": "floor", "type": "contact", "model": "compliant",
                    "body1": "body1", "shape1": {"plane": {"point": [0, 0], "normal": [0, 1]}},
                    "body2": "body2", "shape2": {"sphere": {"center": [0, 0], "radius": 0.1}},
                    "stiffness": 1e5, "damping": 2e3, "exponent": 1.5})json")})

}  // namespace joinery
