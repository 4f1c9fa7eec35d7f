// Body–joint graph analysis: components, loops, mobility count, loose bodies, DOT output.
// Uses test-only body, joint and force types so that it depends on core alone.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/errors.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/model.hpp"

namespace joinery {
namespace {

/// A body with k coordinates and `internal` internal constraint rows; no physics.
class TestBody final : public Body {
 public:
  TestBody(std::string name, int k, int internal = 0) : Body(std::move(name)), internal_(internal) {
    for (int i = 0; i < k; ++i) names_.push_back("q" + std::to_string(i));
  }
  std::string_view typeName() const override { return "testbody"; }
  const std::vector<std::string>& coordinateNames() const override { return names_; }
  void getInitialState(VecRef q0, VecRef v0) const override {
    q0.setZero();
    v0.setZero();
  }
  void calcMassMatrix(double, CVecRef, MatRef M) const override { M.setIdentity(); }
  void calcForces(double, CVecRef, CVecRef, VecRef Q) const override { Q.setZero(); }
  int numInternalConstraints() const override { return internal_; }
  void calcInternalConstraints(double, CVecRef, CVecRef, MatRef A, VecRef b) const override {
    A.setZero();
    b.setZero();
  }
  nlohmann::json toJson() const override { return {{"type", "testbody"}, {"name", name()}}; }

 private:
  std::vector<std::string> names_;
  int internal_;
};

/// A constraint with r rows on the given bodies; no physics.
class TestJoint final : public Constraint {
 public:
  TestJoint(std::string name, std::vector<const Body*> bodies, int rows)
      : Constraint(std::move(name), std::move(bodies)), rows_(rows) {}
  std::string_view typeName() const override { return "testjoint"; }
  int numRows() const override { return rows_; }
  void calcAccelerationRows(const LocalState&, MatRef A, VecRef b) const override {
    A.setZero();
    b.setZero();
  }
  nlohmann::json toJson() const override { return {{"type", "testjoint"}, {"name", name()}}; }

 private:
  int rows_;
};

/// A force element on the given bodies; no force.
class TestForce final : public ForceElement {
 public:
  TestForce(std::string name, std::vector<const Body*> bodies)
      : ForceElement(std::move(name), std::move(bodies)) {}
  std::string_view typeName() const override { return "testspring"; }
  void addForces(const LocalState&, VecRef) const override {}
  nlohmann::json toJson() const override { return {{"type", "testspring"}, {"name", name()}}; }
};

const Body& body(ModelBuilder& mb, const std::string& name, int k = 3, int internal = 0) {
  return mb.addBody(std::make_unique<TestBody>(name, k, internal));
}
const Constraint& joint(ModelBuilder& mb, const std::string& name,
                        std::vector<const Body*> bodies, int rows = 2) {
  return mb.addConstraint(std::make_unique<TestJoint>(name, std::move(bodies), rows));
}
const ForceElement& spring(ModelBuilder& mb, const std::string& name, std::vector<const Body*> bodies) {
  return mb.addForce(std::make_unique<TestForce>(name, std::move(bodies)));
}

/// The A02 N-four-bar (docs/benchmarks.md): N+1 cranks pinned to ground, their tips joined
/// by N couplers; 2N+1 planar bodies (3 coordinates), 3N+1 revolute joints (2 rows).
Model makeNFourBar(int N) {
  ModelBuilder mb;
  std::vector<const Body*> cranks, couplers;
  for (int i = 0; i <= N; ++i) cranks.push_back(&body(mb, "crank." + std::to_string(i)));
  for (int i = 0; i < N; ++i) couplers.push_back(&body(mb, "coupler." + std::to_string(i)));
  for (int i = 0; i <= N; ++i) joint(mb, "pin.O" + std::to_string(i), {&mb.ground(), cranks[i]});
  for (int i = 0; i < N; ++i) {
    joint(mb, "pin.A" + std::to_string(i), {cranks[i], couplers[i]});
    joint(mb, "pin.B" + std::to_string(i), {couplers[i], cranks[i + 1]});
  }
  return mb.build();
}

bool contains(const std::vector<const Body*>& v, const Body* b) {
  return std::find(v.begin(), v.end(), b) != v.end();
}

/// Every loop is a closed chain: joints[i] connects bodies[i] and bodies[i+1 mod k], the
/// bodies are distinct, and no joint repeats.
void checkLoopsAreClosedChains(const GraphAnalysis& a) {
  for (const GraphLoop& loop : a.loops) {
    const std::size_t k = loop.bodies.size();
    REQUIRE(k >= 2);
    REQUIRE(loop.joints.size() == k);
    for (std::size_t i = 0; i < k; ++i) {
      const auto& jb = loop.joints[i]->bodies();
      CHECK(std::find(jb.begin(), jb.end(), loop.bodies[i]) != jb.end());
      CHECK(std::find(jb.begin(), jb.end(), loop.bodies[(i + 1) % k]) != jb.end());
      for (std::size_t j = i + 1; j < k; ++j) {
        CHECK(loop.bodies[i] != loop.bodies[j]);
        CHECK(loop.joints[i] != loop.joints[j]);
      }
    }
  }
}

bool haveDot() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

/// Renders DOT text with `dot -Tsvg`; returns the size of the SVG (0 on failure).
std::uintmax_t renderSvg(const std::string& dotText, const std::string& stem) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(joinery_test_tmp_dir()) / "joinery_test_graph";
  fs::create_directories(dir);
  const fs::path in = dir / (stem + ".dot"), out = dir / (stem + ".svg");
  fs::remove(out);
  {
    std::ofstream f(in);
    f << dotText;
  }
  const std::string cmd = "dot -Tsvg \"" + in.string() + "\" -o \"" + out.string() + "\"";
  const int rc = std::system(cmd.c_str());
  CHECK(rc == 0);
  if (rc != 0 || !fs::exists(out)) return 0;
  return fs::file_size(out);
}

}  // namespace

