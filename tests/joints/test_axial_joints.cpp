// screw, revolute_driver, prismatic_driver, rolling_disk, gear and rack_pinion:
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

namespace joinery::test {
namespace {

/// The coordinate the coordinate-form tests couple on a body of `kind` (one of each body type).
std::string scalarCoordinate(const std::string& kind) {
  if (kind == "particle1") return "x";
  if (kind == "particle2") return "y";
  if (kind == "particle3") return "z";
  if (kind == "rigid2d") return "theta";
  if (kind == "rigid3d") return "e2";
  return "u2";  // linear
}

/// A joint with an axis between b1 and b2, with the fields of the pairing tests.
json axisJoint(const std::string& type, const std::string& name, const std::string& body1, const std::string& body2) {
  json j = {{"name", name}, {"type", type}, {"body1", body1}, {"body2", body2}, {"point1", {0.3, -0.2, 0.1}},
            {"axis1", {0.2, 0.3, 1.0}}, {"point2", {0.1, 0.4, -0.3}}};
  if (type == "revolute3d" || type == "cylindrical" || type == "screw" || type == "revolute_driver")
    j["axis2"] = {1.0, 0.1, 0.2};
  if (type == "screw") j["pitch"] = 0.7;
  if (type == "revolute_driver") j["value"] = "0.3*t";
  if (type == "prismatic_driver") j["value"] = "0.2*t";
  return j;
}

}  // namespace

TEST_CASE("gear, rack_pinion on coordinates: A and b against finite differences on every body pairing", "[joints][fd]") {
  // the coordinate forms couple any two coordinates of bodies other than the ground (the same
  // body too); one row, linear in the coordinates: psi = A q' exactly
  std::mt19937 rng(2114);
  const std::vector<std::string> kinds = {"particle1", "particle2", "particle3", "rigid2d", "rigid3d", "linear"};
  for (const std::string type : {"gear", "rack_pinion"}) {
    for (const std::string& k1 : kinds) {
      for (const std::string& k2 : kinds) {
        DYNAMIC_SECTION(type << " between " << k1 << " and " << k2) {
          TestScene scene;
          scene.add(k1, "b1");
          scene.add(k2, "b2");
          const std::string q1 = "b1." + scalarCoordinate(k1), q2 = "b2." + scalarCoordinate(k2);
          const json j = type == "gear" ? json{{"name", "g"}, {"type", type}, {"coordinate1", q1}, {"coordinate2", q2}, {"ratio", -0.6}}
                                        : json{{"name", "g"}, {"type", type}, {"pinion", q1}, {"rack", q2}, {"radius", 0.3}};
          const auto joint = scene.joint(j);
          REQUIRE(joint->numRows() == 1);
          REQUIRE(joint->bodies().size() == 2);
          for (int trial = 0; trial < 4; ++trial)
            checkAgainstFiniteDifferences(*joint, ElementMotion(joint->bodies(), rng, uniform(rng, 0, 2)), true);
        }
      }
    }
  }
  SECTION("two coordinates of one body") {
    TestScene scene;
    scene.add("rigid2d", "b1");
    const auto joint = scene.joint({{"name", "g"}, {"type", "rack_pinion"}, {"pinion", "b1.theta"}, {"rack", "b1.x"}, {"radius", 0.3}});
    REQUIRE(joint->bodies().size() == 1);
    for (int trial = 0; trial < 4; ++trial)
      checkAgainstFiniteDifferences(*joint, ElementMotion(joint->bodies(), rng, uniform(rng, 0, 2)), true);
  }
}

TEST_CASE("gear, rack_pinion between joints: A and b against finite differences", "[joints][fd]") {
  // joint A between b1 and b2 (every pairing of bodies with frames), joint B either on the same
  // carrier b1 (3 bodies) or between two other bodies (4 bodies); the row spans them all. The
  // bodies move at random (the named joints' own rows need not hold: the turn and the travel are
  // defined everywhere but where R2 reference2 lies along R1 axis1). Wrap periods here: 2 pi / 5
  // (ratio -3/5), 2 pi 0.3 (radius): a random state lands within 1e-4 of a jump with
  // probability ~1e-4.
  std::mt19937 rng(2115);
  const std::vector<std::string> frameKinds = {"ground", "rigid2d", "rigid3d"};
  struct Case {
    std::string type, typeA, typeB, kindB2;  // kindB2: body 2 of joint B in the 4-body layout
  };
  const std::vector<Case> cases = {
      {"gear", "revolute3d", "revolute3d", "rigid3d"},        {"gear", "cylindrical", "screw", "rigid2d"},
      {"gear", "revolute_driver", "revolute3d", "rigid3d"},   {"rack_pinion", "revolute3d", "prismatic3d", "rigid3d"},
      {"rack_pinion", "screw", "cylindrical", "rigid2d"},     {"rack_pinion", "revolute3d", "point_on_line", "particle3"},
      {"rack_pinion", "cylindrical", "prismatic_driver", "rigid3d"},
  };
  for (const Case& cs : cases) {
    for (const std::string& k1 : frameKinds) {
      for (const std::string& k2 : frameKinds) {
        if (k1 == "ground" && k2 == "ground") continue;
        for (const bool shared : {true, false}) {
          DYNAMIC_SECTION(cs.type << " between " << cs.typeA << " (" << k1 << ", " << k2 << ") and " << cs.typeB
                                  << (shared ? " on body1" : " between two other bodies")) {
            TestScene scene;
            const Body& b1 = scene.add(k1, "b1");
            const Body& b2 = scene.add(k2, "b2");
            const Body& b3 = scene.add("rigid3d", "b3");
            const Body& b4 = scene.add(cs.kindB2, "b4");
            const auto a = scene.joint(axisJoint(cs.typeA, "ja", b1.name(), b2.name()));
            const auto b = scene.joint(axisJoint(cs.typeB, "jb", shared ? b1.name() : b3.name(), shared ? b3.name() : b4.name()));
            scene.ctx.addConstraint(*a);
            scene.ctx.addConstraint(*b);
            const json j = cs.type == "gear"
                               ? json{{"name", "g"}, {"type", "gear"}, {"joint1", "ja"}, {"joint2", "jb"}, {"ratio", -0.6}}
                               : json{{"name", "g"}, {"type", "rack_pinion"}, {"pinion_joint", "ja"}, {"rack_joint", "jb"},
                                      {"radius", 0.3}};
            const auto joint = scene.joint(j);
            REQUIRE(joint->numRows() == 1);
            // the bodies of both joints, each once (the ground included: its frame is the world's)
            CHECK(joint->bodies().size() == (shared ? 3u : 4u));
            for (int trial = 0; trial < 4; ++trial)
              checkAgainstFiniteDifferences(*joint, ElementMotion(joint->bodies(), rng, uniform(rng, 0, 2)), true);
            // the same row through the scene JSON it writes
            const auto again = scene.joint(joint->toJson());
            CHECK(again->toJson() == joint->toJson());
          }
        }
      }
    }
  }
  SECTION("mixed: a joint's turn and a body coordinate") {
    TestScene scene;
    scene.add("rigid3d", "b1");
    scene.add("rigid3d", "b2");
    scene.add("rigid2d", "b5");
    const auto a = scene.joint(axisJoint("revolute3d", "ja", "b1", "b2"));
    scene.ctx.addConstraint(*a);
    for (const json& j : {json{{"name", "g"}, {"type", "gear"}, {"joint1", "ja"}, {"coordinate2", "b5.theta"}, {"ratio", 0.37}},
                          json{{"name", "g"}, {"type", "gear"}, {"coordinate1", "b5.theta"}, {"joint2", "ja"}, {"ratio", 1.9}},
                          json{{"name", "g"}, {"type", "rack_pinion"}, {"pinion_joint", "ja"}, {"rack", "b5.x"}, {"radius", 0.3}}}) {
      const auto joint = scene.joint(j);
      REQUIRE(joint->bodies().size() == 3);
      for (int trial = 0; trial < 4; ++trial)
        checkAgainstFiniteDifferences(*joint, ElementMotion(joint->bodies(), rng, uniform(rng, 0, 2)), true);
    }
  }
}

// Closed forms below: 1e-10 relative on accelerations. The solve is a dense, well-conditioned
// system of about 25 rows (condition ~1e3): round-off leaves ~1e-13 relative, so 1e-10 has a
// wide margin, while any wrong term (a missing bias, a wrong sign of the ratio) is O(1).
// Measured (2026-11-27): both cases also pass at 1e-14 relative.

TEST_CASE("gear between two spatial hinges: theta1'' = tau / (J1 + ratio^2 J2) about tilted axes", "[joints][closed-form]") {
  // wheels symmetric about their axes (C about it, A across), hinged at their centres to the
  // ground on two different tilted axes, spinning in mesh; a torque tau about a1 on wheel 1
  // (a couple of two forces): the spin gives no gyroscopic moment, the reduced inertia is
  // J1 + ratio^2 J2 whatever the axes
  const double z1 = 18, z2 = 30, ratio = -z1 / z2, C1 = 0.2, C2 = 0.7, A1 = 0.13, A2 = 0.4, tau = 1.3, omega = 2.0;
  const Vector3d a1 = Vector3d(0.3, -0.4, 1.0).normalized(), a2 = Vector3d(-0.5, 0.2, 0.7).normalized();
  const Vector3d c1(0.1, 0.2, 0.3), c2(0.6, -0.1, 0.5);
  const Eigen::Quaterniond e1 = Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), a1);
  const Eigen::Quaterniond e2 = Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), a2);
  const double d = 0.1;  // the couple: +F at (d, 0, 0), -F at (-d, 0, 0), F = tau / (2 d) a1 x e
  const Vector3d e = e1 * Vector3d::UnitX(), F = tau / (2 * d) * a1.cross(e);
  auto hinge = [&](const std::string& name, const std::string& body, const Vector3d& c, const Vector3d& a) {
    return json{{"name", name}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", vec(c)}, {"axis1", vec(a)},
                {"body2", body}, {"axis2", {0, 0, 1}}};
  };
  for (const bool withOffset : {false, true}) {
    json gear = {{"name", "mesh"}, {"type", "gear"}, {"joint1", "hinge1"}, {"joint2", "hinge2"}, {"ratio", ratio}};
    if (withOffset) gear["offset"] = 2 * kPi / 5;  // one mesh period: the same configuration
    const Solved s = solveScene(
        {{"gravity", {0, 0, -9.81}},
         {"bodies", {rigid("w1", 1.0, {A1, A1, C1}, c1, quat(e1), Vector3d::Zero(), omega * a1),
                     rigid("w2", 2.0, {A2, A2, C2}, c2, quat(e2), Vector3d::Zero(), ratio * omega * a2)}},
         {"joints", {hinge("hinge1", "w1", c1, a1), hinge("hinge2", "w2", c2, a2), gear}},
         {"forces", {{{"name", "f1"}, {"type", "force"}, {"body", "w1"}, {"point", {d, 0, 0}}, {"value", vec(F)}},
                     {{"name", "f2"}, {"type", "force"}, {"body", "w1"}, {"point", {-d, 0, 0}}, {"value", vec(-F)}}}}});
    const double t1 = tau / (C1 + ratio * ratio * C2);
    CHECK_THAT(s.angular("w1"), isApprox(Vector3d(t1 * a1), 1e-10, 0));
    CHECK_THAT(s.angular("w2"), isApprox(Vector3d(ratio * t1 * a2), 1e-10, 0));
    CHECK_THAT(s.linear("w1"), isApprox(Vector3d::Zero(), 0, 1e-10));
    CHECK(s.scene.model.constraints().back()->toJson().at("offset").get<double>() ==
          Approx(withOffset ? 2 * kPi / 5 : 0.0).margin(1e-15));
  }
}

