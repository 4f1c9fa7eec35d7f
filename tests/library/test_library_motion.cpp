// The shipped parts move as the closed forms of the mechanisms they are (docs/catalogue.md):
// accelerations at the initial state from `check`, against formulas written here from
// Newton-Euler / Lagrange by hand (textbook results, not joinery's).
#include <catch2/catch.hpp>
#include <cmath>

#include "joinery/core/check.hpp"
#include "joinery/core/scene.hpp"
#include "library_test_support.hpp"
#include "scene_test_support.hpp"

using joinery::Scene;
using joinery::test::kGravity;
using joinery::test::loadPart;

namespace {

// Tolerance: one dense solve of at most 21 coordinates at a consistent state; the closed forms
// are evaluated in double too. 1e-10 relative leaves room for the conditioning of A (rows of
// size 1 against inertias of 1e-6) and nothing more.
constexpr double kTol = 1e-10;

struct Run {
  Scene scene;
  joinery::CheckReport report;
  double qdd(const std::string& c) const {
    const int i = joinery::test::coordinateIndex(scene.model, c);
    REQUIRE(i >= 0);
    return report.solution.qdd(i);
  }
};

Run run(const std::string& lib, const std::string& part, const nlohmann::json& params,
        const nlohmann::json& extraForces = nlohmann::json::array()) {
  nlohmann::json doc = {{"joinery", 1},
                        {"include", {"joinery:" + lib}},
                        {"gravity", lib == "spatial" ? nlohmann::json{0, 0, -kGravity} : nlohmann::json{0, -kGravity, 0}},
                        {"bodies", nlohmann::json::array()},
                        {"forces", extraForces},
                        {"instances", {{{"name", "p"}, {"component", part}, {"parameters", params}}}}};
  Scene s = joinery::sceneFromJson(doc, "");
  joinery::CheckReport r = joinery::checkScene(s);
  REQUIRE(r.solution.diagnosis.wellPosed);
  return {std::move(s), std::move(r)};
}

double mass(const Run& r, const std::string& body) {
  return joinery::test::resolvedElement(r.scene, "bodies", body).at("mass").get<double>();
}
double inertia(const Run& r, const std::string& body) {
  return joinery::test::resolvedElement(r.scene, "bodies", body).at("inertia").get<double>();
}

}  // namespace

TEST_CASE("wheel on a slope rolls down at g sin(alpha) / (1 + I/(m R^2)) = 2/3 g sin(alpha)", "[library]") {
  const double alpha = 0.3, R = 0.25;
  const Run r = run("planar", "wheel", {{"alpha", alpha}, {"R", R}, {"x0", 1}, {"y0", 0.5}, {"s0", 0.4}});
  const double a = -2.0 / 3.0 * kGravity * std::sin(alpha);  // along the line (cos a, sin a)
  CHECK(r.qdd("p.disc.x") == Approx(a * std::cos(alpha)).epsilon(kTol));
  CHECK(r.qdd("p.disc.y") == Approx(a * std::sin(alpha)).epsilon(kTol));
  CHECK(r.qdd("p.disc.theta") == Approx(-a / R).epsilon(kTol));  // s + R theta constant
}

TEST_CASE("gear pair driven by a torque on gear 1: theta1'' = tau / (I1 + I2 (r1/r2)^2)", "[library]") {
  const double tau = 0.7, r1 = 0.05, r2 = 0.12;
  const nlohmann::json motor = {{{"name", "motor"}, {"type", "generalized"}, {"coordinate", "p.gear1.theta"},
                                 {"value", tau}}};
  const Run r = run("planar", "gear_pair", {{"r1", r1}, {"r2", r2}}, motor);
  const double I1 = inertia(r, "p.gear1"), I2 = inertia(r, "p.gear2");
  const double a1 = tau / (I1 + I2 * (r1 / r2) * (r1 / r2));
  CHECK(r.qdd("p.gear1.theta") == Approx(a1).epsilon(kTol));
  CHECK(r.qdd("p.gear2.theta") == Approx(-a1 * r1 / r2).epsilon(kTol));
}

TEST_CASE("rack and pinion pushed along the rack: x'' = F / (m_rack + I_pinion / r^2)", "[library]") {
  const double F = 3.0, r = 0.04;
  const nlohmann::json push = {{{"name", "push"}, {"type", "generalized"}, {"coordinate", "p.rack.x"}, {"value", F}}};
  const Run run1 = run("planar", "rack_pinion", {{"r", r}, {"theta0", 0.4}, {"s0", 0.1}}, push);
  const double a = F / (mass(run1, "p.rack") + inertia(run1, "p.pinion") / (r * r));
  CHECK(run1.qdd("p.rack.x") == Approx(a).epsilon(kTol));
  CHECK(run1.qdd("p.pinion.theta") == Approx(a / r).epsilon(kTol));
  CHECK(std::abs(run1.qdd("p.rack.y")) < 1e-12);
}