TEST_CASE("graph: the A02 N-four-bar has N independent loops", "[graph]") {
  for (int N : {1, 2, 5, 40}) {
    CAPTURE(N);
    const Model m = makeNFourBar(N);
    const GraphAnalysis a = analyzeGraph(m);
    CHECK(a.numLoops() == N);
    CHECK(a.numComponents() == 1);
    CHECK(a.components[0].anchored);
    CHECK(a.components[0].loops.size() == static_cast<std::size_t>(N));
    CHECK(a.numBodies == 2 * N + 1);
    // 3 (2N+1) coordinates - 2 (3N+1) rows = 1 for every N.
    CHECK(a.calcMobilityCount() == 1);
    CHECK(a.components[0].calcMobilityCount() == 1);
    CHECK(a.freeFloating.empty());
    CHECK(a.unattached.empty());
    checkLoopsAreClosedChains(a);
    // BFS from the ground: every fundamental loop is ground - crank - coupler - crank.
    for (const GraphLoop& loop : a.loops) {
      CHECK(loop.joints.size() == 4);
      CHECK(loop.bodies.front()->isGround());
    }
  }
}

TEST_CASE("graph: an open chain has no loops", "[graph]") {
  ModelBuilder mb;
  const Body* prev = &mb.ground();
  for (int i = 0; i < 5; ++i) {
    const Body& b = body(mb, "link." + std::to_string(i));
    joint(mb, "pin." + std::to_string(i), {prev, &b});
    prev = &b;
  }
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  CHECK(a.numLoops() == 0);
  CHECK(a.numComponents() == 1);
  CHECK(a.components[0].anchored);
  CHECK(a.components[0].bodies.size() == 5);
  CHECK(a.components[0].constraints.size() == 5);
  CHECK(a.calcMobilityCount() == 5);
}

