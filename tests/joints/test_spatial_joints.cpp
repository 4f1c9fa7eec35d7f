// The spatial joints against closed forms: scenes loaded from JSON, solved at their
// initial state with the dense reference solver, compared with the mechanics of the same
// system written by hand (a pendulum, a slide along a line or in a plane, a welded composite
// body). And the orientation forms of rigid3d and of the joints, with their input errors.
#include <cmath>
#include <numbers>

#include <catch2/catch.hpp>

#include "joinery/bodies/quaternion.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/scene.hpp"
#include "joint_test_support.hpp"

namespace joinery::test {
namespace {

using nlohmann::json;
constexpr double kPi = std::numbers::pi;

/// Solves a scene at its initial state; the accelerations by coordinate name.
struct Solved {
  Scene scene;
  VectorXd q, v, qdd;
  int index(const std::string& name) const {
    const auto& names = scene.model.coordinateNames();
    const auto it = std::find(names.begin(), names.end(), name);
    REQUIRE(it != names.end());
    return static_cast<int>(it - names.begin());
  }
  /// World linear acceleration of a rigid3d body's centre of mass.
  Vector3d linear(const std::string& body) const { return qdd.segment<3>(index(body + ".x")); }
  /// World angular acceleration of a rigid3d body: 2 H(e) e'' (H(e') e' = 0).
  Vector3d angular(const std::string& body) const {
    const int i = index(body + ".e0");
    return 2.0 * quaternion::worldH(q.segment<4>(i)) * qdd.segment<4>(i);
  }
};

Solved solveScene(json doc) {
  doc["joinery"] = 1;
  Solved out{sceneFromJson(doc, "test.json"), {}, {}, {}};
  const State s = out.scene.model.initialState();
  ModelWorkspace ws = out.scene.model.makeWorkspace();
  VectorXd phi(out.scene.model.numConstraintRows()), psi(out.scene.model.numConstraintRows());
  out.scene.model.calcPositionErrors(s, ws, phi);
  out.scene.model.calcVelocityErrors(s, ws, psi);
  INFO("the test's initial state satisfies the joints");
  REQUIRE(phi.lpNorm<Eigen::Infinity>() < 1e-12);
  REQUIRE(psi.lpNorm<Eigen::Infinity>() < 1e-12);
  const Solution sol = solveForwardDynamics(out.scene.model, s, ws);
  REQUIRE(sol.diagnosis.wellPosed);
  out.q = s.q;
  out.v = s.v;
  out.qdd = sol.qdd;
  return out;
}

json rigid(const std::string& name, double m, const json& inertia, const Vector3d& x, const json& orientation,
           const Vector3d& v = Vector3d::Zero(), const Vector3d& w = Vector3d::Zero()) {
  return {{"name", name}, {"type", "rigid3d"}, {"mass", m}, {"inertia", inertia},
          {"position", {x.x(), x.y(), x.z()}}, {"orientation", orientation},
          {"velocity", {v.x(), v.y(), v.z()}}, {"angular_velocity", {w.x(), w.y(), w.z()}}};
}

json vec(const Vector3d& a) { return {a.x(), a.y(), a.z()}; }

Matrix3d rotationOf(const json& orientation) {
  TestContext ctx;
  const auto body = create<Body>({{"name", "b"}, {"type", "rigid3d"}, {"mass", 1}, {"inertia", {1, 1, 1}},
                                  {"orientation", orientation}}, ctx);
  VectorXd q0(7), v0(7);
  body->getInitialState(q0, v0);
  return quaternion::rotation(q0.tail<4>());
}

Matrix3d Rx(double a) { Matrix3d R; R << 1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a); return R; }
Matrix3d Ry(double a) { Matrix3d R; R << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a); return R; }
Matrix3d Rz(double a) { Matrix3d R; R << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1; return R; }

std::string errorAt(const json& body, std::string* path) {
  TestContext ctx;
  try {
    (void)create<Body>(body, ctx);
  } catch (const InputError& e) {
    *path = e.jsonPath();
    return e.detail();
  }
  return "no error";
}

}  // namespace