TEST_CASE("rack_pinion between a spatial hinge and a prismatic3d: (J + m r^2) theta'' = r F", "[joints][closed-form]") {
  // a pinion (C about its tilted axis a) on a ground revolute3d, a rack (rigid3d) on a ground
  // prismatic3d along the horizontal d, pushed by F along d; s = r theta
  const double J = 0.05, A = 0.08, r = 0.12, m = 3.0, F = 4.0, omega = 1.5;
  const Vector3d a = Vector3d(0.2, 0.5, 1.0).normalized(), dir = Vector3d(1.0, -0.3, 0.0).normalized();
  const Eigen::Quaterniond e = Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), a);
  const Eigen::Quaterniond er(Eigen::AngleAxisd(0.4, Vector3d(0.3, 1.0, 0.2).normalized()));
  for (const double radius : {r, -r}) {
    DYNAMIC_SECTION("radius " << radius) {
      const Solved s = solveScene(
          {{"gravity", {0, 0, -9.81}},
           {"bodies", {rigid("pinion", 0.7, {A, A, J}, Vector3d(0, 0, 0.4), quat(e), Vector3d::Zero(), omega * a),
                       rigid("rack", m, {0.1, 0.2, 0.3}, Vector3d(0.2, 0.1, 0.0), quat(er), radius * omega * dir)}},
           {"joints", {{{"name", "pin"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", {0, 0, 0.4}},
                        {"axis1", vec(a)}, {"body2", "pinion"}, {"axis2", {0, 0, 1}}},
                       {{"name", "guide"}, {"type", "prismatic3d"}, {"body1", "ground"}, {"point1", {0.2, 0.1, 0.0}},
                        {"axis1", vec(dir)}, {"body2", "rack"}},
                       {{"name", "steer"}, {"type", "rack_pinion"}, {"pinion_joint", "pin"}, {"rack_joint", "guide"},
                        {"radius", radius}}}},
           {"forces", {{{"name", "push"}, {"type", "force"}, {"body", "rack"}, {"value", vec(F * dir)}}}}});
      const double thetadd = radius * F / (J + m * radius * radius);
      CHECK_THAT(s.angular("pinion"), isApprox(Vector3d(thetadd * a), 1e-10, 0));
      CHECK_THAT(s.linear("rack"), isApprox(Vector3d(radius * thetadd * dir), 1e-10, 0));
      CHECK_THAT(s.angular("rack"), isApprox(Vector3d::Zero(), 0, 1e-10));
    }
  }
}

