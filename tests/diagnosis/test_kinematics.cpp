// The kinematic sweep (kinematics.hpp, docs/kinematics.md) against closed forms: the dead
// point of a slider-crank whose rod is shorter than its crank (sin theta = L / r), the toggle
// positions of a Grashof crank-rocker driven at its rocker and of a non-Grashof triple rocker
// driven at its input (law of cosines); and the assembly search on mechanisms started far from
// an assembly that exists, and on ones that have none.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <numbers>
#include <nlohmann/json.hpp>

#include "joinery/core/assembly.hpp"
#include "joinery/core/check.hpp"
#include "joinery/core/kinematics.hpp"
#include "joinery/core/scene.hpp"

using namespace joinery;
using nlohmann::json;

namespace {
const std::string kKinSource = JOINERY_SOURCE_DIR;
std::string kinMistake(const std::string& name) { return kKinSource + "/examples/mistakes/" + name; }
constexpr double kKinPi = std::numbers::pi;

json kinBar(const std::string& name, double x0, double y0, double x1, double y1) {
  const double L = std::hypot(x1 - x0, y1 - y0);
  return {{"name", name},         {"type", "rigid2d"},
          {"mass", 1.0},          {"inertia", L * L / 12},
          {"position", {(x0 + x1) / 2, (y0 + y1) / 2}},
          {"angle", std::atan2(y1 - y0, x1 - x0)}};
}

json kinPin(const std::string& name, const std::string& b1, double p1, const std::string& b2, double p2) {
  json j = {{"name", name}, {"type", "revolute2d"}, {"body1", b1}, {"body2", b2}};
  j["point1"] = b1 == "ground" ? json{p1, 0.0} : json{p1, 0.0};
  j["point2"] = {p2, 0.0};
  return j;
}

/// A four-bar: ground pivots O2 = (0, 0) and O4 = (d, 0), input a at O2, coupler b, output c at
/// O4; assembled (B above the ground line) at input angle theta2 (or output angle theta4 when
/// driving the output), driven at 1 rad/s on `driven` ("input" or "output").
json kinFourBar(double a, double b, double c, double d, const std::string& driven, double angle) {
  double ax, ay, bx, by;  // the pins A (input-coupler) and B (coupler-output)
  if (driven == "input") {
    ax = a * std::cos(angle), ay = a * std::sin(angle);
    // B: |B - A| = b, |B - O4| = c, above the line A-O4 on the side of +y
    const double dx = d - ax, dy = -ay, e = std::hypot(dx, dy);
    const double t = (b * b - c * c + e * e) / (2 * e), h = std::sqrt(std::max(0.0, b * b - t * t));
    bx = ax + (t * dx - h * dy) / e, by = ay + (t * dy + h * dx) / e;
  } else {
    bx = d + c * std::cos(angle), by = c * std::sin(angle);
    const double dx = bx, dy = by, e = std::hypot(dx, dy);  // A: |A| = a, |B - A| = b
    const double t = (a * a - b * b + e * e) / (2 * e), h = std::sqrt(std::max(0.0, a * a - t * t));
    ax = (t * dx - h * dy) / e, ay = (t * dy + h * dx) / e;
  }
  json bodies = {kinBar("input", 0, 0, ax, ay), kinBar("coupler", ax, ay, bx, by), kinBar("output", d, 0, bx, by)};
  json joints = {kinPin("O2", "ground", 0, "input", -a / 2), kinPin("A", "input", a / 2, "coupler", -b / 2),
                 kinPin("B", "coupler", b / 2, "output", c / 2), kinPin("O4", "ground", 0, "output", -c / 2)};
  joints[3]["point1"] = {d, 0.0};
  const double start = driven == "input" ? std::atan2(ay, ax) : std::atan2(by, bx - d);
  joints.push_back({{"name", "motor"},
                    {"type", "driver"},
                    {"coordinate", driven + ".theta"},
                    {"value", std::to_string(start) + " + t"}});
  return {{"joinery", 1}, {"gravity", {0, 0, 0}}, {"bodies", bodies}, {"joints", joints}};
}
}  // namespace