TEST_CASE("graph: two pendulums sharing only the ground are two subsystems", "[graph]") {
  ModelBuilder mb;
  const Body& p1 = body(mb, "left.bob");
  const Body& p2a = body(mb, "right.upper");
  const Body& p2b = body(mb, "right.lower");
  joint(mb, "left.pivot", {&mb.ground(), &p1});
  joint(mb, "right.pivot", {&mb.ground(), &p2a});
  joint(mb, "right.elbow", {&p2a, &p2b});
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  REQUIRE(a.numComponents() == 2);
  CHECK(a.numLoops() == 0);  // the ground is one vertex, but two trees make no loop
  const auto& c0 = a.components[a.bodyComponent[0]];
  const auto& c1 = a.components[a.bodyComponent[1]];
  CHECK(a.bodyComponent[1] == a.bodyComponent[2]);
  CHECK(a.bodyComponent[0] != a.bodyComponent[1]);
  CHECK(c0.bodies.size() == 1);
  CHECK(c1.bodies.size() == 2);
  CHECK(c0.anchored);
  CHECK(c1.anchored);
  CHECK(c0.constraints.size() == 1);
  CHECK(c1.constraints.size() == 2);
  CHECK(c0.calcMobilityCount() == 1);
  CHECK(c1.calcMobilityCount() == 2);
  // Components are ordered by their first body.
  CHECK(a.components[0].bodies.front() == &p1);
}

TEST_CASE("graph: two grounded trees joined by a body form a loop through the ground", "[graph]") {
  ModelBuilder mb;
  const Body& a1 = body(mb, "a");
  const Body& b1 = body(mb, "b");
  joint(mb, "ja", {&mb.ground(), &a1});
  joint(mb, "jb", {&mb.ground(), &b1});
  joint(mb, "jab", {&a1, &b1});
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  CHECK(a.numComponents() == 1);
  REQUIRE(a.numLoops() == 1);
  CHECK(a.loops[0].joints.size() == 3);
  CHECK(a.loops[0].bodies.front()->isGround());
  checkLoopsAreClosedChains(a);
}

TEST_CASE("graph: loose bodies are reported", "[graph]") {
  ModelBuilder mb;
  const Body& pend = body(mb, "pendulum");
  const Body& loose = body(mb, "loose.part");
  const Body& sprung = body(mb, "on.a.spring");
  const Body& applied = body(mb, "pushed");
  joint(mb, "pivot", {&mb.ground(), &pend});
  spring(mb, "spring.1", {&pend, &sprung});
  spring(mb, "push", {&applied});
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);

  CHECK(a.numComponents() == 4);
  REQUIRE(a.unattached.size() == 1);
  CHECK(a.unattached[0] == &loose);
  CHECK(a.freeFloating.size() == 3);
  CHECK(contains(a.freeFloating, &loose));
  CHECK(contains(a.freeFloating, &sprung));
  CHECK(contains(a.freeFloating, &applied));
  CHECK_FALSE(contains(a.freeFloating, &pend));

  const auto& cl = a.components[a.bodyComponent[1]];
  CHECK_FALSE(cl.anchored);
  CHECK(cl.forces.empty());
  CHECK(cl.calcMobilityCount() == 3);
  // The spring couples two subsystems: listed in both and as a coupling force.
  REQUIRE(a.couplingForces.size() == 1);
  CHECK(a.couplingForces[0]->name() == "spring.1");
  CHECK(a.components[a.bodyComponent[0]].forces.size() == 1);
  CHECK(a.components[a.bodyComponent[2]].forces.size() == 1);
  CHECK(a.components[a.bodyComponent[3]].forces.size() == 1);
  // Force elements never make loops.
  CHECK(a.numLoops() == 0);
}

TEST_CASE("graph: a spring to the ground leaves a body free-floating", "[graph]") {
  ModelBuilder mb;
  const Body& b = body(mb, "mass");
  spring(mb, "k", {&mb.ground(), &b});
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  REQUIRE(a.freeFloating.size() == 1);
  CHECK(a.freeFloating[0] == &b);
  CHECK(a.unattached.empty());
  CHECK_FALSE(a.components[0].anchored);
  CHECK(a.components[0].forces.size() == 1);
  CHECK(a.couplingForces.empty());
}

