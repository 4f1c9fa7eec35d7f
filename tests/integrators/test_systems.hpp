#pragma once
// Systems shared by the integrator tests: a closed-form ODE written directly as a
// DynamicSystem (M = I, no constraints), and the benchmark models built through the registry.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/dynamic_system.hpp"
#include "joinery/core/model.hpp"
#include "test_context.hpp"
#include "../../bench/chain_model.hpp"

namespace joinery::test {

/// Uncoupled harmonic oscillators q_i'' = -w_i^2 q_i (M = I, no constraints), started at
/// q = 1, v = 0: q_i(t) = cos(w_i t), v_i(t) = -w_i sin(w_i t). Energy sum (v^2 + w^2 q^2) / 2.
/// Faults can be switched on for the failure tests: from `nanFrom` the force is NaN, from
/// `illPosedFrom` the accelerations are reported ill posed, from `inconsistentFrom` inconsistent.
class Oscillators final : public DynamicSystem {
 public:
  explicit Oscillators(std::vector<double> w) : w_(std::move(w)) {
    for (std::size_t i = 0; i < w_.size(); ++i) names_.push_back("osc.q" + std::to_string(i));
  }
  int numCoordinates() const override { return static_cast<int>(w_.size()); }
  const std::vector<std::string>& coordinateNames() const override { return names_; }
  State initialState() const override {
    State s;
    s.q = VectorXd::Ones(numCoordinates());
    s.v = VectorXd::Zero(numCoordinates());
    return s;
  }
  AccelerationStatus calcAccelerations(const State& s, VecRef qdd, const Baumgarte&) override {
    ++evaluations;
    AccelerationStatus st;
    for (int i = 0; i < numCoordinates(); ++i) qdd(i) = -w_[static_cast<std::size_t>(i)] * w_[static_cast<std::size_t>(i)] * s.q(i);
    if (s.t >= nanFrom) qdd(0) = std::numeric_limits<double>::quiet_NaN();
    if (s.t >= illPosedFrom) {
      st.posedness = Posedness::IllPosed;
      st.message = "test: osc.q0 has no mass from t = " + std::to_string(illPosedFrom);
    }
    if (s.t >= inconsistentFrom) {
      st.posedness = Posedness::Inconsistent;
      st.message = "test: contradicting constraints from t = " + std::to_string(inconsistentFrom);
    }
    return st;
  }
  using DynamicSystem::calcAccelerations;
  std::optional<double> calcEnergy(const State& s) override {
    double e = 0;
    for (int i = 0; i < numCoordinates(); ++i) {
      const double w = w_[static_cast<std::size_t>(i)];
      e += 0.5 * (s.v(i) * s.v(i) + w * w * s.q(i) * s.q(i));
    }
    return e;
  }
  /// The exact solution at t.
  State exact(double t) const {
    State s;
    s.t = t;
    s.q.resize(numCoordinates());
    s.v.resize(numCoordinates());
    for (int i = 0; i < numCoordinates(); ++i) {
      const double w = w_[static_cast<std::size_t>(i)];
      s.q(i) = std::cos(w * t);
      s.v(i) = -w * std::sin(w * t);
    }
    return s;
  }

  double nanFrom = std::numeric_limits<double>::infinity();
  double illPosedFrom = std::numeric_limits<double>::infinity();
  double inconsistentFrom = std::numeric_limits<double>::infinity();
  long long evaluations = 0;

 private:
  std::vector<double> w_;
  std::vector<std::string> names_;
};

/// max(|q - q_exact|, |v - v_exact|) of the oscillators at the state's time.
inline double errorAt(const Oscillators& sys, const State& s) {
  const State e = sys.exact(s.t);
  return std::max((s.q - e.q).cwiseAbs().maxCoeff(), (s.v - e.v).cwiseAbs().maxCoeff());
}

/// A model and the factory context it was built with (joints to "ground" point at the
/// context's ground body, so the context must outlive the model).
struct TestModel {
  std::unique_ptr<TestContext> ctx = std::make_unique<TestContext>();
  Model model;
};

/// Builds a model from JSON lists of bodies, joints and forces through the registries.
inline TestModel buildModel(const nlohmann::json& bodies, const nlohmann::json& joints,
                            const Vector3d& gravity,
                            const nlohmann::json& forces = nlohmann::json::array()) {
  auto ctx = std::make_unique<TestContext>();
  ModelBuilder builder;
  for (const auto& jb : bodies) {
    const Body& b = builder.addBody(create<Body>(jb, *ctx));
    ctx->addBody(b);
  }
  for (const auto& jj : joints) builder.addConstraint(create<Constraint>(jj, *ctx));
  for (const auto& jf : forces) builder.addForce(create<ForceElement>(jf, *ctx));
  builder.setGravity(gravity);
  Model m = builder.build();
  return TestModel{std::move(ctx), std::move(m)};
}

/// A01: 1 kg particle on a massless 1 m link pinned at the origin, gravity 9.81 in -y,
/// released at rest from (x0, y0) (the benchmark: (-1, 0)).
inline TestModel pendulumModel(double x0 = -1.0, double y0 = 0.0, double vx0 = 0.0, double vy0 = 0.0,
                           double mass = 1.0) {
  const nlohmann::json bodies = nlohmann::json::array(
      {{{"name", "bob"}, {"type", "particle"}, {"dim", 2}, {"mass", mass},
        {"position", {x0, y0}}, {"velocity", {vx0, vy0}}}});
  const nlohmann::json joints = nlohmann::json::array(
      {{{"name", "rod"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {0, 0}},
        {"body2", "bob"}, {"point2", {0, 0}}, {"length", 1}}});
  return buildModel(bodies, joints, Vector3d(0, -9.81, 0));
}

/// A02 N-four-bar (bench::fourBarScene): N+1 cranks pinned to the ground at x = 0..N, joined at their tips by N
/// couplers; 1 m, 1 kg uniform bars (inertia 1/12 about the centre). Each bar's own x axis runs
/// along the bar, its points are (-0.5, 0) and (0.5, 0). Start: cranks vertical (angle pi/2),
/// couplers horizontal at y = 1; the tip B0 of the first crank moves at +1 m/s in x
/// (cranks turn at -1 rad/s, couplers translate).
inline TestModel fourBarModel(int N) {
  // one definition of the A02 model, shared with the benchmarks (bench/chain_model.hpp)
  const nlohmann::json scene = bench::fourBarScene(N);
  return buildModel(scene.at("bodies"), scene.at("joints"), Vector3d(0, -9.81, 0));
}

}  // namespace joinery::test
