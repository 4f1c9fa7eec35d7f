// The nonholonomic example scenes (examples/scenes/nh_*.json, seeds 001 and 003), simulated
// and checked against their closed forms, reduced equations and invariants:
//  - knife-edge dumbbell (seed 003, Example 4.10): closed form of v, phi' and phi; energy;
//  - the same with a massless knife-edge particle: straight line + tractrix closed form;
//  - sinusoidally guided car (seed 001, section 4.1): y harmonic, sqrt(1 + sin^2 wt) z'
//    constant, energy conserved;
//  - bead on a hoop turning at Omega(t) (seed 003, Example 4.12): the reduced equation
//    theta'' = Omega^2 sin cos - (g/r) sin; Jacobi integral for constant Omega;
//  - rolling thin disk (seed 001, Appendix A): the steady turn stays steady; energy conserved
//    in a perturbed (non-steady) motion;
//  - dumbbell with a turning knife edge (seed 003, Example 4.13): kinetic energy conserved.
// All scenes run with dopri5 at rtol 1e-10, atol 1e-12 and projection drift control (the
// scenes' settings). Global errors of such runs over a few seconds are ~1e-9..1e-8, so the
// tolerances below (1e-6 on trajectories, 1e-8 relative on conserved energies) leave two
// orders of margin for error growth while any modelling error (wrong sign, wrong b, a missing
// term) shows up at O(1e-2) or more within the first second.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <string>