TEST_CASE("graph: mobility count of a four-bar and mobility from the rank", "[graph]") {
  ModelBuilder mb;
  const Body& crank = body(mb, "crank");
  const Body& coupler = body(mb, "coupler");
  const Body& rocker = body(mb, "rocker");
  joint(mb, "O2", {&mb.ground(), &crank});
  joint(mb, "A", {&crank, &coupler});
  joint(mb, "B", {&coupler, &rocker});
  joint(mb, "O4", {&rocker, &mb.ground()});
  const Model m = mb.build();
  GraphAnalysis a = analyzeGraph(m);
  CHECK(a.numCoordinates == 9);
  CHECK(a.numConstraintRows == 8);
  CHECK(a.calcMobilityCount() == 1);  // 3 x 3 - 4 x 2
  CHECK(a.numLoops() == 1);
  CHECK(a.loops[0].joints.size() == 4);
  CHECK_FALSE(a.calcMobilityFromRank().has_value());
  CHECK_FALSE(a.calcRedundantRows().has_value());

  a.setConstraintRank(8);  // regular position
  CHECK(a.calcMobilityFromRank() == 1);
  CHECK(a.calcRedundantRows() == 0);
  a.setConstraintRank(7);  // e.g. a singular (folded) position
  CHECK(a.calcMobilityFromRank() == 2);
  CHECK(a.calcRedundantRows() == 1);
  CHECK_THROWS_AS(a.setConstraintRank(9), ModelError);
  CHECK_THROWS_AS(a.setConstraintRank(-1), ModelError);
  CHECK(a.constraintRank == 7);
}

TEST_CASE("graph: internal constraints count in the mobility", "[graph]") {
  ModelBuilder mb;
  body(mb, "spatial", 7, 1);  // quaternion body: 7 coordinates, 1 norm row
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  CHECK(a.numCoordinates == 7);
  CHECK(a.numConstraintRows == 1);
  CHECK(a.calcMobilityCount() == 6);
  CHECK(a.components[0].numConstraintRows == 1);
  CHECK(a.unattached.size() == 1);
}

TEST_CASE("graph: a multi-body constraint is a hyperedge with k - 1 loop edges", "[graph]") {
  ModelBuilder mb;
  const Body& b1 = body(mb, "g1", 1);
  const Body& b2 = body(mb, "g2", 1);
  const Body& b3 = body(mb, "g3", 1);
  joint(mb, "p1", {&mb.ground(), &b1}, 0);
  joint(mb, "p2", {&mb.ground(), &b2}, 0);
  joint(mb, "p3", {&mb.ground(), &b3}, 0);
  const Constraint& gear = joint(mb, "gear.train", {&b1, &b2, &b3}, 2);
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  // 3 + (3 - 1) edges, 4 vertices, 1 component: 2 loops.
  REQUIRE(a.numLoops() == 2);
  checkLoopsAreClosedChains(a);
  for (const GraphLoop& loop : a.loops) {
    CHECK(std::count(loop.joints.begin(), loop.joints.end(), &gear) == 1);
    CHECK(loop.joints.size() == 3);  // ground - g_i - gear - g_j - ground
  }
  CHECK(a.numComponents() == 1);
}

TEST_CASE("graph: a hyperedge alone joins its bodies into one subsystem", "[graph]") {
  ModelBuilder mb;
  const Body& b1 = body(mb, "x1", 1);
  const Body& b2 = body(mb, "x2", 1);
  const Body& b3 = body(mb, "x3", 1);
  joint(mb, "coupling", {&b1, &b2, &b3}, 1);
  joint(mb, "fix", {&mb.ground(), &b1, &b2, &b3}, 1);  // a hyperedge through the ground
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  CHECK(a.numComponents() == 1);
  CHECK(a.components[0].anchored);
  // Star model: 3 + 4 edges, 3 bodies + ground + 2 hubs, 1 component: 2 loops.
  CHECK(a.numLoops() == 2);
  checkLoopsAreClosedChains(a);
}