TEST_CASE("gear, rack_pinion between joints: input errors at their fields", "[joints]") {
  TestScene scene;
  scene.add("rigid3d", "b1");
  scene.add("rigid3d", "b2");
  scene.add("rigid3d", "b3");
  scene.add("particle3", "p");
  const auto hingeA = scene.joint(axisJoint("revolute3d", "hinge_a", "b1", "b2"));
  const auto hingeB = scene.joint(axisJoint("revolute3d", "hinge_b", "b1", "b3"));
  const auto ball = scene.joint({{"name", "ball"}, {"type", "spherical"}, {"body1", "b2"}, {"body2", "b3"}});
  const auto slide = scene.joint(axisJoint("prismatic3d", "slide", "b1", "b3"));
  for (const Constraint* c : {hingeA.get(), hingeB.get(), ball.get(), slide.get()}) scene.ctx.addConstraint(*c);
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
  const json g = {{"name", "g"}, {"type", "gear"}, {"joint1", "hinge_a"}, {"joint2", "hinge_b"}, {"ratio", -0.6}};
  CHECK(pathOf(g) == "no error");
  json bad = g;
  bad["joint2"] = "hinge_c";
  CHECK(pathOf(bad) == "/joint2");
  CHECK_THAT(detail, Catch::Contains("unknown joint 'hinge_c'") && Catch::Contains("did you mean"));
  bad = g;
  bad["joint1"] = "ball";
  CHECK(pathOf(bad) == "/joint1");
  CHECK_THAT(detail, Catch::Contains("spherical") && Catch::Contains("no turn"));
  bad = g;
  bad["joint2"] = "hinge_a";
  CHECK(pathOf(bad) == "/joint2");
  CHECK_THAT(detail, Catch::Contains("the same joint"));
  bad = g;
  bad["coordinate1"] = "b1.x";
  CHECK(pathOf(bad) == "/joint1");
  bad = g;
  bad.erase("joint1");
  CHECK(pathOf(bad) == "/");
  CHECK_THAT(detail, Catch::Contains("coordinate1") && Catch::Contains("joint1"));
  bad = g;
  bad["ratio"] = "sqrt(2)";
  CHECK(pathOf(bad) == "/ratio");
  CHECK_THAT(detail, Catch::Contains("whole numbers"));
  bad = g;
  bad["joint2"] = 3;
  CHECK(pathOf(bad) == "/joint2");
  const json rp = {{"name", "r"}, {"type", "rack_pinion"}, {"pinion_joint", "hinge_a"}, {"rack_joint", "slide"}, {"radius", 0.1}};
  CHECK(pathOf(rp) == "no error");
  bad = rp;
  bad["rack_joint"] = "hinge_b";  // a revolute3d has no travel
  CHECK(pathOf(bad) == "/rack_joint");
  CHECK_THAT(detail, Catch::Contains("no travel"));
  bad = rp;
  bad["pinion_joint"] = "slide";  // a prismatic3d has no turn
  CHECK(pathOf(bad) == "/pinion_joint");
  bad = rp;
  bad["rack_joint"] = "slid";
  CHECK(pathOf(bad) == "/rack_joint");
  CHECK_THAT(detail, Catch::Contains("did you mean 'slide'"));
  bad = rp;
  bad["rack_jiont"] = "slide";
  CHECK(pathOf(bad) == "/rack_jiont");
}

}  // namespace joinery::test

