// Static equilibrium and linearised modes against closed forms.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "joinery/analyses/analyses.hpp"
#include "joinery/core/scene.hpp"

namespace joinery {
namespace {

using nlohmann::json;
const double kPi = std::acos(-1.0);
const double kG = 9.81;

Scene load(json bodies, json joints, json forces, double g = kG) {
  json doc = {{"joinery", 1}, {"gravity", {0, -g, 0}}, {"bodies", bodies}, {"joints", joints}, {"forces", forces}};
  return sceneFromJson(doc, "");
}

int coord(const Model& m, const std::string& name) {
  const auto& n = m.coordinateNames();
  const auto it = std::find(n.begin(), n.end(), name);
  REQUIRE(it != n.end());
  return static_cast<int>(it - n.begin());
}

json particle(const std::string& name, double mass, json pos) {
  return {{"name", name}, {"type", "particle"}, {"mass", mass}, {"position", pos}, {"dim", pos.size()}};
}

json spring(const std::string& b1, const std::string& b2, double k, double l0) {
  return {{"name", "s_" + b1 + "_" + b2}, {"type", "spring"}, {"body1", b1}, {"point1", {0, 0}},
          {"body2", b2}, {"point2", {0, 0}}, {"stiffness", k}, {"free_length", l0}};
}

TEST_CASE("pendulum: equilibrium hanging down, stable, frequency sqrt(g/L)/(2 pi)", "[analyses][modes]") {
  const double L = 2.0;
  // a particle in absolute coordinates on a distance joint: the whole stiffness of the swing is
  // the geometric stiffness of the rod force (-d(A^T lambda)/dq), zero without it
  const Scene s = load(json::array({particle("bob", 1.5, {L * std::sin(0.4), -L * std::cos(0.4)})}),
                       json::array({{{"name", "rod"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {0, 0}},
                                     {"body2", "bob"}, {"point2", {0, 0}}, {"length", L}}}),
                       json::array());
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  INFO(eq.message);
  REQUIRE(eq.converged);
  CHECK(eq.stable);
  CHECK(std::abs(eq.state.q(0)) < 1e-9);
  CHECK(std::abs(eq.state.q(1) + L) < 1e-9);
  CHECK(eq.freeDirections == 1);
  const ModesResult md = computeModes(s.model, eq.state);
  REQUIRE(md.frequenciesHz.size() == 1);
  const double f = std::sqrt(kG / L) / (2 * kPi);
  // finite-difference tangent stiffness: 1e-7 relative is far above its error (~1e-10)
  CHECK(std::abs(md.frequenciesHz[0] - f) < 1e-7 * f);
  CHECK(md.zeroModes == 0);
  CHECK(std::abs(md.shapes[0](0)) == Approx(1.0));  // swing: horizontal
  CHECK(std::abs(md.shapes[0](1)) < 1e-6);
}

TEST_CASE("spring chains: two and three masses against the closed-form eigenfrequencies", "[analyses][modes]") {
  SECTION("wall - k1 - m1 - k2 - m2") {
    const double k1 = 100, k2 = 50, m1 = 1, m2 = 2;
    const Scene s = load(json::array({particle("a", m1, {1.0}), particle("b", m2, {2.0})}), json::array(),
                         json::array({spring("ground", "a", k1, 1.0), spring("a", "b", k2, 1.0)}), 0.0);
    const ModesResult md = computeModes(s.model, s.model.initialState());
    // m1 m2 w^4 - (m1 k2 + m2 (k1 + k2)) w^2 + k1 k2 = 0
    const double B = m1 * k2 + m2 * (k1 + k2), disc = std::sqrt(B * B - 4 * m1 * m2 * k1 * k2);
    const double w1 = std::sqrt((B - disc) / (2 * m1 * m2)), w2 = std::sqrt((B + disc) / (2 * m1 * m2));
    REQUIRE(md.frequenciesHz.size() == 2);
    CHECK(md.frequenciesHz[0] == Approx(w1 / (2 * kPi)).epsilon(1e-8));
    CHECK(md.frequenciesHz[1] == Approx(w2 / (2 * kPi)).epsilon(1e-8));
  }
  SECTION("wall - k - m - k - m - k - m (free end)") {
    const double k = 400, m = 0.5;
    const Scene s = load(json::array({particle("a", m, {1.0}), particle("b", m, {2.0}), particle("c", m, {3.0})}),
                         json::array(),
                         json::array({spring("ground", "a", k, 1.0), spring("a", "b", k, 1.0), spring("b", "c", k, 1.0)}), 0.0);
    const ModesResult md = computeModes(s.model, s.model.initialState());
    REQUIRE(md.frequenciesHz.size() == 3);
    for (int j = 1; j <= 3; ++j) {  // w_j = 2 sqrt(k/m) sin((2j - 1) pi / (2 (2N + 1)))
      const double w = 2 * std::sqrt(k / m) * std::sin((2 * j - 1) * kPi / 14);
      CHECK(md.frequenciesHz[static_cast<std::size_t>(j - 1)] == Approx(w / (2 * kPi)).epsilon(1e-8));
    }
  }
}

/// Euler-Bernoulli cantilever, `ne` Hermite elements (consistent mass), root clamped:
/// coordinates w1, th1, ..., w_ne, th_ne.
json cantileverBody(int ne, double EI, double rhoA, double Lt) {
  const int n = 2 * ne;
  std::vector<std::vector<double>> M(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), 0.0)), K = M;
  const double l = Lt / ne;
  const double ke[4][4] = {{12, 6 * l, -12, 6 * l}, {6 * l, 4 * l * l, -6 * l, 2 * l * l},
                           {-12, -6 * l, 12, -6 * l}, {6 * l, 2 * l * l, -6 * l, 4 * l * l}};
  const double me[4][4] = {{156, 22 * l, 54, -13 * l}, {22 * l, 4 * l * l, 13 * l, -3 * l * l},
                           {54, 13 * l, 156, -22 * l}, {-13 * l, -3 * l * l, -22 * l, 4 * l * l}};
  for (int e = 0; e < ne; ++e)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const int gi = 2 * e + i - 2, gj = 2 * e + j - 2;  // the root's two dofs are clamped
        if (gi < 0 || gj < 0) continue;
        K[static_cast<std::size_t>(gi)][static_cast<std::size_t>(gj)] += EI / (l * l * l) * ke[i][j];
        M[static_cast<std::size_t>(gi)][static_cast<std::size_t>(gj)] += rhoA * l / 420 * me[i][j];
      }
  json coords = json::array();
  for (int i = 1; i <= ne; ++i) coords.push_back("w" + std::to_string(i)), coords.push_back("th" + std::to_string(i));
  return {{"name", "beam"}, {"type", "linear"}, {"coordinates", coords}, {"mass_matrix", M}, {"stiffness_matrix", K}};
}

