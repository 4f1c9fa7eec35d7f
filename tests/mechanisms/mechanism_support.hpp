#pragma once
// Helpers for the mechanism acceptance tests: a model assembled with ModelBuilder from bodies
// constructed in C++ and joints/forces created through the registries, and the dense check
// (solve + diagnosis + graph mobility) at a given state, as `joinery check` does it.
#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "joinery/bodies/quaternion.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "test_context.hpp"

namespace joinery::test {

/// A model under construction: the builder and the factory context that resolves body names
/// for the registry factories (joints to "ground" point at the context's ground body, so the
/// context must outlive the model; Assembled keeps both).
class MechanismBuilder {
 public:
  const Body& add(BodyPtr b) {
    const Body& r = builder_.addBody(std::move(b));
    ctx_->addBody(r);
    return r;
  }
  void joint(const nlohmann::json& j) { builder_.addConstraint(create<Constraint>(j, *ctx_)); }
  void force(const nlohmann::json& j) { builder_.addForce(create<ForceElement>(j, *ctx_)); }
  void gravity(const Vector3d& g) { builder_.setGravity(g); }

  struct Assembled {
    std::unique_ptr<TestContext> ctx;
    Model model;
  };
  Assembled build() {
    Model m = builder_.build();
    return Assembled{std::move(ctx_), std::move(m)};
  }

 private:
  std::unique_ptr<TestContext> ctx_ = std::make_unique<TestContext>();
  ModelBuilder builder_;
};

/// What `joinery check` computes at a state: the dense solve with its diagnosis, and the
/// graph analysis with the rank of A recorded (mobility by count and by rank).
struct CheckResult {
  Solution solution;
  GraphAnalysis graph;
  MatrixXd A;
  VectorXd b;
};

inline CheckResult checkAt(const Model& model, const State& s) {
  CheckResult r;
  ModelWorkspace ws = model.makeWorkspace();
  r.solution = solveForwardDynamics(model, s, ws);
  r.A = ws.A;
  r.b = ws.b;
  r.graph = analyzeGraph(model);
  r.graph.setConstraintRank(r.solution.diagnosis.rankA);
  return r;
}

/// Names of the coordinates the diagnosis reports as undetermined.
inline std::set<std::string> indeterminateNames(const Model& model, const Diagnosis& d) {
  std::set<std::string> out;
  for (int i : d.indeterminateCoordinates) out.insert(model.coordinateNames()[static_cast<std::size_t>(i)]);
  return out;
}

/// All diagnosis messages in one string (for Contains checks).
inline std::string allMessages(const Diagnosis& d) {
  std::string s;
  for (const auto& m : d.messages) s += m + "\n";
  return s;
}

/// Unit quaternion (scalar first) of a rotation by `angle` about `axis`.
inline Eigen::Vector4d axisAngle(const Vector3d& axis, double angle) {
  const Vector3d u = axis.normalized();
  Eigen::Vector4d e;
  e << std::cos(angle / 2), std::sin(angle / 2) * u;
  return e;
}

/// World angular acceleration of a rigid3d body from e and e'' on the unit sphere:
/// w = 2 H(e) e' gives w' = 2 H(e') e' + 2 H(e) e'' = 2 H(e) e'' (H(a) a = 0).
inline Vector3d angularAcceleration(const Eigen::Vector4d& e, const Eigen::Vector4d& edd) {
  return 2.0 * quaternion::worldH(e) * edd;
}

}  // namespace joinery::test
