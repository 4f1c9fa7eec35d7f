// The check report as a library call (check.hpp).
#include "joinery/core/check.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <set>
#include <spdlog/spdlog.h>

#include "joinery/core/errors.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/kinematics.hpp"
#include "joinery/core/matrix_problem.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/nonfinite_source.hpp"
#include "joinery/core/plausibility.hpp"

namespace joinery {

std::vector<std::string> bodiesOfCoordinates(const Model& model, const std::vector<int>& coords) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (int i : coords) {
    const std::string& n = model.bodyOfCoordinate(i).name();
    if (seen.insert(n).second) out.push_back(n);
  }
  return out;
}

namespace {

nlohmann::json culpritsToJson(const Culprits& c) {
  return {{"searched", c.searched}, {"overdriven", c.overdriven}, {"joints", c.joints},       {"also_restoring", c.alsoRestoring},
          {"rows", c.rows},         {"coordinates", c.coordinates}, {"message", c.message}};
}

/// The bodies, joints (with their results, docs/results.md) and forces of the model.
void addElements(const Model& model, const std::vector<JointResult>& results, nlohmann::json& j) {
  nlohmann::json bodies = nlohmann::json::array();
  for (const auto& sl : model.bodySlots())
    bodies.push_back({{"name", sl.body->name()},
                      {"type", std::string(sl.body->typeName())},
                      {"coordinates", sl.body->coordinateNames()}});
  j["bodies"] = bodies;
  // "joints": name -> the joint's results at the initial state and its description
  nlohmann::json joints = jointResultsJson(results, model.coordinateNames());
  for (const Constraint* c : model.constraints()) {
    std::vector<std::string> bn;
    for (const Body* b : c->bodies()) bn.push_back(b->name());
    nlohmann::json& jj = joints[c->name()];
    jj["type"] = std::string(c->typeName());
    jj["rows"] = c->numRows();
    jj["bodies"] = bn;
    jj["nonideal"] = c->nonideal() != nullptr;
  }
  j["joints"] = joints;
  nlohmann::json forces = nlohmann::json::array();
  for (const ForceElement* f : model.forces())
    forces.push_back({{"name", f->name()}, {"type", std::string(f->typeName())}});
  j["forces"] = forces;
}

/// The structured diagnosis of a large model at `s` (model_system.hpp, EvaluationPath::
/// Structured): when the block elimination over the body-joint graph factorizes every
/// component with positive coordinate pivots ([M; A] of full rank), releases no row (none
/// redundant) and meets A q'' = b, the model is well posed, and the accelerations and
/// multipliers are that solve's, in O(n) memory. Otherwise nothing: the dense solver decides.
bool structuredCheck(const Model& model, const State& s, Solution& sol, JointMultipliers& mult) {
  ModelSystemOptions options;
  options.denseFallback = false;  // the dense diagnosis below, after its cost is weighed
  ModelSystem system(model, options);
  if (system.resolvedPath() != EvaluationPath::Structured) return false;
  const int n = model.numCoordinates(), m = model.numConstraintRows();
  VectorXd qdd = VectorXd::Zero(n);
  const AccelerationStatus st = system.calcAccelerations(s, qdd, Baumgarte{});
  // structuredEvaluations(): the structured path answered
  const bool ok = st.ok() && st.structured && system.structuredEvaluations() == 1 && st.released == 0 && st.redundant == 0 && st.denseComponents == 0 &&
                  !st.leastSquares && system.calcMultipliers(s, mult);
  spdlog::debug("check: structured path {} (ok {}, structured {}, released {}, redundant {}, dense components {})",
                ok ? "decides" : "cannot decide", st.ok(), st.structured, st.released, st.redundant, st.denseComponents);
  if (!ok) return false;
  // the constraint force M q'' - Q, body by body, and the residual A q'' - b, block by block
  ModelWorkspace ws = model.makeWorkspace(false);
  model.calcBlocks(s, ws);
  const auto& slots = model.bodySlots();
  double residual2 = 0;
  for (std::size_t r = 0; r < model.rowBlocks().size(); ++r) {
    const RowBlock& rb = model.rowBlocks()[r];
    VectorXd res = -ws.b.segment(rb.row, rb.size);
    int col = 0;
    for (const int body : model.rowBlockBodies(r)) {
      if (body < 0) continue;  // the ground has no coordinates
      const BodySlot& sl = slots[static_cast<std::size_t>(body)];
      res += ws.rowBlockRows(r).middleCols(col, sl.size) * qdd.segment(sl.offset, sl.size);
      col += sl.size;
    }
    residual2 += res.squaredNorm();
  }
  sol.qdd = qdd;
  sol.forceIdeal = -ws.Q;
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].size > 0)
      sol.forceIdeal.segment(slots[i].offset, slots[i].size) +=
          ws.bodyMass(i) * qdd.segment(slots[i].offset, slots[i].size);
  sol.forceNonideal = VectorXd::Zero(n);
  Diagnosis& d = sol.diagnosis;
  d.n = n;
  d.m = m;
  d.rankA = m;
  d.rankMA = n;
  d.redundant = 0;
  d.fullRank = d.consistent = d.wellPosed = true;
  d.status = Posedness::WellPosed;
  d.residual = std::sqrt(residual2);
  d.nullBasis = Eigen::MatrixXd(n, 0);
  return true;
}

