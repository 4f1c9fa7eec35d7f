// A custom body type defined outside the library: a particle in plane polar coordinates.
//
// Nothing in joinery is edited: the class implements joinery::Body (dynamics) and
// joinery::PointMarker (so every joint and force element that needs a point works with it),
// and JOINERY_REGISTER makes "polar_particle" available to scene files as soon as this file
// is linked into a program (link it directly, or through a whole-archive library).
//
//   {"name": "bead", "type": "polar_particle", "mass": 2, "r": 1, "phi": 0.5,
//    "r_dot": 0, "phi_dot": 1}
//
// Coordinates r (m) and phi (rad, from the world x axis, counter-clockwise). Position
// (r cos phi, r sin phi, 0). Kinetic energy T = m/2 (r'^2 + r^2 phi'^2) gives M = diag(m, m r^2)
// (singular at r = 0) and, by Lagrange's equations, the velocity-product terms
// Q = (m r phi'^2, -2 m r r' phi'). Tested in tests/bodies/test_custom_body.cpp.
#include <cmath>
#include <nlohmann/json.hpp>

#include "joinery/core/registry.hpp"

namespace example {

using namespace joinery;

class PolarParticle final : public Body, public PointMarker {
 public:
  PolarParticle(std::string name, double m, Eigen::Vector2d q0, Eigen::Vector2d v0)
      : Body(std::move(name)), m_(m), q0_(q0), v0_(v0) {}

  std::string_view typeName() const override { return "polar_particle"; }
  const std::vector<std::string>& coordinateNames() const override {
    static const std::vector<std::string> names{"r", "phi"};
    return names;
  }
  void getInitialState(VecRef q0, VecRef v0) const override { q0 = q0_; v0 = v0_; }
  void calcMassMatrix(double, CVecRef q, MatRef M) const override {
    M.setZero();
    M(0, 0) = m_;
    M(1, 1) = m_ * q(0) * q(0);
  }
  void calcForces(double, CVecRef q, CVecRef v, VecRef Q) const override {
    Q(0) = m_ * q(0) * v(1) * v(1);
    Q(1) = -2.0 * m_ * q(0) * v(0) * v(1);
  }
  void addGravityForce(CVecRef q, const Vector3d& g, VecRef Q) const override {
    Eigen::Matrix<double, 3, 2> J;  // generalized gravity force J^T m g
    calcPointJacobian(q, Vector3d::Zero(), J);
    Q += J.transpose() * (m_ * g);
  }
  double calcGravityPotential(CVecRef q, const Vector3d& g) const override {
    return -m_ * g.dot(calcPointPosition(q, Vector3d::Zero()));
  }
  const PointMarker* points() const override { return this; }
  bool isPlanar() const override { return true; }
  nlohmann::json toJson() const override {
    return {{"name", name()}, {"type", "polar_particle"}, {"mass", m_}, {"r", q0_(0)},
            {"phi", q0_(1)}, {"r_dot", v0_(0)}, {"phi_dot", v0_(1)}};
  }

  // PointMarker: a particle is a point, the local offset is ignored.
  Vector3d calcPointPosition(CVecRef q, const Vector3d&) const override {
    return {q(0) * std::cos(q(1)), q(0) * std::sin(q(1)), 0.0};
  }
  void calcPointJacobian(CVecRef q, const Vector3d&, MatRef J) const override {
    const double c = std::cos(q(1)), s = std::sin(q(1));
    J << c, -q(0) * s, s, q(0) * c, 0.0, 0.0;
  }
  Vector3d calcPointBias(CVecRef q, CVecRef v, const Vector3d&) const override {
    // d/dt(J) q' = (-2 r' phi' s - r phi'^2 c, 2 r' phi' c - r phi'^2 s, 0)
    const double c = std::cos(q(1)), s = std::sin(q(1)), w2 = v(1) * v(1), rw = 2.0 * v(0) * v(1);
    return {-rw * s - q(0) * w2 * c, rw * c - q(0) * w2 * s, 0.0};
  }

 private:
  double m_;
  Eigen::Vector2d q0_, v0_;
};

std::unique_ptr<Body> makePolarParticle(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "mass", "r", "phi", "r_dot", "phi_dot"});
  const double m = ctx.number(c.at("mass"));
  if (m < 0) c.at("mass").fail("a mass >= 0");
  return std::make_unique<PolarParticle>(
      c.at("name").string(), m, Eigen::Vector2d(ctx.numberOr(c, "r", 0), ctx.numberOr(c, "phi", 0)),
      Eigen::Vector2d(ctx.numberOr(c, "r_dot", 0), ctx.numberOr(c, "phi_dot", 0)));
}

}  // namespace example

JOINERY_REGISTER(BodyRegistry,
                 {"polar_particle", example::makePolarParticle,
                  "example: a planar particle in polar coordinates r, phi (examples/cpp)",
                  {{"name", "bead"}, {"type", "polar_particle"}, {"mass", 2.0}, {"r", 1.2},
                   {"phi", 0.5}, {"r_dot", 0.3}, {"phi_dot", -0.8}}})
