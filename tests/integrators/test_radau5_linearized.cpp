// radau5 with the force linearization (docs/integrators.md "Radau IIA 5"): the
// Newton matrix from M, A and the Jacobians of Q — exact where the elements give them
// (springs), by finite differences grouped by a colouring of the body-force graph otherwise —
// instead of 2n evaluations of q''.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/radau5.hpp"
#include "joinery/integrators/simulation.hpp"
#include "allocation_counter.hpp"

namespace joinery {
namespace {

using nlohmann::json;

/// N rods (1 kg, 1 m) in a plane, the first pinned to the ground, each next one held to the
/// previous tip by an undamped zero-length spring k (bench/stiff_sim.cpp's chain; the line of
/// a zero-length damper is undefined).
json chainScene(int N, double k, bool differenced = false) {
  json bodies = json::array(), forces = json::array();
  for (int i = 0; i < N; ++i)
    bodies.push_back({{"name", "rod" + std::to_string(i)}, {"type", "rigid2d"}, {"mass", 1}, {"inertia", 1.0 / 12},
                      {"position", {i + 0.5, 0}}});
  for (int i = 1; i < N && differenced; ++i) {
    // the same coupling written as generalized forces of the coordinates (no Jacobians given:
    // differenced), between the rods' centres along x and y
    const std::string a = "rod" + std::to_string(i - 1), b = "rod" + std::to_string(i);
    for (const std::string c : {"x", "y"}) {
      const std::string d = std::to_string(k) + "*(" + b + "." + c + " - " + a + "." + c + (c == "x" ? " - 1" : "") + ")";
      forces.push_back({{"name", "g" + c + a + "_" + std::to_string(i)}, {"type", "generalized"}, {"coordinate", a + "." + c}, {"value", d}});
      forces.push_back({{"name", "g" + c + b + "_" + std::to_string(i)}, {"type", "generalized"}, {"coordinate", b + "." + c}, {"value", "-" + d}});
    }
  }
  for (int i = 1; i < N && !differenced; ++i)
    forces.push_back({{"name", "bush" + std::to_string(i)}, {"type", "spring"}, {"body1", "rod" + std::to_string(i - 1)},
                      {"point1", {0.5, 0}}, {"body2", "rod" + std::to_string(i)}, {"point2", {-0.5, 0}},
                      {"stiffness", k}, {"free_length", 0}});
  json joints = json::array({{{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                              {"body2", "rod0"}, {"point2", {-0.5, 0}}}});
  return {{"joinery", 1}, {"gravity", {0, -9.81, 0}}, {"bodies", bodies}, {"joints", joints}, {"forces", forces}};
}

/// A ModelSystem that gives its force linearization in dense form whatever the integrator
/// asks (ForceLinearization::wantSparse ignored): the form radau5 scans into its sparse
/// matrices for a system that has no sparse one.
class DenseLinearization final : public DynamicSystem {
 public:
  explicit DenseLinearization(ModelSystem& sys) : sys_(sys) {}
  int numCoordinates() const override { return sys_.numCoordinates(); }
  const std::vector<std::string>& coordinateNames() const override { return sys_.coordinateNames(); }
  State initialState() const override { return sys_.initialState(); }
  AccelerationStatus calcAccelerations(const State& s, VecRef qdd, const Baumgarte& stab) override {
    return sys_.calcAccelerations(s, qdd, stab);
  }
  using DynamicSystem::calcAccelerations;
  int numConstraintRows() const override { return sys_.numConstraintRows(); }
  const std::vector<std::string>& constraintRowNames() const override { return sys_.constraintRowNames(); }
  void normalizeCoordinates(VecRef q) override { sys_.normalizeCoordinates(q); }
  ProjectionReport projectPositions(State& s, const ProjectionOptions& o) override { return sys_.projectPositions(s, o); }
  ProjectionReport projectVelocities(State& s, const ProjectionOptions& o) override {
    return sys_.projectVelocities(s, o);
  }
  ConstraintResiduals calcConstraintResiduals(const State& s) override { return sys_.calcConstraintResiduals(s); }
  bool calcForceLinearization(const State& s, ForceLinearization& out) override {
    out.wantSparse = false;
    return sys_.calcForceLinearization(s, out);
  }
  std::optional<double> calcEnergy(const State& s) override { return sys_.calcEnergy(s); }

 private:
  ModelSystem& sys_;
};

/// Central differences of Q, one column at a time.
double worstAgainstDifferences(const Model& model, const State& s, const MatrixXd& dQdq) {
  ModelWorkspace ws = model.makeWorkspace(true);
  double worst = 0;
  for (int j = 0; j < model.numCoordinates(); ++j) {
    State p = s, m = s;
    const double d = 1e-6;
    p.q(j) += d;
    m.q(j) -= d;
    model.calcMassAndForces(p, ws);
    const VectorXd Qp = ws.Q;
    model.calcMassAndForces(m, ws);
    worst = std::max(worst, ((Qp - ws.Q) / (2 * d) - dQdq.col(j)).cwiseAbs().maxCoeff());
  }
  return worst;
}

TEST_CASE("force linearization: exact spring Jacobians, two evaluations of Q whatever N",
          "[integrators][radau5][linearization]") {
  const double k = 1e6;
  for (int N : {4, 8, 16}) {
    const Scene scene = sceneFromJson(chainScene(N, k), "");
    ModelSystem sys(scene.model);
    State s = scene.model.initialState();
    for (int i = 0; i < N; ++i) s.q(3 * i + 2) = 0.1 * i;
    ForceLinearization lin;
    REQUIRE(sys.calcForceLinearization(s, lin));
    // M and A (bodies' Jacobians: gravity only, zero), then the springs' analytic Jacobians:
    // nothing is differenced (before: 1 + 2 x 3 colours x 3 coordinates = 19)
    CHECK(lin.forceEvaluations == 2);
    const double worst = worstAgainstDifferences(scene.model, s, lin.dQdq);
    INFO("N = " << N << ": largest difference " << worst);
    // central differences: round-off ~1e-16 |Q| / 1e-6 with |Q| ~ 1e5 N gives ~1e-5 N/m;
    // truncation ~1e-12 |Q'''| is smaller; a missing term is off by ~k or ~|Q|
    CHECK(worst < 1e-8 * k);
    CHECK(lin.dQdq(3 * 1, 3 * 1) == Approx(-2 * k).epsilon(1e-6));
    CHECK(lin.dQdq(3 * 1, 3 * 2) == Approx(k).epsilon(1e-6));
    if (N >= 4) CHECK(lin.dQdq(3 * 1, 3 * 3) == 0.0);
  }
}

TEST_CASE("force linearization: coloured columns equal a column-by-column difference of Q, cost independent of N",
          "[integrators][radau5][linearization]") {
  const double k = 1e6;
  for (int N : {4, 8, 16}) {
    // the coupling as generalized forces of the coordinates: no Jacobians given, differenced
    const Scene scene = sceneFromJson(chainScene(N, k, true), "");
    ModelSystem sys(scene.model);
    State s = scene.model.initialState();
    for (int i = 0; i < N; ++i) s.q(3 * i + 2) = 0.1 * i;  // turned rods: every spring direction differs
    ForceLinearization lin;
    REQUIRE(sys.calcForceLinearization(s, lin));
    const int n = scene.model.numCoordinates();
    // a chain: bodies two apart share no force, so 3 colours x 3 coordinates for q and for
    // q', plus M and A and the differenced forces' base value, whatever N (a column-by-column
    // difference: 2n + 2)
    CHECK(lin.forceEvaluations == (N >= 3 ? 2 + 2 * 3 * 3 : 2 + 2 * n));
    const double worst = worstAgainstDifferences(scene.model, s, lin.dQdq);
    INFO("N = " << N << ": largest difference " << worst << " (k = " << k << ")");
    // forward differences: round-off eps |Q| / delta with |Q| ~ 1e5 N and delta ~ 1e-8 gives
    // ~1 N/m, i.e. 1e-6 of k; a wrong column
    // (two coloured columns mixed, a missing neighbour) is off by k
    CHECK(worst < 1e-5 * k);
    // closed form of a zero-length spring: a middle rod's x is pulled by both neighbours
    CHECK(lin.dQdq(3 * 1, 3 * 1) == Approx(-2 * k).epsilon(1e-6));
    CHECK(lin.dQdq(3 * 1, 3 * 2) == Approx(k).epsilon(1e-6));
    if (N >= 4) CHECK(lin.dQdq(3 * 1, 3 * 3) == 0.0);  // no spring between rods 1 and 3
    CHECK(lin.A.rows() == 2);
    CHECK(lin.M(2, 2) == Approx(1.0 / 12));
  }
}

TEST_CASE("radau5 with the force linearization: the answer of the finite-difference Jacobian, a fraction of the evaluations",
          "[integrators][radau5][linearization]") {
  // the stiff chain, k = 1e8 (bushing modes up to about 3 kHz): 0.3 s at rtol = atol = 1e-7
  const Scene scene = sceneFromJson(chainScene(4, 1e8), "");
  SimulationSettings set;
  set.tEnd = 0.3;
  set.outputInterval = 0.01;
  set.rtol = set.atol = 1e-7;
  set.integrator = IntegratorKind::Radau5;
  MemoryRecorder rl, rf;
  ModelSystem s1(scene.model), s2(scene.model);
  RunOptions fd;
  fd.forceLinearization = false;
  const SimulationResult lin = runSimulation(s1, set, rl);
  const SimulationResult dif = runSimulation(s2, set, rf, {}, fd);
  REQUIRE(lin.completed());
  REQUIRE(dif.completed());
  REQUIRE(rl.size() == rf.size());
  double diff = 0;
  for (std::size_t i = 0; i < rl.size(); ++i) diff = std::max(diff, (rl.q[i] - rf.q[i]).cwiseAbs().maxCoeff());
  const auto& a = lin.stats.integrator;
  const auto& b = dif.stats.integrator;
  INFO("linearized: " << a.evaluations << " evaluations (" << a.jacobianEvaluations << " in Jacobians), "
                      << a.forceEvaluations << " force evaluations; finite differences: " << b.evaluations << " ("
                      << b.jacobianEvaluations << " in Jacobians); max |difference| " << diff);
  CHECK(diff < 1e-4);
  CHECK(a.jacobianEvaluations == 0);
  CHECK(b.forceEvaluations == 0);
  CHECK(b.jacobianEvaluations > 0);
  // fewer evaluations of q'' (a fresh Newton matrix every step: fewer Newton iterations and
  // rejections). The force evaluations are the price (measured 1637 + 1463 of Q alone against
  // 2584, 912 of them for Jacobians): on a model this small the two are about even, on
  // longer chains the colouring keeps them constant per linearization (the test above)
  CHECK(3 * a.evaluations < 2 * b.evaluations);
}

TEST_CASE("force linearization: the sparse form, assembled element by element, is the dense one",
          "[integrators][radau5][linearization][sparse]") {
  // springs (analytic Jacobians) and generalized forces (differenced, coloured) on turned
  // rods: every kind of entry. The two forms compute the same numbers; only the order in
  // which overlapping element blocks are summed differs (round-off, 1e-12 of the entries)
  for (const bool differenced : {false, true}) {
    const int N = 12;
    const Scene scene = sceneFromJson(chainScene(N, 1e6, differenced), "");
    ModelSystem sys(scene.model);
    State s = scene.model.initialState();
    for (int i = 0; i < N; ++i) s.q(3 * i + 2) = 0.1 * i, s.v(3 * i + 2) = 0.3 - 0.05 * i;
    ForceLinearization dense, sparse;
    sparse.wantSparse = true;
    REQUIRE(sys.calcForceLinearization(s, dense));
    REQUIRE(sys.calcForceLinearization(s, sparse));
    CHECK_FALSE(dense.sparse);
    REQUIRE(sparse.sparse);
    CHECK(sparse.forceEvaluations == dense.forceEvaluations);
    const auto near = [](const Eigen::SparseMatrix<double>& S, const MatrixXd& D) {
      REQUIRE(S.rows() == D.rows());
      REQUIRE(S.cols() == D.cols());
      const double scale = std::max(1.0, D.cwiseAbs().maxCoeff());
      return (MatrixXd(S) - D).cwiseAbs().maxCoeff() <= 1e-12 * scale;
    };
    INFO("differenced " << differenced);
    CHECK(near(sparse.Ms, dense.M));
    CHECK(near(sparse.As, dense.A));
    CHECK(near(sparse.dQdqS, dense.dQdq));
    CHECK(near(sparse.dQdvS, dense.dQdv));
    // a chain: a few entries per column whatever N (the dense form holds n^2)
    const int n = scene.model.numCoordinates();
    CHECK(sparse.dQdqS.nonZeros() <= 9 * n);
    CHECK(sparse.Ms.nonZeros() <= 3 * n);
  }
}

TEST_CASE("radau5: the sparse linearization takes the steps of the dense one", "[integrators][radau5][linearization][sparse]") {
  // 48 rods (n + m = 146 >= sparseFrom = 120): the KKT matrix is factorized sparsely in both
  // runs; one gets the linearization in sparse form, the other in dense form scanned into
  // the sparse matrices (a system without the sparse form). Same matrices up to round-off: same steps, the
  // same trajectory to far below the tolerance (1e-6)
  const Scene scene = sceneFromJson(chainScene(48, 1e6), "");
  SimulationSettings set;
  set.tEnd = 0.05;
  set.outputInterval = 0.01;
  set.rtol = set.atol = 1e-6;
  set.integrator = IntegratorKind::Radau5;
  MemoryRecorder ra, rb;
  ModelSystem s1(scene.model), s2model(scene.model);
  DenseLinearization s2(s2model);
  const SimulationResult a = runSimulation(s1, set, ra);
  const SimulationResult b = runSimulation(s2, set, rb);
  REQUIRE(a.completed());
  REQUIRE(b.completed());
  REQUIRE(ra.size() == rb.size());
  double diff = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) diff = std::max(diff, (ra.q[i] - rb.q[i]).cwiseAbs().maxCoeff());
  INFO("steps " << a.stats.integrator.steps << " / " << b.stats.integrator.steps << ", max |difference| " << diff);
  CHECK(a.stats.integrator.steps == b.stats.integrator.steps);
  CHECK(a.stats.integrator.evaluations == b.stats.integrator.evaluations);
  CHECK(diff < 1e-9);
}

TEST_CASE("radau5 with the force linearization: no heap allocation per step once running",
          "[integrators][radau5][linearization][allocation]") {
  const Scene scene = sceneFromJson(chainScene(4, 1e6), "");
  ModelSystem sys(scene.model);
  Radau5Options o;
  o.rtol = o.atol = 1e-6;
  Radau5Integrator integ(sys, o);
  integ.reset(scene.model.initialState());
  for (int i = 0; i < 20; ++i) REQUIRE(integ.advance(100.0).ok);  // warm-up
  const long before = test::heapAllocations();
  for (int i = 0; i < 50; ++i) REQUIRE(integ.advance(100.0).ok);
  const long after = test::heapAllocations();
  INFO("linearizations " << integ.radauStats().linearizations << ", factorizations "
                         << integ.radauStats().factorizations);
  CHECK(integ.radauStats().linearizations > 1);
  CHECK(after - before == 0);
}

TEST_CASE("radau5, sparse KKT path: the banded LU takes the general sparse LU's steps",
          "[integrators][radau5][linearization][sparse]") {
  // 48 rods (146 unknowns >= sparseFrom): the KKT matrices on their fixed pattern, reordered
  // once (RCM), by the banded LU; against Eigen's SparseLU (maxBand = 0). Same matrices,
  // another elimination order: at fixed steps the same Newton iterations and the trajectory
  // to round-off
  const Scene scene = sceneFromJson(chainScene(48, 1e6), "");
  ModelSystem s1(scene.model), s2(scene.model);
  Radau5Options o;
  o.rtol = o.atol = 1e-6;
  o.fixedStep = true;
  o.initialStep = 1e-3;
  Radau5Options general = o;
  general.maxBand = 0;
  Radau5Integrator a(s1, o), b(s2, general);
  a.reset(scene.model.initialState());
  b.reset(scene.model.initialState());
  while (a.time() < 0.05 - 1e-12) REQUIRE(a.advance(0.05).ok);
  while (b.time() < 0.05 - 1e-12) REQUIRE(b.advance(0.05).ok);
  INFO("steps " << a.stats().steps << " / " << b.stats().steps);
  CHECK(a.radauStats().sparseFactorizations > 0);
  CHECK(a.radauStats().bandFactorizations == a.radauStats().sparseFactorizations);
  CHECK(b.radauStats().sparseFactorizations > 0);
  CHECK(b.radauStats().bandFactorizations == 0);
  CHECK(a.stats().steps == b.stats().steps);
  CHECK(a.radauStats().newtonIterations == b.radauStats().newtonIterations);
  // a band wider than maxBand (the chain's is wider than 1): the general sparse LU
  Radau5Options narrow = o;
  narrow.maxBand = 1;
  ModelSystem s3(scene.model);
  Radau5Integrator c(s3, narrow);
  c.reset(scene.model.initialState());
  while (c.time() < 0.05 - 1e-12) REQUIRE(c.advance(0.05).ok);
  CHECK(c.radauStats().sparseFactorizations == b.radauStats().sparseFactorizations);
  CHECK(c.radauStats().bandFactorizations == 0);
  CHECK((c.state().q - b.state().q).cwiseAbs().maxCoeff() == 0);
  CHECK(a.time() == b.time());
  const double dq = (a.state().q - b.state().q).cwiseAbs().maxCoeff(), dv = (a.state().v - b.state().v).cwiseAbs().maxCoeff();
  INFO("max |q difference| " << dq << ", |v difference| " << dv);
  CHECK(dq < 1e-12);
  CHECK(dv < 1e-10);
}

TEST_CASE("radau5, sparse KKT path: no heap allocation per step once running",
          "[integrators][radau5][linearization][sparse][allocation]") {
  // 64 rods: 192 coordinates + 2 rows, over sparseFrom: the linearization refilled in place
  // on its pattern, the KKT matrices on theirs, factorized by the banded LU (before: triplets,
  // sparse temporaries and SparseLU's symbolic and numeric factorization at every new step
  // size). Counted with malloc interposed, which also sees Eigen's allocations
  const Scene scene = sceneFromJson(chainScene(64, 1e6), "");
  ModelSystem sys(scene.model);
  Radau5Options o;
  o.rtol = o.atol = 1e-6;
  o.linearizedJacobianReuse = 0;  // a new linearization after every step that iterated
  Radau5Integrator integ(sys, o);
  integ.reset(scene.model.initialState());
  for (int i = 0; i < 10; ++i) REQUIRE(integ.advance(100.0).ok);  // warm-up
  const Radau5Stats warm = integ.radauStats();
  const long before = test::heapAllocations(), mBefore = test::mallocCount();
  for (int i = 0; i < 40; ++i) REQUIRE(integ.advance(100.0).ok);
  const long news = test::heapAllocations() - before, mallocs = test::mallocCount() - mBefore;
  const Radau5Stats& st = integ.radauStats();
  INFO("linearizations " << st.linearizations - warm.linearizations << ", factorizations "
                         << st.factorizations - warm.factorizations << " (sparse "
                         << st.sparseFactorizations - warm.sparseFactorizations << ")");
  CHECK(st.linearizations - warm.linearizations >= 5);
  CHECK(st.sparseFactorizations - warm.sparseFactorizations >= 5);
  CHECK(st.bandFactorizations == st.sparseFactorizations);
  CHECK(news == 0);
  if (test::mallocCounting()) CHECK(mallocs == 0);
}

}  // namespace
}  // namespace joinery