/// Bytes the dense diagnosis of an n x n model with m rows needs, roughly: the SVDs of the
/// (n + m) x n matrix [M; A] and of A, their factors and copies (about eight of that size).
double denseDiagnosisBytes(const Model& model) {
  const double n = model.numCoordinates(), m = model.numConstraintRows();
  return 8.0 * 8.0 * (n + m) * n;
}

/// Assembly, culprits by name and the locked-mechanism finding (findings.hpp).
void addFindings(const Model& model, const State& s, CheckReport& r) {
  const Diagnosis& d = r.solution.diagnosis;
  if (!d.consistent) {
    r.conflict = findConflictingJoints(model, s);
  } else if (!r.assembly.assembled) {
    const ConstraintLevel level =
        r.assembly.positionAfter.empty() ? ConstraintLevel::Velocity : ConstraintLevel::Position;
    r.conflict = findConflictingJoints(model, r.assembly.state, level);
  }
  // more drivers than degrees of freedom: every driver is a culprit, by name (the removal
  // test names only the rows that contradict at this configuration: at a dead centre, one)
  if (!d.consistent || !r.assembly.assembled) {
    Culprits over = findOverdrivingJoints(model, r.assembly.assembled ? s : r.assembly.state);
    const auto named = [&](const std::string& j) {
      return std::find(r.conflict.joints.begin(), r.conflict.joints.end(), j) != r.conflict.joints.end();
    };
    if (!over.joints.empty() && !std::all_of(over.joints.begin(), over.joints.end(), named)) {
      over.rows = r.conflict.rows;
      over.alsoRestoring = r.conflict.alsoRestoring;
      r.conflict = std::move(over);
    }
  }
  if (d.consistent && d.redundant > 0 && r.assembly.assembled) r.redundancy = findRedundantJoints(model, s, d);
  if (r.assembly.assembled) r.locked = describeLockedVelocities(model, r.assembly);
}

/// A driven mechanism of mobility 0 (small: up to kSweepMaxCoordinates coordinates), well
/// posed and assembled, swept over its driver's range before any simulation: the
/// configurations where it cannot follow the driver become findings (kinematics.hpp).
constexpr int kSweepMaxCoordinates = 60;

void addKinematicSweep(const Scene& scene, CheckReport& r) {
  const Model& model = scene.model;
  if (r.status() != Posedness::WellPosed || !r.assembly.assembled) return;
  if (model.numCoordinates() > kSweepMaxCoordinates || model.numCoordinates() == 0) return;
  const auto mobility = r.graph.calcMobilityFromRank();
  if (!mobility || *mobility != 0) return;
  const std::vector<CoordinateDriverInfo> drivers = coordinateDrivers(model);
  if (drivers.empty() || drivers.front().rate == 0.0) return;
  SweepOptions o;
  o.count = drivers.front().rotary ? 181 : 101;
  const nlohmann::json& doc = scene.resolved();
  if (doc.contains("simulation") && doc["simulation"].is_object() && doc["simulation"].contains("t_end") &&
      doc["simulation"]["t_end"].is_number())
    o.tEnd = doc["simulation"]["t_end"].get<double>();
  try {
    const SweepResult sw = sweepDriver(model, o);
    for (const SingularConfiguration& c : sw.singular) r.kinematics.push_back(c.message);
    r.sweep = sweepToJson(sw);
  } catch (const ModelError& e) {
    spdlog::debug("check: no kinematic sweep ({})", e.what());
  }
}

}  // namespace

