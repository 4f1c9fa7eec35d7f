// The structured (sparse) fast path of ModelSystem against the dense reference solver: the
// accelerations agree to round-off on every bundled scene (well-posed, redundant, singular-mass,
// non-ideal, ill-posed), at the initial state and along a short run; chains and trees are
// eliminated without fill-in; an evaluation does not allocate.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "sanitizers.hpp"
#include "../../bench/chain_model.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/core/scene_completion.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/simulation.hpp"
#include "sparse_path.hpp"

// The allocation counter (replaced global operator new/delete) lives in its own file,
// tests/support/allocation_counter.cpp, shared with the other tests: defined next to inlined
// allocator code, the replacements made ASan report alloc-dealloc mismatches.
#include "allocation_counter.hpp"

namespace joinery {
namespace {

namespace fs = std::filesystem;

ModelSystemOptions withPath(EvaluationPath p) {
  ModelSystemOptions o;
  o.path = p;
  return o;
}

std::vector<std::string> bundledScenes() {
  std::vector<std::string> out;
  // (examples/problems holds matrix problems, not scenes; a file without "joinery" is no scene)
  for (const char* dir : {"examples/scenes", "examples/validation"})
    for (const auto& e : fs::directory_iterator(fs::path(JOINERY_SOURCE_DIR) / dir)) {
      if (e.path().extension() != ".json") continue;
      std::ifstream in(e.path());
      const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
      if (j.is_object() && j.contains("joinery")) out.push_back(e.path().string());
    }
  std::sort(out.begin(), out.end());
  return out;
}

/// States to compare at: the initial state and samples of a short run of the dense system.
std::vector<State> statesOf(const Scene& scene) {
  std::vector<State> states{scene.model.initialState()};
  ModelSystem dense(scene.model);  // the default system: only the states matter here
  SimulationSettings set = parseSimulationSettings(scene.simulation);
  // the states of the first 0.2 s; under AddressSanitizer of the first 0.05 s (the dense run of
  // the 40-loop four-bar alone took a minute there; the code paths are the same)
  set.tEnd = std::min(set.tEnd, joinery::test::sizeForSanitizers(0.2, 0.05));
  set.outputInterval = set.tEnd / 4;
  MemoryRecorder rec;
  try {
    runSimulation(dense, set, rec);
  } catch (const std::exception&) {
    return states;  // invalid settings: the initial state only
  }
  for (std::size_t i = 1; i < rec.size(); ++i) states.push_back(State{rec.t[i], rec.q[i], rec.v[i]});
  return states;
}

struct Comparison {
  int states = 0, wellPosed = 0, structured = 0;
  double maxRelDiff = 0;        // structured against the dense reference solver
  double maxRelDiffMetric = 0;  // structured against the dense metric fast path
};

/// Accelerations of both paths at every state (and with Baumgarte terms at the last one).
Comparison compare(const Scene& scene) {
  Comparison c;
  ModelSystem dense(scene.model, withPath(EvaluationPath::Dense));
  ModelSystem fast(scene.model, withPath(EvaluationPath::Structured));
  ModelSystem metric(scene.model, withPath(EvaluationPath::DenseMetric));
  const int n = scene.model.numCoordinates();
  VectorXd a(n), b(n), c3(n);
  auto one = [&](const State& s, const Baumgarte& bg) {
    ++c.states;
    AccelerationStatus sd, sf;
    try {
      sd = dense.calcAccelerations(s, a, bg);
    } catch (const Error&) {
      CHECK_THROWS_AS(fast.calcAccelerations(s, b, bg), Error);  // same typed error
      return;
    }
    sf = fast.calcAccelerations(s, b, bg);
    INFO("t = " << s.t << "\n dense: " << sd.message << "\n fast: " << sf.message);
    CHECK(sf.posedness == sd.posedness);
    CHECK(sf.finite == sd.finite);
    if (!sd.ok()) return;
    ++c.wellPosed;
    if (sf.structured) ++c.structured;
    const double scale = std::max(1.0, a.cwiseAbs().maxCoeff());
    const double diff = (a - b).cwiseAbs().maxCoeff() / scale;
    const AccelerationStatus sm = metric.calcAccelerations(s, c3, bg);
    const double diffMetric = sm.ok() ? (c3 - b).cwiseAbs().maxCoeff() / scale : 0.0;
    c.maxRelDiffMetric = std::max(c.maxRelDiffMetric, diffMetric);
    INFO("dense rank A " << sd.rankA << ", redundant " << sd.redundant << "; structured " << sf.structured
         << ", released " << sf.released << ", least squares " << sf.leastSquares << " (" << sf.inconsistency
         << "); relative difference to dense " << diff << ", to the dense metric path " << diffMetric);
    if (sf.leastSquares) {
      // a combination of rows nearly dependent here (off the constraints, or near a singular
      // position) and slightly inconsistent: the dense solver enforces it exactly, the fast paths
      // release it (docs/integrators.md), the structured one by static pivoting, the dense metric
      // one by a global Tikhonov term: both within the declared inconsistency (1e-3 of |b|), and
      // their answers differ by about that much (Bricard 1e-5 off its constraints: 4e-5)
      CHECK(sm.ok());
      CHECK(sf.inconsistency <= 1e-3);
      CHECK(diffMetric <= 1e-3);
      return;
    }
    c.maxRelDiff = std::max(c.maxRelDiff, diff);
    // Round-off plus the regularization: K = 4 solves leave (d / (s + d))^4 of the error on a
    // combination of rows with eigenvalue s of As W^-1 As^T. On the Andrews squeezer (masses and
    // inertias over 5 decades) that is 1.3e-10 relative, the same in the dense metric path; every
    // other scene agrees to 1e-13. 1e-9 is the tolerance of the existing A02 fast/dense test.
    CHECK(diff <= 1e-9);
    CHECK(diffMetric <= 1e-9);
  };
  std::vector<State> states = statesOf(scene);
  for (const State& s : states) one(s, Baumgarte{});
  State s = states.back();
  s.q += VectorXd::Constant(n, 1e-5);  // off the constraints: the Baumgarte terms matter
  one(s, Baumgarte{5, 5});
  return c;
}

TEST_CASE("Structured and dense paths agree on every bundled scene", "[fastpath]") {
  for (const std::string& file : bundledScenes()) {
    SECTION(fs::path(file).filename().string()) {
      const Scene scene = completeMasslessPoints(loadScene(file));
      const Comparison c = compare(scene);
      INFO(file << ": " << c.states << " states, " << c.wellPosed << " well posed, " << c.structured
                << " answered by the structured path, max relative difference " << c.maxRelDiff);
      // well-posed states are answered by the structured path itself (not by its dense
      // fallback), also with non-ideal joints (their work C from the structured multipliers);
      // only states at a singular position may go to the dense solver
      if (c.wellPosed > 0) CHECK(c.structured >= 1);
    }
  }
}

TEST_CASE("Structured and dense paths agree on the 3-D chain, also spinning", "[fastpath]") {
  for (double spin : {0.0, 1.0}) {
    const Scene scene = bench::chainModel(12, spin);
    const Comparison c = compare(scene);
    INFO("spin " << spin << ": max relative difference " << c.maxRelDiff);
    CHECK(c.wellPosed == c.states);
    // every state, the first (which validates M block by block) and the one at rest (b = 0:
    // the residual's scale includes |x|) included
    CHECK(c.structured == c.wellPosed);
  }
}

TEST_CASE("The block evaluation carries every row's norm and the largest mass diagonal; calcBlocks is one pass of it",
          "[fastpath]") {
  // the structured solver scales the rows by ModelWorkspace::rowNorms and regularizes with
  // largestMassDiagonal: both must be those of the blocks just evaluated, on every bundled scene
  // (every body and joint type), after every evaluation that writes the blocks
  for (const std::string& file : bundledScenes()) {
    INFO(file);
    const Scene scene = loadScene(file);
    const Model& model = scene.model;
    ModelWorkspace ws = model.makeWorkspace(true);
    for (const State& s : statesOf(scene)) {
      model.calcMassAndForces(s, ws);
      model.calcConstraints(s, ws);
      model.calcBodyBlocks(s, ws);
      model.calcRowBlocks(s, ws);
      const double diag = ws.M.rows() > 0 ? ws.M.diagonal().cwiseAbs().maxCoeff() : 0.0;
      CHECK(ws.largestMassDiagonal() == diag);  // a maximum: exact
      REQUIRE(ws.rowNorms().size() == model.numConstraintRows());
      for (int i = 0; i < model.numConstraintRows(); ++i)  // the sums' order may differ: round-off
        CHECK(std::abs(ws.rowNorms()(i) - ws.A.row(i).norm()) <= 1e-14 * std::max(1.0, ws.A.row(i).norm()));
      // the one-pass evaluation (bodies with their internal rows, then the joints) writes the
      // same blocks, bit for bit
      ModelWorkspace one = model.makeWorkspace(false);
      model.calcBlocks(s, one);
      CHECK(one.largestMassDiagonal() == ws.largestMassDiagonal());
      CHECK(one.Q == ws.Q);
      CHECK(one.b == ws.b);
      CHECK(one.rowNorms() == ws.rowNorms());
      for (std::size_t i = 0; i < model.bodySlots().size(); ++i) CHECK(one.bodyMass(i) == ws.bodyMass(i));
      for (std::size_t r = 0; r < model.rowBlocks().size(); ++r) CHECK(one.rowBlockRows(r) == ws.rowBlockRows(r));
    }
    // the velocity errors rewrite the internal rows' blocks at their own state: their norms too
    State moved = scene.model.initialState();
    moved.q *= 1.5;  // unnormalized quaternions: other internal rows
    VectorXd psi(model.numConstraintRows());
    model.calcVelocityErrors(moved, ws, psi);
    for (std::size_t r = 0; r < model.rowBlocks().size(); ++r) {
      const RowBlock& rb = model.rowBlocks()[r];
      const auto Ar = ws.rowBlockRows(r);
      if (rb.constraint) continue;
      for (int i = 0; i < rb.size; ++i)
        CHECK(std::abs(ws.rowNorms()(rb.row + i) - Ar.row(i).norm()) <= 1e-14 * std::max(1.0, Ar.row(i).norm()));
    }
  }
}

#if defined(__linux__) && !defined(JOINERY_LARGE_PAGES_OFF)
namespace {
/// Whether the mapping that holds `p` carries the MADV_HUGEPAGE flag ("hg" in /proc/self/smaps).
bool markedForLargePages(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = lo <= a && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return false;
}
}  // namespace
#endif

TEST_CASE("The workspace's blocks lie in one store, each on a cache line, large stores on large pages",
          "[fastpath][workspace]") {
  const Scene scene = bench::chainModel(4096);
  const Model& model = scene.model;
  ModelWorkspace ws = model.makeWorkspace(false);
  struct Extent {
    const double* begin;
    const double* end;
  };
  std::vector<Extent> blocks;
  auto add = [&](const ModelWorkspace::BlockView& b) {
    CHECK(reinterpret_cast<std::uintptr_t>(b.data()) % 64 == 0);
    blocks.push_back({b.data(), b.data() + b.size()});
  };
  for (std::size_t i = 0; i < model.bodySlots().size(); ++i) add(ws.bodyMass(i));
  for (std::size_t r = 0; r < model.rowBlocks().size(); ++r) add(ws.rowBlockRows(r));
  std::sort(blocks.begin(), blocks.end(), [](const Extent& x, const Extent& y) { return x.begin < y.begin; });
  for (std::size_t k = 1; k < blocks.size(); ++k) REQUIRE(blocks[k - 1].end <= blocks[k].begin);
  // the first body's mass block first, its internal row (the quaternion's norm) right after it
  // (7 x 7 rounded up to 56 doubles): the order the one-pass evaluation writes them
  const double* firstBody = ws.bodyMass(0).data();
  CHECK(blocks.front().begin == firstBody);
  for (std::size_t r = 0; r < model.rowBlocks().size(); ++r)
    if (model.rowBlocks()[r].constraint == nullptr && model.rowBlocks()[r].body == model.bodySlots()[0].body)
      CHECK(ws.rowBlockRows(r).data() == firstBody + 56);
  // one store, no gaps but each block's rounding up to whole cache lines
  std::ptrdiff_t rounded = 0;
  for (const Extent& b : blocks) rounded += (b.end - b.begin + 7) / 8 * 8;
  const std::ptrdiff_t lastPad = (blocks.back().end - blocks.back().begin + 7) / 8 * 8 - (blocks.back().end - blocks.back().begin);
  CHECK(blocks.back().end - blocks.front().begin == rounded - lastPad);
#if defined(__linux__) && !defined(JOINERY_LARGE_PAGES_OFF)
  // 3.7 MB: its own mapping, 2 MiB-aligned, marked for transparent huge pages
  CHECK(reinterpret_cast<std::uintptr_t>(firstBody) % detail::kLargePage == 0);
  CHECK(markedForLargePages(firstBody));
#endif
  // a small model's store: operator new, still on a cache line, not marked
  const Scene small = bench::chainModel(4);
  ModelWorkspace wsSmall = small.model.makeWorkspace(false);
  CHECK(reinterpret_cast<std::uintptr_t>(wsSmall.bodyMass(0).data()) % 64 == 0);
  detail::LargePageVector<double> tiny(3, 1.0);
  CHECK(reinterpret_cast<std::uintptr_t>(tiny.data()) % 64 == 0);
}

TEST_CASE("A chain is eliminated without fill-in, in storage linear in N", "[fastpath]") {
  std::vector<long long> entries;
  for (int N : {16, 32, 64}) {
    const Scene scene = bench::chainModel(N);
    ModelWorkspace ws = scene.model.makeWorkspace(false);
    CHECK_FALSE(ws.hasDenseMatrices());
    detail::BlockKkt kkt;
    kkt.setup(scene.model, 1e-13, 1e-12);
    const State s = scene.model.initialState();
    scene.model.calcBodyBlocks(s, ws);
    scene.model.calcRowBlocks(s, ws);
    kkt.analyze(ws);
    CHECK(kkt.fillBlocks() == 0);
    CHECK(kkt.numNodes() == 2 * N);  // a body (with its quaternion row) and a joint per link
    entries.push_back(kkt.storedEntries());
  }
  CHECK(entries[2] - entries[1] == 2 * (entries[1] - entries[0]));  // exactly linear in N
}

TEST_CASE("A large chain runs on the structured path without dense matrices", "[fastpath]") {
  // 3000 links: n = 21000, dense M and A would take 5 GB
  const Scene scene = bench::chainModel(3000, 1.0);
  ModelSystem sys(scene.model);
  const State s = sys.initialState();
  VectorXd qdd(sys.numCoordinates());
  const AccelerationStatus st = sys.calcAccelerations(s, qdd);
  INFO(st.message);
  REQUIRE(st.ok());
  CHECK(st.structured);
  CHECK(sys.structuredEvaluations() == 1);
  // A q'' = b to round-off, checked row block by row block (tolerance: 1e-9 of |b|_inf, the
  // spinning chain's b grows like N^2 Omega^2)
  ModelWorkspace ws = scene.model.makeWorkspace(false);
  scene.model.calcRowBlocks(s, ws);
  double worst = 0;
  for (std::size_t r = 0; r < scene.model.rowBlocks().size(); ++r) {
    const RowBlock& rb = scene.model.rowBlocks()[r];
    const auto Ar = ws.rowBlockRows(r);
    VectorXd lhs = VectorXd::Zero(rb.size);
    int col = 0;
    for (int bi : scene.model.rowBlockBodies(r)) {
      if (bi < 0) continue;
      const BodySlot& sl = scene.model.bodySlots()[static_cast<std::size_t>(bi)];
      lhs += Ar.middleCols(col, sl.size) * qdd.segment(sl.offset, sl.size);
      col += sl.size;
    }
    worst = std::max(worst, (lhs - ws.b.segment(rb.row, rb.size)).cwiseAbs().maxCoeff());
  }
  CHECK(worst <= 1e-9 * std::max(1.0, ws.b.cwiseAbs().maxCoeff()));
}

/// The chain of bench/chain_model.hpp plus a loose, massless particle (no joint, no force):
/// nothing determines its acceleration, so the model is ill posed in that component only.
Scene chainWithLooseMasslessParticle(int N) {
  nlohmann::json j = bench::chainScene(N, 1.0);
  j["bodies"].push_back({{"name", "loose"}, {"type", "particle"}, {"mass", 0}, {"position", {0.0, 2.0, 0.0}}});
  return sceneFromJson(j, "chain_loose.json");
}

TEST_CASE("A failing component goes to the dense solver alone; the rest stays structured", "[fastpath]") {
  // The dense solver on the whole model and the structured path (which hands only the
  // particle's component to the dense solver) must both say ill posed and name the same
  // coordinates, and the chain's accelerations must equal those of the chain alone.
  const Scene scene = chainWithLooseMasslessParticle(6);
  const Scene alone = bench::chainModel(6, 1.0);
  ModelSystem sys(scene.model), ref(alone.model), whole(scene.model, withPath(EvaluationPath::Dense));
  const State s = sys.initialState();
  VectorXd qdd(sys.numCoordinates()), qref(ref.numCoordinates());
  REQUIRE(ref.calcAccelerations(ref.initialState(), qref).ok());
  const AccelerationStatus first = whole.calcAccelerations(s, qdd);
  CHECK(first.posedness == Posedness::IllPosed);
  CHECK_FALSE(first.structured);
  const AccelerationStatus second = sys.calcAccelerations(s, qdd);
  INFO(second.message);
  CHECK(second.posedness == Posedness::IllPosed);
  CHECK(second.structured);
  CHECK(second.denseComponents == 1);
  for (const char* c : {"loose.x", "loose.y", "loose.z"}) {
    CHECK(first.message.find(c) != std::string::npos);
    CHECK(second.message.find(c) != std::string::npos);
  }
  CHECK(second.message.find("link") == std::string::npos);  // the chain is not blamed
  // the chain's coordinates come first in both models (bodies in scene order)
  CHECK((qdd.head(qref.size()) - qref).cwiseAbs().maxCoeff() <= 1e-12 * qref.cwiseAbs().maxCoeff());
}

TEST_CASE("A large model with one ill-posed component is diagnosed without dense matrices", "[fastpath]") {
  // 500 links: n = 3503, m = 2000; n (n + m) > 1e7, so the model has no dense M and A. Handing
  // the whole model to the dense solver would allocate them (0.15 GB) and run SVDs of 3503
  // columns; the particle's component alone is 3 coordinates.
  const Scene scene = chainWithLooseMasslessParticle(500);
  ModelSystem sys(scene.model);
  REQUIRE_FALSE(sys.hasDenseMatrices());
  VectorXd qdd(sys.numCoordinates());
  const AccelerationStatus st = sys.calcAccelerations(sys.initialState(), qdd);
  INFO(st.message);
  CHECK(st.posedness == Posedness::IllPosed);
  CHECK(st.structured);
  CHECK(st.denseComponents == 1);
  CHECK(st.message.find("loose.x") != std::string::npos);
  CHECK_FALSE(sys.hasDenseMatrices());
  // the chain's part agrees with the chain alone (structured there too)
  const Scene alone = bench::chainModel(500, 1.0);
  ModelSystem ref(alone.model);
  VectorXd qref(ref.numCoordinates());
  REQUIRE(ref.calcAccelerations(ref.initialState(), qref).ok());
  CHECK((qdd.head(qref.size()) - qref).cwiseAbs().maxCoeff() <= 1e-12 * qref.cwiseAbs().maxCoeff());
}

TEST_CASE("Contradictory rows are inconsistent on the structured path, also at rest", "[fastpath]") {
  // A particle driven to x = t^2 and to x = 2 t^2 (accelerations 2 and 4: a contradiction of
  // size 1 in the scaled rows), beside a 3-D chain whose accelerations are large (|x| ~ 1e2):
  // the residual's scale |bs| + 1e-4 |x| must not hide the contradiction. At t = 0 the particle
  // is at rest, where b = 0 except the drivers' f''.
  nlohmann::json j = bench::chainScene(8, 0.0);
  j["bodies"].push_back({{"name", "p"}, {"type", "particle"}, {"mass", 1}, {"position", {0.0, 5.0, 0.0}}});
  j["joints"].push_back({{"name", "d1"}, {"type", "driver"}, {"coordinate", "p.x"}, {"value", "t^2"}});
  j["joints"].push_back({{"name", "d2"}, {"type", "driver"}, {"coordinate", "p.x"}, {"value", "2*t^2"}});
  const Scene scene = sceneFromJson(j, "contradiction.json");
  ModelSystem sys(scene.model), whole(scene.model, withPath(EvaluationPath::Dense));
  VectorXd qdd(sys.numCoordinates());
  const State s = sys.initialState();
  const AccelerationStatus sd = whole.calcAccelerations(s, qdd);
  const AccelerationStatus sf = sys.calcAccelerations(s, qdd);
  INFO("dense: " << sd.message << "\nstructured: " << sf.message);
  CHECK(sd.posedness == Posedness::Inconsistent);
  CHECK(sf.posedness == Posedness::Inconsistent);
  CHECK(sf.denseComponents == 1);
  CHECK(sf.message.find("link") == std::string::npos);
}

/// The 3-D chain of bench/chain_model.hpp hanging straight down from the origin at rest: every
/// rod along -z (body x axis rotated onto -z), no velocity. An equilibrium: b = 0 exactly and
/// the accelerations vanish.
Scene hangingChain(int N) {
  nlohmann::json j = bench::chainScene(N, 0.0);
  const double h = std::sqrt(0.5);
  for (int i = 0; i < N; ++i) {
    auto& b = j["bodies"][static_cast<std::size_t>(i)];
    b["position"] = {0.0, 0.0, -(i + 0.5)};
    b["orientation"] = {h, 0.0, h, 0.0};  // 90 degrees about y: body x -> world -z
  }
  return sceneFromJson(j, "hanging.json");
}

TEST_CASE("A chain hanging at rest is answered through the structure (b = 0)", "[fastpath]") {
  // at exact rest b = 0 and q'' = 0 to round-off, so a residual scale of |bs| + 1e-4 |q''|
  // is round-off itself and every such state went to the dense solver (a 1024-link chain hanging
  // still took minutes per evaluation). The free accelerations Q / rho now set the scale.
  // (24 links under AddressSanitizer, where the dense reference of 64 took 28 s)
  const Scene scene = hangingChain(joinery::test::sizeForSanitizers(64, 24));
  ModelSystem sys(scene.model), dense(scene.model, withPath(EvaluationPath::Dense));
  const State s = sys.initialState();
  VectorXd qdd(sys.numCoordinates()), qref(sys.numCoordinates());
  const AccelerationStatus st = sys.calcAccelerations(s, qdd);
  INFO(st.message);
  REQUIRE(st.ok());
  CHECK(st.structured);
  CHECK(sys.structuredEvaluations() == 1);
  CHECK(sys.denseEvaluations() == 0);
  // the equilibrium: q'' = 0 up to the round-off of eliminating 64 links (g = 9.81: 1e-10 g)
  CHECK(qdd.cwiseAbs().maxCoeff() < 1e-9);
  REQUIRE(dense.calcAccelerations(s, qref).ok());
  CHECK((qdd - qref).cwiseAbs().maxCoeff() < 1e-9);
  // a contradiction at rest is still one: the same chain with a particle driven both to x = t^2
  // and to x = 2 t^2 (b = 2 and 4 on one coordinate)
  nlohmann::json j = bench::chainScene(4, 0.0);
  j["bodies"].push_back({{"name", "p"}, {"type", "particle"}, {"mass", 1}, {"position", {0.0, 5.0, 0.0}}});
  j["joints"].push_back({{"name", "d1"}, {"type", "driver"}, {"coordinate", "p.x"}, {"value", "t^2"}});
  j["joints"].push_back({{"name", "d2"}, {"type", "driver"}, {"coordinate", "p.x"}, {"value", "2*t^2"}});
  const Scene bad = sceneFromJson(j, "contradiction.json");
  ModelSystem sb(bad.model);
  VectorXd qb(sb.numCoordinates());
  CHECK(sb.calcAccelerations(sb.initialState(), qb).posedness == Posedness::Inconsistent);
}

TEST_CASE("A state handed to the dense solver is not reported as structured", "[fastpath]") {
  // one component (a particle driven both to x = t^2 and to x = 2 t^2): the structured
  // path factorizes it (one row released), its residual test fails and the whole model goes to the
  // dense solver. The status is the dense solver's alone: not structured, no released row.
  const Scene scene = sceneFromJson(nlohmann::json::parse(R"({"joinery": 1,
      "bodies": [{"name": "p", "type": "particle", "dim": 1, "mass": 1}],
      "joints": [{"name": "d1", "type": "driver", "coordinate": "p.x", "value": "t^2"},
                 {"name": "d2", "type": "driver", "coordinate": "p.x", "value": "2*t^2"}]})"),
                                    "one_component.json");
  ModelSystem sys(scene.model);
  VectorXd qdd(1);
  const AccelerationStatus st = sys.calcAccelerations(sys.initialState(), qdd);
  INFO(st.message);
  CHECK(st.posedness == Posedness::Inconsistent);
  CHECK(sys.denseEvaluations() == 1);
  CHECK(sys.structuredEvaluations() == 0);
  CHECK_FALSE(st.structured);
  CHECK(st.released == 0);
  CHECK(st.denseComponents == 0);
}

TEST_CASE("A well-posed model never allocates its dense matrices, from the initial projection on", "[fastpath]") {
  // 40 links: n = 280, m = 160, n (n + m) = 1.2e5 entries. The structured path answers it, so its
  // dense M, A and metric (allocated and zeroed up front before: 200 MB and 0.7 s of the start of
  // a 256-link chain) are never made; the projection of drifted initial conditions, before any
  // evaluation, runs on the structure too (it used a dense Cholesky of W, O(n^3)).
  const Scene scene = bench::chainModel(40, 1.0);
  ModelSystem sys(scene.model);
  CHECK_FALSE(sys.hasDenseMatrices());
  State s = sys.initialState();
  s.q(0) += 1e-3;  // link0's centre off its pin
  s.v(1) += 1e-3;
  const ProjectionReport pp = sys.projectPositions(s, ProjectionOptions{});
  const ProjectionReport pv = sys.projectVelocities(s, ProjectionOptions{});
  CHECK(pp.converged);
  CHECK(pv.converged);
  CHECK(pp.iterations > 0);
  const ConstraintResiduals r = sys.calcConstraintResiduals(s);
  // the projection's own tolerance: 1e-12 max(1, |q|_inf), 1e-12 max(1, |v|_inf)
  CHECK(r.position <= 1e-12 * std::max(1.0, s.q.cwiseAbs().maxCoeff()));
  CHECK(r.velocity <= 1e-12 * std::max(1.0, s.v.cwiseAbs().maxCoeff()));
  VectorXd qdd(sys.numCoordinates());
  CHECK(sys.calcAccelerations(s, qdd).ok());
  CHECK(sys.denseEvaluations() == 0);
  CHECK_FALSE(sys.hasDenseMatrices());
}

TEST_CASE("Projection steps after the first reuse the factorization while they converge fast", "[fastpath]") {
  // chord steps: a drift of 1e-2 m needs several Gauss-Newton steps; near the manifold the rows
  // hardly change, so one factorization serves them (a Newton step factorized at every step)
  const Scene scene = bench::chainModel(40, 1.0);
  ModelSystem sys(scene.model);
  State s = sys.initialState();
  for (int i = 0; i < 40; ++i) s.q(7 * i + 2) += 1e-2 * std::sin(0.7 * i);  // every link's centre off in z
  const ProjectionReport pp = sys.projectPositions(s, ProjectionOptions{});
  INFO("iterations " << pp.iterations << ", factorizations " << pp.factorizations << ", solves " << pp.solves);
  CHECK(pp.converged);
  CHECK(pp.iterations >= 2);
  CHECK(pp.factorizations < pp.iterations);
  CHECK(pp.solves >= pp.iterations);
  const ConstraintResiduals r = sys.calcConstraintResiduals(s);
  CHECK(r.position <= 1e-12 * std::max(1.0, s.q.cwiseAbs().maxCoeff()));
}

TEST_CASE("A position projection after an evaluation nearby starts as a chord on its factorization", "[fastpath]") {
  // drift control after a step: the step's last evaluation factorized at a state a little off
  // the manifold; the projection of that state (or of a nearby one) needs no factorization of
  // its own when the residual falls fast on the evaluation's factorization
  const Scene scene = bench::chainModel(40, 1.0);
  ModelSystem sys(scene.model);
  State s = sys.initialState();
  for (int i = 0; i < 40; ++i) s.q(7 * i + 2) += 1e-7 * std::sin(0.7 * i);  // drift of 1e-7 m
  VectorXd qdd(sys.numCoordinates());
  REQUIRE(sys.calcAccelerations(s, qdd).ok());
  State near = s;
  for (int i = 0; i < 40; ++i) {  // positions and quaternions (rows and metric change a little)
    near.q(7 * i) += 1e-8 * std::cos(0.3 * i);
    near.q(7 * i + 4) += 1e-8 * std::sin(0.2 * i);
  }
  const ProjectionReport pp = sys.projectPositions(near, ProjectionOptions{});
  INFO("iterations " << pp.iterations << ", factorizations " << pp.factorizations << ", solves " << pp.solves);
  CHECK(pp.converged);
  CHECK(pp.iterations >= 1);
  CHECK(pp.factorizations == 0);
  CHECK(sys.calcConstraintResiduals(near).position <= 1e-12 * std::max(1.0, near.q.cwiseAbs().maxCoeff()));
  // the same projection without the evaluation before it factorizes, and lands on the same
  // manifold point to within the chord's difference of metric (W at a state 1e-8 away)
  ModelSystem fresh(scene.model);
  State other = s;
  for (int i = 0; i < 40; ++i) {
    other.q(7 * i) += 1e-8 * std::cos(0.3 * i);
    other.q(7 * i + 4) += 1e-8 * std::sin(0.2 * i);
  }
  const ProjectionReport pf = fresh.projectPositions(other, ProjectionOptions{});
  CHECK(pf.converged);
  CHECK(pf.factorizations >= 1);
  CHECK((other.q - near.q).cwiseAbs().maxCoeff() <= 1e-12);
}

TEST_CASE("An evaluation's multipliers survive a projection on its factorization before they are asked for",
          "[fastpath][results]") {
  // The structured path leaves the multipliers of a solve in the factorization and reads them
  // only when joint results ask; a projection in between (the chord above: the same
  // factorization, new right-hand sides) must not change what the evaluation's state is
  // answered with.
  const Scene scene = bench::chainModel(40, 1.0);
  ModelSystem sys(scene.model);
  State s = sys.initialState();
  for (int i = 0; i < 40; ++i) s.q(7 * i + 2) += 1e-7 * std::sin(0.7 * i);
  VectorXd qdd(sys.numCoordinates());
  REQUIRE(sys.calcAccelerations(s, qdd).structured);
  State near = s;
  for (int i = 0; i < 40; ++i) near.q(7 * i) += 1e-6 * std::cos(0.3 * i);
  const ProjectionReport pp = sys.projectPositions(near, ProjectionOptions{});
  REQUIRE(pp.converged);
  REQUIRE(pp.solves >= 1);  // the projection did solve on the factorization
  JointMultipliers mult;
  REQUIRE(sys.calcMultipliers(s, mult));  // the structured path's own, still of s
  // against a system that answers at once, and against the dense reference solver
  ModelSystem fresh(scene.model);
  VectorXd qdd2(sys.numCoordinates());
  REQUIRE(fresh.calcAccelerations(s, qdd2).structured);
  JointMultipliers ref;
  REQUIRE(fresh.calcMultipliers(s, ref));
  CHECK((mult.ideal - ref.ideal).cwiseAbs().maxCoeff() <= 1e-14 * ref.ideal.cwiseAbs().maxCoeff());
  CHECK((mult.total - ref.total).cwiseAbs().maxCoeff() <= 1e-14 * ref.total.cwiseAbs().maxCoeff());
  ModelWorkspace ws = scene.model.makeWorkspace();
  JointMultipliers dense;
  (void)solveJointMultipliers(scene.model, s, ws, dense);
  // both solvers to round-off; 1e-9 relative as in tests/results (rank decisions, refinement)
  CHECK((mult.ideal - dense.ideal).cwiseAbs().maxCoeff() <= 1e-9 * dense.ideal.cwiseAbs().maxCoeff());
  // and a later evaluation elsewhere does not answer for s
  State later = s;
  later.t = 0.5;
  REQUIRE(sys.calcAccelerations(later, qdd).ok());
  CHECK_FALSE(sys.calcMultipliers(s, mult));
}

TEST_CASE("A velocity projection away from singular positions enforces every row in one solve", "[fastpath]") {
  // A chain long enough that the projection regularization (1e-3) releases row pivots made small
  // by the mass beyond them (from about 512 links): the velocity projection first factorizes at
  // the accelerations' regularization, releases nothing there, and keeps its one-solve step
  // (its amplification is small); the evaluation at the projected state reuses the
  // factorization. With projectionAmplification tiny, every correction counts as amplified: the
  // projection goes on at 1e-3 with its released rows and refinement, as before.
  const Scene scene = bench::chainModel(600, 1.0);
  const auto drifted = [&] {
    State s = scene.model.initialState();
    for (Eigen::Index i = 0; i < s.v.size(); ++i) s.v(i) += 1e-6 * std::sin(0.37 * static_cast<double>(i));
    return s;
  };
  ModelSystem sys(scene.model);
  VectorXd qdd(sys.numCoordinates());
  State s = drifted();
  REQUIRE(sys.calcAccelerations(s, qdd).ok());  // the structure analyzed
  const ProjectionReport pv = sys.projectVelocities(s, ProjectionOptions{});
  INFO("default: iterations " << pv.iterations << ", factorizations " << pv.factorizations << ", solves " << pv.solves);
  CHECK(pv.converged);
  CHECK(pv.factorizations == 1);
  CHECK(pv.solves == pv.iterations);
  const long long reused = sys.reusedFactorizations();
  REQUIRE(sys.calcAccelerations(s, qdd).ok());
  CHECK(sys.reusedFactorizations() == reused + 1);

  ModelSystemOptions o;
  o.projectionAmplification = 1e-9;
  ModelSystem old(scene.model, o);
  State t = drifted();
  REQUIRE(old.calcAccelerations(t, qdd).ok());
  const ProjectionReport po = old.projectVelocities(t, ProjectionOptions{});
  INFO("regularized: iterations " << po.iterations << ", factorizations " << po.factorizations << ", solves " << po.solves);
  CHECK(po.factorizations >= 2);  // the tried one, then at 1e-3
  CHECK(po.solves > pv.solves);
  // both on the constraints; the one-solve projection is the least-W-norm one exactly, the
  // regularized one to within its tolerance
  const double tol = 1e-12 * std::max(1.0, s.v.cwiseAbs().maxCoeff());
  CHECK(sys.calcConstraintResiduals(s).velocity <= tol);
  CHECK((s.v - t.v).cwiseAbs().maxCoeff() <= 1e-9);
  // against the least-M-norm correction from the dense KKT system (on the constraint set the
  // metric's penalty term is constant, so the least-W-norm and least-M-norm corrections agree):
  // [M A^T; A 0] [dv; mu] = [0; -psi] at the drifted state
  const Scene small = bench::chainModel(40, 1.0);
  ModelSystem fast(small.model);
  State a = small.model.initialState();
  for (Eigen::Index i = 0; i < a.v.size(); ++i) a.v(i) += 1e-6 * std::sin(0.37 * static_cast<double>(i));
  const State before = a;
  VectorXd qa(fast.numCoordinates());
  REQUIRE(fast.calcAccelerations(a, qa).ok());
  const ProjectionReport pa = fast.projectVelocities(a, ProjectionOptions{});
  CHECK(pa.factorizations == 1);
  CHECK(pa.solves == pa.iterations);
  ModelWorkspace ws = small.model.makeWorkspace(true);
  small.model.calcMassAndForces(before, ws);
  small.model.calcConstraints(before, ws);
  const Eigen::Index n = small.model.numCoordinates(), m = small.model.numConstraintRows();
  VectorXd psi(m);
  small.model.calcVelocityErrors(before, ws, psi);
  MatrixXd K = MatrixXd::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = ws.M;
  K.topRightCorner(n, m) = ws.A.transpose();
  K.bottomLeftCorner(m, n) = ws.A;
  VectorXd rhs = VectorXd::Zero(n + m);
  rhs.tail(m) = -psi;
  const VectorXd sol = K.fullPivLu().solve(rhs);
  const VectorXd exact = before.v + sol.head(n);
  INFO("correction " << sol.head(n).cwiseAbs().maxCoeff());
  CHECK((a.v - exact).cwiseAbs().maxCoeff() <= 1e-9 * sol.head(n).cwiseAbs().maxCoeff());
}

/// The blocks of the model's initial state in `ws` and `kkt` set up and analyzed on them (the
/// BlockKkt tests below).
void analyzedAtInitialState(const Scene& scene, ModelWorkspace& ws, detail::BlockKkt& kkt) {
  const State s = scene.model.initialState();
  scene.model.calcBodyBlocks(s, ws);
  scene.model.calcRowBlocks(s, ws);
  kkt.setup(scene.model, 1e-13, 1e-12);
  kkt.analyze(ws);
}

TEST_CASE("The smallest row pivot tells which regularizations would replace a pivot", "[fastpath]") {
  // chordFits' test: a factorization with no pivot replaced would replace none at a
  // regularization lambda exactly while its smallest |row pivot| is at least lambda / rho
  const Scene scene = bench::chainModel(64, 1.0);
  ModelWorkspace ws = scene.model.makeWorkspace(false);
  detail::BlockKkt kkt;
  analyzedAtInitialState(scene, ws, kkt);
  const detail::SparseOutcome base = kkt.factor(ws, nullptr, 1e-10);
  REQUIRE(base.factorized);
  REQUIRE(base.released == 0);
  const double p = kkt.smallestRowPivot(), rho = kkt.lastRho();
  INFO("smallest |row pivot| " << p << ", rho " << rho);
  REQUIRE(p > 0);
  REQUIRE(std::isfinite(p));
  CHECK(kkt.factor(ws, nullptr, 0.9 * p * rho).released == 0);
  CHECK(kkt.factor(ws, nullptr, 1.1 * p * rho).released >= 1);
}

TEST_CASE("The refinement on released rows stops at a caller's residual tolerance", "[fastpath]") {
  // a regularization of 0.01 releases some of the chain's row pivots (static pivoting: the
  // refinement of the unregularized system then meets the rows in several solves); with a
  // stopping residual it ends as soon as every row meets it, in fewer solves
  const Scene scene = bench::chainModel(64, 1.0);
  ModelWorkspace ws = scene.model.makeWorkspace(false);
  detail::BlockKkt kkt;
  analyzedAtInitialState(scene, ws, kkt);
  const int n = scene.model.numCoordinates(), m = scene.model.numConstraintRows();
  VectorXd b(m);
  for (int i = 0; i < m; ++i) b(i) = 1e-6 * std::sin(0.37 * i);
  auto run = [&](double stop, VectorXd& x) {
    detail::SparseOutcome out = kkt.factor(ws, nullptr, 0.01);
    REQUIRE(out.factorized);
    REQUIRE(out.released > 0);
    kkt.iterate(ws, nullptr, b, 30, x, out, false, stop);
    return out;
  };
  VectorXd full(n), early(n);
  const detail::SparseOutcome a = run(0.0, full);
  const detail::SparseOutcome c = run(1e-9, early);
  INFO("solves: to round-off " << a.iterations << ", to 1e-9 " << c.iterations);
  CHECK(c.iterations < a.iterations);
  // each row's residual |A x - b|_i, unscaled, within the stopping tolerance
  double worst = 0;
  for (std::size_t r = 0; r < scene.model.rowBlocks().size(); ++r) {
    const RowBlock& rb = scene.model.rowBlocks()[r];
    const auto Ar = ws.rowBlockRows(r);
    VectorXd xl(Ar.cols());
    int col = 0;
    for (int bi : scene.model.rowBlockBodies(r)) {
      if (bi < 0) continue;
      const BodySlot& sl = scene.model.bodySlots()[static_cast<std::size_t>(bi)];
      xl.segment(col, sl.size) = early.segment(sl.offset, sl.size);
      col += sl.size;
    }
    worst = std::max(worst, (Ar * xl - b.segment(rb.row, rb.size)).cwiseAbs().maxCoeff());
  }
  CHECK(worst <= 1e-9);
}

TEST_CASE("A structured evaluation does not allocate", "[fastpath]") {
  // (ni_rough_ring: a non-ideal joint, its work C and the second solve included)
  for (const std::string& name : {std::string("chain"), std::string("n_four_bar_2.json"),
                                  std::string("slider_crank.json"), std::string("ni_rough_ring.json"),
                                  std::string("ni_vibrating_incline.json")}) {
    const Scene scene = name == "chain" ? bench::chainModel(20, 1.0)
                                        : completeMasslessPoints(loadScene(std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/" + name));
    ModelSystem sys(scene.model, withPath(EvaluationPath::Structured));
    State s = sys.initialState();
    VectorXd qdd(sys.numCoordinates());
    REQUIRE(sys.calcAccelerations(s, qdd).ok());  // first evaluation: analysis (allocates)
    REQUIRE(sys.calcAccelerations(s, qdd).ok());
    const long long before = sys.structuredEvaluations();
    const long long allocs = test::heapAllocations();
    for (int i = 0; i < 10; ++i) {
      s.t += 1e-3;
      s.q(0) += 1e-9;
      (void)sys.calcAccelerations(s, qdd, Baumgarte{1, 1});
    }
    const long long used = test::heapAllocations() - allocs;
    INFO(name);
    CHECK(sys.structuredEvaluations() == before + 10);
    CHECK(used == 0);
  }
}

}  // namespace
}  // namespace joinery