#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {
namespace {

std::string scenePath(const std::string& name) {
  return std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/" + name;
}

nlohmann::json sceneJson(const std::string& name) {
  std::ifstream in(scenePath(name));
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

/// A run of a scene (modified JSON allowed) recorded in memory.
struct Run {
  Run(const nlohmann::json& doc, const std::string& file) : scene(sceneFromJson(doc, file)) {}
  Scene scene;
  MemoryRecorder rec;
  SimulationResult result;

  int index(const std::string& name) const {
    for (std::size_t i = 0; i < rec.names.size(); ++i)
      if (rec.names[i] == name) return static_cast<int>(i);
    FAIL("no coordinate " << name);
    return -1;
  }
  double q(std::size_t k, const std::string& name) const { return rec.q[k](index(name)); }
  double v(std::size_t k, const std::string& name) const { return rec.v[k](index(name)); }
};

std::unique_ptr<Run> simulate(const nlohmann::json& doc, const std::string& name, double tEnd = 0) {
  auto run = std::make_unique<Run>(doc, scenePath(name));
  SimulationSettings set = parseSimulationSettings(run->scene.simulation);
  if (tEnd > 0) set.tEnd = tEnd;
  ModelSystem sys(run->scene.model);
  run->result = runSimulation(sys, set, run->rec);
  INFO(run->result.message);
  REQUIRE(run->result.completed());
  REQUIRE(run->rec.size() > 10);
  return run;
}

double param(const nlohmann::json& doc, const std::string& name) { return doc.at("parameters").at(name).get<double>(); }

}  // namespace

TEST_CASE("knife-edge dumbbell follows the closed form of seed 003 and keeps its energy", "[nonholonomic]") {
  // Equations of motion (seed 003, (4.289)-(4.290)): 2 v' = l phi'^2, l phi'' = -v phi'.
  // T = m/2 (2 v^2 + l^2 phi'^2) is constant; with a = sqrt(T/m):
  //   v = a tanh(a t / l + c), phi' = sqrt(2) a / l sech(a t / l + c), c = atanh(v0 / a),
  //   phi = phi0 + sqrt(2) (atan(sinh(a t / l + c)) - atan(sinh(c))).
  const nlohmann::json doc = sceneJson("nh_knife_edge_dumbbell.json");
  const double m = param(doc, "m"), l = param(doc, "l"), v0 = param(doc, "v0"), w0 = param(doc, "w0");
  const auto run = simulate(doc, "nh_knife_edge_dumbbell.json");
  const double a = std::sqrt((2 * v0 * v0 + l * l * w0 * w0) / 2), c = std::atanh(v0 / a);
  const double E0 = 0.5 * m * (2 * v0 * v0 + l * l * w0 * w0);
  double worst = 0, worstE = 0;
  for (std::size_t k = 0; k < run->rec.size(); ++k) {
    const double t = run->rec.t[k];
    const double dx = run->q(k, "p2.x") - run->q(k, "p1.x"), dy = run->q(k, "p2.y") - run->q(k, "p1.y");
    const double dvx = run->v(k, "p2.x") - run->v(k, "p1.x"), dvy = run->v(k, "p2.y") - run->v(k, "p1.y");
    const double phi = std::atan2(dy, dx);
    const double v = (run->v(k, "p1.x") * dx + run->v(k, "p1.y") * dy) / l;  // along the knife edge
    const double w = (dx * dvy - dy * dvx) / (l * l);
    const double s = a * t / l + c;
    const double vRef = a * std::tanh(s), wRef = std::sqrt(2.0) * a / l / std::cosh(s);
    const double phiRef = std::sqrt(2.0) * (std::atan(std::sinh(s)) - std::atan(std::sinh(c)));
    const double err = std::max({std::abs(v - vRef), std::abs(w - wRef), std::abs(std::remainder(phi - phiRef, 2 * M_PI))});
    worst = std::max(worst, err);
    REQUIRE(run->rec.energy[k].has_value());
    worstE = std::max(worstE, std::abs(*run->rec.energy[k] - E0) / E0);
  }
  INFO("max error of v, phi', phi over 10 s: " << worst << "; relative energy error " << worstE);
  CHECK(worst < 1e-6);
  CHECK(worstE < 1e-8);
  CHECK(run->result.stats.maxVelocityResidual < 1e-9);
}

TEST_CASE("knife-edge dumbbell with a massless edge particle: straight line and tractrix", "[nonholonomic]") {
  // p1 has no mass, so the rod force and the knife-edge force on it balance, which (they are
  // perpendicular) makes both zero: p2 moves uniformly, v2 = V (cos alpha, sin alpha), and the
  // rod angle obeys l phi' = V sin(alpha - phi): tan((phi - alpha)/2) = tan((phi0 - alpha)/2) e^(-V t / l).
  const nlohmann::json doc = sceneJson("nh_knife_edge_dumbbell_zero_mass_edge.json");
  const double m = param(doc, "m"), l = param(doc, "l"), V = param(doc, "V"), alpha = param(doc, "alpha");
  const auto run = simulate(doc, "nh_knife_edge_dumbbell_zero_mass_edge.json");
  const double E0 = 0.5 * m * V * V;
  double worst = 0, worstE = 0;
  for (std::size_t k = 0; k < run->rec.size(); ++k) {
    const double t = run->rec.t[k];
    const double dx = run->q(k, "p2.x") - run->q(k, "p1.x"), dy = run->q(k, "p2.y") - run->q(k, "p1.y");
    const double phiRef = alpha + 2 * std::atan(std::tan(-alpha / 2) * std::exp(-V * t / l));
    const double err = std::max({std::abs(run->q(k, "p2.x") - (l + V * std::cos(alpha) * t)),
                                 std::abs(run->q(k, "p2.y") - V * std::sin(alpha) * t),
                                 std::abs(std::remainder(std::atan2(dy, dx) - phiRef, 2 * M_PI))});
    worst = std::max(worst, err);
    REQUIRE(run->rec.energy[k].has_value());
    worstE = std::max(worstE, std::abs(*run->rec.energy[k] - E0) / E0);
  }
  INFO("max error of p2 and phi over 5 s: " << worst << "; relative energy error " << worstE);
  CHECK(worst < 1e-6);
  CHECK(worstE < 1e-8);
}

TEST_CASE("sinusoidally guided car: seed 001's reduced equations and energy", "[nonholonomic]") {
  // m y'' + k y = 0 (4.3); (1 + sin^2 wt) z'' + w sin wt cos wt z' = 0 (4.6, times sin wt),
  // whose first integral is sqrt(1 + sin^2 wt) z' = z'(0); x' = sin(wt) z' (4.5).
  // The constraint is homogeneous in the velocities, so the ideal force does no work:
  // E = m/2 |v|^2 + k/2 y^2 is constant (the spring is a generalized force, so E is computed here).
  const nlohmann::json doc = sceneJson("nh_guided_car.json");
  const double m = param(doc, "m"), k = param(doc, "k"), w = param(doc, "w"), y0 = param(doc, "y0"),
               vz0 = param(doc, "vz0");
  const auto run = simulate(doc, "nh_guided_car.json");
  const double E0 = 0.5 * m * vz0 * vz0 + 0.5 * k * y0 * y0;
  double worst = 0, worstE = 0;
  for (std::size_t i = 0; i < run->rec.size(); ++i) {
    const double t = run->rec.t[i], s = std::sin(w * t);
    const double vx = run->v(i, "car.x"), vy = run->v(i, "car.y"), vz = run->v(i, "car.z"), y = run->q(i, "car.y");
    const double err = std::max({std::abs(y - y0 * std::cos(std::sqrt(k / m) * t)),
                                 std::abs(std::sqrt(1 + s * s) * vz - vz0), std::abs(vx - s * vz)});
    worst = std::max(worst, err);
    worstE = std::max(worstE, std::abs(0.5 * m * (vx * vx + vy * vy + vz * vz) + 0.5 * k * y * y - E0) / E0);
  }
  INFO("max error of y, sqrt(1 + sin^2) z', x' over 10 s: " << worst << "; relative energy error " << worstE);
  CHECK(worst < 1e-6);
  CHECK(worstE < 1e-8);
}

namespace {

/// theta'' = Omega(t)^2 sin(theta) cos(theta) - (g/r) sin(theta), Omega = W0 + W1 sin t,
/// integrated by classical RK4 with step h.
struct HoopOde {
  double g, r, W0, W1;
  Eigen::Vector2d f(double t, const Eigen::Vector2d& y) const {
    const double W = W0 + W1 * std::sin(t);
    return {y(1), W * W * std::sin(y(0)) * std::cos(y(0)) - g / r * std::sin(y(0))};
  }
  Eigen::Vector2d step(double t, const Eigen::Vector2d& y, double h) const {
    const Eigen::Vector2d k1 = f(t, y), k2 = f(t + h / 2, y + h / 2 * k1), k3 = f(t + h / 2, y + h / 2 * k2),
                          k4 = f(t + h, y + h * k3);
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
};

}  // namespace

TEST_CASE("bead on a hoop turning at a prescribed rate follows the reduced equation", "[nonholonomic]") {
  nlohmann::json doc = sceneJson("nh_bead_on_rotating_hoop.json");
  const double m = param(doc, "m"), r = param(doc, "r"), g = param(doc, "g"), W0 = param(doc, "W0"),
               W1 = param(doc, "W1"), theta0 = param(doc, "theta0");
  SECTION("Omega(t) = W0 + W1 sin t: theta(t) against RK4 on the reduced equation") {
    const auto run = simulate(doc, "nh_bead_on_rotating_hoop.json");
    const HoopOde ode{g, r, W0, W1};
    // RK4 with h = 1e-4: global error ~ h^4 * O(10^2..10^3) < 1e-12, far below the tolerance
    const double h = 1e-4;
    Eigen::Vector2d y(theta0, 0.0);
    double t = 0, worst = 0;
    for (std::size_t k = 0; k < run->rec.size(); ++k) {
      const double tk = run->rec.t[k];
      while (t < tk - 1e-12) {
        const double hh = std::min(h, tk - t);
        y = ode.step(t, y, hh);
        t += hh;
      }
      const double alpha = W0 * tk + W1 * (1 - std::cos(tk));
      const double rho = run->q(k, "bead.x") * std::cos(alpha) + run->q(k, "bead.y") * std::sin(alpha);
      const double theta = std::atan2(rho, -run->q(k, "bead.z"));
      worst = std::max(worst, std::abs(std::remainder(theta - y(0), 2 * M_PI)));
    }
    INFO("max |theta - theta_reduced| over 5 s: " << worst);
    CHECK(worst < 1e-6);
    CHECK(run->result.stats.maxPositionResidual < 1e-9);
  }
  SECTION("constant Omega: the Jacobi integral T2 - T0 + V is conserved (T + V is not)") {
    doc["parameters"]["W1"] = 0.0;
    const auto run = simulate(doc, "nh_bead_on_rotating_hoop.json");
    auto jacobi = [&](std::size_t k) {
      const double x = run->q(k, "bead.x"), y = run->q(k, "bead.y"), z = run->q(k, "bead.z");
      const double vx = run->v(k, "bead.x"), vy = run->v(k, "bead.y"), vz = run->v(k, "bead.z");
      // T = T2 + T0 (T1 = 0: the hoop's transport velocity is normal to the hoop); T0 = m/2 W0^2 rho^2
      const double T = 0.5 * m * (vx * vx + vy * vy + vz * vz), T0 = 0.5 * m * W0 * W0 * (x * x + y * y);
      return T - 2 * T0 + m * g * z;
    };
    const double J0 = jacobi(0);
    double worst = 0, energySwing = 0;
    for (std::size_t k = 0; k < run->rec.size(); ++k) {
      worst = std::max(worst, std::abs(jacobi(k) - J0));
      energySwing = std::max(energySwing, std::abs(*run->rec.energy[k] - *run->rec.energy[0]));
    }
    INFO("max |J - J0| over 5 s: " << worst << " (|J0| = " << std::abs(J0) << "); T + V varies by " << energySwing);
    CHECK(worst < 1e-8 * std::max(1.0, std::abs(J0)));
    CHECK(energySwing > 0.1);  // the drive does work: T + V is not an invariant here
  }
}

namespace {

/// The disk's axis n (third column of the rotation of the unit quaternion e).
Eigen::Vector3d diskAxis(const Run& run, std::size_t k) {
  const double e0 = run.q(k, "disk.e0"), e1 = run.q(k, "disk.e1"), e2 = run.q(k, "disk.e2"), e3 = run.q(k, "disk.e3");
  return {2 * (e1 * e3 + e0 * e2), 2 * (e2 * e3 - e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3};
}

}  // namespace

TEST_CASE("rolling thin disk: the steady turn stays steady; energy is conserved", "[nonholonomic]") {
  nlohmann::json doc = sceneJson("nh_rolling_disk.json");
  const double R = param(doc, "R"), tilt = param(doc, "tilt"), Omega = param(doc, "Omega"), w3 = param(doc, "w3");
  SECTION("steady turn: constant tilt and height, precession at Omega, centre on a circle of radius R w3 / Omega") {
    const auto run = simulate(doc, "nh_rolling_disk.json");
    const double rho = R * w3 / Omega;
    const Eigen::Vector2d centre(R * std::sin(tilt) + rho, 0.0);
    double worst = 0, worstE = 0;
    for (std::size_t k = 0; k < run->rec.size(); ++k) {
      const double t = run->rec.t[k];
      const Eigen::Vector3d n = diskAxis(*run, k);
      const Eigen::Vector3d nRef(std::cos(tilt) * std::cos(Omega * t), std::cos(tilt) * std::sin(Omega * t), -std::sin(tilt));
      const Eigen::Vector2d gRef = centre + rho * Eigen::Vector2d(-std::cos(Omega * t), -std::sin(Omega * t));
      const Eigen::Vector2d g(run->q(k, "disk.x"), run->q(k, "disk.y"));
      const double err = std::max({(n - nRef).cwiseAbs().maxCoeff(), (g - gRef).cwiseAbs().maxCoeff(),
                                   std::abs(run->q(k, "disk.z") - R * std::cos(tilt))});
      worst = std::max(worst, err);
      worstE = std::max(worstE, std::abs(*run->rec.energy[k] - *run->rec.energy[0]) / std::abs(*run->rec.energy[0]));
    }
    INFO("max deviation from the steady turn over 5 s: " << worst << "; relative energy error " << worstE);
    CHECK(worst < 1e-6);
    CHECK(worstE < 1e-8);
  }
  SECTION("perturbed (wobbling) motion: energy conserved, contact kept") {
    doc["bodies"][0]["angular_velocity"][1] = 0.5;  // a tilting rate: the disk wobbles
    const auto run = simulate(doc, "nh_rolling_disk.json");
    double worstE = 0, tiltSwing = 0;
    const double nz0 = diskAxis(*run, 0).z();
    for (std::size_t k = 0; k < run->rec.size(); ++k) {
      worstE = std::max(worstE, std::abs(*run->rec.energy[k] - *run->rec.energy[0]) / std::abs(*run->rec.energy[0]));
      tiltSwing = std::max(tiltSwing, std::abs(diskAxis(*run, k).z() - nz0));
    }
    INFO("relative energy error " << worstE << "; the axis' vertical component varies by " << tiltSwing);
    CHECK(worstE < 1e-8);
    CHECK(tiltSwing > 1e-2);  // the motion is not the steady one
    CHECK(run->result.stats.maxPositionResidual < 1e-9);
    CHECK(run->result.stats.maxVelocityResidual < 1e-9);
  }
}

}  // namespace joinery

namespace joinery {

TEST_CASE("dumbbell with a turning knife edge: kinetic energy is a constant of the motion", "[nonholonomic]") {
  // Seed 003, Example 4.13: the knife edge on p1 turns at W relative to the rod. The
  // constraint is rheonomic, yet homogeneous in the velocities (psi = n(q, t) . v1), so the
  // actual motion is a virtual displacement and the ideal force does no work: T = const
  // ("E = T is a constant of the motion even though T is an explicit function of time").
  // Tolerances: as for the other scenes (energy 1e-8 relative); the knife-edge residual is
  // held by the velocity projection after every step (tolerance 1e-12), so 1e-9 is loose.
  const nlohmann::json doc = sceneJson("nh_rotating_knife_edge_dumbbell.json");
  const double m = param(doc, "m"), l = param(doc, "l"), v0 = param(doc, "v0"), w0 = param(doc, "w0");
  const auto run = simulate(doc, "nh_rotating_knife_edge_dumbbell.json");
  const double E0 = 0.5 * m * (2 * v0 * v0 + l * l * w0 * w0);
  double worstE = 0, worstEdge = 0;
  const double W = param(doc, "W");
  for (std::size_t k = 0; k < run->rec.size(); ++k) {
    REQUIRE(run->rec.energy[k].has_value());
    worstE = std::max(worstE, std::abs(*run->rec.energy[k] - E0) / E0);
    // the knife edge holds: p1's velocity normal to the turned edge is zero
    const double t = run->rec.t[k];
    const double dx = run->q(k, "p2.x") - run->q(k, "p1.x"), dy = run->q(k, "p2.y") - run->q(k, "p1.y");
    const double ex = dx * std::cos(W * t) - dy * std::sin(W * t), ey = dx * std::sin(W * t) + dy * std::cos(W * t);
    worstEdge = std::max(worstEdge, std::abs(-ey * run->v(k, "p1.x") + ex * run->v(k, "p1.y")));
  }
  INFO("relative kinetic-energy error over 10 s: " << worstE << "; knife-edge residual " << worstEdge);
  CHECK(worstE < 1e-8);
  CHECK(worstEdge < 1e-9);
}

}  // namespace joinery