CheckReport checkModel(const Model& model, const CheckOptions& options) {
  CheckReport r;
  r.model = &model;
  r.graph = analyzeGraph(model);
  // the diagnosis is made where a simulation starts: the assembled state when the given one
  // violates a joint and the assembly succeeds, the given state otherwise
  r.assembly = assembleInitialState(model);
  r.atAssembledState = r.assembly.needed() && r.assembly.assembled;
  const State s = r.atAssembledState ? r.assembly.state : r.assembly.given;
  JointMultipliers mult;
  const bool large = model.numCoordinates() >= options.structuredFrom;
  if (large && structuredCheck(model, s, r.solution, mult)) {
    r.path = CheckPath::Structured;
  } else {
    const double bytes = denseDiagnosisBytes(model);
    const auto refuse = [&](const std::string& why) {
      return ModelError("the model has " + std::to_string(model.numCoordinates()) + " coordinates and " +
                        std::to_string(model.numConstraintRows()) +
                        " constraint rows and is not well posed through its structure; its dense diagnosis "
                        "would need about " + std::to_string(static_cast<long long>(bytes / 1e6)) + " MB (" + why + ")");
    };
    if (bytes > options.maxDenseBytes)
      throw refuse("the limit is " + std::to_string(static_cast<long long>(options.maxDenseBytes / 1e6)) +
                   " MB, CheckOptions::maxDenseBytes");
    try {
      ModelWorkspace ws = model.makeWorkspace();
      r.solution = solveJointMultipliers(model, s, ws, mult);
    } catch (const std::bad_alloc&) {  // within the limit, but more than this machine has
      throw refuse("more memory than is available");
    }
    r.path = CheckPath::Dense;
  }
  JointResultsWorkspace jws(model);
  r.joints = jws.makeResults();
  calcJointResults(model, s, mult, jws, r.joints);
  r.graph.setConstraintRank(r.solution.diagnosis.rankA);
  const Diagnosis& d = r.solution.diagnosis;
  if (!d.fullRank) {
    r.completion = analyzeMasslessBalances(model, s, d);
    r.causes = describeIndeterminacy(model, s, d);
  }
  addFindings(model, s, r);
  return r;
}

Verdict CheckReport::verdict() const {
  const Diagnosis& d = solution.diagnosis;
  Verdict v;
  if (!d.fullRank) {
    // (1) a direction of zero mass nothing holds: whatever else fails, this is what to fix
    v.status = Posedness::IllPosed;
    v.kind = "ill_posed";
    v.text = "ILL POSED: accelerations are not unique";
    v.headline = !causes.empty()        ? causes.front()
                 : !d.messages.empty() ? d.messages.front()
                                       : "the accelerations are not unique";
    return v;
  }
  if (conflict.overdriven) {
    // more drivers than degrees of freedom: the constraints contradict each other, whatever
    // the assembly (which fails because of them)
    v.status = Posedness::Inconsistent;
    v.kind = "inconsistent";
    v.text = "INCONSISTENT: the constraints contradict each other";
    v.headline = conflict.message;
    return v;
  }
  if (!assembly.assembled) {
    v.status = Posedness::Inconsistent;
    v.kind = "cannot_be_assembled";
    v.text = "INCONSISTENT: the mechanism cannot be assembled";
    // the joint whose geometry the loop cannot reach, with the distance, before the removal
    // test's linearized culprits (which name the whole loop); over-driving first of all
    const bool byConflict = !conflict.joints.empty() && assembly.closure.joint.empty();
    v.headline = byConflict ? conflict.message : assemblySummary(assembly);
    return v;
  }
  if (!d.consistent) {
    v.status = Posedness::Inconsistent;
    v.kind = "inconsistent";
    v.text = "INCONSISTENT: the constraints contradict each other";
    v.headline = !conflict.message.empty() ? conflict.message : d.messages.empty() ? "" : d.messages.front();
    return v;
  }
  v.status = Posedness::WellPosed;
  v.text = "WELL POSED: accelerations are unique";
  v.kind = !locked.empty() ? "locked" : d.redundant > 0 ? "redundant" : "well_posed";
  v.headline = !locked.empty()          ? locked
               : !kinematics.empty()    ? kinematics.front()
               : assembly.needed()      ? assemblySummary(assembly)
               : !warnings.empty()      ? warnings.front()
                                        : "";
  return v;
}