TEST_CASE("kinematics: the rod shorter than the crank stops at its dead point, sin(theta) = L / r") {
  const Scene scene = loadScene(kinMistake("slider_crank_rod_shorter_than_crank.json"));
  const SweepResult r = sweepDriver(scene.model);
  CHECK(r.driver.name == "motor");
  CHECK(r.coordinateName == "crank.theta");
  CHECK(r.mobility == 1);
  CHECK_FALSE(r.completed);
  REQUIRE(r.singular.size() == 1);
  CHECK(r.singular[0].kind == "dead_point");
  // the closed form: the rod (0.05) reaches the guide's line from the crank pin at height
  // r sin(theta) only while r sin(theta) <= L: theta* = asin(0.5) = pi/6. The sweep stops within
  // 1e-3 rad (the acceptance); its bisection and Newton tolerance give about 1e-5.
  CHECK(std::abs(r.singular[0].value - kKinPi / 6) < 1e-3);
  CHECK(std::find(r.singular[0].joints.begin(), r.singular[0].joints.end(), "guide") != r.singular[0].joints.end());
  CHECK_THAT(r.singular[0].message, Catch::StartsWith("the mechanism cannot pass crank.theta = 0.5236 rad (30°)"));
  // the rod stands perpendicular to the guide there (the toggle): its angle is pi/2 + theta... up to
  // the branch, |cos| of the rod's angle vanishes
  const SweepSample& last = r.samples.back();
  const auto& names = scene.model.coordinateNames();
  const auto rodTheta = std::find(names.begin(), names.end(), "rod.theta") - names.begin();
  CHECK(std::abs(std::cos(last.q(rodTheta))) < 1e-2);
}

TEST_CASE("kinematics: the bundled well-posed slider-crank turns a full revolution") {
  const Scene scene = loadScene(kKinSource + "/examples/scenes/slider_crank.json");
  // its crank is not driven: no coordinate driver, the sweep says so
  CHECK_THROWS_AS(sweepDriver(scene.model), ModelError);
  // the rod of 0.4 m on the 0.1 m crank: a full turn, no singular configuration
  const Scene fixed = loadScene(kinMistake("slider_crank_rod_shorter_than_crank.json"), [] {
    SceneOptions o;
    o.overrides = {{"L", 0.4}};
    return o;
  }());
  const SweepResult r = sweepDriver(fixed.model);
  CHECK(r.completed);
  CHECK(r.singular.empty());
  CHECK(r.samples.size() == 361);
  CHECK(r.to - r.from == Approx(2 * kKinPi));
  // velocity analysis against the closed form of the slider-crank: x = r cos + sqrt(L^2 - r^2 sin^2),
  // x' = -w r sin (1 + r cos / sqrt(L^2 - r^2 sin^2)), w = 300 rpm (1e-9 relative: the solves)
  const auto& names = fixed.model.coordinateNames();
  const auto px = std::find(names.begin(), names.end(), "piston.x") - names.begin();
  const double w = 300 * 2 * kKinPi / 60, rr = 0.1, L = 0.4;
  for (const SweepSample& s : r.samples) {
    const double th = s.value, root = std::sqrt(L * L - rr * rr * std::sin(th) * std::sin(th));
    CHECK(s.q(px) == Approx(rr * std::cos(th) + root).margin(1e-9));
    CHECK(s.v(px) == Approx(-w * rr * std::sin(th) * (1 + rr * std::cos(th) / root)).margin(1e-7));
  }
}

TEST_CASE("kinematics: a Grashof crank-rocker driven at its rocker toggles where crank and coupler line up") {
  // a = 1, b = 3, c = 2.5, d = 3: s + l = 4 <= p + q = 5.5 (Grashof), the crank shortest and
  // next to the ground: a crank-rocker. Its rocker swings between the angles where O2-B is
  // b + a or b - a: cos(phi) = (c^2 + d^2 - (b +- a)^2) / (2 c d), theta4 = pi - phi.
  const double a = 1, b = 3, c = 2.5, d = 3;
  auto toggle = [&](double e) { return kKinPi - std::acos((c * c + d * d - e * e) / (2 * c * d)); };
  const Scene scene = sceneFromJson(kinFourBar(a, b, c, d, "output", 2.0), "crank_rocker.json");
  SweepOptions o;
  o.from = 2.0;
  o.to = 3.0;  // beyond the folded toggle at 2.4189
  o.count = 101;
  SweepResult r = sweepDriver(scene.model, o);
  REQUIRE(r.singular.size() == 1);
  CHECK(r.singular[0].kind == "dead_point");
  CHECK(r.singular[0].value == Approx(toggle(b - a)).margin(1e-6));
  o.to = 1.0;  // beyond the extended toggle at 1.5208
  r = sweepDriver(scene.model, o);
  REQUIRE(r.singular.size() == 1);
  CHECK(r.singular[0].kind == "dead_point");
  CHECK(r.singular[0].value == Approx(toggle(b + a)).margin(1e-6));
  // the crank driven instead turns fully: a crank-rocker's crank has no dead point
  const Scene driven = sceneFromJson(kinFourBar(a, b, c, d, "input", 0.3), "crank_rocker_crank.json");
  const SweepResult full = sweepDriver(driven.model);
  CHECK(full.completed);
  CHECK(full.singular.empty());
}

