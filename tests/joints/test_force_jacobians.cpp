// Exact force Jacobians (docs/integrators.md "Radau IIA 5"): every element and body
// that says providesForceJacobians() against central differences of its forces, on every body
// pairing, at random states with random velocities (rigid3d quaternions off the unit sphere
// too: the markers are exact for any non-zero e).
#include <catch2/catch.hpp>
#include <random>

#include "joint_test_support.hpp"

namespace joinery::test {
namespace {

/// The local state of `bodies` at flat (q, v); quaternions keep their value (not normalized).
std::vector<VectorXd> split(const std::vector<const Body*>& bodies, const VectorXd& x) {
  std::vector<VectorXd> parts;
  int k = 0;
  for (const Body* b : bodies) {
    parts.push_back(x.segment(k, b->numCoordinates()));
    k += b->numCoordinates();
  }
  return parts;
}

struct Jacobians {
  MatrixXd dq, dv;
};

/// Central differences of addForces in q and in v (h = 1e-6 relative: truncation ~h^2 |Q'''|,
/// round-off ~1e-16 |Q| / h, both below 1e-8 of the entries' scale here).
Jacobians differencedJacobians(const ForceElement& f, const VectorXd& q, const VectorXd& v, double t) {
  const int n = f.numLocalCoordinates();
  Jacobians J{MatrixXd::Zero(n, n), MatrixXd::Zero(n, n)};
  for (int inV = 0; inV < 2; ++inV)
    for (int j = 0; j < n; ++j) {
      VectorXd qp = q, qm = q, vp = v, vm = v;
      const double h = 1e-6 * std::max(1.0, std::abs(inV ? v(j) : q(j)));
      (inV ? vp : qp)(j) += h;
      (inV ? vm : qm)(j) -= h;
      StateHolder sp(f.bodies(), split(f.bodies(), qp), split(f.bodies(), vp), t);
      StateHolder sm(f.bodies(), split(f.bodies(), qm), split(f.bodies(), vm), t);
      (inV ? J.dv : J.dq).col(j) = (generalizedForce(f, sp.state()) - generalizedForce(f, sm.state())) / (2 * h);
    }
  return J;
}

/// The element's analytic Jacobians at a random state equal the central differences.
void checkElement(const ForceElement& f, std::mt19937& rng, int trials = 4) {
  REQUIRE(f.providesForceJacobians());
  const int n = f.numLocalCoordinates();
  std::normal_distribution<double> N01;
  for (int trial = 0; trial < trials; ++trial) {
    ElementMotion motion(f.bodies(), rng, 0.3);
    const auto s = motion.at(0);
    VectorXd q = s->coordinates(), v = s->velocities();
    for (int j = 0; j < n; ++j) v(j) += N01(rng);  // velocities off the manifold of |e| too
    StateHolder st(f.bodies(), split(f.bodies(), q), split(f.bodies(), v), 0.3);
    MatrixXd dq = MatrixXd::Zero(n, n), dv = MatrixXd::Zero(n, n);
    f.addForceJacobians(st.state(), dq, dv);
    const Jacobians fd = differencedJacobians(f, q, v, 0.3);
    const double scale = std::max({1.0, fd.dq.cwiseAbs().maxCoeff(), fd.dv.cwiseAbs().maxCoeff()});
    INFO(f.name() << " trial " << trial << "\nanalytic dQ/dq\n" << dq << "\ndifferenced\n" << fd.dq
                  << "\nanalytic dQ/dv\n" << dv << "\ndifferenced\n" << fd.dv);
    // a missing term (geometric stiffness, the damper's dependence on q through the relative
    // velocity, a sign) is off by O(scale); differences are good to ~1e-8 of it
    CHECK((dq - fd.dq).cwiseAbs().maxCoeff() < 1e-6 * scale);
    CHECK((dv - fd.dv).cwiseAbs().maxCoeff() < 1e-6 * scale);
  }
}

const std::vector<std::string> kPointKinds = {"ground", "particle2", "particle3", "rigid2d", "rigid3d"};

}  // namespace

TEST_CASE("spring: exact dQ/dq and dQ/dq' (stiffness, damping, free length, geometric terms)",
          "[forces][jacobians]") {
  std::mt19937 rng(18);
  for (const auto& k1 : kPointKinds)
    for (const auto& k2 : kPointKinds) {
      if (k1 == "ground" && k2 == "ground") continue;
      DYNAMIC_SECTION("spring between " << k1 << " and " << k2) {
        TestScene scene;
        const Body& b1 = scene.add(k1, "b1");
        const Body& b2 = scene.add(k2, "b2");
        const auto spring = scene.force({{"name", "s"}, {"type", "spring"}, {"body1", b1.name()},
                                         {"point1", {0.3, -0.2, 0.1}}, {"body2", b2.name()},
                                         {"point2", {-0.4, 0.25, 0.2}}, {"stiffness", 1e4},
                                         {"damping", 30}, {"free_length", 0.2}});
        checkElement(*spring, rng);
      }
    }
}

TEST_CASE("spring at zero length: -k on the relative position", "[forces][jacobians]") {
  TestScene scene;
  const Body& b1 = scene.add("particle2", "b1");
  const Body& b2 = scene.add("particle2", "b2");
  const auto spring = scene.force({{"name", "s"}, {"type", "spring"}, {"body1", "b1"}, {"point1", {0, 0}},
                                   {"body2", "b2"}, {"point2", {0, 0}}, {"stiffness", 5e6}});
  const std::vector<VectorXd> q = {Eigen::Vector2d(0.5, 0.5), Eigen::Vector2d(0.5, 0.5)};
  const std::vector<VectorXd> v = {Eigen::Vector2d(1, 0), Eigen::Vector2d(0, 2)};
  StateHolder st(spring->bodies(), q, v, 0);
  MatrixXd dq = MatrixXd::Zero(4, 4), dv = MatrixXd::Zero(4, 4);
  spring->addForceJacobians(st.state(), dq, dv);
  MatrixXd expected(4, 4);  // Q = [k d; -k d], d = r2 - r1
  expected << -5e6, 0, 5e6, 0, 0, -5e6, 0, 5e6, 5e6, 0, -5e6, 0, 0, 5e6, 0, -5e6;
  CHECK(dq == expected);
  CHECK(dv.isZero(0.0));
  (void)b1;
  (void)b2;
}

TEST_CASE("torsion2d: exact dQ/dq and dQ/dq'", "[forces][jacobians]") {
  std::mt19937 rng(19);
  for (const auto& [k1, k2] : std::vector<std::pair<std::string, std::string>>{
           {"ground", "rigid2d"}, {"rigid2d", "ground"}, {"rigid2d", "rigid2d"}}) {
    DYNAMIC_SECTION("torsion2d between " << k1 << " and " << k2) {
      TestScene scene;
      const Body& b1 = scene.add(k1, "b1");
      const Body& b2 = scene.add(k2, "b2");
      const auto t = scene.force({{"name", "t"}, {"type", "torsion2d"}, {"body1", b1.name()}, {"body2", b2.name()},
                                  {"stiffness", 2e3}, {"damping", 4}, {"free_angle", 0.25}});
      checkElement(*t, rng);
    }
  }
}

TEST_CASE("force: a value of t alone has the point's geometric Jacobian; of the state, none", "[forces][jacobians]") {
  std::mt19937 rng(20);
  for (const auto& kind : {"particle2", "particle3", "rigid2d", "rigid3d"}) {
    DYNAMIC_SECTION("force on " << kind) {
      TestScene scene;
      const Body& b = scene.add(kind, "b");
      const bool planar = b.isPlanar();
      nlohmann::json value = planar ? nlohmann::json{"3 + sin(t)", -40} : nlohmann::json{"3 + sin(t)", -40, "2*t"};
      const auto f = scene.force({{"name", "f"}, {"type", "force"}, {"body", "b"}, {"point", {0.3, 0.2, -0.1}},
                                  {"value", value}});
      checkElement(*f, rng);
      value[0] = "b.x";
      const auto g = scene.force({{"name", "g"}, {"type", "force"}, {"body", "b"}, {"point", {0.3, 0.2, -0.1}},
                                  {"value", value}});
      CHECK_FALSE(g->providesForceJacobians());  // differenced by the integrator instead
    }
  }
}

TEST_CASE("bodies: rigid3d's velocity-product forces, linear's -K and -D, gravity-only bodies", "[forces][jacobians]") {
  std::mt19937 rng(21);
  std::normal_distribution<double> N01;
  TestScene scene;
  for (const auto& kind : {"particle3", "rigid2d", "rigid3d", "linear"}) {
    DYNAMIC_SECTION("body " << kind) {
      const Body& b = scene.add(kind, std::string("b_") + kind);
      REQUIRE(b.providesForceJacobians());
      const int n = b.numCoordinates();
      const Vector3d g(0.5, -9.81, 1.0);
      for (int trial = 0; trial < 4; ++trial) {
        VectorXd q(n), v(n);
        for (int j = 0; j < n; ++j) q(j) = N01(rng), v(j) = N01(rng);
        MatrixXd dq = MatrixXd::Zero(n, n), dv = MatrixXd::Zero(n, n);
        b.addForceJacobians(0.1, q, v, g, dq, dv);
        auto Q = [&](const VectorXd& qq, const VectorXd& vv) {
          VectorXd out = VectorXd::Zero(n);
          b.calcForces(0.1, qq, vv, out);
          b.addGravityForce(qq, g, out);
          return out;
        };
        MatrixXd fq(n, n), fv(n, n);
        const double h = 1e-6;
        for (int j = 0; j < n; ++j) {
          VectorXd p = q, m = q;
          p(j) += h;
          m(j) -= h;
          fq.col(j) = (Q(p, v) - Q(m, v)) / (2 * h);
          p = v;
          m = v;
          p(j) += h;
          m(j) -= h;
          fv.col(j) = (Q(q, p) - Q(q, m)) / (2 * h);
        }
        const double scale = std::max({1.0, fq.cwiseAbs().maxCoeff(), fv.cwiseAbs().maxCoeff()});
        INFO("analytic dQ/dq\n" << dq << "\ndifferenced\n" << fq << "\nanalytic dQ/dv\n" << dv << "\ndifferenced\n" << fv);
        CHECK((dq - fq).cwiseAbs().maxCoeff() < 1e-7 * scale);
        CHECK((dv - fv).cwiseAbs().maxCoeff() < 1e-7 * scale);
        if (std::string(kind) == "rigid3d") CHECK(dv.cwiseAbs().maxCoeff() > 0.1);  // not trivially zero
        if (std::string(kind) == "linear") CHECK(dq.cwiseAbs().maxCoeff() > 0.1);
      }
    }
  }
}

}  // namespace joinery::test
