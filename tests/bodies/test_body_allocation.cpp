// Evaluating a body (mass matrix, forces, gravity, force Jacobians, markers, internal constraints) does not
// touch the heap once the outputs are sized: checked for every registered body type with a
// malloc counter that also sees Eigen's allocations (malloc_counter.cpp). The first call on a
// thread may size a per-thread buffer (expression bodies), so one warm-up call comes first.
#include <catch2/catch.hpp>
#include <random>

#include "body_checks.hpp"
#include "joinery/core/registry.hpp"
#include "allocation_counter.hpp"
#include "test_context.hpp"

using namespace joinery;

namespace {
struct Outputs {
  Eigen::MatrixXd M, A, J, Jw, dQdq, dQdv;
  Eigen::VectorXd Q, b, phi;
  Eigen::Vector3d sink = Eigen::Vector3d::Zero();
  double s = 0;
};

void evaluate(const Body& body, const test::Motion& m, Outputs& o) {
  body.calcMassMatrix(m.t, m.q, o.M);
  body.calcForces(m.t, m.q, m.v, o.Q);
  body.addGravityForce(m.q, Eigen::Vector3d(0, -9.81, 0), o.Q);
  o.s += body.calcGravityPotential(m.q, Eigen::Vector3d(0, -9.81, 0));
  if (body.providesForceJacobians())  // radau5's Newton matrix, at every Jacobian update
    body.addForceJacobians(m.t, m.q, m.v, Eigen::Vector3d(0, -9.81, 0), o.dQdq, o.dQdv);
  if (body.numInternalConstraints() > 0) {
    body.calcInternalConstraints(m.t, m.q, m.v, o.A, o.b);
    body.calcInternalPositionError(m.t, m.q, o.phi);
  }
  const Eigen::Vector3d p(0.1, 0.2, 0.3);
  if (const PointMarker* pm = body.points()) {
    o.sink += pm->calcPointPosition(m.q, p);
    pm->calcPointJacobian(m.q, p, o.J);
    o.sink += pm->calcPointBias(m.q, m.v, p);
  }
  if (const FrameMarker* fm = body.frames()) {
    o.sink += fm->calcOrientation(m.q).col(0);
    fm->calcAngularJacobian(m.q, o.Jw);
    o.sink += fm->calcAngularBias(m.q, m.v);
  }
}
}  // namespace

TEST_CASE("the malloc counter sees Eigen allocations", "[bodies][allocation]") {
  if (!test::mallocCounting()) {
    WARN("sanitizer build: allocations are not counted");
    return;
  }
  const long before = test::mallocCount();
  Eigen::VectorXd v = Eigen::VectorXd::Ones(50);
  CHECK(test::mallocCount() > before);
  CHECK(v.sum() == 50.0);
}

TEST_CASE("evaluating any registered body allocates nothing", "[bodies][allocation]") {
  if (!test::mallocCounting()) {
    WARN("sanitizer build: allocations are not counted");
    return;
  }
  test::TestContext ctx;
  std::mt19937 rng(9);
  for (const std::string& type : BodyRegistry::instance().names()) {
    INFO("type " << type);
    const BodyPtr body = test::create<Body>(BodyRegistry::instance().find(type)->example, ctx);
    const int n = body->numCoordinates(), k = body->numInternalConstraints();
    const test::Motion m = test::randomMotion(*body, rng);
    Outputs o;
    o.M.resize(n, n);
    o.Q.resize(n);
    o.A.resize(k, n);
    o.b.resize(k);
    o.phi.resize(k);
    o.J.resize(3, n);
    o.Jw.resize(3, n);
    o.dQdq = Eigen::MatrixXd::Zero(n, n);
    o.dQdv = Eigen::MatrixXd::Zero(n, n);
    evaluate(*body, m, o);  // warm-up
    const long before = test::mallocCount();
    evaluate(*body, m, o);
    CHECK(test::mallocCount() - before == 0);
    CHECK(o.sink.allFinite());
  }
}
