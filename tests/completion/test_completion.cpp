// Completing massless points: the missing force balance along each massless direction
// (core/completion.hpp, docs/completion.md), validated against the equations of motion of
// Udwadia & Phohomsiri, Proc. R. Soc. A 462 (2006) 2097-2117 (seed 002), Example 3:
// wall - k1 - m1 - k2 - m2 on a line, assembled from two substructures joined by q1 = x1 + d.
//
//   m1 = 0 (paper eqs. 5.40-5.48): the balance k1 (x1 - l10) = k2 (q2 - q1 - l20) holds at
//     every instant; m2 moves on the two springs in series,
//       m2 q2'' = -k1 k2 / (k1 + k2) (q2 - d - l10 - l20),   x1'' = q1'' = k2 / (k1 + k2) q2''.
//   m2 = 0 (paper eqs. 5.49-5.56): no force in spring k2, q2 - q1 - l20 = 0, and
//       m1 x1'' = -k1 (x1 - l10),   q1'' = q2'' = x1''.
//
// Tolerance of the comparisons: 1e-12 relative to the largest acceleration. The completed
// models are well posed with [M; A] of condition number below ~1e3 for these parameters,
// and the dense solver's pseudo-inverse loses a few digits at most: the agreement is exact
// to round-off, while a wrong balance (another sign, a missing term) changes the
// accelerations at order 1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "joinery/core/completion.hpp"
#include "joinery/core/expression.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/core/scene_completion.hpp"
#include "joinery/core/forward_dynamics.hpp"

using namespace joinery;

namespace {

struct Params {
  double k1 = 100, k2 = 50, l10 = 1, l20 = 1, d = 0.1, m1 = 1, m2 = 2;
};

/// Seed 002 Example 3 as in examples/scenes/two_springs.json: a particle on a spring to the
/// wall, and a linear body (spring k2 between q1 and the mass m2 at q2). When `expressionBody`
/// the second substructure is an `expression` body with the same force instead.
nlohmann::json twoSprings(const Params& p, bool expressionBody = false, bool complete = false) {
  nlohmann::json chain;
  if (expressionBody) {
    chain = {{"name", "chain"},
             {"type", "expression"},
             {"coordinates", {"q1", "q2"}},
             {"mass_matrix", {{0, 0}, {0, p.m2}}},
             {"force", {"k*(q2 - q1 - l0)", "-k*(q2 - q1 - l0)"}},
             {"q0", {1.2, 2.4}}};
  } else {
    chain = {{"name", "chain"},
             {"type", "linear"},
             {"coordinates", {"q1", "q2"}},
             {"mass_matrix", {{0, 0}, {0, "m"}}},
             {"stiffness_matrix", nlohmann::json::array({nlohmann::json::array({"k", "-k"}), nlohmann::json::array({"-k", "k"})})},
             {"force", {"-k*l0", "k*l0"}},
             {"q0", {1.2, 2.4}}};
  }
  nlohmann::json scene = {
      {"joinery", 1},
      {"parameters", {{"k1", p.k1}, {"k2", p.k2}, {"l10", p.l10}, {"l20", p.l20}, {"d", p.d}, {"m1", p.m1}, {"m2", p.m2}}},
      {"components",
       {{"wall_spring_mass",
         {{"parameters", {{"k", 1}, {"l0", 1}, {"m", 1}}},
          {"bodies", {{{"name", "mass"}, {"type", "particle"}, {"dim", 1}, {"mass", "m"}, {"position", {1.1}}}}},
          {"forces",
           {{{"name", "spring"}, {"type", "spring"}, {"body1", "ground"}, {"point1", {0, 0}},
             {"body2", "mass"}, {"point2", {0, 0}}, {"stiffness", "k"}, {"free_length", "l0"}}}}}},
        {"spring_mass", {{"parameters", {{"k", 1}, {"l0", 1}, {"m", 1}}}, {"bodies", {chain}}}}}},
      {"instances",
       {{{"name", "s1"}, {"component", "wall_spring_mass"}, {"parameters", {{"k", "k1"}, {"l0", "l10"}, {"m", "m1"}}}},
        {{"name", "s2"}, {"component", "spring_mass"}, {"parameters", {{"k", "k2"}, {"l0", "l20"}, {"m", "m2"}}}}}},
      {"bodies", nlohmann::json::array()},
      {"joints",
       {{{"name", "connection"}, {"type", "coupling"},
         {"terms", {{{"coordinate", "s2.chain.q1"}, {"coefficient", 1}}, {{"coordinate", "s1.mass.x"}, {"coefficient", -1}}}},
         {"value", "d"}}}}};
  if (complete) scene["complete_massless"] = true;
  return scene;
}

int indexOf(const Model& model, const std::string& name) {
  const auto& n = model.coordinateNames();
  const auto it = std::find(n.begin(), n.end(), name);
  REQUIRE(it != n.end());
  return static_cast<int>(it - n.begin());
}

struct Ix {
  int x1, q1, q2;
};
Ix indices(const Model& m) { return {indexOf(m, "s1.mass.x"), indexOf(m, "s2.chain.q1"), indexOf(m, "s2.chain.q2")}; }

Eigen::VectorXd accelerations(const Model& model, const State& s, Diagnosis* d = nullptr) {
  ModelWorkspace ws = model.makeWorkspace();
  const Solution sol = solveForwardDynamics(model, s, ws);
  if (d) *d = sol.diagnosis;
  REQUIRE(sol.diagnosis.wellPosed);
  return sol.qdd;
}

}  // namespace