TEST_CASE("orientation forms: axis-angle, matrix and Euler angles give the rotations written by hand", "[joints][orientation]") {
  // tolerance 1e-14: one rotation built two ways in double precision
  CHECK_THAT(rotationOf({{"axis", {0, 0, 2}}, {"angle", 90}, {"unit", "deg"}}), isApprox(Rz(kPi / 2), 0, 1e-15));
  CHECK_THAT(rotationOf({{"axis", {1, 1, 0}}, {"angle", 0.7}}),
             isApprox(Matrix3d(Eigen::AngleAxisd(0.7, Vector3d(1, 1, 0).normalized())), 0, 1e-15));
  const double a = 0.3, b = -1.1, c = 2.2;
  CHECK_THAT(rotationOf({{"euler", {{"sequence", "ZYX"}, {"angles", {a, b, c}}}}}), isApprox(Rz(a) * Ry(b) * Rx(c), 0, 1e-14));
  CHECK_THAT(rotationOf({{"euler", {{"sequence", "ZXZ"}, {"angles", {a, b, c}}}}}), isApprox(Rz(a) * Rx(b) * Rz(c), 0, 1e-14));
  CHECK_THAT(rotationOf({{"euler", {{"sequence", "XYZ"}, {"angles", {30, 45, 60}}, {"unit", "deg"}}}}),
             isApprox(Rx(kPi / 6) * Ry(kPi / 4) * Rz(kPi / 3), 0, 1e-14));
  const Matrix3d R = Ry(0.4) * Rx(-0.2);
  json rows = json::array();
  for (int i = 0; i < 3; ++i) rows.push_back({R(i, 0), R(i, 1), R(i, 2)});
  CHECK_THAT(rotationOf({{"matrix", rows}}), isApprox(R, 0, 1e-15));
  // intrinsic ZYX is the extrinsic XYZ: the body's x axis is turned by the last angle first
  CHECK_THAT(Vector3d(rotationOf({{"euler", {{"sequence", "ZYX"}, {"angles", {kPi / 2, 0, 0}}}}}) * Vector3d::UnitX()),
             isApprox(Vector3d::UnitY(), 0, 1e-15));
}

TEST_CASE("orientation forms: bad input is an InputError at its JSON path", "[joints][orientation]") {
  const json base = {{"name", "b"}, {"type", "rigid3d"}, {"mass", 1}, {"inertia", {1, 1, 1}}};
  auto with = [&](const json& o) { json j = base; j["orientation"] = o; return j; };
  std::string path;
  CHECK_THAT(errorAt(with({{"matrix", {{1, 0, 0}, {0, 1, 0.1}, {0, 0, 1}}}}), &path), Catch::Contains("not orthonormal"));
  CHECK(path == "/orientation/matrix");
  CHECK_THAT(errorAt(with({{"matrix", {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}}}}), &path), Catch::Contains("reflection"));
  CHECK(path == "/orientation/matrix");
  CHECK_THAT(errorAt(with({{"axis", {0, 0, 0}}, {"angle", 1}}), &path), Catch::Contains("zero length"));
  CHECK(path == "/orientation/axis");
  CHECK_THAT(errorAt(with({{"euler", {{"sequence", "ZZX"}, {"angles", {1, 2, 3}}}}}), &path),
             Catch::Contains("unknown Euler sequence 'ZZX'"));
  CHECK(path == "/orientation/euler/sequence");
  CHECK_THAT(errorAt(with({{"euler", {{"sequence", "zyx"}, {"angles", {1, 2, 3}}}}}), &path),
             Catch::Contains("unknown Euler sequence"));
  CHECK_THAT(errorAt(with({{"axis", {0, 0, 1}}, {"angle", 1}, {"unit", "grad"}}), &path), Catch::Contains("unknown angle unit"));
  CHECK(path == "/orientation/unit");
  CHECK_THAT(errorAt(with({{"quaternion", {1, 0, 0, 0}}}), &path), Catch::Contains("one of 'axis'"));
  CHECK(path == "/orientation");
  // the same reader serves the joints
  TestScene scene;
  scene.add("rigid3d", "b1");
  scene.add("rigid3d", "b2");
  try {
    (void)scene.joint({{"name", "w"}, {"type", "weld3d"}, {"body1", "b1"}, {"body2", "b2"},
                       {"orientation", {{"matrix", {{2, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}}});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.jsonPath() == "/orientation/matrix");
  }
  try {
    (void)scene.joint({{"name", "c"}, {"type", "cylindrical"}, {"body1", "b1"}, {"axis1", {0, 0, 0}}, {"body2", "b2"},
                       {"axis2", {0, 0, 1}}});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.jsonPath() == "/axis1");
  }
}

