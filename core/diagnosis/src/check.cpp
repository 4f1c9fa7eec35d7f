// The check report as a library call (check.hpp).
#include "joinery/core/check.hpp"

#include <set>

#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/matrix_problem.hpp"

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

}  // namespace

CheckReport checkModel(const Model& model) {
  CheckReport r;
  r.model = &model;
  r.graph = analyzeGraph(model);
  ModelWorkspace ws = model.makeWorkspace();
  const State s = model.initialState();
  JointMultipliers mult;
  r.solution = solveJointMultipliers(model, s, ws, mult);
  JointResultsWorkspace jws(model);
  r.joints = jws.makeResults();
  calcJointResults(model, s, mult, jws, r.joints);
  r.graph.setConstraintRank(r.solution.diagnosis.rankA);
  if (r.solution.diagnosis.status == Posedness::IllPosed)
    r.completion = analyzeMasslessBalances(model, s, r.solution.diagnosis);
  return r;
}

CheckReport checkScene(const Scene& scene) {
  CheckReport r = checkModel(scene.model);
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
  j["completion"] = {{"requested", r.completionRequested},
                     {"added", r.completionAdded()},
                     {"balances", completionToJson(r.completion)}};
  return j;
}

}  // namespace joinery