TEST_CASE("Seed 002 Example 3, m1 = 0: the completed model moves m2 on the springs in series (paper eq. 5.48)",
          "[completion][seed002]") {
  Params p;
  p.m1 = 0;
  const bool expressionBody = GENERATE(false, true);
  CAPTURE(expressionBody);
  // without the switch: ill posed, one direction (x1 and q1 together), and the balance offered
  const Scene plain = completeMasslessPoints(sceneFromJson(twoSprings(p, expressionBody), "two_springs_m1.json"));
  ModelWorkspace ws0 = plain.model.makeWorkspace();
  const State s0 = plain.model.initialState();
  const Solution sol0 = solveForwardDynamics(plain.model, s0, ws0);
  REQUIRE(sol0.diagnosis.status == Posedness::IllPosed);
  const CompletionAnalysis a = analyzeMasslessBalances(plain.model, s0, sol0.diagnosis);
  REQUIRE(a.balances.size() == 1);
  const MasslessBalance& b = a.balances[0];
  REQUIRE(b.completable);
  CHECK(b.level == BalanceLevel::Position);
  CHECK(b.coefficientTexts == std::vector<std::string>{"1", "1"});
  CHECK(b.joint["type"] == "expression");
  CHECK(b.joint["position"].size() == 1);

  // the printed balance reparses, and equals -k1 (x1 - l10) + k2 (q2 - q1 - l20) for x1 > 0
  SymbolTable table;
  table.addVariable("s1.mass.x");
  table.addVariable("s2.chain.q1");
  table.addVariable("s2.chain.q2");
  const Expression e = Expression::parse(b.joint["position"][0].get<std::string>(), table);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.5, 3.0);
  for (int k = 0; k < 5; ++k) {
    const double x[3] = {u(rng), u(rng), u(rng)};
    const double expected = -p.k1 * (x[0] - p.l10) + p.k2 * (x[2] - x[1] - p.l20);
    CHECK(e.evaluate(x) == Approx(expected).epsilon(1e-14).margin(1e-12));
  }

  // with the switch: well posed, and exactly the paper's equations at random consistent states
  const Scene done = completeMasslessPoints(sceneFromJson(twoSprings(p, expressionBody, true), "two_springs_m1.json"));
  REQUIRE(done.completeMassless);
  REQUIRE(done.completion.completable());
  REQUIRE(done.model.constraints().size() == 2);
  const Ix ix = indices(done.model);
  const double K = p.k1 + p.k2;
  std::uniform_real_distribution<double> uq(1.5, 4.0), uv(-2.0, 2.0), ut(0.0, 10.0);
  for (int k = 0; k < 8; ++k) {
    State s = done.model.initialState();
    const double q2 = uq(rng), v2 = uv(rng);
    const double x1 = (p.k1 * p.l10 + p.k2 * (q2 - p.d - p.l20)) / K;  // balance and q1 = x1 + d
    s.t = ut(rng);
    s.q(ix.x1) = x1;
    s.q(ix.q1) = x1 + p.d;
    s.q(ix.q2) = q2;
    s.v(ix.x1) = p.k2 / K * v2;
    s.v(ix.q1) = p.k2 / K * v2;
    s.v(ix.q2) = v2;
    const Eigen::VectorXd qdd = accelerations(done.model, s);
    const double q2dd = -p.k1 * p.k2 / (K * p.m2) * (q2 - p.d - p.l10 - p.l20);  // eq. 5.48
    const double x1dd = p.k2 / K * q2dd;                                        // eq. 5.40, twice
    const double scale = std::max(std::abs(q2dd), 1e-300);
    CHECK(std::abs(qdd(ix.q2) - q2dd) <= 1e-12 * scale);
    CHECK(std::abs(qdd(ix.x1) - x1dd) <= 1e-12 * scale);
    CHECK(std::abs(qdd(ix.q1) - x1dd) <= 1e-12 * scale);
  }
}

