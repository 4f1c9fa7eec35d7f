// The shipped parts move as the closed forms of the mechanisms they are (docs/catalogue.md):
// accelerations at the initial state from `check`, against formulas written here from
// Newton-Euler / Lagrange by hand (textbook results, not joinery's).
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>

#include "joinery/core/check.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/simulation.hpp"
#include "library_test_support.hpp"
#include "scene_test_support.hpp"

using joinery::Scene;
using joinery::test::kGravity;
using joinery::test::loadPart;

namespace {

// Tolerance: one dense solve of at most 21 coordinates at a consistent state; the closed forms
// are evaluated in double too. 1e-10 relative leaves room for the conditioning of A (rows of
// size 1 against inertias of 1e-6) and nothing more.
constexpr double kMotionTol = 1e-10;

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
  CHECK(r.qdd("p.disc.x") == Approx(a * std::cos(alpha)).epsilon(kMotionTol));
  CHECK(r.qdd("p.disc.y") == Approx(a * std::sin(alpha)).epsilon(kMotionTol));
  CHECK(r.qdd("p.disc.theta") == Approx(-a / R).epsilon(kMotionTol));  // s + R theta constant
}

TEST_CASE("gear pair driven by a torque on gear 1: theta1'' = tau / (I1 + I2 (r1/r2)^2)", "[library]") {
  const double tau = 0.7, r1 = 0.05, r2 = 0.12;
  const nlohmann::json motor = {{{"name", "motor"}, {"type", "generalized"}, {"coordinate", "p.gear1.theta"},
                                 {"value", tau}}};
  const Run r = run("planar", "gear_pair", {{"r1", r1}, {"r2", r2}}, motor);
  const double I1 = inertia(r, "p.gear1"), I2 = inertia(r, "p.gear2");
  const double a1 = tau / (I1 + I2 * (r1 / r2) * (r1 / r2));
  CHECK(r.qdd("p.gear1.theta") == Approx(a1).epsilon(kMotionTol));
  CHECK(r.qdd("p.gear2.theta") == Approx(-a1 * r1 / r2).epsilon(kMotionTol));
}

TEST_CASE("rack and pinion pushed along the rack: x'' = F / (m_rack + I_pinion / r^2)", "[library]") {
  const double F = 3.0, r = 0.04;
  const nlohmann::json push = {{{"name", "push"}, {"type", "generalized"}, {"coordinate", "p.rack.x"}, {"value", F}}};
  const Run run1 = run("planar", "rack_pinion", {{"r", r}, {"theta0", 0.4}, {"s0", 0.1}}, push);
  const double a = F / (mass(run1, "p.rack") + inertia(run1, "p.pinion") / (r * r));
  CHECK(run1.qdd("p.rack.x") == Approx(a).epsilon(kMotionTol));
  CHECK(run1.qdd("p.pinion.theta") == Approx(a / r).epsilon(kMotionTol));
  CHECK(std::abs(run1.qdd("p.rack.y")) < 1e-12);
}

TEST_CASE("torsion spring twisted by 0.2 rad turns its hubs apart at k 0.2 / I", "[library]") {
  const double k = 10, I = 0.01 * 0.02 * 0.02 / 2;
  const Run r = run("planar", "torsion_spring", {{"angle0", 0.2}});
  CHECK(r.qdd("p.hub_a.theta") == Approx(k * 0.2 / I).epsilon(kMotionTol));
  CHECK(r.qdd("p.hub_b.theta") == Approx(-k * 0.2 / I).epsilon(kMotionTol));
  CHECK(r.qdd("p.hub_a.y") == Approx(-kGravity).epsilon(kMotionTol));  // the pair falls freely
}

TEST_CASE("spring-damper unit stretched by 0.1 m pulls its ends together at k 0.1 / m_end", "[library]") {
  const Run r = run("planar", "spring_damper", {{"L", 0.3}, {"L0", 0.2}, {"k", 1000}, {"m_end", 0.5}});
  CHECK(r.qdd("p.end_a.x") == Approx(1000 * 0.1 / 0.5).epsilon(kMotionTol));
  CHECK(r.qdd("p.end_b.x") == Approx(-1000 * 0.1 / 0.5).epsilon(kMotionTol));
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
        Approx(-L1 * std::sin(p1) * a1 - L2 / 2 * std::sin(p2) * a2).epsilon(kMotionTol));
  CHECK(r.qdd("p.fore.link.z") == Approx(L1 * std::cos(p1) * a1 + L2 / 2 * std::cos(p2) * a2).epsilon(kMotionTol));
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
  CHECK(r.solution.qdd(i) == Approx(-k * q0 / I).epsilon(kMotionTol));
}