// Tolerances below: 1e-10 absolute on accelerations of order 10 (m/s^2, rad/s^2): the dense
// solve of a handful of well-conditioned rows loses a few digits at most.

TEST_CASE("universal: a Cardan-hung body swings about the ground axis as a compound pendulum", "[joints][closed-form]") {
  // ground axis x, body axis y; the body hangs its centre l below the cross, turned by theta
  // about x with rate omega: theta'' = -m g l sin(theta) / (Jxx + m l^2), no motion about y
  const double m = 1.7, l = 0.6, g = 9.81, theta = 0.8, omega = 1.3;
  const json J = {0.11, 0.23, 0.13};  // principal moments obeying the triangle inequality (0.23 <= 0.24)
  const Matrix3d R = Rx(theta);
  const Vector3d x = R * Vector3d(0, 0, -l), w(omega, 0, 0);
  const Solved s = solveScene({{"gravity", {0, 0, -g}},
                               {"bodies", {rigid("b", m, J, x, {{"axis", {1, 0, 0}}, {"angle", theta}}, w.cross(x), w)}},
                               {"joints", {{{"name", "u"}, {"type", "universal"}, {"body1", "ground"}, {"axis1", {1, 0, 0}},
                                            {"body2", "b"}, {"point2", {0, 0, l}}, {"axis2", {0, 1, 0}}}}}});
  const double alpha = -m * g * l * std::sin(theta) / (0.11 + m * l * l);
  CHECK_THAT(s.angular("b"), isApprox(Vector3d(alpha, 0, 0), 0, 1e-10));
  CHECK_THAT(s.linear("b"), isApprox(Vector3d(Vector3d(alpha, 0, 0).cross(x) + w.cross(w.cross(x))), 0, 1e-10));
}

TEST_CASE("cylindrical, prismatic3d, point_on_line: a body slides down a tilted line with (g.a) a", "[joints][closed-form]") {
  const double g = 9.81;
  const Vector3d a = Vector3d(0.3, -0.4, 1.0).normalized();
  const Vector3d gv(0, 0, -g);
  const Vector3d expected = gv.dot(a) * a;
  // a body symmetric about its z axis, set along a, spinning about it at 3 rad/s and sliding
  const Eigen::Quaterniond e = Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), a);
  const json o = {e.w(), e.x(), e.y(), e.z()};
  const Vector3d x = 0.5 * a;
  SECTION("cylindrical: spins on, slides with (g.a) a") {
    const Solved s = solveScene({{"gravity", vec(gv)},
                                 {"bodies", {rigid("b", 2.0, {0.3, 0.3, 0.1}, x, o, 0.7 * a, 3.0 * a)}},
                                 {"joints", {{{"name", "c"}, {"type", "cylindrical"}, {"body1", "ground"}, {"axis1", vec(a)},
                                              {"body2", "b"}, {"axis2", {0, 0, 1}}}}}});
    CHECK_THAT(s.linear("b"), isApprox(expected, 0, 1e-10));
    CHECK_THAT(s.angular("b"), isApprox(Vector3d::Zero(), 0, 1e-10));
  }
  SECTION("prismatic3d: no rotation, slides with (g.a) a; orientation given as a matrix") {
    const Matrix3d R = e.toRotationMatrix();
    json rows = json::array();
    for (int i = 0; i < 3; ++i) rows.push_back({R(i, 0), R(i, 1), R(i, 2)});
    const Solved s = solveScene({{"gravity", vec(gv)},
                                 {"bodies", {rigid("b", 2.0, {0.3, 0.2, 0.1}, x, o, 0.7 * a)}},
                                 {"joints", {{{"name", "p"}, {"type", "prismatic3d"}, {"body1", "ground"}, {"axis1", vec(a)},
                                              {"body2", "b"}, {"orientation", {{"matrix", rows}}}}}}});
    CHECK_THAT(s.linear("b"), isApprox(expected, 0, 1e-10));
    CHECK_THAT(s.angular("b"), isApprox(Vector3d::Zero(), 0, 1e-10));
  }
  SECTION("point_on_line: a particle on the line") {
    const Solved s = solveScene({{"gravity", vec(gv)},
                                 {"bodies", {{{"name", "p"}, {"type", "particle"}, {"dim", 3}, {"mass", 0.4},
                                              {"position", vec(x)}, {"velocity", vec(0.7 * a)}}}},
                                 {"joints", {{{"name", "l"}, {"type", "point_on_line"}, {"body1", "ground"}, {"axis1", vec(a)},
                                              {"body2", "p"}}}}});
    CHECK_THAT(Vector3d(s.qdd.head<3>()), isApprox(expected, 0, 1e-10));
  }
}