TEST_CASE("Seed 002 Example 3, m2 = 0: the completed model has no force in spring k2 (paper eq. 5.56)",
          "[completion][seed002]") {
  Params p;
  p.m2 = 0;
  const bool expressionBody = GENERATE(false, true);
  CAPTURE(expressionBody);
  const Scene done = completeMasslessPoints(sceneFromJson(twoSprings(p, expressionBody, true), "two_springs_m2.json"));
  REQUIRE(done.completion.completable());
  REQUIRE(done.completion.balances.size() == 1);
  const MasslessBalance& b = done.completion.balances[0];
  CHECK(b.names == std::vector<std::string>{"s2.chain.q2"});
  CHECK(b.level == BalanceLevel::Position);
  {  // the balance is -k2 (q2 - q1 - l20), as printed
    SymbolTable table;
    table.addVariable("s2.chain.q1");
    table.addVariable("s2.chain.q2");
    const Expression e = Expression::parse(b.expression, table);
    const double x[2] = {1.3, 2.9};
    CHECK(e.evaluate(x) == Approx(-p.k2 * (x[1] - x[0] - p.l20)).epsilon(1e-14));
  }
  const Ix ix = indices(done.model);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> ux(0.2, 2.5), uv(-2.0, 2.0);
  for (int k = 0; k < 8; ++k) {
    State s = done.model.initialState();
    const double x1 = ux(rng), v = uv(rng);
    s.q(ix.x1) = x1;
    s.q(ix.q1) = x1 + p.d;
    s.q(ix.q2) = x1 + p.d + p.l20;
    s.v.setConstant(v);
    const Eigen::VectorXd qdd = accelerations(done.model, s);
    const double x1dd = -p.k1 / p.m1 * (x1 - p.l10);  // eq. 5.56
    const double scale = std::max(std::abs(x1dd), 1e-300);
    CHECK(std::abs(qdd(ix.x1) - x1dd) <= 1e-12 * scale);
    CHECK(std::abs(qdd(ix.q1) - x1dd) <= 1e-12 * scale);
    CHECK(std::abs(qdd(ix.q2) - x1dd) <= 1e-12 * scale);
  }
}

TEST_CASE("The well-posed Example 3 is left alone by the switch", "[completion]") {
  const Scene s = completeMasslessPoints(sceneFromJson(twoSprings(Params{}, false, true), "two_springs.json"));
  CHECK(s.completion.balances.empty());
  CHECK(s.model.constraints().size() == 1);
}

namespace {
/// A massless coordinate u (linear body, mass 0) tied to a particle of mass 1 by `stiffness`
/// and `damping`, plus whatever `extra` forces act on it.
nlohmann::json masslessPoint(const nlohmann::json& uBody, const nlohmann::json& extraForces) {
  nlohmann::json forces = extraForces;
  return {{"joinery", 1},
          {"bodies", {uBody, {{"name", "p"}, {"type", "particle"}, {"dim", 1}, {"mass", 1}, {"position", {2}}}}},
          {"joints", nlohmann::json::array()},
          {"forces", forces}};
}

CompletionAnalysis analyze(const Scene& s) {
  ModelWorkspace ws = s.model.makeWorkspace();
  const State st = s.model.initialState();
  const Solution sol = solveForwardDynamics(s.model, st, ws);
  REQUIRE(sol.diagnosis.status == Posedness::IllPosed);
  return analyzeMasslessBalances(s.model, st, sol.diagnosis);
}
}  // namespace