Posedness CheckReport::status() const noexcept {
  // the verdict's class, without its texts
  const Diagnosis& d = solution.diagnosis;
  if (!d.fullRank) return Posedness::IllPosed;
  if (!assembly.assembled || !d.consistent) return Posedness::Inconsistent;
  return Posedness::WellPosed;
}

std::string CheckReport::headline() const { return verdict().headline; }

CheckReport checkScene(const Scene& scene, const CheckOptions& options) {
  std::vector<std::string> warnings = plausibilityWarnings(scene);
  CheckReport r;
  try {
    r = checkModel(scene.model, options);
  } catch (const NonFiniteError& e) {
    // a driver with no finite speed or acceleration at t = 0: say which, in its words
    for (const auto& w : warnings)
      if (w.find("not twice differentiable") != std::string::npos)
        throw InputError(w + " (" + e.what() + ")", scene.file);
    // otherwise name the element it comes from ("Q[0] is -nan" named nothing)
    const std::string source = describeNonFiniteSource(scene.model, scene.model.initialState());
    if (source.empty()) throw;
    throw InputError(std::string("the model is not finite at the initial state: ") + e.what() + "; it comes from " +
                         source,
                     scene.file);
  }
  r.warnings = std::move(warnings);
  addKinematicSweep(scene, r);
  r.sceneName = scene.name;
  r.file = scene.file;
  r.completionRequested = scene.completeMassless;
  if (scene.completeMassless && !scene.completion.balances.empty()) r.completion = scene.completion;
  return r;
}

nlohmann::json toJson(const CheckReport& r) {
  const Model& model = *r.model;
  nlohmann::json j = solutionToJson(r.solution, model.coordinateNames());
  j["scene"] = r.sceneName;
  j["file"] = r.file;
  j["diagnosis_path"] = r.path == CheckPath::Structured ? "structured" : "dense";
  addElements(model, r.joints, j);
  j["mobility_count"] = r.graph.calcMobilityCount();
  if (auto mr = r.graph.calcMobilityFromRank()) j["mobility_rank"] = *mr;
  j["components"] = r.graph.numComponents();
  nlohmann::json loops = nlohmann::json::array();
  for (const auto& l : r.graph.loops) loops.push_back(namesOf(l.joints));
  j["loops"] = loops;
  j["free_floating"] = namesOf(r.graph.freeFloating);
  j["unattached"] = namesOf(r.graph.unattached);
  j["indeterminate_bodies"] = bodiesOfCoordinates(model, r.solution.diagnosis.indeterminateCoordinates);
  // one verdict: the diagnosis's fields agree with it (a model that cannot be assembled is
  // not "consistent"; an ill-posed one is not "well_posed")
  const Verdict v = r.verdict();
  j["status"] = toString(v.status);
  j["verdict"] = v.kind;
  j["well_posed"] = v.status == Posedness::WellPosed;
  j["consistent"] = r.solution.diagnosis.consistent && r.assembly.assembled;
  j["headline"] = v.headline;
  j["kinematics"] = r.kinematics;
  if (!r.sweep.is_null()) j["sweep"] = r.sweep;
  j["assembly"] = assemblyToJson(r.assembly);
  j["diagnosed_at"] = r.atAssembledState ? "assembled" : "initial";
  j["conflict"] = culpritsToJson(r.conflict);
  j["redundancy"] = culpritsToJson(r.redundancy);
  j["locked"] = r.locked;
  j["causes"] = r.causes;
  j["warnings"] = r.warnings;
  j["completion"] = {{"requested", r.completionRequested},
                     {"added", r.completionAdded()},
                     {"balances", completionToJson(r.completion)}};
  return j;
}

}  // namespace joinery