namespace joinery::test {

TEST_CASE("gear between joints inside a component: joint names are local and get the instance prefix", "[joints]") {
  // a gearbox component (two wheels on hinges to the ground, meshed) used twice; the scene loader
  // qualifies joint1/joint2 like body names, and each gear finds its own instance's hinges
  const json wheel = {{"type", "rigid3d"}, {"mass", 1.0}, {"inertia", {0.1, 0.1, 0.2}}};
  json w1 = wheel, w2 = wheel;
  w1["name"] = "w1";
  w1["position"] = {0, 0, 0};
  w2["name"] = "w2";
  w2["position"] = {0.5, 0, 0};
  w1["angular_velocity"] = {0, 0, 3.0};
  w2["angular_velocity"] = {0, 0, -1.5};
  const json gearbox = {
      {"bodies", {w1, w2}},
      {"joints",
       {{{"name", "h1"}, {"type", "revolute3d"}, {"body1", "ground"}, {"axis1", {0, 0, 1}}, {"body2", "w1"}, {"axis2", {0, 0, 1}}},
        {{"name", "h2"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", {0.5, 0, 0}}, {"axis1", {0, 0, 1}},
         {"body2", "w2"}, {"axis2", {0, 0, 1}}},
        {{"name", "mesh"}, {"type", "gear"}, {"joint1", "h1"}, {"joint2", "h2"}, {"ratio", -0.5}}}}};
  const json doc = {{"joinery", 1},
                    {"bodies", json::array()},
                    {"components", {{"gearbox", gearbox}}},
                    {"instances", {{{"name", "a"}, {"component", "gearbox"}}, {{"name", "b"}, {"component", "gearbox"}}}}};
  const Scene scene = sceneFromJson(doc, "test.json");
  int gears = 0;
  for (const Constraint* c : scene.model.constraints()) {
    if (c->typeName() != "gear") continue;
    ++gears;
    const std::string prefix = c->name().substr(0, 2);  // "a." or "b."
    CHECK(c->toJson().at("joint1") == prefix + "h1");
    CHECK(c->toJson().at("joint2") == prefix + "h2");
    REQUIRE(c->bodies().size() == 3);  // ground, the instance's w1 and w2
    CHECK(c->bodies()[1]->name() == prefix + "w1");
    CHECK(c->bodies()[2]->name() == prefix + "w2");
  }
  CHECK(gears == 2);
}

}  // namespace joinery::test
