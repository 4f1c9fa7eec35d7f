#include "report.hpp"

#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "cli.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/matrix_problem.hpp"
#include "joinery/core/model.hpp"

namespace joinery::cli {

int runSceneReport(const std::string& file, bool json, bool withAccelerations, const SceneOptions& options) {
  const Scene scene = loadScene(file, options);
  const CheckReport r = makeCheckReport(scene);
  if (json) {
    nlohmann::json j = checkReportToJson(r);
    if (scene.resolved.contains("overrides")) j["overrides"] = scene.resolved["overrides"];  // --set
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << checkReportToText(r, withAccelerations);
  }
  return exitCodeFor(r.solution.diagnosis);
}

int exitCodeFor(const Diagnosis& d) {
  switch (d.status) {
    case Posedness::WellPosed: return kOk;
    case Posedness::IllPosed: return kIllPosed;
    case Posedness::Inconsistent: return kInconsistent;
  }
  return kInternal;
}

CheckReport makeCheckReport(const Scene& scene) {
  CheckReport r;
  r.scene = &scene;
  r.graph = analyzeGraph(scene.model);
  ModelWorkspace ws = scene.model.makeWorkspace();
  const State s = scene.model.initialState();
  r.solution = solveForwardDynamics(scene.model, s, ws);
  r.graph.setConstraintRank(r.solution.diagnosis.rankA);
  if (scene.completeMassless && !scene.completion.balances.empty())
    r.completion = scene.completion;
  else if (r.solution.diagnosis.status == Posedness::IllPosed)
    r.completion = analyzeMasslessBalances(scene.model, s, r.solution.diagnosis);
  return r;
}

OptionSpec completeMasslessOption() {
  return {"--complete-massless", "", false,
          "add the missing force balances of massless points as expression joints "
          "(as the scene field \"complete_massless\": true; see docs/completion.md)"};
}

namespace {
std::string num(double v) { return formatNumber(v, 6); }

/// True when the scene's model already holds the balances of r.completion.
bool completionAdded(const CheckReport& r) {
  return r.scene->completeMassless && r.completion.completable();
}
}  // namespace

namespace {
std::vector<std::string> bodiesOf(const Model& model, const std::vector<int>& coords) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (int i : coords) {
    const std::string& n = model.bodyOfCoordinate(i).name();
    if (seen.insert(n).second) out.push_back(n);
  }
  return out;
}

std::string joinNames(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

template <class T>
std::vector<std::string> namesOf(const std::vector<const T*>& v) {
  std::vector<std::string> out;
  for (const T* x : v) out.push_back(x->name());
  return out;
}
}  // namespace

nlohmann::json checkReportToJson(const CheckReport& r) {
  const Model& model = r.scene->model;
  nlohmann::json j = solutionToJson(r.solution, model.coordinateNames());
  j["scene"] = r.scene->name;
  j["file"] = r.scene->file;
  nlohmann::json bodies = nlohmann::json::array();
  for (const auto& sl : model.bodySlots())
    bodies.push_back({{"name", sl.body->name()},
                      {"type", std::string(sl.body->typeName())},
                      {"coordinates", sl.body->coordinateNames()}});
  j["bodies"] = bodies;
  nlohmann::json joints = nlohmann::json::array();
  for (const Constraint* c : model.constraints()) {
    std::vector<std::string> bn;
    for (const Body* b : c->bodies()) bn.push_back(b->name());
    joints.push_back({{"name", c->name()},
                      {"type", std::string(c->typeName())},
                      {"rows", c->numRows()},
                      {"bodies", bn},
                      {"nonideal", c->nonideal() != nullptr}});
  }
  j["joints"] = joints;
  nlohmann::json forces = nlohmann::json::array();
  for (const ForceElement* f : model.forces())
    forces.push_back({{"name", f->name()}, {"type", std::string(f->typeName())}});
  j["forces"] = forces;
  j["mobility_count"] = r.graph.calcMobilityCount();
  if (auto mr = r.graph.calcMobilityFromRank()) j["mobility_rank"] = *mr;
  j["components"] = r.graph.numComponents();
  nlohmann::json loops = nlohmann::json::array();
  for (const auto& l : r.graph.loops) loops.push_back(namesOf(l.joints));
  j["loops"] = loops;
  j["free_floating"] = namesOf(r.graph.freeFloating);
  j["unattached"] = namesOf(r.graph.unattached);
  j["indeterminate_bodies"] = bodiesOf(model, r.solution.diagnosis.indeterminateCoordinates);
  j["completion"] = {{"requested", r.scene->completeMassless},
                     {"added", completionAdded(r)},
                     {"balances", completionToJson(r.completion)}};
  return j;
}

std::string checkReportToText(const CheckReport& r, bool withAccelerations) {
  const Model& model = r.scene->model;
  const Diagnosis& d = r.solution.diagnosis;
  std::ostringstream os;
  os << "scene: " << r.scene->file;
  if (!r.scene->name.empty()) os << "  (" << r.scene->name << ")";
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

  const char* verdict = d.status == Posedness::WellPosed  ? "WELL POSED: accelerations are unique"
                        : d.status == Posedness::IllPosed ? "ILL POSED: accelerations are not unique"
                                                          : "INCONSISTENT: the constraints contradict each other";
  os << "\nstatus: " << verdict << "\n";
  if (!d.indeterminateCoordinates.empty()) {
    std::vector<std::string> coords;
    for (int i : d.indeterminateCoordinates) coords.push_back(model.coordinateNames()[static_cast<std::size_t>(i)]);
    os << "undetermined: bodies " << joinNames(bodiesOf(model, d.indeterminateCoordinates))
       << "; coordinates " << joinNames(coords) << "\n";
  }
  if (!d.inconsistentRows.empty()) {
    std::vector<std::string> rows;
    for (int i : d.inconsistentRows) rows.push_back(model.rowNames()[static_cast<std::size_t>(i)]);
    os << "rows in conflict: " << joinNames(rows) << "\n";
  }
  for (const auto& m : d.messages) os << "- " << m << "\n";
  if (completionAdded(r)) {
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
    else if (r.scene->completeMassless)
      os << "  complete_massless was requested but not every direction has a balance: nothing was added\n";
  }
  if (withAccelerations) os << "\n" << solutionToText(r.solution, model.coordinateNames());
  return os.str();
}

}  // namespace joinery::cli