TEST_CASE("kinematics: a non-Grashof triple rocker stops where coupler and output line up") {
  // a = 2, b = 2.5, c = 3, d = 4: s + l = 6 > p + q = 5.5. The input reaches its limit where
  // |A - O4| = b + c: cos(theta2) = (a^2 + d^2 - (b + c)^2) / (2 a d) = -0.640625.
  const double a = 2, b = 2.5, c = 3, d = 4;
  const double limit = std::acos((a * a + d * d - (b + c) * (b + c)) / (2 * a * d));
  const Scene scene = sceneFromJson(kinFourBar(a, b, c, d, "input", 0.0), "triple_rocker.json");
  const SweepResult r = sweepDriver(scene.model);  // one turn from 0: stops at the limit
  CHECK_FALSE(r.completed);
  REQUIRE(r.singular.size() == 1);
  CHECK(r.singular[0].kind == "dead_point");
  CHECK(r.singular[0].value == Approx(limit).margin(1e-6));
  // the coupler and the output are the joints that line up, with the driver
  const auto& j = r.singular[0].joints;
  CHECK(std::find(j.begin(), j.end(), "B") != j.end());
}

TEST_CASE("assembly: a guide written on the wrong axis is assembled, not blamed on the pins") {
  const Scene scene = loadScene(kinMistake("slider_crank_guide_wrong_axis.json"));
  const AssemblyReport a = assembleInitialState(scene.model);
  REQUIRE(a.assembled);
  REQUIRE_FALSE(a.positionBefore.empty());
  CHECK(a.positionBefore.front().joint == "guide");
  CHECK(a.positionBefore.front().residual == Approx(0.5).margin(1e-12));  // the piston at x = 0.5, the guide x = 0
  CHECK(jointResiduals(scene.model, a.state, false, 1e-9).empty());
  // on the y axis, at the rod's reach from the crank pin: y^2 + x_c^2 ... |piston - crank pin| = L
  const auto& names = scene.model.coordinateNames();
  auto at = [&](const std::string& n) { return a.state.q(std::find(names.begin(), names.end(), n) - names.begin()); };
  CHECK(std::abs(at("piston.x")) < 1e-9);
  const double cx = 0.1 * std::cos(at("crank.theta")), cy = 0.1 * std::sin(at("crank.theta"));
  CHECK(std::hypot(at("piston.x") - cx, at("piston.y") - cy) == Approx(0.4).margin(1e-9));
  const CheckReport r = checkScene(scene);
  CHECK(r.status() == Posedness::WellPosed);
  CHECK_THAT(r.headline(), Catch::StartsWith("the initial positions violate guide by 0.5 m"));
}

TEST_CASE("assembly: badly started but solvable four-bars and slider-cranks assemble; impossible ones do not") {
  // every link of a Grashof four-bar turned by up to a half turn from its assembly: the
  // kinematic search finds an assembly (in some mode) each time
  for (double twist : {0.5, 1.5, 2.5, -2.0}) {
    INFO(twist);
    json doc = kinFourBar(1, 3, 2.5, 3, "input", 0.3);
    for (auto& body : doc["bodies"]) body["angle"] = body["angle"].get<double>() + twist;
    doc["joints"].erase(4);  // the driver: free mechanism
    const Scene scene = sceneFromJson(doc, "twisted.json");
    const AssemblyReport a = assembleInitialState(scene.model);
    CHECK(a.assembled);
    CHECK(jointResiduals(scene.model, a.state, false, 1e-8).empty());
  }
  // the bundled slider-crank that cannot close (crank 0.5 + rod 0.3 < 1 m to the cylinder): none
  const Scene none = loadScene(kinMistake("slider_crank_cannot_close.json"));
  CHECK_FALSE(assembleInitialState(none.model).assembled);
}