TEST_CASE("FE cantilever: first bending frequencies against Euler-Bernoulli", "[analyses][modes]") {
  const double EI = 2.1e11 * 1e-6, rhoA = 7850 * 1e-3, Lt = 2.0;
  const Scene s = load(json::array({cantileverBody(10, EI, rhoA, Lt)}), json::array(), json::array(), 0.0);
  const ModesResult md = computeModes(s.model, s.model.initialState(), ModesOptions{3});
  REQUIRE(md.frequenciesHz.size() == 3);
  const double base = std::sqrt(EI / (rhoA * std::pow(Lt, 4))) / (2 * kPi);
  const double f1 = 1.87510407 * 1.87510407 * base, f2 = 4.69409113 * 4.69409113 * base;
  const double e1 = md.frequenciesHz[0] / f1 - 1, e2 = md.frequenciesHz[1] / f2 - 1;
  INFO("f1 " << md.frequenciesHz[0] << " (exact " << f1 << ", rel. error " << e1 << "), f2 "
             << md.frequenciesHz[1] << " (exact " << f2 << ", rel. error " << e2 << ")");
  // consistent-mass Hermite elements converge from above (h^4 in the frequency): with 10
  // elements this build measures a discretisation error of 8.5e-7 (mode 1) and 3.3e-5 (mode 2)
  CHECK(e1 >= 0);
  CHECK(e1 < 1e-5);
  CHECK(e2 >= 0);
  CHECK(e2 < 1e-4);
  CHECK(md.shapes[0](md.shapes[0].size() - 2) == Approx(1.0));  // tip deflection largest
}