TEST_CASE("A force without a symbolic form on the massless direction is refused, naming it", "[completion]") {
  // a massless particle on a spring to ground and a `generalized` force (no symbolic form)
  const nlohmann::json doc = {
      {"joinery", 1},
      {"bodies", {{{"name", "a"}, {"type", "particle"}, {"dim", 1}, {"mass", 0}, {"position", {1}}}}},
      {"forces",
       {{{"name", "s"}, {"type", "spring"}, {"body1", "ground"}, {"point1", {0, 0}}, {"body2", "a"},
         {"point2", {0, 0}}, {"stiffness", 10}, {"free_length", 1}},
        {{"name", "push"}, {"type", "generalized"}, {"coordinate", "a.x"}, {"value", "0*t"}}}},
      {"complete_massless", true}};
  const Scene s = completeMasslessPoints(sceneFromJson(doc, "no_symbolic.json"));
  REQUIRE(s.completion.balances.size() == 1);
  CHECK_FALSE(s.completion.completable());
  CHECK(s.completion.balances[0].reason.find("'push'") != std::string::npos);
  CHECK(s.completion.balances[0].reason.find("no symbolic form") != std::string::npos);
  CHECK(s.completion.balances[0].joint.is_null());
  CHECK(s.model.constraints().empty());  // nothing added
}

TEST_CASE("A contradictory or force-free massless direction is not completed", "[completion]") {
  SECTION("constant net force: contradictory") {
    const nlohmann::json u = {{"name", "u"}, {"type", "linear"}, {"coordinates", {"x"}},
                              {"mass_matrix", {{0}}}, {"force", {"3"}}};
    const Scene s = completeMasslessPoints(sceneFromJson(masslessPoint(u, nlohmann::json::array()), "contradictory.json"));
    const CompletionAnalysis a = analyze(s);
    REQUIRE(a.balances.size() == 1);
    CHECK_FALSE(a.balances[0].completable);
    CHECK(a.balances[0].reason.find("contradictory") != std::string::npos);
  }
  SECTION("no force at all: 0 = 0 determines nothing") {
    const nlohmann::json u = {{"name", "u"}, {"type", "linear"}, {"coordinates", {"x"}}, {"mass_matrix", {{0}}}};
    const Scene s = completeMasslessPoints(sceneFromJson(masslessPoint(u, nlohmann::json::array()), "free.json"));
    const CompletionAnalysis a = analyze(s);
    REQUIRE(a.balances.size() == 1);
    CHECK_FALSE(a.balances[0].completable);
    CHECK(a.balances[0].reason.find("no force acts") != std::string::npos);
  }
}

TEST_CASE("A balance with velocities is a velocity-level constraint (massless point on a spring-damper)",
          "[completion]") {
  // massless particle a between a wall spring-damper (k = 40, c = 2, free length 0) and a
  // spring (k = 10, free length 0.5) to the particle p of mass 1. For 0 < a < p - 0.5:
  //   balance  psi = -40 a - 2 a' + 10 (p - a - 0.5) = 0        (first order: velocity level)
  //   psi' = 0:  a'' = (10 p' - 50 a') / 2,    p'' = -10 (p - a - 0.5)
  const nlohmann::json doc = {
      {"joinery", 1},
      {"bodies",
       {{{"name", "a"}, {"type", "particle"}, {"dim", 1}, {"mass", 0}, {"position", {0.5}}, {"velocity", {-5.0}}},
        {{"name", "p"}, {"type", "particle"}, {"dim", 1}, {"mass", 1}, {"position", {2}}}}},
      {"forces",
       {{{"name", "wall"}, {"type", "spring"}, {"body1", "ground"}, {"point1", {0, 0}}, {"body2", "a"},
         {"point2", {0, 0}}, {"stiffness", 40}, {"damping", 2}},
        {{"name", "link"}, {"type", "spring"}, {"body1", "a"}, {"point1", {0, 0}}, {"body2", "p"},
         {"point2", {0, 0}}, {"stiffness", 10}, {"free_length", 0.5}}}}};
  const Scene plain = completeMasslessPoints(sceneFromJson(doc, "damped.json"));
  const CompletionAnalysis a = analyze(plain);
  REQUIRE(a.balances.size() == 1);
  REQUIRE(a.balances[0].completable);
  CHECK(a.balances[0].level == BalanceLevel::Velocity);
  CHECK(a.balances[0].joint.contains("velocity"));
  CHECK(a.balances[0].satisfiedAtState);  // -40*0.5 - 2*(-5) + 10*(2 - 0.5 - 0.5) = 0

  const Scene done = completeMasslessPoints(sceneFromJson(doc, "damped.json", SceneOptions{true}));
  REQUIRE(done.completion.completable());
  const int ia = indexOf(done.model, "a.x"), ip = indexOf(done.model, "p.x");
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> ua(0.1, 0.6), up(1.5, 3.0), uv(-1.0, 1.0);
  for (int k = 0; k < 8; ++k) {
    State s = done.model.initialState();
    const double xa = ua(rng), xp = up(rng), vp = uv(rng);
    const double va = (10 * (xp - xa - 0.5) - 40 * xa) / 2;  // psi = 0
    s.q(ia) = xa;
    s.q(ip) = xp;
    s.v(ia) = va;
    s.v(ip) = vp;
    const Eigen::VectorXd qdd = accelerations(done.model, s);
    const double pdd = -10 * (xp - xa - 0.5), add = (10 * vp - 50 * va) / 2;
    const double scale = std::max(std::abs(pdd), std::abs(add));
    CHECK(std::abs(qdd(ip) - pdd) <= 1e-12 * scale);
    CHECK(std::abs(qdd(ia) - add) <= 1e-12 * scale);
  }
}