TEST_CASE("graph: parallel joints make a loop of two", "[graph]") {
  ModelBuilder mb;
  const Body& b = body(mb, "door");
  joint(mb, "hinge.top", {&mb.ground(), &b}, 5);
  joint(mb, "hinge.bottom", {&b, &mb.ground()}, 5);
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  REQUIRE(a.numLoops() == 1);
  CHECK(a.loops[0].joints.size() == 2);
  CHECK(a.loops[0].bodies.size() == 2);
  checkLoopsAreClosedChains(a);
  CHECK(a.calcMobilityCount() == -7);
}

TEST_CASE("graph: a one-body constraint anchors without making a loop", "[graph]") {
  ModelBuilder mb;
  const Body& b = body(mb, "slider", 2);
  const Body& c = body(mb, "follower", 2);
  joint(mb, "drive", {&b}, 1);  // prescribed coordinate: against the world
  joint(mb, "link", {&b, &c}, 1);
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  CHECK(a.numLoops() == 0);
  CHECK(a.numComponents() == 1);
  CHECK(a.components[0].anchored);
  CHECK(a.freeFloating.empty());
  CHECK(a.calcMobilityCount() == 2);
}

TEST_CASE("graph: an empty model", "[graph]") {
  ModelBuilder mb;
  const Model m = mb.build();
  const GraphAnalysis a = analyzeGraph(m);
  CHECK(a.numComponents() == 0);
  CHECK(a.numLoops() == 0);
  CHECK(a.calcMobilityCount() == 0);
  const std::string dot = toGraphvizDot(m, a);
  CHECK(dot.find("ground") != std::string::npos);
}

TEST_CASE("graph: Graphviz DOT names everything and renders", "[graph]") {
  ModelBuilder mb;
  const Body& crank = body(mb, "arm.crank");
  const Body& coupler = body(mb, "arm.coupler \"long\"");
  const Body& rocker = body(mb, "arm.rocker");
  const Body& g1 = body(mb, "gears.g1", 1);
  const Body& g2 = body(mb, "gears.g2", 1);
  const Body& g3 = body(mb, "gears.g3", 1);
  body(mb, "spare.part");
  const Body& bob = body(mb, "bob", 2);
  joint(mb, "arm.O2", {&mb.ground(), &crank});
  joint(mb, "arm.A", {&crank, &coupler});
  joint(mb, "arm.B", {&coupler, &rocker});
  joint(mb, "arm.O4", {&rocker, &mb.ground()});
  joint(mb, "gears.p1", {&mb.ground(), &g1}, 0);
  joint(mb, "gears.p2", {&mb.ground(), &g2}, 0);
  joint(mb, "gears.p3", {&mb.ground(), &g3}, 0);
  joint(mb, "gears.train", {&g1, &g2, &g3}, 2);
  joint(mb, "gears.brake", {&g1}, 1);
  spring(mb, "arm.spring<1>", {&crank, &rocker});
  spring(mb, "bob.spring", {&mb.ground(), &bob});
  spring(mb, "gears.damper", {&g1, &g2, &g3});
  spring(mb, "bob.push", {&bob});
  const Model m = mb.build();
  GraphAnalysis a = analyzeGraph(m);
  a.setConstraintRank(m.numConstraintRows() - 1);
  const std::string dot = toGraphvizDot(m, a);

  for (const Body* b : m.bodies()) {
    std::string escaped;
    for (char ch : b->name()) escaped += ch == '"' ? std::string("\\\"") : std::string(1, ch);
    CHECK(dot.find(escaped) != std::string::npos);
  }
  for (const Constraint* c : m.constraints()) CHECK(dot.find(c->name()) != std::string::npos);
  for (const ForceElement* f : m.forces()) CHECK(dot.find(f->name()) != std::string::npos);
  CHECK(dot.find("shape=diamond") != std::string::npos);
  CHECK(dot.find("style=dashed") != std::string::npos);
  CHECK(dot.find("loop 1") != std::string::npos);
  CHECK(dot.find("ground [") != std::string::npos);
  CHECK(dot.find("arm.spring&lt;1&gt;") == std::string::npos);  // only loop joints go to the legend

  if (!haveDot()) {
    WARN("Graphviz 'dot' not found: rendering not checked");
    return;
  }
  CHECK(renderSvg(dot, "mixed") > 0);
  const Model fb = makeNFourBar(12);
  CHECK(renderSvg(toGraphvizDot(fb, analyzeGraph(fb)), "nfourbar") > 0);
}