TEST_CASE("pendulum on a spring: radial and swing modes need the stretched equilibrium", "[analyses][modes][equilibrium]") {
  const double k = 200, m = 2, L0 = 1;
  const Scene s = load(json::array({particle("bob", m, {0.3, -0.8})}), json::array(),
                       json::array({spring("ground", "bob", k, L0)}));
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  INFO(eq.message);
  REQUIRE(eq.converged);
  CHECK(eq.stable);
  const double Leq = L0 + m * kG / k;
  CHECK(std::abs(eq.state.q(0)) < 1e-9);
  CHECK(eq.state.q(1) == Approx(-Leq).epsilon(1e-10));
  const ModesResult md = computeModes(s.model, eq.state);
  REQUIRE(md.frequenciesHz.size() == 2);
  // swing: the spring's tension m g over its length acts as geometric stiffness, w^2 = g / Leq;
  // radial: w^2 = k / m
  CHECK(md.frequenciesHz[0] == Approx(std::sqrt(kG / Leq) / (2 * kPi)).epsilon(1e-7));
  CHECK(md.frequenciesHz[1] == Approx(std::sqrt(k / m) / (2 * kPi)).epsilon(1e-7));
}

TEST_CASE("equilibrium: two-bar linkage under a horizontal tip load", "[analyses][equilibrium]") {
  // two uniform bars (m, L) hanging from a pin, a force F in +x at the tip:
  // tan th1 = F / (1.5 m g), tan th2 = 2 F / (m g) (angles from the downward vertical)
  const double m = 2, L = 1, F = 15;
  auto bar = [&](const std::string& name, double x, double y) {
    return json{{"name", name}, {"type", "rigid2d"}, {"mass", m}, {"inertia", m * L * L / 12},
                {"position", {x, y}}, {"angle", -kPi / 2}};
  };
  const Scene s = load(json::array({bar("b1", 0, -0.5), bar("b2", 0, -1.5)}),
                       json::array({{{"name", "p1"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                                     {"body2", "b1"}, {"point2", {-0.5, 0}}},
                                    {{"name", "p2"}, {"type", "revolute2d"}, {"body1", "b1"}, {"point1", {0.5, 0}},
                                     {"body2", "b2"}, {"point2", {-0.5, 0}}}}),
                       json::array({{{"name", "load"}, {"type", "force"}, {"body", "b2"}, {"point", {0.5, 0}},
                                     {"value", {F, 0}}}}));
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  INFO(eq.message);
  REQUIRE(eq.converged);
  CHECK(eq.stable);
  const double th1 = std::atan(F / (1.5 * m * kG)), th2 = std::atan(2 * F / (m * kG));
  // bar angle phi = -pi/2 + th
  CHECK(eq.state.q(coord(s.model, "b1.theta")) == Approx(-kPi / 2 + th1).epsilon(1e-9));
  CHECK(eq.state.q(coord(s.model, "b2.theta")) == Approx(-kPi / 2 + th2).epsilon(1e-9));
}

TEST_CASE("no equilibrium: a net force along a free direction is named", "[analyses][equilibrium]") {
  const Scene s = load(json::array({particle("ball", 1, {0.0, 0.0})}), json::array(), json::array());
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  CHECK_FALSE(eq.converged);
  REQUIRE_FALSE(eq.direction.empty());
  CHECK(eq.direction[0].first == "ball.y");
  CHECK(std::abs(eq.direction[0].second) == Approx(1.0));
  CHECK(eq.message.find("ball.y") != std::string::npos);
}

TEST_CASE("unstable equilibrium: the inverted pendulum", "[analyses][equilibrium][modes]") {
  const double L = 1;
  const Scene s = load(json::array({particle("bob", 1, {0.0, L})}),
                       json::array({{{"name", "rod"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {0, 0}},
                                     {"body2", "bob"}, {"point2", {0, 0}}, {"length", L}}}),
                       json::array());
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  REQUIRE(eq.converged);
  CHECK_FALSE(eq.stable);
  CHECK(eq.minStiffness == Approx(-kG).epsilon(1e-6));  // -m g / L
  const ModesResult md = computeModes(s.model, eq.state);
  CHECK(md.unstableModes == 1);
  REQUIRE(md.frequenciesHz.size() == 1);
  CHECK(md.frequenciesHz[0] == Approx(-std::sqrt(kG / L) / (2 * kPi)).epsilon(1e-7));
}

TEST_CASE("free rigid-body motion: zero frequencies, never NaN", "[analyses][modes]") {
  const double k = 300, m1 = 1, m2 = 3;
  const Scene s = load(json::array({particle("a", m1, {0.0, 0.0}), particle("b", m2, {1.0, 0.0})}), json::array(),
                       json::array({spring("a", "b", k, 1.0)}), 0.0);
  const ModesResult md = computeModes(s.model, s.model.initialState());
  REQUIRE(md.frequenciesHz.size() == 4);
  CHECK(md.zeroModes == 3);  // two translations and the rotation (spring at its free length)
  for (int i = 0; i < 3; ++i) CHECK(md.frequenciesHz[static_cast<std::size_t>(i)] == 0.0);
  for (double f : md.frequenciesHz) CHECK(std::isfinite(f));
  for (double z : md.dampingRatios) CHECK(std::isfinite(z));
  const double mu = m1 * m2 / (m1 + m2);
  CHECK(md.frequenciesHz[3] == Approx(std::sqrt(k / mu) / (2 * kPi)).epsilon(1e-8));
}

TEST_CASE("a mechanism at a singular position: the extra first-order freedom, finite", "[analyses][modes][equilibrium]") {
  // a 2 kg bob held by two rods (L = 1) from (0, 0) and (0, -2): the rods are in line, the
  // two circles touch at (0, -1) and the rows are dependent (rank 1 of 2); a horizontal
  // spring k_h = 50 N/m holds the bob sideways. Gravity is carried by the rods, split between
  // them by the minimum-norm multipliers (+-m g / 2, the split is not unique); their geometric
  // stiffnesses (T1 + T2) / L then cancel and the one free direction of the linearisation,
  // x, vibrates at sqrt(k_h / m). Nothing is NaN, the redundant row is not an error.
  const double m = 2, kh = 50;
  json rod1 = {{"name", "rod1"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {0, 0}},
               {"body2", "bob"}, {"point2", {0, 0}}, {"length", 1.0}};
  json rod2 = rod1;
  rod2["name"] = "rod2";
  rod2["point1"] = {0, -2};
  json side = {{"name", "side"}, {"type", "spring"}, {"body1", "ground"}, {"point1", {-1, -1}},
               {"body2", "bob"}, {"point2", {0, 0}}, {"stiffness", kh}, {"free_length", 1.0}};
  const Scene s = load(json::array({particle("bob", m, {0.0, -1.0})}), json::array({rod1, rod2}), json::array({side}));
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  INFO(eq.message);
  REQUIRE(eq.converged);
  CHECK(std::abs(eq.state.q(0)) < 1e-9);
  CHECK(eq.state.q(1) == Approx(-1.0).epsilon(1e-9));
  const ModesResult md = computeModes(s.model, eq.state);
  CHECK(md.freeDirections == 1);
  REQUIRE(md.frequenciesHz.size() == 1);
  CHECK(std::isfinite(md.frequenciesHz[0]));
  CHECK(md.frequenciesHz[0] == Approx(std::sqrt(kh / m) / (2 * kPi)).epsilon(1e-6));
  CHECK(std::abs(md.shapes[0](coord(s.model, "bob.x"))) == Approx(1.0));
}

TEST_CASE("massless coordinate condensed: springs in series", "[analyses][modes]") {
  // wall - k1 - (massless point) - k2 - m2: one mode, w^2 = k1 k2 / ((k1 + k2) m2); the
  // massless point follows statically and is counted as excluded
  const double k1 = 100, k2 = 50, m2 = 2, c = 3;
  json sp2 = spring("p", "b", k2, 1.0);
  sp2["damping"] = c;
  const Scene s = load(json::array({particle("p", 0.0, {1.0}), particle("b", m2, {2.0})}), json::array(),
                       json::array({spring("ground", "p", k1, 1.0), sp2}), 0.0);
  const ModesResult md = computeModes(s.model, s.model.initialState());
  CHECK(md.masslessExcluded == 1);
  REQUIRE(md.frequenciesHz.size() == 1);
  const double w = std::sqrt(k1 * k2 / ((k1 + k2) * m2));
  CHECK(md.frequenciesHz[0] == Approx(w / (2 * kPi)).epsilon(1e-8));
  // the massless point moves k2 / (k1 + k2) of the mass's displacement
  CHECK(md.shapes[0](0) == Approx(k2 / (k1 + k2)).epsilon(1e-8));
  // modal damping of the condensed dashpot: c (1 - k2/(k1+k2))^2 / (2 m2 w)
  const double r = 1 - k2 / (k1 + k2);
  CHECK(md.dampingRatios[0] == Approx(c * r * r / (2 * m2 * w)).epsilon(1e-6));
}

}  // namespace
}  // namespace joinery
