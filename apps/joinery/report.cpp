#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>

#include "cli.hpp"
#include "scene_files.hpp"
#include "joinery/core/assembled_state.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/matrix_problem.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/scene_completion.hpp"
#include "joinery/core/terminal_text.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "joinery/import/import.hpp"
#include "joinery/core/one_sided_findings.hpp"
#include "joinery/core/one_sided.hpp"
#include "joinery/core/one_sided_handler.hpp"

namespace joinery::cli {

LoadedScene loadSceneForCommand(const std::string& file, const SceneOptions& options) {
  if (isImportableModel(file)) {  // an MJCF or URDF model: imported first (docs/import.md)
    const ImportResult imported = importModel(file);
    std::cerr << importNotesText(imported, "joinery: import: ");
    LoadedScene out{completeMasslessPoints(sceneFromJson(imported.scene, file, options)), {}};
    out.settings = parseSimulationSettings(out.scene.simulation);
    return out;
  }
  LoadedScene out{completeMasslessPoints(loadScene(file, withCommandConfinement(options, file))), {}};
  // a recorded assembled state that no longer fits (a parameter or --set changed): said
  // (the file is parsed again only when it mentions the record)
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find("\"assembled\"") != std::string::npos)
    if (const std::string note = assembledStateNote(out.scene, readJsonFile(file)); !note.empty())
      std::cerr << "note: " << note << "\n";
  out.settings = parseSimulationSettings(out.scene.simulation);
  return out;
}

namespace {

/// The compliant contacts at the initial state, as "one_sided" lists them: name ->
/// {"active": force > 0, "gap", "force" (N), "model": "compliant"}, with "rows" per point when it
/// has several (docs/contact.md, "Compliant contact").
nlohmann::json compliantContactsJson(const Model& model) {
  nlohmann::json out = nlohmann::json::object();
  const State s0 = model.initialState();
  for (const ForceElement* f : model.forces()) {
    const CompliantContactView* contact = compliantContact(*f);
    if (contact == nullptr) continue;
    std::vector<BodyStateView> views;
    for (const Body* b : f->bodies()) {
      const BodySlot& slot = model.slotOf(*b);
      views.push_back({b, s0.q.data() + slot.offset, s0.v.data() + slot.offset, slot.size});
    }
    const LocalState ls{s0.t, std::span<const BodyStateView>(views)};
    nlohmann::json e = {{"model", "compliant"}};
    double gap = std::numeric_limits<double>::infinity(), force = 0;
    for (int k = 0; k < contact->numContactPoints(); ++k) {
      const double g = contact->calcGap(ls, k), F = contact->calcNormalForce(ls, k);
      gap = std::min(gap, g);
      force += F;
      if (contact->numContactPoints() > 1)
        e["rows"].push_back({{"label", "point " + std::to_string(k + 1)}, {"active", F > 0}, {"gap", g}, {"force", F}});
    }
    e["active"] = force > 0;
    e["gap"] = gap;
    e["force"] = force;
    out[f->name()] = e;
  }
  return out;
}

}  // namespace

int runSceneReport(const std::string& file, bool json, bool withAccelerations, const SceneOptions& options,
                   bool strict) {
  const LoadedScene loaded = loadSceneForCommand(file, options);
  // one-sided rows (limits, ropes, contacts): the active set at the initial state from
  // complementarity, before the check solves there (docs/contact.md)
  nlohmann::json oneSided;
  std::vector<std::string> oneSidedWarnings;
  {
    ModelSystem system(loaded.scene.model);
    OneSidedHandler handler(system);
    if (!handler.empty()) {
      const State s0 = loaded.scene.model.initialState();
      handler.decideActiveSet(s0);
      oneSided = handler.toJson(s0);
      // interpenetrating at the start, or a gap no motion can close (reported, not corrected)
      for (const OneSidedFinding& f : findOneSidedProblems(loaded.scene.model, s0)) oneSidedWarnings.push_back(f.message);
    }
  }
  if (const nlohmann::json compliant = compliantContactsJson(loaded.scene.model); !compliant.empty()) {
    if (oneSided.is_null()) oneSided = nlohmann::json::object();
    for (const auto& [name, e] : compliant.items()) oneSided[name] = e;
  }
  const CheckReport r = checkScene(loaded.scene);
  const char* cmd = withAccelerations ? "solve" : "check";
  for (const std::string& w : oneSidedWarnings) std::cerr << "warning: " << w << "\n";
  if (json) {
    nlohmann::json j = toJson(r);
    if (!oneSided.is_null()) j["one_sided"] = oneSided;
    if (!oneSidedWarnings.empty()) j["one_sided_warnings"] = oneSidedWarnings;
    const nlohmann::json& resolved = loaded.scene.resolved();
    if (resolved.contains("overrides")) j["overrides"] = resolved["overrides"];  // --set
    std::cout << j.dump(2) << "\n";  // the first finding is its "headline"
  } else {
    std::cout << checkReportToText(r, withAccelerations);
    if (!oneSided.is_null()) {
      std::cout << "one-sided rows at the initial state:\n";
      for (const auto& [name, e] : oneSided.items())
        std::cout << "  " << name << ": " << (e["active"].get<bool>() ? "active" : "inactive") << ", gap "
                  << formatNumber(e["gap"].get<double>()) << "\n";
    }
  }
  const int code = exitCodeFor(r);
  if (code == kOk && strict && isWarning(r)) {
    std::cerr << "joinery " << cmd << ": --strict: the warning above is an error\n";
    return kInvalidInput;
  }
  return code;
}

