// "A custom body without touching the library": a body type defined and registered in this
// test translation unit, created through the registry like the built-in ones (and checked by
// the registry-wide conformance test too). The polar particle of examples/cpp/custom_body.cpp,
// compiled into this test program, is checked here as well.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "body_checks.hpp"
#include "eigen_approx.hpp"
#include "joinery/core/registry.hpp"
#include "test_context.hpp"

using namespace joinery;
using joinery::test::isApprox;
using nlohmann::json;

namespace {

/// A pendulum with its hinge built in: one coordinate theta (rad, from the downward vertical,
/// counter-clockwise), a point mass m at distance L below the pivot (the world origin) when
/// theta = 0. Body points are given in the rod frame (origin at the pivot, y up the rod... the
/// bob at (0, -L)): r = Rz(theta) ((0, -L) + p).
class PendulumBob final : public Body, public PointMarker {
 public:
  PendulumBob(std::string name, double m, double L, double theta0, double omega0)
      : Body(std::move(name)), m_(m), L_(L), theta0_(theta0), omega0_(omega0) {}
  std::string_view typeName() const override { return "test_pendulum_bob"; }
  const std::vector<std::string>& coordinateNames() const override {
    static const std::vector<std::string> names{"theta"};
    return names;
  }
  void getInitialState(VecRef q0, VecRef v0) const override {
    q0(0) = theta0_;
    v0(0) = omega0_;
  }
  void calcMassMatrix(double, CVecRef, MatRef M) const override { M(0, 0) = m_ * L_ * L_; }
  void calcForces(double, CVecRef, CVecRef, VecRef Q) const override { Q.setZero(); }
  void addGravityForce(CVecRef q, const Vector3d& g, VecRef Q) const override {
    Q(0) += relative(q, Vector3d::Zero()).cross(m_ * g).z();  // torque of m g about the pivot
  }
  double calcGravityPotential(CVecRef q, const Vector3d& g) const override {
    return -m_ * g.dot(relative(q, Vector3d::Zero()));
  }
  const PointMarker* points() const override { return this; }
  bool isPlanar() const override { return true; }
  json toJson() const override {
    return {{"name", name()}, {"type", "test_pendulum_bob"}, {"mass", m_}, {"length", L_},
            {"angle", theta0_}, {"angular_velocity", omega0_}};
  }
  Vector3d calcPointPosition(CVecRef q, const Vector3d& p) const override { return relative(q, p); }
  void calcPointJacobian(CVecRef q, const Vector3d& p, MatRef J) const override {
    J.col(0) = Vector3d::UnitZ().cross(relative(q, p));
  }
  Vector3d calcPointBias(CVecRef q, CVecRef v, const Vector3d& p) const override {
    return -v(0) * v(0) * relative(q, p);
  }

 private:
  Vector3d relative(CVecRef q, const Vector3d& p) const {
    return Eigen::AngleAxisd(q(0), Vector3d::UnitZ()) * Vector3d(p.x(), p.y() - L_, 0.0);
  }
  double m_, L_, theta0_, omega0_;
};

std::unique_ptr<Body> makePendulumBob(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "mass", "length", "angle", "angular_velocity"});
  const double m = ctx.number(c.at("mass")), L = ctx.number(c.at("length"));
  if (m < 0) c.at("mass").fail("a mass >= 0");
  if (L <= 0) c.at("length").fail("a length > 0");
  return std::make_unique<PendulumBob>(c.at("name").string(), m, L, ctx.numberOr(c, "angle", 0),
                                       ctx.numberOr(c, "angular_velocity", 0));
}

}  // namespace

JOINERY_REGISTER(BodyRegistry,
                 {"test_pendulum_bob", makePendulumBob,
                  "test only: a pendulum bob with a built-in hinge at the origin",
                  {{"name", "bob"}, {"type", "test_pendulum_bob"}, {"mass", 0.5},
                   {"length", 2.0}, {"angle", 0.4}, {"angular_velocity", -1.0}}})

TEST_CASE("a body type registered outside the library is created through the registry",
          "[bodies][custom]") {
  test::TestContext ctx;
  ctx.setParameter("L", 2.0);
  const BodyPtr bob = test::create<Body>({{"name", "bob"}, {"type", "test_pendulum_bob"},
                                          {"mass", 0.5}, {"length", "L"}, {"angle", 0.4}},
                                         ctx);
  REQUIRE(bob->typeName() == "test_pendulum_bob");
  // Pendulum equation: theta'' = M^-1 (Q + Q_gravity) = -(g / L) sin(theta).
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(1, 0.4), v = Eigen::VectorXd::Constant(1, 0.0);
  Eigen::VectorXd Q = test::forces(*bob, q, v);
  bob->addGravityForce(q, Eigen::Vector3d(0, -9.81, 0), Q);
  CHECK(Q(0) / test::massMatrix(*bob, q)(0, 0) == Approx(-9.81 / 2.0 * std::sin(0.4)));
  CHECK_THAT(Eigen::MatrixXd(bob->points()->calcPointPosition(q, Eigen::Vector3d::Zero())),
             isApprox(Eigen::Vector3d(2.0 * std::sin(0.4), -2.0 * std::cos(0.4), 0), 1e-15, 1e-15));
  // Its factory errors come out like the library's.
  try {
    test::create<Body>({{"name", "bob"}, {"type", "test_pendulum_bob"}, {"mass", 1}, {"length", 1}, {"lenght", 2}}, ctx);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("did you mean 'length'"));
  }
}

TEST_CASE("examples/cpp/custom_body.cpp: the polar particle moves like a free particle",
          "[bodies][custom][example]") {
  test::TestContext ctx;
  REQUIRE(BodyRegistry::instance().find("polar_particle") != nullptr);
  const BodyPtr bead = test::create<Body>(BodyRegistry::instance().find("polar_particle")->example, ctx);
  // Free motion: q'' = M^-1 Q; the Cartesian acceleration J q'' + bias must vanish (straight
  // line at constant speed). Exact up to rounding (1e-12).
  for (const auto& [r, phi, rd, phid] : {std::tuple{1.2, 0.5, 0.3, -0.8}, std::tuple{0.4, -2.0, -1.0, 3.0}}) {
    const Eigen::Vector2d q(r, phi), v(rd, phid);
    const Eigen::VectorXd a = test::massMatrix(*bead, q).ldlt().solve(test::forces(*bead, q, v));
    Eigen::MatrixXd J(3, 2);
    bead->points()->calcPointJacobian(q, Eigen::Vector3d::Zero(), J);
    CHECK_THAT(Eigen::MatrixXd(J * a + bead->points()->calcPointBias(q, v, Eigen::Vector3d::Zero())),
               isApprox(Eigen::Vector3d::Zero(), 0, 1e-12));
  }
  // Velocity terms from Lagrange's equations, as for the library bodies.
  const Eigen::Vector2d q(1.2, 0.5), v(0.3, -0.8);
  CHECK_THAT(Eigen::MatrixXd(test::forces(*bead, q, v)),
             isApprox(Eigen::Vector2d(2.0 * 1.2 * 0.64, -2.0 * 2.0 * 1.2 * 0.3 * -0.8), 1e-14, 1e-14));
}