TEST_CASE("point_on_plane, planar3d: a body slides on a tilted plane with g - (g.n) n", "[joints][closed-form]") {
  const Vector3d n = Vector3d(0.2, 0.1, 1.0).normalized();
  const Vector3d gv(1.5, 0, -9.81);
  const Vector3d expected = gv - gv.dot(n) * n;
  const Vector3d t = n.cross(Vector3d::UnitX()).normalized();  // a direction in the plane
  SECTION("point_on_plane: a particle") {
    const Solved s = solveScene({{"gravity", vec(gv)},
                                 {"bodies", {{{"name", "p"}, {"type", "particle"}, {"dim", 3}, {"mass", 0.4},
                                              {"position", vec(0.3 * t)}, {"velocity", vec(0.7 * t)}}}},
                                 {"joints", {{{"name", "pl"}, {"type", "point_on_plane"}, {"body1", "ground"}, {"normal", vec(n)},
                                              {"body2", "p"}}}}});
    CHECK_THAT(Vector3d(s.qdd.head<3>()), isApprox(expected, 0, 1e-10));
  }
  SECTION("planar3d: a puck with its axis along n, spinning about it") {
    const Eigen::Quaterniond e = Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), n);
    const Solved s = solveScene({{"gravity", vec(gv)},
                                 {"bodies", {rigid("b", 2.0, {0.3, 0.3, 0.5}, 0.3 * t, {e.w(), e.x(), e.y(), e.z()}, 0.7 * t, 4.0 * n)}},
                                 {"joints", {{{"name", "pl"}, {"type", "planar3d"}, {"body1", "ground"}, {"normal", vec(n)},
                                              {"body2", "b"}, {"axis2", {0, 0, 1}}}}}});
    CHECK_THAT(s.linear("b"), isApprox(expected, 0, 1e-10));
    CHECK_THAT(s.angular("b"), isApprox(Vector3d::Zero(), 0, 1e-10));
  }
}