/// A constraint of one row whose rows may be absent (Constraint::rowsAbsent: an inactive
/// contact's); while present it writes A = 1, b = 2, phi = psi = 3, and counts its evaluations.
class SwitchableJoint final : public Constraint {
 public:
  SwitchableJoint(std::string name, std::vector<const Body*> bodies) : Constraint(std::move(name), std::move(bodies)) {}
  std::string_view typeName() const override { return "switchable"; }
  int numRows() const override { return 1; }
  void calcAccelerationRows(const LocalState&, MatRef A, VecRef b) const override {
    ++evaluations;
    A.setOnes();
    b.setConstant(2.0);
  }
  void calcPositionError(const LocalState&, VecRef phi) const override {
    ++evaluations;
    phi.setConstant(3.0);
  }
  void calcVelocityError(const LocalState&, VecRef psi) const override {
    ++evaluations;
    psi.setConstant(3.0);
  }
  bool rowsAbsent() const override { return absent; }
  nlohmann::json toJson() const override { return {{"type", "switchable"}, {"name", name()}}; }
  mutable bool absent = false;
  mutable int evaluations = 0;
};

TEST_CASE("model: a joint whose rows are absent is not evaluated; its block stays zero", "[graph][model]") {
  ModelBuilder mb;
  const Body& b = body(mb, "b", 3);
  const auto& sw = static_cast<const SwitchableJoint&>(
      mb.addConstraint(std::make_unique<SwitchableJoint>("sw", std::vector<const Body*>{&mb.ground(), &b})));
  joint(mb, "other", {&mb.ground(), &b}, 1);
  const Model m = mb.build();
  ModelWorkspace ws = m.makeWorkspace(false);
  const State s = m.initialState();
  std::size_t r = 0;
  while (m.rowBlocks()[r].constraint != &sw) ++r;
  const int row = m.rowBlocks()[r].row;
  VectorXd phi(m.numConstraintRows()), psi(m.numConstraintRows());
  m.calcRowBlocks(s, ws);  // present
  CHECK(sw.evaluations == 1);
  CHECK(ws.rowBlockRows(r).isOnes());
  CHECK(ws.b(row) == 2.0);
  CHECK(ws.rowNorms()(row) == Approx(std::sqrt(3.0)));
  sw.absent = true;
  for (int pass = 0; pass < 2; ++pass) {  // zeroed once, then left so
    ws.b(row) = 7.0;                      // (b is rewritten every time: the dense evaluation writes it too)
    m.calcRowBlocks(s, ws);
    m.calcPositionErrors(s, ws, phi);
    m.calcVelocityErrors(s, ws, psi);
    CHECK(sw.evaluations == 1);  // not asked
    CHECK(ws.rowBlockRows(r).isZero(0.0));
    CHECK(ws.b(row) == 0.0);
    CHECK(ws.rowNorms()(row) == 0.0);
    CHECK(phi(row) == 0.0);
    CHECK(psi(row) == 0.0);
  }
  sw.absent = false;  // present again: evaluated, then zeroed again once absent
  m.calcRowBlocks(s, ws);
  CHECK(sw.evaluations == 2);
  CHECK(ws.rowBlockRows(r).isOnes());
  sw.absent = true;
  m.calcRowBlocks(s, ws);
  CHECK(ws.rowBlockRows(r).isZero(0.0));
  CHECK(ws.rowNorms()(row) == 0.0);
}

TEST_CASE("graph: DOT rejects an analysis of another model", "[graph]") {
  const Model m1 = makeNFourBar(1);
  const Model m2 = makeNFourBar(2);
  const GraphAnalysis a2 = analyzeGraph(m2);
  CHECK_THROWS_AS(toGraphvizDot(m1, a2), ModelError);
}

}  // namespace joinery
