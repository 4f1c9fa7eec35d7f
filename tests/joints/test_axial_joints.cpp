// screw, revolute_driver, prismatic_driver, rolling_disk, gear and rack_pinion (issue 21):
// A and b against finite differences on every body pairing they support, and closed forms
// (scenes loaded from JSON and solved at their initial state with the dense reference solver).
#include <cmath>
#include <fstream>
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

json vec(const Vector3d& a) { return {a.x(), a.y(), a.z()}; }
json quat(const Eigen::Quaterniond& e) { return {e.w(), e.x(), e.y(), e.z()}; }

json rigid(const std::string& name, double m, const json& inertia, const Vector3d& x, const json& orientation,
           const Vector3d& v = Vector3d::Zero(), const Vector3d& w = Vector3d::Zero()) {
  return {{"name", name}, {"type", "rigid3d"}, {"mass", m}, {"inertia", inertia},
          {"position", vec(x)}, {"orientation", orientation}, {"velocity", vec(v)}, {"angular_velocity", vec(w)}};
}

/// A scene solved at its initial state (the joints hold there: checked).
struct Solved {
  Scene scene;
  VectorXd q, qdd;
  int index(const std::string& name) const {
    const auto& names = scene.model.coordinateNames();
    const auto it = std::find(names.begin(), names.end(), name);
    REQUIRE(it != names.end());
    return static_cast<int>(it - names.begin());
  }
  double acc(const std::string& coordinate) const { return qdd(index(coordinate)); }
  Vector3d linear(const std::string& body) const { return qdd.segment<3>(index(body + ".x")); }
  Vector3d angular(const std::string& body) const {
    const int i = index(body + ".e0");
    return 2.0 * quaternion::worldH(q.segment<4>(i)) * qdd.segment<4>(i);
  }
};

Solved solveScene(json doc) {
  doc["joinery"] = 1;
  Solved out{sceneFromJson(doc, "test.json"), {}, {}};
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
  out.qdd = sol.qdd;
  return out;
}

const std::vector<std::string> kKinds = {"ground", "particle1", "particle2", "particle3", "rigid2d", "rigid3d", "linear"};
bool hasFrames(const std::string& k) { return k == "ground" || k == "rigid2d" || k == "rigid3d"; }

}  // namespace

