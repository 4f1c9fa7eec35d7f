#pragma once
// Helpers of the joint-results tests: a scene from JSON text, its joint results from the dense
// reference solver and from the structured path (ModelSystem::calcMultipliers), by name.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/model_system.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/scene.hpp"

namespace joinery::test {

struct JointRun {
  Solution solution;
  JointMultipliers mult;
  std::vector<JointResult> joints;
  VectorXd qdd;
  bool fromStructured = false;  ///< the structured path's own multipliers were used
};

/// The joints of a planar slider-crank: crank (length r, body "crank") on a bearing at the
/// origin, rod (length l, body "rod"), slider ("slider") on a guide along the x axis, and
/// the crank angle driven by `motor` (an expression of t). Bodies sit at their mid-points.
inline nlohmann::json sliderCrankJoints(double r, double l, const std::string& motor) {
  return {{{"name", "bearing"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
           {"body2", "crank"}, {"point2", {-r / 2, 0}}},
          {{"name", "crank_pin"}, {"type", "revolute2d"}, {"body1", "crank"}, {"point1", {r / 2, 0}},
           {"body2", "rod"}, {"point2", {-l / 2, 0}}},
          {{"name", "wrist_pin"}, {"type", "revolute2d"}, {"body1", "rod"}, {"point1", {l / 2, 0}},
           {"body2", "slider"}, {"point2", {0, 0}}},
          {{"name", "guide"}, {"type", "prismatic2d"}, {"body1", "ground"}, {"point1", {0, 0}},
           {"body2", "slider"}, {"point2", {0, 0}}, {"axis", {1, 0}}},
          {{"name", "motor"}, {"type", "driver"}, {"coordinate", "crank.theta"}, {"value", motor}}};
}

/// Dense reference: solveJointMultipliers + calcJointResults.
inline JointRun denseResults(const Model& model, const State& s) {
  JointRun r;
  ModelWorkspace ws = model.makeWorkspace();
  r.solution = solveJointMultipliers(model, s, ws, r.mult);
  JointResultsWorkspace jws(model);
  r.joints = jws.makeResults();
  calcJointResults(model, s, r.mult, jws, r.joints);
  r.qdd = r.solution.qdd;
  return r;
}

/// Structured path: ModelSystem (EvaluationPath::Structured) at s, then its multipliers.
inline JointRun structuredResults(const Model& model, const State& s) {
  JointRun r;
  ModelSystemOptions o;
  o.path = EvaluationPath::Structured;
  ModelSystem sys(model, o);
  r.qdd = VectorXd::Zero(model.numCoordinates());
  const AccelerationStatus st = sys.calcAccelerations(s, r.qdd);
  REQUIRE(st.ok());
  r.fromStructured = st.structured && sys.calcMultipliers(s, r.mult);
  UNSCOPED_INFO("structured " << st.structured << " released " << st.released << " redundant " << st.redundant << " dense " << st.denseComponents);
  JointResultsWorkspace jws(model);
  r.joints = jws.makeResults();
  calcJointResults(model, s, r.mult, jws, r.joints);
  return r;
}

inline const JointResult& byName(const std::vector<JointResult>& v, const std::string& name) {
  for (const JointResult& r : v)
    if (r.name == name) return r;
  FAIL("no joint " << name);
  return v.front();
}

/// |a - b| <= tol * max(|b|, floor): relative agreement with an absolute floor for values near 0.
inline bool near(double a, double b, double tol = 1e-9, double floor = 1.0) {
  return std::abs(a - b) <= tol * std::max(std::abs(b), floor);
}
inline bool near3(const Vector3d& a, const Vector3d& b, double tol = 1e-9, double floor = 1.0) {
  return (a - b).norm() <= tol * std::max(b.norm(), floor);
}

/// Every joint's forces, torques, effort and tension agree between two runs.
inline void requireSameResults(const JointRun& a, const JointRun& b, double tol = 1e-9) {
  REQUIRE(a.joints.size() == b.joints.size());
  for (std::size_t i = 0; i < a.joints.size(); ++i) {
    const JointResult& x = a.joints[i];
    const JointResult& y = b.joints[i];
    INFO("joint " << x.name);
    const double scale = std::max(1.0, y.generalized.cwiseAbs().maxCoeff());
    CHECK((x.generalized - y.generalized).cwiseAbs().maxCoeff() <= tol * scale);
    CHECK(near3(x.side1.force, y.side1.force, tol, scale));
    CHECK(near3(x.side2.force, y.side2.force, tol, scale));
    CHECK(near3(x.side1.torque, y.side1.torque, tol, scale));
    CHECK(near3(x.side2.torque, y.side2.torque, tol, scale));
    CHECK(near(x.effort, y.effort, tol, scale));
    CHECK(near(x.tension, y.tension, tol, scale));
  }
}

}  // namespace joinery::test