TEST_CASE("Symbolic forces of planar springs on particles and rigid2d points equal the numeric forces",
          "[completion][symbolic]") {
  // A massless planar particle a held by a spring-damper to the ground and another to a point
  // of a rigid2d body r, under gravity. Both directions of a are massless; each balance is
  // w^T Q over the springs (sqrt form, rigid2d point through cos/sin) and must equal w^T Q
  // of the model's numeric forces at any state, not only at the analysed one (1e-12
  // relative: the same formula evaluated in another order).
  const nlohmann::json doc = nlohmann::json::parse(R"({
    "joinery": 1, "gravity": [0, -9.81],
    "bodies": [
      {"name": "a", "type": "particle", "dim": 2, "mass": 0, "position": [0.5, -0.4], "velocity": [0.1, 0.2]},
      {"name": "r", "type": "rigid2d", "mass": 1.5, "inertia": 0.1, "position": [1.2, -0.9], "angle": 0.3}
    ],
    "forces": [
      {"name": "s1", "type": "spring", "body1": "ground", "point1": [0.1, 0.2], "body2": "a", "point2": [0, 0],
       "stiffness": 30, "damping": 1, "free_length": 0.2},
      {"name": "s2", "type": "spring", "body1": "a", "point1": [0, 0], "body2": "r", "point2": [0.3, 0.1],
       "stiffness": 20, "damping": 0.5, "free_length": 0.4}
    ]})");
  const Scene plain = completeMasslessPoints(sceneFromJson(doc, "planar.json"));
  const CompletionAnalysis a = analyze(plain);
  REQUIRE(a.balances.size() == 2);
  const Model& model = plain.model;
  const int n = model.numCoordinates();
  SymbolTable table;
  table.addVariable("t");
  for (const auto& q : model.coordinateNames()) table.addVariable(q);
  for (const auto& q : model.coordinateNames()) table.addVariable(q + "_dot");
  ModelWorkspace ws = model.makeWorkspace();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const MasslessBalance& b : a.balances) {
    REQUIRE(b.completable);
    CHECK(b.level == BalanceLevel::Velocity);  // the dampers
    const Expression e = Expression::parse(b.expression, table);
    for (int k = 0; k < 5; ++k) {
      State s = model.initialState();
      for (int i = 0; i < n; ++i) {
        s.q(i) += 0.3 * u(rng);
        s.v(i) = u(rng);
      }
      model.calcMassAndForces(s, ws);
      std::vector<double> vars{s.t};
      for (int i = 0; i < n; ++i) vars.push_back(s.q(i));
      for (int i = 0; i < n; ++i) vars.push_back(s.v(i));
      double numeric = 0;
      for (std::size_t j = 0; j < b.coordinates.size(); ++j) numeric += b.coefficients[j] * ws.Q(b.coordinates[j]);
      CHECK(std::abs(e.evaluate(vars.data()) - numeric) <= 1e-12 * std::max(1.0, ws.Q.norm()));
    }
  }
  const Scene done = completeMasslessPoints(sceneFromJson(doc, "planar.json", SceneOptions{true}));
  REQUIRE(done.completion.completable());
  ModelWorkspace ws2 = done.model.makeWorkspace();
  CHECK(solveForwardDynamics(done.model, done.model.initialState(), ws2).diagnosis.wellPosed);
}