// ---- joinery:spatial wheel3d: a disk rolling on the plane ------------------------------------
//
// Steady motion of a thin uniform disk (radius a) rolling without slip on a horizontal plane,
// its centre on a horizontal circle of radius b at the turn rate Omega, the disk's plane at
// alpha to the table (lean = pi/2 - alpha from the vertical, into the turn): Routh, Advanced
// Rigid Dynamics, art. 244; K. T. McDonald, "The rolling motion of a disk on a horizontal
// plane" (arXiv:physics/0008227), steady motion:
//   Omega^2 = 4 g cot(alpha) / (6 b + a cos(alpha)),
// which gives the disk spinning in place (b = 0) at Omega^2 = 4 g / (a sin(alpha)) and the
// coin on a wide circle (a << b) at tan(lean) = 3 v^2 / (2 g b), v = Omega b.

namespace {

/// Omega of the steady turn of a thin disk (McDonald's formula above).
double steadyTurnRate(double a, double lean, double b) {
  const double alpha = M_PI / 2 - lean;
  return std::sqrt(4 * kGravity / std::tan(alpha) / (6 * b + a * std::cos(alpha)));
}

/// A part simulated alone (dopri5, tight tolerances), recorded in memory.
struct Motion {
  explicit Motion(const nlohmann::json& doc) : scene(joinery::sceneFromJson(doc, "")) {}
  Scene scene;
  joinery::MemoryRecorder rec;
  joinery::SimulationResult result;
};

std::unique_ptr<Motion> simulatePart(const std::string& part, const nlohmann::json& params, double tEnd) {
  const nlohmann::json doc = {
      {"joinery", 1},
      {"include", {"joinery:spatial"}},
      {"gravity", {0, 0, -kGravity}},
      {"bodies", nlohmann::json::array()},
      {"instances", {{{"name", "p"}, {"component", part}, {"parameters", params}}}},
      {"simulation",
       {{"t_end", tEnd}, {"integrator", "dopri5"}, {"rtol", 1e-10}, {"atol", 1e-12}, {"output_interval", 0.02}}}};
  auto m = std::make_unique<Motion>(doc);
  joinery::ModelSystem sys(m->scene.model);
  m->result = joinery::runSimulation(sys, joinery::parseSimulationSettings(m->scene.simulation), m->rec);
  INFO(m->result.message);
  REQUIRE(m->result.completed());
  REQUIRE(m->rec.size() > 10);
  return m;
}

/// The wheel's state in sample k, from the body's own coordinates (not from the joint): centre,
/// rotation, centre velocity, angular velocity, and the velocity of the material point at the
/// contact (the rim point lowest along the world z).
struct WheelState {
  Eigen::Vector3d c, vc, w, vContact;
  Eigen::Matrix3d rot;
};
WheelState wheelState(const Motion& m, std::size_t k, double a) {
  const joinery::Body* body = m.scene.model.findBody("p.disc");
  REQUIRE(body != nullptr);
  const joinery::BodySlot& sl = m.scene.model.slotOf(*body);
  const Eigen::VectorXd q = m.rec.q[k].segment(sl.offset, sl.size), v = m.rec.v[k].segment(sl.offset, sl.size);
  WheelState w;
  w.c = q.head<3>();
  w.vc = v.head<3>();
  w.rot = body->frames()->calcOrientation(q);
  Eigen::MatrixXd Jw(3, sl.size);
  Jw.setZero();
  body->frames()->calcAngularJacobian(q, Jw);
  w.w = Jw * v;
  const Eigen::Vector3d axle = w.rot.col(1), ez = Eigen::Vector3d::UnitZ();
  const Eigen::Vector3d down = -(ez - ez.dot(axle) * axle).normalized();  // in the disk's plane
  w.vContact = w.vc + w.w.cross(a * down);
  return w;
}

}  // namespace