TEST_CASE("weld3d: two welded bodies turn as one rigid body (Euler's equations of the composite)", "[joints][closed-form]") {
  // no gravity; body 2 welded to body 1 at an offset and a relative orientation; the composite
  // spins with w: its angular acceleration is Ic^-1 (-w x Ic w), Ic about the composite centre
  const double m1 = 1.3, m2 = 0.7;
  Matrix3d J1, J2;
  J1 << 0.4, 0.05, -0.02, 0.05, 0.3, 0.01, -0.02, 0.01, 0.2;
  J2 << 0.1, 0, 0.02, 0, 0.25, 0, 0.02, 0, 0.15;
  const Matrix3d R1 = Rz(0.3) * Ry(-0.5), C = Rx(0.9) * Rz(0.2), R2 = R1 * C;
  const Vector3d x1(0.1, 0.2, -0.3), p1(0.4, -0.1, 0.2), p2(-0.2, 0.1, 0.05);
  const Vector3d x2 = x1 + R1 * p1 - R2 * p2;
  const Vector3d xc = (m1 * x1 + m2 * x2) / (m1 + m2);
  const Vector3d w(1.2, -2.0, 0.7), vc(0.3, 0.1, -0.2);
  auto about = [&](double m, const Matrix3d& J, const Matrix3d& R, const Vector3d& x) {
    const Vector3d d = x - xc;
    return Matrix3d(R * J * R.transpose() + m * (d.squaredNorm() * Matrix3d::Identity() - d * d.transpose()));
  };
  const Matrix3d Ic = about(m1, J1, R1, x1) + about(m2, J2, R2, x2);
  const Vector3d alpha = Ic.ldlt().solve(Vector3d(-w.cross(Ic * w)));
  auto jsonMatrix = [](const Matrix3d& M) {
    json rows = json::array();
    for (int i = 0; i < 3; ++i) rows.push_back({M(i, 0), M(i, 1), M(i, 2)});
    return rows;
  };
  const Eigen::Quaterniond e1(R1), e2(R2);
  for (const bool given : {true, false}) {
    json weld = {{"name", "w"}, {"type", "weld3d"}, {"body1", "b1"}, {"point1", vec(p1)}, {"body2", "b2"}, {"point2", vec(p2)}};
    if (given) weld["orientation"] = {{"matrix", jsonMatrix(C)}};  // else: the initial relative orientation
    const Solved s = solveScene(
        {{"bodies", {rigid("b1", m1, jsonMatrix(J1), x1, {e1.w(), e1.x(), e1.y(), e1.z()}, vc + w.cross(x1 - xc), w),
                     rigid("b2", m2, jsonMatrix(J2), x2, {e2.w(), e2.x(), e2.y(), e2.z()}, vc + w.cross(x2 - xc), w)}},
         {"joints", {weld}}});
    for (const auto& [name, x] : {std::pair{"b1", x1}, std::pair{"b2", x2}}) {
      CHECK_THAT(s.angular(name), isApprox(alpha, 0, 1e-10));
      CHECK_THAT(s.linear(name), isApprox(Vector3d(alpha.cross(x - xc) + w.cross(w.cross(x - xc))), 0, 1e-10));
    }
  }
}

}  // namespace joinery::test

namespace joinery::test {

TEST_CASE("orientation forms in a placement: Euler angles and a matrix place an instance's rigid3d body", "[joints][orientation]") {
  // the component's body sits at (1, 0, 0) turned by 0.3 about its x axis; placed by ZYX
  // (90 deg, 0, 0) = a quarter turn about z, and by the same rotation written as a matrix
  const json component = {{"bodies", {{{"name", "r"}, {"type", "rigid3d"}, {"mass", 1}, {"inertia", {1, 1, 1}},
                                        {"position", {1, 0, 0}}, {"orientation", {{"axis", {1, 0, 0}}, {"angle", 0.3}}}}}}};
  for (const json& placed : {json{{"euler", {{"sequence", "ZYX"}, {"angles", {90, 0, 0}}, {"unit", "deg"}}}},
                             json{{"matrix", {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}}}}) {
    const json doc = {{"joinery", 1},
                      {"bodies", json::array()},
                      {"components", {{"c", component}}},
                      {"instances", {{{"name", "i"}, {"component", "c"}, {"placement", {{"position", {0, 0, 2}}, {"orientation", placed}}}}}}};
    const Scene scene = sceneFromJson(doc, "placement.json");
    const State s = scene.model.initialState();
    const Eigen::VectorXd q = s.q.head(7);
    CHECK_THAT(Eigen::MatrixXd(q.head<3>()), isApprox(Vector3d(0, 1, 2), 1e-15, 1e-15));
    CHECK_THAT(quaternion::rotation(q.tail<4>()), isApprox(Matrix3d(Rz(kPi / 2) * Rx(0.3)), 1e-15, 1e-15));
  }
}

}  // namespace joinery::test