TEST_CASE("revolute_driver, prismatic_driver: A and b against finite differences on every body pairing", "[joints][fd]") {
  // the bodies need points and frames (ground, rigid2d, rigid3d); others are rejected at the field
  std::mt19937 rng(2111);
  const std::vector<json> cases = {
      {{"type", "revolute_driver"}, {"axis1", {0.2, 0.3, 1.0}}, {"axis2", {1.0, 0.1, 0.2}},
       {"reference1", {1, 0, 0}}, {"reference2", {0, 1, 0}}, {"value", "0.3 + 2*t - 0.4*sin(3*t)"}},
      {{"type", "prismatic_driver"}, {"point1", {0.3, -0.2, 0.1}}, {"axis1", {0.2, 0.3, 1.0}},
       {"point2", {0.1, 0.4, -0.3}}, {"value", "0.5*t^2 + 0.1*cos(2*t)"}}};
  for (const json& jc : cases) {
    for (const std::string& k1 : kKinds) {
      for (const std::string& k2 : kKinds) {
        if (k1 == "ground" && k2 == "ground") continue;
        DYNAMIC_SECTION(jc.at("type").get<std::string>() << " between " << k1 << " and " << k2) {
          TestScene scene;
          const Body& b1 = scene.add(k1, "b1");
          const Body& b2 = scene.add(k2, "b2");
          json j = jc;
          j["name"] = "j";
          j["body1"] = b1.name();
          j["body2"] = b2.name();
          if (hasFrames(k1) && hasFrames(k2)) {
            const auto joint = scene.joint(j);
            REQUIRE(joint->numRows() == 1);
            for (int trial = 0; trial < 4; ++trial)
              checkAgainstFiniteDifferences(*joint, ElementMotion(joint->bodies(), rng, uniform(rng, 0, 2)), false);
          } else {
            try {
              (void)scene.joint(j);
              FAIL("expected an InputError");
            } catch (const InputError& e) {
              CHECK(e.jsonPath() == (hasFrames(k1) ? "/body2" : "/body1"));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("rolling_disk: A and b against finite differences; the plane is the ground's", "[joints][fd]") {
  std::mt19937 rng(2112);
  for (const std::string& k2 : kKinds) {
    if (k2 == "ground") continue;
    DYNAMIC_SECTION("ground and " << k2) {
      TestScene scene;
      scene.add(k2, "disk");
      const json j = {{"name", "c"}, {"type", "rolling_disk"}, {"body1", "ground"}, {"point1", {0, 0, 0.2}},
                      {"normal", {0.1, -0.2, 1.0}}, {"body2", "disk"}, {"point2", {0.05, 0.1, -0.02}},
                      {"axis2", {0.3, 1.0, 0.1}}, {"radius", 0.4}};
      if (hasFrames(k2)) {
        const auto joint = scene.joint(j);
        REQUIRE(joint->level() == ConstraintLevel::Velocity);
        for (int trial = 0; trial < 6; ++trial) checkVelocityRows(*joint, ElementMotion(joint->bodies(), rng, uniform(rng, 0, 2)));
      } else {
        try {
          (void)scene.joint(j);
          FAIL("expected an InputError");
        } catch (const InputError& e) {
          CHECK(e.jsonPath() == "/body2");
        }
      }
    }
  }
  SECTION("a moving plane is refused at body1; a non-positive radius at radius") {
    TestScene scene;
    scene.add("rigid3d", "b1");
    scene.add("rigid3d", "disk");
    json j = {{"name", "c"}, {"type", "rolling_disk"}, {"body1", "b1"}, {"normal", {0, 0, 1}},
              {"body2", "disk"}, {"axis2", {0, 0, 1}}, {"radius", 0.4}};
    for (const auto& [key, value, path] : {std::tuple{"body1", json("b1"), "/body1"}, std::tuple{"radius", json(0), "/radius"},
                                           std::tuple{"axis2", json({0, 0, 0}), "/axis2"}}) {
      json bad = j;
      bad["body1"] = std::string(key) == "body1" ? "b1" : "ground";
      bad[key] = value;
      try {
        (void)scene.joint(bad);
        FAIL("expected an InputError");
      } catch (const InputError& e) {
        CHECK(e.jsonPath() == path);
      }
    }
  }
}

// Tolerances below: 1e-10 absolute on accelerations of order 1..10: a dense solve of a handful
// of well-conditioned rows loses a few digits at most.

TEST_CASE("screw: a nut on a tilted screw descends with theta'' = m h (g.a) / (m h^2 + C)", "[joints][closed-form]") {
  // Lagrange with s = h theta (h = pitch / 2 pi): (m h^2 + C) theta'' = m h (g.a); the body is
  // symmetric about a (C about a, A across), so spinning about a gives no gyroscopic term
  const double m = 1.4, A = 0.3, C = 0.45, g = 9.81;
  const Vector3d a = Vector3d(0.3, -0.4, 1.0).normalized(), gv(0, 0, -g);
  const Eigen::Quaterniond e = Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), a);
  for (const double pitch : {0.25, -0.6}) {
    DYNAMIC_SECTION("pitch " << pitch) {
      const double h = pitch / (2 * kPi), omega = 2.5;
      const Vector3d x = 0.4 * a;
      const Solved s = solveScene({{"gravity", vec(gv)},
                                   {"bodies", {rigid("nut", m, {A, A, C}, x, quat(e), h * omega * a, omega * a)}},
                                   {"joints", {{{"name", "s"}, {"type", "screw"}, {"body1", "ground"}, {"axis1", vec(a)},
                                                {"body2", "nut"}, {"axis2", {0, 0, 1}}, {"pitch", pitch}}}}});
      const double thetadd = m * h * gv.dot(a) / (m * h * h + C);
      CHECK_THAT(s.angular("nut"), isApprox(Vector3d(thetadd * a), 0, 1e-10));
      CHECK_THAT(s.linear("nut"), isApprox(Vector3d(h * thetadd * a), 0, 1e-10));
    }
  }
}

TEST_CASE("revolute_driver: a driven link's accelerations are the prescribed ones", "[joints][closed-form]") {
  // a link on a ground revolute3d (axis z) at distance l, turned by phi0, driven by
  // theta(t) = value: alpha = theta''(0) ez, a = alpha x r + w x (w x r) whatever the gravity
  const double l = 0.8, phi0 = 0.7;
  const Vector3d r(l * std::cos(phi0), l * std::sin(phi0), 0), w(0, 0, 0.6);
  const json revolute = {{"name", "pin"}, {"type", "revolute3d"}, {"body1", "ground"}, {"axis1", {0, 0, 1}},
                         {"body2", "link"}, {"point2", {-l, 0, 0}}, {"axis2", {0, 0, 1}}};
  const json fromInitial = {{"name", "motor"}, {"type", "revolute_driver"}, {"body1", "ground"}, {"axis1", {0, 0, 1}},
                            {"body2", "link"}, {"axis2", {0, 0, 1}}, {"value", "0.3*sin(2*t) + 0.4*t^2"}};
  json absolute = fromInitial;  // theta measured from ground x to the link's x: phi0 at t = 0
  absolute["reference1"] = {1, 0, 0};
  absolute["reference2"] = {1, 0, 0};
  absolute["value"] = "0.7 + 0.3*sin(2*t) + 0.4*t^2";
  for (const json& driver : {fromInitial, absolute}) {
    const Solved s = solveScene({{"gravity", {0, -9.81, 0}},
                                 {"bodies", {rigid("link", 2.0, {0.1, 0.2, 0.3}, r, {{"axis", {0, 0, 1}}, {"angle", phi0}},
                                                   w.cross(r), w)}},
                                 {"joints", {revolute, driver}}});
    const Vector3d alpha(0, 0, 0.8);
    CHECK_THAT(s.angular("link"), isApprox(alpha, 0, 1e-10));
    CHECK_THAT(s.linear("link"), isApprox(Vector3d(alpha.cross(r) + w.cross(w.cross(r))), 0, 1e-10));
  }
}

TEST_CASE("prismatic_driver: a driven slider accelerates with s''(t) along the axis", "[joints][closed-form]") {
  const Vector3d a = Vector3d(1.0, 0.5, -0.2).normalized();
  const Eigen::Quaterniond e(Eigen::AngleAxisd(0.4, Vector3d(0.1, 1, 0).normalized()));
  // s(t) = 0.3 + 0.2 t + 0.75 t^2 + 0.1 sin(t): s(0) = 0.3, s'(0) = 0.3, s''(0) = 1.5
  const Solved s = solveScene({{"gravity", {0, 0, -9.81}},
                               {"bodies", {rigid("slider", 1.5, {0.1, 0.2, 0.3}, 0.3 * a, quat(e), 0.3 * a)}},
                               {"joints", {{{"name", "rail"}, {"type", "prismatic3d"}, {"body1", "ground"}, {"axis1", vec(a)},
                                            {"body2", "slider"}},
                                           {{"name", "act"}, {"type", "prismatic_driver"}, {"body1", "ground"}, {"axis1", vec(a)},
                                            {"body2", "slider"}, {"value", "0.3 + 0.2*t + 0.75*t^2 + 0.1*sin(t)"}}}}});
  CHECK_THAT(s.linear("slider"), isApprox(Vector3d(1.5 * a), 0, 1e-10));
  CHECK_THAT(s.angular("slider"), isApprox(Vector3d::Zero(), 0, 1e-10));
}

TEST_CASE("gear, rack_pinion: the reduced inertia of the pair", "[joints][closed-form]") {
  // wheels pinned at their centres; a torque tau on wheel 1: theta1'' = tau / (J1 + N^2 J2)
  const double J1 = 0.2, J2 = 0.7, N = -18.0 / 30.0, tau = 1.3;
  auto wheel = [](const std::string& name, double J, double x, double w) {
    return json{{"name", name}, {"type", "rigid2d"}, {"mass", 1.0}, {"inertia", J}, {"position", {x, 0}},
                {"angle", 0.0}, {"angular_velocity", w}};
  };
  auto pin = [](const std::string& body, double x) {
    return json{{"name", "pin_" + body}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {x, 0}}, {"body2", body}};
  };
  const Solved gear = solveScene({{"gravity", {0, -9.81, 0}},
                                  {"bodies", {wheel("w1", J1, 0, 2.0), wheel("w2", J2, 0.5, 2.0 * N)}},
                                  {"joints", {pin("w1", 0), pin("w2", 0.5),
                                              {{"name", "mesh"}, {"type", "gear"}, {"coordinate1", "w1.theta"},
                                               {"coordinate2", "w2.theta"}, {"ratio", N}}}},
                                  {"forces", {{{"name", "motor"}, {"type", "generalized"}, {"coordinate", "w1.theta"}, {"value", tau}}}}});
  const double t1 = tau / (J1 + N * N * J2);
  CHECK(gear.acc("w1.theta") == Approx(t1).margin(1e-10));
  CHECK(gear.acc("w2.theta") == Approx(N * t1).margin(1e-10));
  // pinion (J, radius r) and a rack of mass m pushed by F: (J + m r^2) theta'' = r F
  const double J = 0.05, r = 0.12, m = 3.0, F = 4.0;
  const Solved rack = solveScene(
      {{"bodies", {wheel("pinion", J, 0, 1.0), {{"name", "rack"}, {"type", "particle"}, {"dim", 1}, {"mass", m},
                                                 {"position", {0.3}}, {"velocity", {r * 1.0}}}}},
       {"joints", {pin("pinion", 0),
                   {{"name", "steer"}, {"type", "rack_pinion"}, {"pinion", "pinion.theta"}, {"rack", "rack.x"}, {"radius", r}}}},
       {"forces", {{{"name", "push"}, {"type", "generalized"}, {"coordinate", "rack.x"}, {"value", F}}}}});
  CHECK(rack.acc("pinion.theta") == Approx(r * F / (J + m * r * r)).margin(1e-10));
  CHECK(rack.acc("rack.x") == Approx(r * r * F / (J + m * r * r)).margin(1e-10));
}

TEST_CASE("gear, rack_pinion: input errors at their fields; offset kept in toJson", "[joints]") {
  TestScene scene;
  scene.add("rigid2d", "w1");
  scene.add("rigid2d", "w2");
  std::string detail;
  auto pathOf = [&](const json& j) {
    try {
      (void)scene.joint(j);
    } catch (const InputError& e) {
      detail = e.detail();
      return e.jsonPath();
    }
    return std::string("no error");
  };
  const json g = {{"name", "g"}, {"type", "gear"}, {"coordinate1", "w1.theta"}, {"coordinate2", "w2.theta"}, {"ratio", 2}};
  CHECK(pathOf(g) == "no error");
  json bad = g;
  bad["coordinate2"] = "w1.theta";
  CHECK(pathOf(bad) == "/coordinate2");
  bad = g;
  bad["coordinate1"] = "w1.phi";
  CHECK(pathOf(bad) == "/coordinate1");
  bad = g;
  bad.erase("ratio");
  CHECK(pathOf(bad) == "/");  // a missing field is reported at its object (here the joint itself)
  CHECK_THAT(detail, Catch::Contains("ratio"));
  json withOffset = g;
  withOffset["offset"] = 0.25;
  CHECK(scene.joint(withOffset)->toJson().at("offset") == 0.25);
}

}  // namespace joinery::test

namespace joinery::test {
namespace {

nlohmann::json rollingDiskScene() {
  std::ifstream in(std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/nh_rolling_disk.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

/// The built-in joint in place of the scene's two expression joints.
nlohmann::json withBuiltinJoint(nlohmann::json doc) {
  doc["joints"] = {{{"name", "contact"}, {"type", "rolling_disk"}, {"body1", "ground"}, {"normal", {0, 0, 1}},
                    {"body2", "disk"}, {"axis2", {0, 0, 1}}, {"radius", "R"}}};
  return doc;
}

}  // namespace

TEST_CASE("rolling_disk: the steady turn of a thin disk (closed form at the initial state)", "[joints][closed-form]") {
  // in the steady turn everything turns about the vertical at Omega: the centre runs on a circle
  // of radius R w3 / Omega (a_G = Omega R w3 toward the circle's centre, here +x) and the angular
  // velocity turns with it (alpha = Omega ez x w)
  const json doc = rollingDiskScene();
  const json& p = doc.at("parameters");
  const double R = p.at("R"), w3 = p.at("w3"), Omega = p.at("Omega"), tilt = p.at("tilt");
  const Solved s = solveScene(withBuiltinJoint(doc));
  const Vector3d w((w3 + Omega * std::sin(tilt)) * std::cos(tilt), 0, Omega - (w3 + Omega * std::sin(tilt)) * std::sin(tilt));
  CHECK_THAT(s.linear("disk"), isApprox(Vector3d(Omega * R * w3, 0, 0), 0, 1e-10));
  CHECK_THAT(s.angular("disk"), isApprox(Vector3d(Vector3d(0, 0, Omega).cross(w)), 0, 1e-10));
}

TEST_CASE("rolling_disk: the same accelerations as the contact written as expression joints", "[joints][closed-form]") {
  // random tilts, headings and spins, velocities made rolling (v_G = -w x R u): the built-in
  // joint and nh_rolling_disk.json's two expression joints (height + two slip rows, written
  // independently) must give the same motion; 1e-10 on accelerations of order 10
  const json base = rollingDiskScene();
  const double R = base.at("parameters").at("R");
  std::mt19937 rng(2113);
  for (int trial = 0; trial < 20; ++trial) {
    const double tilt = uniform(rng, -1.2, 1.2), heading = uniform(rng, -kPi, kPi), spin = uniform(rng, -kPi, kPi);
    const Matrix3d Rot = Matrix3d(Eigen::AngleAxisd(heading, Vector3d::UnitZ())) *
                         Matrix3d(Eigen::AngleAxisd(kPi / 2 - tilt, Vector3d::UnitY())) *
                         Matrix3d(Eigen::AngleAxisd(spin, Vector3d::UnitZ()));
    const Vector3d a = Rot.col(2), n = Vector3d::UnitZ();
    const Vector3d m = n - n.dot(a) * a, u = -m / m.norm();
    const Vector3d x = Vector3d(uniform(rng, -1, 1), uniform(rng, -1, 1), 0) - R * u;
    const Vector3d w = randomVector(rng, 3, 3.0), v = -w.cross(R * u);
    json doc = base;
    json& disk = doc["bodies"][0];
    disk["position"] = vec(x);
    disk["orientation"] = quat(Eigen::Quaterniond(Rot));
    disk["velocity"] = vec(v);
    disk["angular_velocity"] = vec(w);
    const Solved mine = solveScene(withBuiltinJoint(doc)), theirs = solveScene(doc);
    CHECK_THAT(mine.qdd, isApprox(theirs.qdd, 1e-10, 1e-10));
  }
}

}  // namespace joinery::test

namespace joinery::test {

TEST_CASE("bad joint input: errors at their JSON paths (frames, axes, Euler sequences, references)", "[joints]") {
  TestScene scene;
  scene.add("rigid3d", "b1");
  scene.add("rigid3d", "b2");
  auto pathOf = [&](const json& j, std::string* detail) {
    try {
      (void)scene.joint(j);
    } catch (const InputError& e) {
      *detail = e.detail();
      return e.jsonPath();
    }
    return std::string("no error");
  };
  std::string detail;
  const json prismatic = {{"name", "p"}, {"type", "prismatic3d"}, {"body1", "b1"}, {"axis1", {1, 0, 0}}, {"body2", "b2"}};
  json bad = prismatic;
  bad["orientation"] = {{"euler", {{"sequence", "XYY"}, {"angles", {0.1, 0.2, 0.3}}}}};
  CHECK(pathOf(bad, &detail) == "/orientation/euler/sequence");
  CHECK_THAT(detail, Catch::Contains("unknown Euler sequence 'XYY'"));
  bad = prismatic;
  bad["orientation"] = {{"matrix", {{1, 0, 0}, {0, 0.8, 0.6}, {0, 0.6, 0.8}}}};  // rows not orthogonal
  CHECK(pathOf(bad, &detail) == "/orientation/matrix");
  CHECK_THAT(detail, Catch::Contains("not orthonormal"));
  const json screw = {{"name", "s"}, {"type", "screw"}, {"body1", "b1"}, {"axis1", {0, 0, 1}}, {"body2", "b2"},
                      {"axis2", {0, 0, 1}}, {"pitch", 0.01}};
  CHECK(pathOf(screw, &detail) == "no error");
  for (const auto& [key, value, path] : {std::tuple{"axis2", json({0, 0, 0}), "/axis2"},
                                         std::tuple{"reference1", json({0, 0, 2}), "/reference1"},
                                         std::tuple{"pitch", json("abc"), "/pitch"}}) {
    bad = screw;
    bad[key] = value;
    CHECK(pathOf(bad, &detail) == path);
  }
  const json driver = {{"name", "d"}, {"type", "revolute_driver"}, {"body1", "b1"}, {"axis1", {0, 0, 0}}, {"body2", "b2"},
                       {"axis2", {0, 0, 1}}, {"value", "t"}};
  CHECK(pathOf(driver, &detail) == "/axis1");
  CHECK_THAT(detail, Catch::Contains("zero"));
}

}  // namespace joinery::test