TEST_CASE("verdict: a massless body nothing holds wins over the velocity assembly, in every output") {
  const Scene scene = loadScene(kinMistake("slider_crank_massless_sensor.json"));
  const CheckReport r = checkScene(scene);
  const Verdict v = r.verdict();
  CHECK(v.status == Posedness::IllPosed);
  CHECK(v.kind == "ill_posed");
  CHECK_THAT(v.headline, Catch::StartsWith("sensor"));
  const json j = toJson(r);
  CHECK(j["status"] == "ill_posed");
  CHECK(j["verdict"] == "ill_posed");
  CHECK(j["well_posed"] == false);
  CHECK(j["headline"] == v.headline);
  // the motor's speed is assembled (no contradiction left to report)
  CHECK(r.assembly.assembled);
  // the fix: mass and inertia for the sensor, and the model is well posed
  SceneOptions o;
  json doc = scene.resolved();
  for (auto& b : doc["bodies"])
    if (b["name"] == "sensor") b["mass"] = 0.01, b["inertia"] = 1e-6;
  const Scene fixed = sceneFromJson(doc, kinMistake("fixed.json"));
  CHECK(checkScene(fixed).status() == Posedness::WellPosed);
}

TEST_CASE("assembly: the spatial validation mechanisms (A04 Bricard, A06) assemble from displaced starts") {
  // every body moved by 5-15 cm: the Bricard linkage is overconstrained (six revolutes, mobility
  // 1 by rank only), the projection and the kinematic search must both cope with its redundancy
  for (const char* name : {"a04_bricard.json", "a06_spatial_slider_crank.json"}) {
    INFO(name);
    const std::string file = kKinSource + "/examples/validation/" + name;
    json doc = loadScene(file).resolved();
    int k = 0;
    for (auto& b : doc["bodies"]) {
      if (!b.contains("position")) continue;
      b["position"][0] = b["position"][0].get<double>() + 0.05 * (1 + k % 3);
      b["position"][1] = b["position"][1].get<double>() - 0.04 * (k % 2);
      ++k;
    }
    const Scene scene = sceneFromJson(doc, file);
    const AssemblyReport a = assembleInitialState(scene.model);
    CHECK(a.needed());
    CHECK(a.assembled);
    CHECK(jointResiduals(scene.model, a.state, false, 1e-8).empty());
  }
}

TEST_CASE("kinematics: the transmission angle of a four-bar follows its closed form over a full turn") {
  // crank a, coupler b, rocker c, ground d; theta the crank's angle from the ground line O2-O4.
  // Triangles O2-A-O4 and A-B-O4 share the diagonal A-O4: e^2 = a^2 + d^2 - 2 a d cos(theta)
  // = b^2 + c^2 - 2 b c cos(mu), so cos(mu) = (b^2 + c^2 - a^2 - d^2 + 2 a d cos(theta)) / (2 b c),
  // mu the angle at the coupler-rocker pin B between B-A and B-O4.
  const double a = 1, b = 3, c = 2.5, d = 3;
  const Scene scene = sceneFromJson(kinFourBar(a, b, c, d, "input", 0.3), "crank_rocker_mu.json");
  const SweepResult r = sweepDriver(scene.model);
  REQUIRE(r.completed);
  CHECK(r.transmission.joint == "B");
  CHECK(r.transmission.couplerJoint == "A");
  CHECK(r.transmission.outputJoint == "O4");
  CHECK_FALSE(r.transmission.slider);
  double worst = 0;
  for (const SweepSample& s : r.samples) {
    const double mu = std::acos((b * b + c * c - a * a - d * d + 2 * a * d * std::cos(s.value)) / (2 * b * c));
    worst = std::max(worst, std::abs(s.transmission - mu));
  }
  // the positions are solved to 1e-10: the angle within 1e-8 rad
  CHECK(worst < 1e-8);
  // the extremes: at theta = 0 (e = d - a) and theta = pi (e = d + a)
  const json j = sweepToJson(r)["transmission"];
  CHECK(j["min_deg"].get<double>() == Approx(std::acos((b * b + c * c - (d - a) * (d - a)) / (2 * b * c)) * 180 / kKinPi).margin(0.05));
  CHECK(j["max_deg"].get<double>() == Approx(std::acos((b * b + c * c - (d + a) * (d + a)) / (2 * b * c)) * 180 / kKinPi).margin(0.05));
  // the table's last column
  const std::string csv = sweepToCsv(scene.model, r);
  CHECK_THAT(csv.substr(0, csv.find('\n')), Catch::EndsWith(",transmission_angle_deg(B)"));
}