int exitCodeFor(const CheckReport& r) {
  switch (r.status()) {
    case Posedness::WellPosed: return kOk;
    case Posedness::IllPosed: return kIllPosed;
    case Posedness::Inconsistent: return kInconsistent;
  }
  return kInternal;
}

bool isWarning(const CheckReport& r) {
  return r.status() == Posedness::WellPosed && !r.headline().empty();
}

const char* severityOf(const CheckReport& r) {
  return r.status() != Posedness::WellPosed ? "error" : "warning";
}

int exitCodeFor(const Diagnosis& d) {
  switch (d.status) {
    case Posedness::WellPosed: return kOk;
    case Posedness::IllPosed: return kIllPosed;
    case Posedness::Inconsistent: return kInconsistent;
  }
  return kInternal;
}

std::optional<CheckReport> verdictBeforeRun(const Scene& scene) {
  if (scene.model.numCoordinates() > 60) return std::nullopt;
  try {
    return checkScene(scene);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

int verdictAfterFailedRun(const Scene& scene, const std::optional<CheckReport>& before, int runCode) {
  std::optional<CheckReport> r = before;
  if (!r) {
    try {
      r = checkScene(scene);
    } catch (const std::exception&) {
      return runCode;
    }
  }
  const std::string h = r->headline();
  // (said before the run when the check was made then: verdictBeforeRun)
  if (!h.empty() && !before)
    std::cerr << "joinery simulate: " << severityOf(*r) << " (as check finds): " << h << "\n";
  return r->status() != Posedness::WellPosed ? exitCodeFor(*r) : runCode;
}

OptionSpec strictOption() {
  return {"--strict", "", false,
          "treat warnings as errors (exit 2): an initial state that violates a joint, implausible input"};
}

OptionSpec completeMasslessOption() {
  return {"--complete-massless", "", false,
          "add the missing force balances of massless points as expression joints "
          "(as the scene field \"complete_massless\": true; see docs/completion.md)"};
}

namespace {
std::string num(double v) { return formatNumber(v == 0 ? 0.0 : v, 6); }  // -0 prints as 0

}  // namespace

namespace {
void writeResiduals(const char* title, const std::vector<JointResidual>& v, std::ostringstream& os) {
  if (v.empty()) return;
  os << title << "\n";
  for (const JointResidual& j : v) os << "  " << describe(j) << "\n";
}

/// Assembly, culprits, locked mechanism, plain causes and warnings (docs/diagnosis.md).
void writeFindings(const CheckReport& r, std::ostringstream& os) {
  const AssemblyReport& a = r.assembly;
  writeResiduals("initial positions violate:", a.positionBefore, os);
  writeResiduals("initial velocities violate:", a.velocityBefore, os);
  if (a.needed() && !a.assembled) {
    os << "assembly failed (least squares):\n";
    for (const auto& j : a.positionAfter) os << "  " << describe(j) << "  still open\n";
    for (const auto& j : a.velocityAfter) os << "  " << describe(j) << "  still violated\n";
  } else if (a.needed()) {
    os << "assembled (least-squares correction, as simulate does; write it with 'joinery assemble'):\n";
    for (const BodyMotion& m : a.moved) {
      os << "  " << m.body << " moved " << num(m.translation) << " m";
      if (m.rotation > 0) os << ", turned " << num(m.rotation) << " rad";
      if (m.other > 0) os << ", max |dq| " << num(m.other);
      os << "\n";
    }
    for (const VelocityChange& c : a.velocities)
      os << "  " << c.name << "' " << num(c.before) << " -> " << num(c.after) << "\n";
  }
  if (!r.conflict.message.empty()) os << "conflict: " << r.conflict.message << "\n";
  if (!r.redundancy.message.empty()) os << "note: " << r.redundancy.message << "\n";
  if (!r.locked.empty()) os << "locked: " << r.locked << "\n";
  for (const auto& c : r.causes) os << "cause: " << c << "\n";
  for (const auto& w : r.warnings) os << "warning: " << w << "\n";
  for (const auto& k : r.kinematics) os << "kinematics: " << k << "\n";
  if (r.status() == Posedness::Inconsistent && r.conflict.message.empty() &&
      (r.model->numCoordinates() > kCulpritMaxCoordinates ||
       static_cast<int>(r.model->rowBlocks().size()) > kCulpritMaxJoints))
    os << "(the search for the conflicting joints by name runs on models of up to " << kCulpritMaxCoordinates
       << " coordinates and " << kCulpritMaxJoints << " joints)\n";
}

/// The completion part of the text report: the balances added, or the missing ones.
void writeCompletion(const CheckReport& r, std::ostringstream& os) {
  // no force acts along any undetermined motion: no balance can help (the causes say what does)
  const auto& dirs = r.solution.diagnosis.indeterminate;
  if (!r.completionAdded() && !dirs.empty() &&
      std::all_of(dirs.begin(), dirs.end(), [](const IndeterminateDirection& d) { return d.noForce; }))
    return;
  if (r.completionAdded()) {
    os << "\nmassless points completed (complete_massless): added the force balance joint(s)\n";
    for (const auto& b : r.completion.balances)
      os << "  " << b.joint["name"].get<std::string>() << "  " << toString(b.level) << "  " << b.expression
         << " = 0" << (b.satisfiedAtState ? "" : "  (violated by the initial state: " + num(b.valueAtState) + ")")
         << "\n";
  } else if (!r.completion.balances.empty()) {
    os << "\nmissing force balances of massless points (w^T (Q + C) = 0 along each undetermined "
          "direction w; docs/completion.md):\n";
    for (const auto& b : r.completion.balances) {
      os << "  w = (";
      for (std::size_t k = 0; k < b.names.size(); ++k)
        os << (k ? ", " : "") << b.coefficientTexts[k]
           << " " << b.names[k];
      os << "):\n";
      if (b.completable) {
        os << "    balance (" << toString(b.level) << " level): " << b.expression << " = 0";
        if (!b.satisfiedAtState) os << "  (violated by the initial state: " << num(b.valueAtState) << ")";
        os << "\n    add to \"joints\": " << b.joint.dump() << "\n";
      } else {
        os << "    cannot be completed: " << b.reason << "\n";
      }
    }
    if (r.completion.completable())
      os << "  or let joinery add them: --complete-massless, or \"complete_massless\": true in the scene\n";
    else if (r.completionRequested)
      os << "  complete_massless was requested but not every direction has a balance: nothing was added\n";
  }
}
}  // namespace

std::string checkReportToText(const CheckReport& r, bool withAccelerations) {
  const Model& model = *r.model;
  const Diagnosis& d = r.solution.diagnosis;
  std::ostringstream os;
  if (const std::string h = r.headline(); !h.empty()) {
    os << severityOf(r) << ": " << h << "\n";
    if (r.atAssembledState)
      os << "  (the results below are at the assembled state, where simulate would start)\n";
    os << "\n";
  }
  os << "scene: " << r.file;
  if (!r.sceneName.empty()) os << "  (" << sanitizeForTerminal(r.sceneName) << ")";
  os << "\n\nbodies (" << model.bodySlots().size() << "):\n";
  for (const auto& sl : model.bodySlots())
    os << "  " << sl.body->name() << "  " << sl.body->typeName() << "  ["
       << joinNames(sl.body->coordinateNames()) << "]\n";
  os << "joints (" << model.constraints().size() << "):\n";
  for (const Constraint* c : model.constraints()) {
    std::vector<std::string> bn;
    for (const Body* b : c->bodies()) bn.push_back(b->name());
    os << "  " << c->name() << "  " << c->typeName() << "  " << c->numRows() << " row(s)  "
       << joinNames(bn) << (c->nonideal() ? "  (non-ideal)" : "") << "\n";
  }
  if (!model.forces().empty()) {
    os << "forces (" << model.forces().size() << "):\n";
    for (const ForceElement* f : model.forces()) os << "  " << f->name() << "  " << f->typeName() << "\n";
  }
  os << "\ncoordinates n = " << d.n << ", constraint rows m = " << d.m << " (internal included)\n";
  os << "rank A = " << d.rankA << ", rank [M; A] = " << d.rankMA << ", redundant rows = " << d.redundant << "\n";
  os << "mobility: by count (n - m) = " << r.graph.calcMobilityCount();
  if (auto mr = r.graph.calcMobilityFromRank()) os << ", by rank (n - rank A) = " << *mr;
  os << "\n";
  os << "subsystems (connected components): " << r.graph.numComponents()
     << ", independent loops: " << r.graph.numLoops() << "\n";
  for (std::size_t i = 0; i < r.graph.loops.size(); ++i)
    os << "  loop " << i + 1 << ": " << joinNames(namesOf(r.graph.loops[i].joints)) << "\n";
  if (!r.graph.freeFloating.empty())
    os << "free-floating bodies (no joint): " << joinNames(namesOf(r.graph.freeFloating)) << "\n";
  if (!r.graph.unattached.empty())
    os << "bodies attached to nothing: " << joinNames(namesOf(r.graph.unattached)) << "\n";

  os << "\nstatus: " << r.verdict().text << "\n";  // the one verdict (check.hpp)
  writeFindings(r, os);
  if (!d.indeterminateCoordinates.empty()) {
    std::vector<std::string> coords;
    for (int i : d.indeterminateCoordinates) coords.push_back(model.coordinateNames()[static_cast<std::size_t>(i)]);
    os << "undetermined: bodies " << joinNames(bodiesOfCoordinates(model, d.indeterminateCoordinates))
       << "; coordinates " << joinNames(coords) << "\n";
  }
  if (!d.inconsistentRows.empty()) {
    std::vector<std::string> rows;
    for (int i : d.inconsistentRows) rows.push_back(model.rowNames()[static_cast<std::size_t>(i)]);
    os << "rows in conflict: " << joinNames(rows) << "\n";
  }
  for (const auto& m : d.messages) os << "- " << m << "\n";
  writeCompletion(r, os);
  os << jointResultsText(r.joints, model.coordinateNames());
  if (withAccelerations) os << "\n" << solutionToText(r.solution, model.coordinateNames());
  return os.str();
}

std::string jointResultsText(const std::vector<JointResult>& joints, const std::vector<std::string>& names) {
  if (joints.empty()) return "";
  std::ostringstream os;
  os << "\njoint results (force and torque on each body at its joint point, world axes; "
        "docs/results.md):\n";
  // round-off (below 1e-12 of the joint's largest generalized force, at least 1e-12) prints as 0
  double scale = 1;
  auto c = [&](double x) { return num(std::abs(x) <= 1e-12 * scale ? 0.0 : x); };
  auto vec = [&](const Vector3d& v, bool planar, bool torque) {
    if (planar) return torque ? c(v.z()) : "[" + c(v.x()) + ", " + c(v.y()) + "]";
    return "[" + c(v.x()) + ", " + c(v.y()) + ", " + c(v.z()) + "]";
  };
  for (const JointResult& jr : joints) {
    const std::string note = jr.unique ? "" : "  (not unique: minimum-norm split)";
    scale = std::max(1.0, jr.generalized.size() ? jr.generalized.cwiseAbs().maxCoeff() : 0.0);
    bool printed = false;
    for (const JointSide* sd : {&jr.side1, &jr.side2}) {
      if (!sd->present || !sd->hasWrench) continue;
      os << "  " << jr.name << "  on " << sd->body << ": F = " << vec(sd->force, jr.planar, false)
         << (jr.planar ? "  tau = " : "  T = ") << vec(sd->torque, jr.planar, true);
      if (jr.generalizedNonideal.size() && jr.generalizedNonideal.cwiseAbs().maxCoeff() > 0)
        os << "  (non-ideal part F = " << vec(sd->forceNonideal, jr.planar, false) << ")";
      if (jr.kind == JointResultKind::Tension && !printed) os << "  tension = " << num(jr.tension);
      os << note << "\n";
      // the same in the joint's own frame on that body (docs/results.md#the-joints-own-frame)
      os << "      joint frame: F = " << vec(sd->forceLocal, jr.planar, false)
         << (jr.planar ? "  tau = " : "  T = ") << vec(sd->torqueLocal, jr.planar, true) << "\n";
      printed = true;
    }
    if (printed) continue;
    os << "  " << jr.name;
    if (jr.kind == JointResultKind::Effort)
      os << "  effort = " << num(jr.effort) << "  power = " << num(jr.power);
    else
      for (std::size_t k = 0; k < jr.coordinates.size(); ++k)
        os << (k ? ", " : "  generalized: ") << names[static_cast<std::size_t>(jr.coordinates[k])] << " = "
           << num(jr.generalized(static_cast<Eigen::Index>(k)));
    os << note << "\n";
  }
  return os.str();
}

}  // namespace joinery::cli
