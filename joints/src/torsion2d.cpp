// torsion2d: planar torsional spring-damper between the frames of body1 and body2.
// Torque tau = k wrap(theta2 - theta1 - free_angle) + c (w2 - w1): -tau on body2, +tau on body1
// (about world z). Potential energy k wrap(...)^2 / 2. The angle is measured modulo 2 pi.
#include <cmath>
#include <numbers>

#include "element_input.hpp"
#include "marker_access.hpp"

namespace joinery {
namespace {

constexpr std::string_view kTorsion2dType = "torsion2d";

class Torsion2d final : public ForceElement {
 public:
  Torsion2d(const detail::TwoBodyInput& in, double stiffness, double damping, double freeAngle)
      : ForceElement(in.name, {in.body1, in.body2}),
        k_(stiffness),
        c_(damping),
        theta0_(freeAngle),
        angle_(detail::BodyFrame(bodies(), 0), detail::BodyFrame(bodies(), 1), freeAngle),
        f1_(bodies(), 0),
        f2_(bodies(), 1) {}

  std::string_view typeName() const override { return kTorsion2dType; }

  void addForces(const LocalState& s, VecRef Q) const override {
    const double tau = k_ * calcTwist(s) + c_ * angle_.calcAngleRate(s);
    const Vector3d T = tau * Vector3d::UnitZ();
    f2_.addTorque(s, -T, Q);
    f1_.addTorque(s, T, Q);
  }

  bool providesForceJacobians() const override { return true; }

  /// Q = -tau a^T with a = d(theta2 - theta1)/dq (the z rows of [-Jw1, Jw2]) and
  /// tau = k twist + c a q': dQ/dq = -a^T (k a + c da q'/dq) - tau d2(theta2 - theta1)/dq2,
  /// dQ/dq' = -c a^T a.
  void addForceJacobians(const LocalState& s, MatRef dQdq, MatRef dQdv) const override {
    const int nl = static_cast<int>(dQdq.cols());
    detail::Jacobian3Scratch aBuf(nl), wBuf(nl);
    Eigen::Map<MatrixXd> a = aBuf.map(), Wq = wBuf.map();  // row 0 used
    const Eigen::RowVector3d ez(0, 0, 1);
    f1_.addJacobian(s, ez, -1.0, a.topRows(1));
    f2_.addJacobian(s, ez, 1.0, a.topRows(1));
    f1_.addAngleRateJacobian(s, -1.0, Wq.topRows(1));
    f2_.addAngleRateJacobian(s, 1.0, Wq.topRows(1));
    const double tau = k_ * calcTwist(s) + c_ * angle_.calcAngleRate(s);
    const auto ar = a.row(0);
    Wq.row(0) = k_ * ar + c_ * Wq.row(0);  // dtau/dq
    dQdq.noalias() -= ar.transpose().lazyProduct(Wq.row(0));
    f1_.addAngleHessian(s, tau, dQdq);  // -tau d(a^T)/dq: +tau d2theta1/dq2, -tau d2theta2/dq2
    f2_.addAngleHessian(s, -tau, dQdq);
    dQdv.noalias() -= (c_ * ar.transpose()).lazyProduct(ar);
  }

  double calcPotentialEnergy(const LocalState& s) const override {
    const double twist = calcTwist(s);
    return 0.5 * k_ * twist * twist;
  }

  nlohmann::json toJson() const override {
    return {{"name", name()},          {"type", std::string(kTorsion2dType)},
            {"body1", bodies()[0]->name()}, {"body2", bodies()[1]->name()},
            {"stiffness", k_},         {"damping", c_},
            {"free_angle", theta0_}};
  }

 private:
  // theta2 - theta1 - free_angle, wrapped into [-pi, pi]
  double calcTwist(const LocalState& s) const {
    return std::remainder(angle_.calcAngle(s) - theta0_, 2 * std::numbers::pi);
  }

  double k_, c_, theta0_;
  detail::PlanarRelativeAngle angle_;
  detail::BodyFrame f1_, f2_;
};

std::unique_ptr<ForceElement> makeTorsion2d(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "body2", "stiffness", "damping", "free_angle"});
  const detail::MarkerNeeds needs{.points = false, .frames = true, .planar = true};
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, needs, "torsion2d spring", false);
  const double k = ctx.number(c.at("stiffness"));
  if (k < 0) c.at("stiffness").failWith("stiffness must be >= 0, got " + std::to_string(k));
  const double damping = ctx.numberOr(c, "damping", 0.0);
  if (damping < 0) c.at("damping").failWith("damping must be >= 0, got " + std::to_string(damping));
  return std::make_unique<Torsion2d>(in, k, damping, ctx.numberOr(c, "free_angle", 0.0));
}

}  // namespace

JOINERY_REGISTER(ForceRegistry,
                 {std::string(kTorsion2dType), makeTorsion2d,
                  "planar torsion spring-damper: torque k (theta2 - theta1 - free_angle) + damping (w2 - w1)",
                  nlohmann::json::parse(R"json({"name": "torsion", "type": "torsion2d",
                    "body1": "body1", "body2": "body2", "stiffness": 20, "damping": 0.5,
                    "free_angle": 0.25})json")})

}  // namespace joinery