TEST_CASE("kinematics: the transmission angle of a slider-crank, against the normal of the guide") {
  // the rod from the wrist pin to the crank pin rises r sin(theta) over its length L: the angle
  // between the rod and the guide's normal is acos(r |sin theta| / L)
  const Scene scene = loadScene(kinMistake("slider_crank_rod_shorter_than_crank.json"), [] {
    SceneOptions o;
    o.overrides = {{"L", 0.4}};
    return o;
  }());
  const SweepResult r = sweepDriver(scene.model);
  REQUIRE(r.completed);
  CHECK(r.transmission.joint == "wristpin");
  CHECK(r.transmission.outputJoint == "guide");
  CHECK(r.transmission.slider);
  double worst = 0;
  for (const SweepSample& s : r.samples)
    worst = std::max(worst, std::abs(s.transmission - std::acos(0.1 * std::abs(std::sin(s.value)) / 0.4)));
  CHECK(worst < 1e-8);
}

namespace {
/// An RSSR linkage: crank a = 0.1 about z at the origin, rocker c = 0.2 about x at (0.3, 0, 0),
/// coupler with spherical joints at both ends, assembled at theta = 0, psi = pi/2
/// (B = (0.1, 0, 0), C = (0.3, 0, 0.2), b = |C - B| = 0.2 sqrt 2).
json kinRssr() {
  auto body = [](const std::string& n, double x, double y, double z) {
    return json{{"name", n}, {"type", "rigid3d"}, {"mass", 1.0}, {"inertia", {1e-3, 1e-3, 1e-3}}, {"position", {x, y, z}}};
  };
  json bodies = {body("crank", 0.05, 0, 0), body("coupler", 0.2, 0, 0.1), body("rocker", 0.3, 0, 0.1)};
  json joints = {
      {{"name", "A"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", {0, 0, 0}}, {"axis1", {0, 0, 1}},
       {"body2", "crank"}, {"point2", {-0.05, 0, 0}}, {"axis2", {0, 0, 1}}},
      {{"name", "B"}, {"type", "spherical"}, {"body1", "crank"}, {"point1", {0.05, 0, 0}}, {"body2", "coupler"},
       {"point2", {-0.1, 0, -0.1}}},
      {{"name", "C"}, {"type", "spherical"}, {"body1", "coupler"}, {"point1", {0.1, 0, 0.1}}, {"body2", "rocker"},
       {"point2", {0, 0, 0.1}}},
      {{"name", "D"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", {0.3, 0, 0}}, {"axis1", {1, 0, 0}},
       {"body2", "rocker"}, {"point2", {0, 0, -0.1}}, {"axis2", {1, 0, 0}}}};
  return {{"joinery", 1}, {"gravity", {0, 0, -9.81}}, {"bodies", bodies}, {"joints", joints}};
}
}  // namespace

TEST_CASE("assembly: a spatial RSSR and badly started slider-cranks assemble; the scene as given closes") {
  {
    const Scene ok = sceneFromJson(kinRssr(), "rssr.json");
    CHECK_FALSE(assembleInitialState(ok.model).needed());  // the geometry above is closed
  }
  // every body turned (crank 1 rad about z, rocker 0.8 rad about x, coupler 1.2 rad about y)
  // and moved by up to 0.15 m: the joints are violated by tenths of a metre
  json doc = kinRssr();
  doc["bodies"][0]["orientation"] = {{"axis", {0, 0, 1}}, {"angle", 1.0}};
  doc["bodies"][1]["orientation"] = {{"axis", {0, 1, 0}}, {"angle", 1.2}};
  doc["bodies"][1]["position"] = {0.1, 0.15, 0.0};
  doc["bodies"][2]["orientation"] = {{"axis", {1, 0, 0}}, {"angle", 0.8}};
  const Scene scene = sceneFromJson(doc, "rssr_bad.json");
  const AssemblyReport a = assembleInitialState(scene.model);
  REQUIRE(a.needed());
  CHECK(a.positionBefore.front().residual > 0.05);
  CHECK(a.assembled);
  CHECK(jointResiduals(scene.model, a.state, false, 1e-8).empty());
  // slider-cranks with the crank turned by up to 3 rad and the piston put 0.3 m off its place
  for (double twist : {1.0, 2.0, 3.0, -2.5}) {
    INFO(twist);
    json sc = json::parse(std::ifstream(kinMistake("slider_crank_rod_shorter_than_crank.json")));
    sc["parameters"]["L"] = 0.4;
    sc["bodies"][0]["angle"] = twist;
    sc["bodies"][1]["angle"] = -twist;
    sc["bodies"][2]["position"] = {0.2, 0.3};
    for (std::size_t k = 0; k < sc["joints"].size(); ++k)
      if (sc["joints"][k]["name"] == "motor") {
        sc["joints"].erase(k);
        break;
      }
    const Scene s = sceneFromJson(sc, "slider_crank_bad.json");
    const AssemblyReport r = assembleInitialState(s.model);
    CHECK(r.assembled);
    CHECK(r.closure.joint.empty());
    CHECK(jointResiduals(s.model, r.state, false, 1e-8).empty());
  }
}

TEST_CASE("assembly: truly impossible mechanisms name the joint their loop cannot reach, with the distance") {
  // a four-bar whose links violate the closure inequality: d = 5 > a + b + c = 4.5 (the chain
  // from O2 reaches at most 4.5 m, the pivot O4 is 5 m away: O4 stays 0.5 m open at best)
  json bodies = {kinBar("input", 0, 0, 1, 0), kinBar("coupler", 1, 0, 2.5, 0), kinBar("output", 2.5, 0, 4.5, 0)};
  json joints = {kinPin("O2", "ground", 0, "input", -0.5), kinPin("A", "input", 0.5, "coupler", -0.75),
                 kinPin("B", "coupler", 0.75, "output", -1.0), kinPin("O4", "ground", 0, "output", 1.0)};
  joints[3]["point1"] = {5.0, 0.0};
  const Scene scene = sceneFromJson(json{{"joinery", 1}, {"gravity", {0, -9.81, 0}}, {"bodies", bodies}, {"joints", joints}},
                                    "four_bar_too_short.json");
  const CheckReport r = checkScene(scene);
  CHECK(r.status() == Posedness::Inconsistent);
  CHECK_FALSE(r.assembly.assembled);
  CHECK(r.assembly.closure.joint == "O4");
  CHECK(r.assembly.closure.gap == Approx(0.5).margin(1e-6));
  CHECK(r.assembly.closure.loop == std::vector<std::string>{"O2", "A", "B", "O4"});
  CHECK(r.verdict().kind == "cannot_be_assembled");
  CHECK_THAT(r.headline(), Catch::StartsWith("the mechanism cannot be assembled: O4 cannot close: its points stay at "
                                             "least 0.5 m apart"));
  // the bundled slider-crank whose cylinder axis is 1 m up, out of the 0.8 m reach of crank and rod
  const CheckReport sc = checkScene(loadScene(kinMistake("slider_crank_cannot_close.json")));
  CHECK(sc.assembly.closure.joint == "cylinder");
  CHECK(sc.assembly.closure.gap == Approx(0.2).margin(1e-6));
  CHECK_THAT(sc.headline(), Catch::StartsWith("the mechanism cannot be assembled: cylinder's axis is out of reach: "
                                              "the point of piston.block stays at least 0.2 m from it"));
  // the fix it proposes: the cylinder moved down by the gap (h = 0.8) closes the loop
  const Scene fixed = loadScene(kinMistake("slider_crank_cannot_close.json"), [] {
    SceneOptions o;
    o.overrides = {{"h", 0.8}};
    return o;
  }());
  const AssemblyReport fa = assembleInitialState(fixed.model);
  CHECK(fa.assembled);
}
