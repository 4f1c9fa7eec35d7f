// Static equilibrium from far starts: starts from which Newton's method with its
// line search (and Levenberg–Marquardt steps) does not reach the stable equilibrium — it
// stalls, or it converges to an unstable one a released mechanism would leave — so the
// fallback (dynamic relaxation, and leaving an unstable equilibrium along its unstable
// direction) must; the state is checked against the closed form. Each case first runs the
// search without the fallback (EquilibriumOptions::fallback = false) to show that it does not
// suffice, so a test would fail if the fallback were removed or did nothing.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "joinery/analyses/analyses.hpp"
#include "joinery/core/scene.hpp"

namespace joinery {
namespace {

using nlohmann::json;
const double kPiFar = std::acos(-1.0);
const double kGFar = 9.81;

Scene loadFar(json bodies, json joints, json forces, double g = kGFar) {
  json doc = {{"joinery", 1}, {"gravity", {0, -g, 0}}, {"bodies", bodies}, {"joints", joints}, {"forces", forces}};
  return sceneFromJson(doc, "");
}

json particleFar(const std::string& name, double mass, json pos) {
  return {{"name", name}, {"type", "particle"}, {"mass", mass}, {"position", pos}, {"dim", pos.size()}};
}

json groundSpring(const std::string& name, json p1, double k, double l0) {
  return {{"name", name}, {"type", "spring"}, {"body1", "ground"}, {"point1", p1}, {"body2", "bob"},
          {"point2", {0, 0}}, {"stiffness", k}, {"free_length", l0}};
}

EquilibriumOptions plainNewton() {
  EquilibriumOptions o;
  o.fallback = false;
  return o;
}

// Tolerances: the search stops at a residual force of 1e-9 of the start's largest force, so
// positions are within ~1e-9 relative of the closed form (the reduced stiffness is of the
// order of the forces per unit length in these models); 1e-8 leaves a margin.
constexpr double kPos = 1e-8;

TEST_CASE("equilibrium far start: a spring-hung mass started above its anchor", "[analyses][equilibrium][fallback]") {
  // m = 2 kg on a spring (k = 200 N/m, L0 = 1 m) from the origin. Started 3 m above the
  // anchor, Newton goes straight to the unstable equilibrium above it, the spring compressed
  // to carry the weight: y = L0 - m g / k (closed form), tangential stiffness k (1 - L0 / r)
  // < 0. The stable one hangs below: y = -(L0 + m g / k).
  const double k = 200, m = 2, L0 = 1;
  const Scene s = loadFar(json::array({particleFar("bob", m, {0.0, 3.0})}), json::array(),
                       json::array({groundSpring("s", {0, 0}, k, L0)}));
  const EquilibriumResult plain = findEquilibrium(s.model, s.model.initialState(), plainNewton());
  INFO(plain.message);
  REQUIRE(plain.converged);
  CHECK_FALSE(plain.stable);
  CHECK(plain.state.q(1) == Approx(L0 - m * kGFar / k).epsilon(kPos));
  CHECK(plain.minStiffness == Approx(k * (1 - L0 / (L0 - m * kGFar / k))).epsilon(1e-6));

  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  INFO(eq.message);
  REQUIRE(eq.converged);
  CHECK(eq.usedFallback);
  CHECK(eq.escapedUnstable);
  CHECK(eq.stable);
  CHECK(std::abs(eq.state.q(0)) < kPos);
  CHECK(eq.state.q(1) == Approx(-(L0 + m * kGFar / k)).epsilon(kPos));
  CHECK(eq.residual <= 1e-9 * (k * 2 + m * kGFar));  // 1e-9 of the start's force k (3 - L0) + m g
  CHECK(eq.minStiffness == Approx(m * kGFar / (L0 + m * kGFar / k)).epsilon(1e-6));  // swing: tension / length
}

TEST_CASE("equilibrium far start: a spring-hung mass started at its anchor, where Newton stalls",
          "[analyses][equilibrium][fallback]") {
  // at the anchor the spring's direction is undefined: Newton and Levenberg–Marquardt find no
  // descent and stop there; dynamic relaxation moves off and finds the hanging state
  const double k = 200, m = 2, L0 = 1;
  const Scene s = loadFar(json::array({particleFar("bob", m, {0.0, 0.0})}), json::array(),
                       json::array({groundSpring("s", {0, 0}, k, L0)}));
  const EquilibriumResult plain = findEquilibrium(s.model, s.model.initialState(), plainNewton());
  INFO(plain.message);
  CHECK_FALSE((plain.converged && plain.stable));
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  INFO(eq.message);
  REQUIRE(eq.converged);
  CHECK(eq.usedFallback);
  CHECK(eq.relaxed);
  CHECK(eq.stable);
  CHECK(std::abs(eq.state.q(0)) < kPos);
  CHECK(eq.state.q(1) == Approx(-(L0 + m * kGFar / k)).epsilon(kPos));
}

TEST_CASE("equilibrium far start: a two-bar linkage started upside down", "[analyses][equilibrium][fallback]") {
  // two uniform bars (2 kg, 1 m) from a pin, 15 N horizontal at the tip; closed form of the
  // stable state tan th1 = F / (1.5 m g), tan th2 = 2 F / (m g) from the downward vertical.
  // Started with the upper bar (nearly) upright, Newton converges to an equilibrium with
  // that bar upright (unstable); the fallback must bring both bars down.
  const double m = 2, L = 1, F = 15;
  const double th1 = std::atan(F / (1.5 * m * kGFar)), th2 = std::atan(2 * F / (m * kGFar));
  for (const auto& [a1, a2] : std::vector<std::pair<double, double>>{{3.0, 0.0}, {3.1, 3.1}, {-2.5, 1.5}}) {
    auto bar = [&](const std::string& name, double x, double y, double ang) {
      return json{{"name", name}, {"type", "rigid2d"}, {"mass", m}, {"inertia", m * L * L / 12},
                  {"position", {x, y}}, {"angle", ang}};
    };
    // a1, a2: the bars' angles from the downward vertical; the joints are satisfied
    const double p1 = -kPiFar / 2 + a1, p2 = -kPiFar / 2 + a2;
    const double x1 = 0.5 * std::cos(p1), y1 = 0.5 * std::sin(p1);
    const double x2 = 2 * x1 + 0.5 * std::cos(p2), y2 = 2 * y1 + 0.5 * std::sin(p2);
    const Scene s = loadFar(json::array({bar("b1", x1, y1, p1), bar("b2", x2, y2, p2)}),
                         json::array({{{"name", "p1"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                                       {"body2", "b1"}, {"point2", {-0.5, 0}}},
                                      {{"name", "p2"}, {"type", "revolute2d"}, {"body1", "b1"}, {"point1", {0.5, 0}},
                                       {"body2", "b2"}, {"point2", {-0.5, 0}}}}),
                         json::array({{{"name", "load"}, {"type", "force"}, {"body", "b2"}, {"point", {0.5, 0}},
                                       {"value", {F, 0}}}}));
    INFO("start a1 = " << a1 << ", a2 = " << a2);
    const EquilibriumResult plain = findEquilibrium(s.model, s.model.initialState(), plainNewton());
    INFO("plain Newton: " << plain.message);
    CHECK_FALSE((plain.converged && plain.stable));
    const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
    INFO(eq.message);
    REQUIRE(eq.converged);
    CHECK(eq.usedFallback);
    CHECK(eq.stable);
    // angles modulo 2 pi (a bar may come down either way round)
    const auto angleNear = [](double a, double b) { return std::abs(std::remainder(a - b, 2 * kPiFar)) < kPos; };
    CHECK(angleNear(eq.state.q(2), -kPiFar / 2 + th1));
    CHECK(angleNear(eq.state.q(5), -kPiFar / 2 + th2));
    CHECK(eq.state.q(0) == Approx(0.5 * std::sin(th1)).margin(kPos));
    CHECK(eq.state.q(1) == Approx(-0.5 * std::cos(th1)).margin(kPos));
    CHECK(eq.residual < 1e-9 * 100);  // 1e-9 of the start's largest force (< 100 N here)
    CHECK(eq.constraintResidual <= 1e-10);
  }
}

TEST_CASE("equilibrium far start: a snap-through truss with two stable states", "[analyses][equilibrium][fallback]") {
  // a 1 kg particle between two springs (k = 1000 N/m) anchored at (-1, 0) and (1, 0), free
  // length sqrt(1 + h^2), no gravity: stable at (0, +h) and (0, -h) (springs unstressed);
  // (0, 0) is an equilibrium too, the springs compressed, unstable vertically:
  // stiffness 2 k (1 - L0). Started near the middle, Newton finds the unstable middle; the
  // reported state must be one of the two stable ones.
  const double k = 1000, h = 0.5, L0 = std::sqrt(1 + h * h);
  const Scene s = loadFar(json::array({particleFar("bob", 1.0, {0.3, 0.02})}), json::array(),
                       json::array({groundSpring("left", {-1, 0}, k, L0), groundSpring("right", {1, 0}, k, L0)}), 0.0);
  const EquilibriumResult plain = findEquilibrium(s.model, s.model.initialState(), plainNewton());
  INFO(plain.message);
  REQUIRE(plain.converged);
  CHECK_FALSE(plain.stable);
  CHECK(std::abs(plain.state.q(1)) < kPos);
  CHECK(plain.minStiffness == Approx(2 * k * (1 - L0)).epsilon(1e-6));
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  INFO(eq.message);
  REQUIRE(eq.converged);
  CHECK(eq.usedFallback);
  CHECK(eq.escapedUnstable);
  CHECK(eq.stable);
  CHECK(std::abs(eq.state.q(0)) < kPos);
  CHECK(std::abs(eq.state.q(1)) == Approx(h).epsilon(kPos));
  // at either stable state the springs are unstressed: x stiffness 2 k (1/L0)^2, y 2 k (h/L0)^2
  CHECK(eq.minStiffness == Approx(2 * k * h * h / (L0 * L0)).epsilon(1e-6));
}

TEST_CASE("equilibrium: a start at an unstable equilibrium is reported as it is", "[analyses][equilibrium][fallback]") {
  // the fallback leaves an unstable equilibrium only when the search moved to it: a state
  // given at rest on one (the inverted pendulum) is the answer to "is this an equilibrium"
  const Scene s = loadFar(json::array({particleFar("bob", 1, {0.0, 1.0})}),
                       json::array({{{"name", "rod"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {0, 0}},
                                     {"body2", "bob"}, {"point2", {0, 0}}, {"length", 1.0}}}),
                       json::array());
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  REQUIRE(eq.converged);
  CHECK_FALSE(eq.stable);
  CHECK_FALSE(eq.usedFallback);
  CHECK(eq.state.q(1) == Approx(1.0));
}

}  // namespace
}  // namespace joinery