TEST_CASE("wheel3d thin disk in a steady turn: Omega^2 = 4 g cot(alpha) / (6 b + a cos(alpha)) (McDonald)",
          "[library][rolling]") {
  const double a = 0.3, lean = 0.25, b = 1.2, heading = 0.4, x0 = 0.5, y0 = -0.2;
  const double Omega = steadyTurnRate(a, lean, b);
  // thickness 0 with the mass given: the thin disk of the formula (inertias m a^2/4, m a^2/2)
  const auto params = [&](double turnRate) {
    return nlohmann::json{{"R", a},        {"thickness", 0},     {"m", 1.5},
                          {"x0", x0},      {"y0", y0},           {"heading0", heading},
                          {"lean0", lean}, {"v0", turnRate * b}, {"turn_rate0", turnRate}};
  };
  const Eigen::Vector2d left(-std::sin(heading), std::cos(heading));  // towards the turn centre
  SECTION("at the initial state: the centre accelerates at Omega^2 b towards the turn centre and not up or down") {
    const Run r = run("spatial", "wheel3d", params(Omega));
    CHECK(r.qdd("p.disc.x") == Approx(Omega * Omega * b * left.x()).epsilon(kMotionTol));
    CHECK(r.qdd("p.disc.y") == Approx(Omega * Omega * b * left.y()).epsilon(kMotionTol));
    // z'' = -a sin(lean) lean'': zero only when the lean is steady
    CHECK(std::abs(r.qdd("p.disc.z")) < 1e-10 * kGravity);
    // 10 % faster on the same circle: no longer steady, the disk rises (lean'' < 0)
    const Run fast = run("spatial", "wheel3d", params(1.1 * Omega));
    CHECK(fast.qdd("p.disc.z") > 1e-3 * kGravity);
  }
  SECTION("simulated 3 s: the lean, the height and the circle stay; no slip; energy conserved") {
    const auto m = simulatePart("wheel3d", params(Omega), 3.0);
    const Eigen::Vector2d contact0(x0, y0);
    const Eigen::Vector2d centre = contact0 + (a * std::sin(lean) + b) * left;  // of the turn
    double worstPath = 0, worstLean = 0, worstSlip = 0, worstE = 0;
    for (std::size_t k = 0; k < m->rec.size(); ++k) {
      const double t = m->rec.t[k];
      const WheelState w = wheelState(*m, k, a);
      // the centre at angle Omega t around the turn centre, from -left at t = 0
      const double phi = heading - M_PI / 2 + Omega * t;
      const Eigen::Vector2d want = centre + b * Eigen::Vector2d(std::cos(phi), std::sin(phi));
      worstPath = std::max({worstPath, (w.c.head<2>() - want).cwiseAbs().maxCoeff(), std::abs(w.c.z() - a * std::cos(lean))});
      worstLean = std::max(worstLean, std::abs(w.rot.col(1).z() + std::sin(lean)));  // axle dips by the lean
      worstSlip = std::max(worstSlip, w.vContact.norm());
      worstE = std::max(worstE, std::abs(*m->rec.energy[k] - *m->rec.energy[0]) / std::abs(*m->rec.energy[0]));
    }
    INFO("path " << worstPath << " m, lean " << worstLean << ", contact speed " << worstSlip << " m/s, energy "
                 << worstE);
    // observed: 7e-12 m, 2e-12, 3e-12 m/s, 1e-11 (dopri5 at rtol 1e-10)
    CHECK(worstPath < 1e-9);
    CHECK(worstLean < 1e-9);
    CHECK(worstSlip < 1e-10);
    CHECK(worstE < 1e-9);
  }
}

TEST_CASE("wheel3d upright, rolling straight: constant speed along its heading, no slip, energy conserved",
          "[library][rolling]") {
  const double a = 0.3, v0 = 2.0, heading = 0.7;
  const auto m = simulatePart("wheel3d", {{"R", a}, {"heading0", heading}, {"v0", v0}, {"x0", 1}, {"y0", 2}}, 2.0);
  double worstPath = 0, worstSlip = 0, worstSpin = 0, worstE = 0;
  for (std::size_t k = 0; k < m->rec.size(); ++k) {
    const double t = m->rec.t[k];
    const WheelState w = wheelState(*m, k, a);
    const Eigen::Vector3d want(1 + v0 * t * std::cos(heading), 2 + v0 * t * std::sin(heading), a);
    worstPath = std::max(worstPath, (w.c - want).cwiseAbs().maxCoeff());
    worstSlip = std::max(worstSlip, w.vContact.norm());
    worstSpin = std::max(worstSpin, std::abs(w.w.dot(w.rot.col(1)) - v0 / a));  // about the axle at v0 / a
    worstE = std::max(worstE, std::abs(*m->rec.energy[k] - *m->rec.energy[0]) / std::abs(*m->rec.energy[0]));
  }
  INFO("path " << worstPath << " m, contact speed " << worstSlip << " m/s, spin " << worstSpin << " rad/s, energy "
               << worstE);
  // observed: 4e-11 m, 4e-12 m/s, 2e-10 rad/s (dopri5 at rtol 1e-10)
  CHECK(worstPath < 1e-9);
  CHECK(worstSlip < 1e-10);
  CHECK(worstSpin < 1e-8);
  CHECK(worstE < 1e-10);
}