TEST_CASE("torsion spring twisted by 0.2 rad turns its hubs apart at k 0.2 / I", "[library]") {
  const double k = 10, I = 0.01 * 0.02 * 0.02 / 2;
  const Run r = run("planar", "torsion_spring", {{"angle0", 0.2}});
  CHECK(r.qdd("p.hub_a.theta") == Approx(k * 0.2 / I).epsilon(kTol));
  CHECK(r.qdd("p.hub_b.theta") == Approx(-k * 0.2 / I).epsilon(kTol));
  CHECK(r.qdd("p.hub_a.y") == Approx(-kGravity).epsilon(kTol));  // the pair falls freely
}

TEST_CASE("spring-damper unit stretched by 0.1 m pulls its ends together at k 0.1 / m_end", "[library]") {
  const Run r = run("planar", "spring_damper", {{"L", 0.3}, {"L0", 0.2}, {"k", 1000}, {"m_end", 0.5}});
  CHECK(r.qdd("p.end_a.x") == Approx(1000 * 0.1 / 0.5).epsilon(kTol));
  CHECK(r.qdd("p.end_b.x") == Approx(-1000 * 0.1 / 0.5).epsilon(kTol));
}

TEST_CASE("quarter car: the preloaded springs hold both masses at rest under gravity", "[library]") {
  const Run r = run("vehicles", "quarter_car", {{"m_s", 300}, {"k_s", 20000}});
  for (const char* c : {"p.body.x", "p.body.y", "p.wheel.x", "p.wheel.y", "p.road.y"}) {
    INFO(c);
    CHECK(std::abs(r.qdd(c)) < 1e-10 * kGravity);  // a gravity-sized term cancelled to rounding
  }
}

TEST_CASE("two-link arm at rest: accelerations of the double pendulum by Lagrange", "[library]") {
  const double q1 = 0.5, q2 = -1.0, L1 = 0.5, L2 = 0.4;
  const Run r = run("spatial", "robot_arm2", {{"q1", q1}, {"q2", q2}});
  const double m1 = mass(r, "p.upper.link"), m2 = mass(r, "p.fore.link");
  // about the joint axis y: the middle entry of the principal inertias
  const auto Iyy = [&](const char* b) {
    const nlohmann::json I = joinery::test::resolvedElement(r.scene, "bodies", b).at("inertia");
    return I[1].is_number() ? I[1].get<double>() : I[1][1].get<double>();
  };
  const double p1 = q1, p2 = q1 + q2;  // absolute angles above the x axis
  const double M11 = Iyy("p.upper.link") + m1 * L1 * L1 / 4 + m2 * L1 * L1;
  const double M12 = m2 * L1 * L2 / 2 * std::cos(p1 - p2), M22 = Iyy("p.fore.link") + m2 * L2 * L2 / 4;
  const double Q1 = -(m1 * L1 / 2 + m2 * L1) * kGravity * std::cos(p1), Q2 = -m2 * L2 / 2 * kGravity * std::cos(p2);
  const double det = M11 * M22 - M12 * M12;
  const double a1 = (M22 * Q1 - M12 * Q2) / det, a2 = (M11 * Q2 - M12 * Q1) / det;
  // at rest the forearm's centre accelerates tangentially only
  CHECK(r.qdd("p.fore.link.x") ==
        Approx(-L1 * std::sin(p1) * a1 - L2 / 2 * std::sin(p2) * a2).epsilon(kTol));
  CHECK(r.qdd("p.fore.link.z") == Approx(L1 * std::cos(p1) * a1 + L2 / 2 * std::cos(p2) * a2).epsilon(kTol));
  CHECK(std::abs(r.qdd("p.fore.link.y")) < 1e-12);
}

TEST_CASE("example rack_pinion_torsion: theta'' = -k q0 / (I_pinion + I_hub + m_rack r^2)", "[library]") {
  // the torsion spring welded between the ground and the pinion, twisted by q0 = 0.5 rad
  const Scene s = joinery::loadScene(std::string(JOINERY_SOURCE_DIR) + "/examples/library/rack_pinion_torsion.json");
  const joinery::CheckReport r = joinery::checkScene(s);
  REQUIRE(r.solution.diagnosis.wellPosed);
  const auto body = [&](const char* b) { return joinery::test::resolvedElement(s, "bodies", b); };
  const double rr = 0.04, k = 2, q0 = 0.5;
  const double I = body("rp.pinion").at("inertia").get<double>() + body("spring.hub_b").at("inertia").get<double>() +
                   body("rp.rack").at("mass").get<double>() * rr * rr;
  const int i = joinery::test::coordinateIndex(s.model, "rp.pinion.theta");
  REQUIRE(i >= 0);
  CHECK(r.solution.qdd(i) == Approx(-k * q0 / I).epsilon(kTol));
}
