// Impacts at scale (docs/contact.md "Impacts", docs/performance.md "Contacts"): the impulses
// recovered by the sparse normal equations or QR of the rows equal the dense minimum-norm solve (redundant rows
// included), and a chain of 1000 rods falling flat onto a floor (1001 contacts closing at once)
// is resolved without any dense matrix, with the impulses of the closed form.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "contact_chain_model.hpp"
#include "impulse_recovery.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/one_sided_handler.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/events.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/settings.hpp"

namespace joinery {
namespace {

using nlohmann::json;
constexpr double kScaleG = 9.81;

/// Every candidate active with velocity target `target`, v0 projected onto the rows: the
/// velocity after an impact (as OneSidedHandler::impact does); returns the jump.
VectorXd scaleImpactJump(ModelSystem& system, OneSidedHandler& handler, State& s, double target) {
  for (const auto& c : handler.candidates()) {
    c.rows->setActive(c.k, true);
    c.rows->setVelocityTarget(c.k, target);
  }
  const VectorXd v0 = s.v;
  ProjectionOptions po;
  po.maxIterations = 8;
  po.tolerance = 1e-13;
  system.forgetCachedState();
  system.projectVelocities(s, po);
  return s.v - v0;
}

/// Three rods lying 1 cm above the floor on four circles, all moving at (0.3, -1.5) m/s.
json landingThreeRods() {
  bench::ContactChainOptions o;
  o.N = 3;
  o.lying = true;
  o.height = 0.01;
  json doc = bench::contactChainScene(o);
  for (auto& body : doc["bodies"]) body["velocity"] = {0.3, -1.5};
  return doc;
}

/// The sparse and the dense recovery at `s` (the state after the jump dv), by the method
/// expected first and by the QR form that answers when the normal equations are refused.
void checkScaleRecovery(const Model& model, const State& s, const VectorXd& dv, const VectorXd& F, int rank,
                        detail::ImpulseMethod method, detail::ImpulseMethod fallback) {
  ModelWorkspace ws = model.makeWorkspace(false);
  model.calcBlocks(s, ws);
  const VectorXd Pd = detail::calcImpulsesDense(model, s, dv, F);
  REQUIRE(Pd.norm() > 0);
  for (const double accept : {1e-9, 0.0}) {
    VectorXd P;
    detail::ImpulseReport rep;
    detail::recoverImpulses(model, ws, dv, F, P, &rep, accept);
    INFO("accept " << accept << "\nsparse " << P.transpose() << "\ndense  " << Pd.transpose());
    CHECK(rep.method == (accept > 0 ? method : fallback));
    CHECK(rep.rank == rank);
    CHECK(rep.residual < 1e-12);
    CHECK((P - Pd).norm() <= 1e-10 * Pd.norm());
  }
}

TEST_CASE("impulse recovery by sparse normal equations or QR equals the dense minimum-norm solve, redundant rows included",
          "[contact][impact][redundant]") {
  SECTION("a block landing flat on its four corners: 4 rows of rank 3, equal shares") {
    const double m = 3.0, a = 0.2, b = 0.1, c = 0.05;
    json doc = {{"joinery", 1},
                {"gravity", {0, 0, -kScaleG}},
                {"bodies", {{{"name", "block"}, {"type", "rigid3d"}, {"mass", m},
                             {"inertia", {m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3}},
                             {"position", {0, 0, c}}, {"velocity", {0, 0, -2.0}}}}},
                {"joints", {{{"name", "floor"}, {"type", "contact"}, {"body1", "ground"},
                             {"shape1", {{"plane", {{"point", {0, 0, 0}}, {"normal", {0, 0, 1}}}}}}, {"body2", "block"},
                             {"shape2", {{"points", {{-a, -b, -c}, {a, -b, -c}, {a, b, -c}, {-a, b, -c}}}}}}}}};
    const Scene scene = sceneFromJson(doc, "scene.json");
    ModelSystem system(scene.model);
    OneSidedHandler handler(system);
    State s = scene.model.initialState();
    const VectorXd dv = scaleImpactJump(system, handler, s, 1.0);  // e = 0.5
    // rank 4 of the 5 non-zero rows: the quaternion's norm row and 3 of the 4 corners
    checkScaleRecovery(scene.model, s, dv, VectorXd(), 4, detail::ImpulseMethod::NormalEquations,
                       detail::ImpulseMethod::MinimumNormQr);
    // the minimum-norm split: m (1 + e) v / 4 at every corner
    ModelWorkspace ws = scene.model.makeWorkspace(false);
    scene.model.calcBlocks(s, ws);
    VectorXd P;
    detail::recoverImpulses(scene.model, ws, dv, VectorXd(), P);
    for (const auto& cand : handler.candidates()) CHECK(P(cand.row) == Approx(m * 3.0 / 4).epsilon(1e-12));
  }
  SECTION("a planar chain of three rods landing tilted on four circles, with and without friction impulses") {
    json doc = landingThreeRods();
    doc["bodies"][1]["angular_velocity"] = 2.0;
    const Scene scene = sceneFromJson(doc, "scene.json");
    ModelSystem system(scene.model);
    OneSidedHandler handler(system);
    State s0 = scene.model.initialState();
    REQUIRE(handler.candidates().size() == 4);
    State s = s0;
    VectorXd dv = scaleImpactJump(system, handler, s, 0.0);
    checkScaleRecovery(scene.model, s, dv, VectorXd(), 4 + 4, detail::ImpulseMethod::NormalEquations,
                       detail::ImpulseMethod::TallQr);  // 4 hinge rows + 4 contacts
    // friction impulses F beside the rows: the velocity after is the projection of v0 + M^-1 F
    ModelWorkspace ws = scene.model.makeWorkspace(false);
    scene.model.calcBlocks(s0, ws);
    VectorXd F = VectorXd::Zero(s0.v.size()), dvF;
    for (Eigen::Index i = 0; i < F.size(); i += 3) F(i) = -0.05 * (1 + i);  // along x at the centres
    detail::solveBlockPseudoInverse(scene.model, ws, F, dvF);
    s = s0;
    s.v += dvF;
    dv = scaleImpactJump(system, handler, s, 0.0) + dvF;
    checkScaleRecovery(scene.model, s, dv, F, 4 + 4, detail::ImpulseMethod::NormalEquations, detail::ImpulseMethod::TallQr);
  }
}

TEST_CASE("a jump slightly outside the rows' range: the QR of A^T gives the least-squares impulses and says so",
          "[contact][impact]") {
  // A projection onto ill-conditioned rows leaves the jump outside their range by some 1e-9 of
  // itself (the rocking chain): the residual of any answer stops there, and the dense
  // decomposition only repeats the least-squares one. The tall form measures the part of its
  // residual that the rows could still remove (ImpulseReport::optimality): round-off here,
  // against a residual of 1e-7 that the normal equations' check refuses.
  const Scene scene = sceneFromJson(landingThreeRods(), "scene.json");
  const Model& model = scene.model;
  ModelSystem system(model);
  OneSidedHandler handler(system);
  State s = model.initialState();
  VectorXd dv = scaleImpactJump(system, handler, s, 0.0);
  // e: a direction of M dv outside the range of A^T (the dense A at s), 1e-7 of |M dv|
  ModelWorkspace dense = model.makeWorkspace(true);
  model.calcMassAndForces(s, dense);
  model.calcConstraints(s, dense);
  const MatrixXd At = dense.A.transpose();
  const VectorXd r = dense.M * dv;
  VectorXd w = VectorXd::LinSpaced(r.size(), 1.0, 2.0);
  w -= At * At.completeOrthogonalDecomposition().solve(w);
  REQUIRE(w.norm() > 0.1);
  const VectorXd e = 1e-7 * r.cwiseAbs().maxCoeff() / w.cwiseAbs().maxCoeff() * w;
  const VectorXd dvOff = dv + dense.M.ldlt().solve(e);
  ModelWorkspace ws = model.makeWorkspace(false);
  model.calcBlocks(s, ws);
  VectorXd P, Pexact;
  detail::ImpulseReport rep;
  detail::recoverImpulses(model, ws, dvOff, VectorXd(), P, &rep, 1e-9);
  detail::recoverImpulses(model, ws, dv, VectorXd(), Pexact);
  CHECK(rep.method == detail::ImpulseMethod::TallQr);  // (the normal equations' residual is refused)
  CHECK(rep.residual == Approx(1e-7).epsilon(0.05));
  CHECK(rep.optimality >= 0);
  CHECK(rep.optimality < 1e-13);
  // the impulses of the consistent jump, as the dense decomposition gives them
  CHECK((P - Pexact).norm() <= 1e-10 * Pexact.norm());
  CHECK((P - detail::calcImpulsesDense(model, s, dvOff, VectorXd())).norm() <= 1e-10 * Pexact.norm());
  // a residual the rows can remove is not taken for one: an answer within the tolerance has
  // no optimality computed, and the jump in range gives a residual at round-off
  detail::ImpulseReport exactRep;
  detail::recoverImpulses(model, ws, dv, VectorXd(), Pexact, &exactRep, 1e-9);
  CHECK(exactRep.residual < 1e-12);
  CHECK(exactRep.optimality == -1);
}

TEST_CASE("a velocity projection with inactive contacts factorizes once, as without them",
          "[contact][projection]") {
  // Inactive contacts are zero rows, which the factorization counts among its released rows:
  // they sent every velocity projection to a second factorization at the larger
  // regularization meant for nearly dependent rows.
  for (const bool contacts : {false, true}) {
    bench::ContactChainOptions o;
    o.N = 5;
    o.contacts = contacts;
    const Scene scene = sceneFromJson(bench::contactChainScene(o), "scene.json");
    ModelSystem system(scene.model);
    OneSidedHandler handler(system);
    State s = scene.model.initialState();
    VectorXd qdd = VectorXd::Zero(s.v.size());
    REQUIRE(system.calcAccelerations(s, qdd).structured);  // (the structured path set up)
    for (Eigen::Index i = 0; i < s.v.size(); ++i) s.v(i) += 1e-3 * static_cast<double>(i % 7);  // off the rows
    ProjectionOptions po;
    po.maxIterations = 8;
    po.tolerance = 1e-13;
    const ProjectionReport rep = system.projectVelocities(s, po);
    INFO("contacts " << contacts << ", " << handler.candidates().size() << " candidates, residual " << rep.residualBefore
                     << " -> " << rep.residualAfter);
    CHECK(handler.candidates().size() == (contacts ? 5u : 0u));
    CHECK(rep.residualBefore > 1e-4);
    CHECK(rep.converged);
    CHECK(rep.factorizations == 1);
  }
}

TEST_CASE("a resolution leaves its last solve for the integrator's restart at the same state",
          "[contact][events]") {
  // The complementarity's last trial is the evaluation at the resolved state with the final set:
  // the restart's event functions take its multipliers and its factorization serves the first
  // stage. (The handler used to forget it on the way out, and the restart solved again.)
  bench::ContactChainOptions o;
  o.N = 1;
  o.lying = true;
  o.height = 0.0;  // a rod resting on its two circles
  const Scene scene = sceneFromJson(bench::contactChainScene(o), "scene.json");
  ModelSystem system(scene.model);
  OneSidedHandler handler(system);
  REQUIRE(handler.candidates().size() == 2);
  State s = scene.model.initialState();
  handler.resolve(s);
  for (const auto& c : handler.candidates()) CHECK(c.rows->active(c.k));
  JointMultipliers mult;
  REQUIRE(system.lastMultipliers(s, mult));
  // half the weight at each end (compressive: positive)
  for (const auto& c : handler.candidates()) CHECK(mult.total(c.row) == Approx(o.mass * kScaleG / 2).epsilon(1e-9));
  const long long before = system.structuredEvaluations() - system.reusedFactorizations();
  VectorXd qdd = VectorXd::Zero(s.v.size());
  REQUIRE(system.calcAccelerations(s, qdd).ok());
  CHECK(system.structuredEvaluations() - system.reusedFactorizations() == before);  // no new factorization
  CHECK(qdd.cwiseAbs().maxCoeff() < 1e-9);
}

/// A planar chain of N rods lying flat `height` above the floor (bench/contact_chain_model.hpp).
bench::ContactChainOptions lyingChain(int N, double height, double restitution) {
  bench::ContactChainOptions o;
  o.N = N;
  o.lying = true;
  o.height = height;
  o.restitution = restitution;
  return o;
}

/// dopri5 to tEnd at rtol = atol = tol, one sample at the end.
SimulationSettings scaleSettings(double tEnd, double tol) {
  SimulationSettings settings;
  settings.tEnd = tEnd;
  settings.outputInterval = tEnd;
  settings.rtol = settings.atol = tol;
  return settings;
}

TEST_CASE("1000 rods falling flat onto a floor: 1001 contacts close at once, no dense path, closed-form impulses",
          "[contact][impact][scale]") {
  const bench::ContactChainOptions o = lyingChain(1000, 1e-3, 0.3);
  const Scene scene = sceneFromJson(bench::contactChainScene(o), "scene.json");
  ModelSystem system(scene.model);
  OneSidedHandler handler(system);
  REQUIRE(handler.candidates().size() == 1001);
  const SimulationSettings settings = scaleSettings(0.04, 1e-8);  // past the rest at t0 (1 + e) / (1 - e) = 0.0266 s
  NullRecorder rec;
  const SimulationResult r = runSimulation(system, settings, rec, handler);
  INFO(r.message);
  REQUIRE(r.completed());
  // the first impact: every contact at t0 = sqrt(2 h / g) with v0 = g t0; the chain translates,
  // so a rod's impulse m (1 + e) v0 is shared by its two ends: m (1 + e) v0 at a joint, half at
  // the two ends of the chain
  const double t0 = std::sqrt(2 * o.height / kScaleG), v0 = kScaleG * t0;
  const double p = o.mass * (1 + o.restitution) * v0;
  int first = 0;
  for (const auto& e : handler.events()) {
    if (e.kind != "impact" || e.t > t0 + 1e-6) continue;
    ++first;
    CHECK(e.t == Approx(t0).margin(1e-7));  // located at a gap of -1e-9
    const bool end = e.joint == "floor0" || e.joint == "floor_end";
    CHECK(e.impulse == Approx(end ? p / 2 : p).epsilon(1e-6));
  }
  CHECK(first == 1001);
  int rest = 0;
  for (const auto& e : handler.events()) rest += e.kind == "rest" ? 1 : 0;
  CHECK(rest >= 1);
  // at rest on the floor, every contact active
  for (const auto& c : handler.candidates()) CHECK(c.rows->active(c.k));
  CHECK(std::abs(r.state.q(1) - o.radius) < 1e-8);
  // no dense path anywhere: the impulses by sparse QR, every evaluation and multiplier on the
  // structured path, no dense M or A allocated (the dense recovery allocated both)
  CHECK(handler.impulseRecoveries() > 0);
  CHECK(handler.denseImpulseRecoveries() == 0);
  // independent rows: the impulses above are the velocity projection's own multipliers
  CHECK(handler.projectionImpulses() == handler.impulseRecoveries());
  CHECK(handler.denseMultiplierSolves() == 0);
  CHECK(system.denseEvaluations() == 0);
  CHECK(!system.hasDenseMatrices());
  CHECK(!handler.hasDenseMatrices());
}

TEST_CASE("a chain swinging down onto its circles rocks to rest: every active set settles within its bound",
          "[contact][impact][scale]") {
  // A touching row that an impact lifts too slowly to fly is held in contact (accumulation of
  // a rocking motion), which takes a small tensile impulse. That row used to leave again for
  // being tensile and be held again, until the iteration bound (3 per touching row): each such
  // impact cost tens of projections and ended on whichever trial came last.
  bench::ContactChainOptions o;
  o.N = 20;
  const Scene scene = sceneFromJson(bench::contactChainScene(o), "scene.json");
  ModelSystem system(scene.model);
  OneSidedHandler handler(system);
  NullRecorder rec;
  const SimulationResult r = runSimulation(system, scaleSettings(1.2, 1e-8), rec, handler);
  INFO(r.message);
  REQUIRE(r.completed());
  int impacts = 0, rest = 0;
  for (const auto& e : handler.events()) {
    impacts += e.kind == "impact" ? 1 : 0;
    rest += e.kind == "rest" ? 1 : 0;
  }
  CHECK(impacts > 100);
  CHECK(rest > 10);  // the held rows
  CHECK(handler.iterationBoundHits() == 0);
  // one projection per trial set: about two per impact
  CHECK(handler.impulseRecoveries() < 3 * (impacts + rest));
  CHECK(handler.denseMultiplierSolves() == 0);
}

TEST_CASE("a rocking chain's small impacts: least-squares impulses kept sparse, the dense recovery's run again",
          "[contact][impact][scale]") {
  // Settling on its circles, the chain has impacts whose jump is some 1e-8 of the velocities,
  // projected onto the 60 hinge rows and the contacts in touch, ill-conditioned together: the
  // tall QR's residual stops near 1e-9, over the tolerance, and those recoveries went to the
  // dense decomposition (5 ms each at 300 coordinates), which gives the same impulses. With the least-squares check they stay
  // sparse; refusing it (a zero inconsistency tolerance) sends exactly those to the dense
  // recovery, and the run is the same.
  bench::ContactChainOptions o;
  o.N = 30;
  const Scene scene = sceneFromJson(bench::contactChainScene(o), "scene.json");
  const auto run = [&](double inconsistency, long long& leastSquares, long long& dense) {
    ModelSystem system(scene.model);
    OneSidedOptions oo;
    oo.impulseInconsistencyTolerance = inconsistency;
    OneSidedHandler handler(system, oo);
    NullRecorder rec;
    const SimulationResult r = runSimulation(system, scaleSettings(2.0, 1e-8), rec, handler);
    INFO(r.message);
    REQUIRE(r.completed());
    leastSquares = handler.leastSquaresImpulses();
    dense = handler.denseImpulseRecoveries();
    return handler.events();
  };
  long long kept = 0, keptDense = 0, refused = 0, refusedDense = 0;
  const auto withCheck = run(1e-6, kept, keptDense);
  const auto without = run(0.0, refused, refusedDense);
  CHECK(kept > 0);
  CHECK(keptDense == 0);
  CHECK(refused == 0);
  CHECK(refusedDense == kept);
  REQUIRE(without.size() == withCheck.size());
  double largest = 0;
  for (const auto& e : withCheck) largest = std::max(largest, std::abs(e.impulse));
  for (std::size_t i = 0; i < withCheck.size(); ++i) {
    INFO("event " << i << " " << withCheck[i].kind << " of " << withCheck[i].joint);
    CHECK(without[i].kind == withCheck[i].kind);
    CHECK(without[i].t == Approx(withCheck[i].t).margin(1e-9));
    CHECK(without[i].impulse == Approx(withCheck[i].impulse).margin(1e-9 * largest));
  }
}

TEST_CASE("the dense impulse recovery (the sparse QR's fallback) gives the sparse path's run, event for event",
          "[contact][impact][scale]") {
  // The fallback answers when the sparse QR's residual shows a bad pivot; its answer is compared
  // with the sparse one by forcing it on every impact (a negative tolerance). The same run both
  // ways: the same events at the same times with the same impulses (the two minimum-norm
  // solutions agree to round-off, 1e-9 relative of the largest impulse; a wrong row order, a
  // missing friction term or a transposed factor in either would differ by order 1 and change
  // the later events).
  json doc = bench::contactChainScene(lyingChain(12, 2e-3, 0.4));
  for (auto& body : doc["bodies"]) body["velocity"] = {0.0, -0.2};
  doc["bodies"][3]["angular_velocity"] = 1.5;  // tilted: the ends land one after the other
  const Scene scene = sceneFromJson(doc, "scene.json");
  long long fromProjection = 0;
  const auto run = [&](double tolerance, long long& recoveries, long long& dense) {
    ModelSystem system(scene.model);
    OneSidedOptions oo;
    oo.impulseResidualTolerance = tolerance;
    OneSidedHandler handler(system, oo);
    const SimulationSettings settings = scaleSettings(0.05, 1e-9);
    NullRecorder rec;
    const SimulationResult r = runSimulation(system, settings, rec, handler);
    INFO(r.message);
    REQUIRE(r.completed());
    recoveries = handler.impulseRecoveries();
    dense = handler.denseImpulseRecoveries();
    fromProjection = handler.projectionImpulses();
    return handler.events();
  };
  long long sparseN = 0, sparseDense = 0, againN = 0, againDense = 0, denseN = 0, denseDense = 0;
  const auto sparse = run(1e-9, sparseN, sparseDense);
  // (most from the velocity projection's own multipliers: the comparison below covers them)
  CHECK(2 * fromProjection > sparseN);
  // a second run of the same loaded scene is the first again, bit for bit: the active set, the
  // velocity targets and the friction modes a run leaves in the model's one-sided rows are
  // reset when the next run's handler is made (they decided its first events before)
  const auto again = run(1e-9, againN, againDense);
  CHECK(againN == sparseN);
  CHECK(againDense == sparseDense);
  REQUIRE(again.size() == sparse.size());
  for (std::size_t i = 0; i < sparse.size(); ++i) {
    INFO("event " << i);
    CHECK(again[i].t == sparse[i].t);
    CHECK(again[i].impulse == sparse[i].impulse);
  }
  const auto forced = run(-1.0, denseN, denseDense);
  CHECK(fromProjection == 0);  // (a negative tolerance refuses them too)
  CHECK(sparseN > 3);
  // the sparse QR answered every impact: the rows are independent, and the QR of the tall A^T
  // is backward stable (the QR of the wide A failed its residual check here 2 409 times in
  // 6 344, by up to 1e7 relative: nearly dependent leading columns)
  CHECK(sparseDense == 0);
  CHECK(denseDense == denseN);  // every recovery went dense
  REQUIRE(forced.size() == sparse.size());
  double largest = 0;
  for (const auto& e : sparse) largest = std::max(largest, std::abs(e.impulse));
  REQUIRE(largest > 0);
  int impacts = 0;
  for (std::size_t i = 0; i < sparse.size(); ++i) {
    INFO("event " << i << ": " << sparse[i].kind << " of " << sparse[i].joint << " at " << sparse[i].t);
    CHECK(forced[i].kind == sparse[i].kind);
    CHECK(forced[i].joint == sparse[i].joint);
    CHECK(forced[i].t == Approx(sparse[i].t).margin(1e-9));
    CHECK(std::abs(forced[i].impulse - sparse[i].impulse) <= 1e-9 * largest);
    impacts += sparse[i].kind == "impact" && sparse[i].impulse > 0 ? 1 : 0;
  }
  CHECK(impacts > 3);
}

}  // namespace
}  // namespace joinery
