// joint_spring on a hinge and a slide against the damped oscillator's closed form: a disk on a
// revolute3d about a tilted axis through its centre (no gravity), and a block on a prismatic3d
// along a tilted axis, each with a spring and a damper on the joint's own quantity:
//   J x'' + c x' + k (x - rest) = 0,   x(0) = 0, x'(0) = w0,
//   x(t) = rest + e^(-zeta W t) (A cos(Wd t) + B sin(Wd t)),  W = sqrt(k/J), zeta = c / (2 sqrt(k J)),
//   Wd = W sqrt(1 - zeta^2), A = -rest, B = (w0 + zeta W A) / Wd,
// J the inertia about the axis (the mass for the slide). Without damping the energy column
// (kinetic + the spring's k (x - rest)^2 / 2) is constant.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {
namespace {

double closedForm(double t, double J, double k, double c, double rest, double w0) {
  const double W = std::sqrt(k / J), zeta = c / (2 * std::sqrt(k * J)), Wd = W * std::sqrt(1 - zeta * zeta);
  const double A = -rest, B = (w0 + zeta * W * A) / Wd;
  return rest + std::exp(-zeta * W * t) * (A * std::cos(Wd * t) + B * std::sin(Wd * t));
}

struct Run {
  MemoryRecorder rec;
  SimulationResult result;
};

}  // namespace

TEST_CASE("joint_spring: a disk on a hinge and a block on a slide follow the damped oscillator",
          "[mechanisms][forces][joint_spring]") {
  const Eigen::Vector3d axis = Eigen::Vector3d(0.3, -0.4, 0.866).normalized();
  const double k = 12.0, rest = 0.4, w0 = 1.5;
  for (const double c : {0.0, 0.35}) {
    for (const bool hinge : {true, false}) {
      DYNAMIC_SECTION((hinge ? "hinge" : "slide") << ", damping " << c) {
        // the disk's inertia about the axis: principal moments (0.2, 0.2, 0.3) in its frame,
        // which is the world frame at t = 0, so J = a^T diag(...) a
        const Eigen::Vector3d I(0.2, 0.2, 0.3);
        const double mass = 2.0;
        const double J = hinge ? (axis.array().square() * I.array()).sum() : mass;
        const nlohmann::json a = {axis.x(), axis.y(), axis.z()};
        const nlohmann::json w = {w0 * axis.x(), w0 * axis.y(), w0 * axis.z()};
        nlohmann::json body = {{"name", "disk"}, {"type", "rigid3d"}, {"mass", mass}, {"inertia", {I.x(), I.y(), I.z()}},
                               {"position", {0.2, 0.1, 0.3}}};
        nlohmann::json joint = {{"name", "axle"}, {"body1", "ground"}, {"point1", {0.2, 0.1, 0.3}},
                                {"body2", "disk"}, {"axis1", a}};
        if (hinge) {
          joint["type"] = "revolute3d";
          joint["axis2"] = a;
          body["angular_velocity"] = w;
        } else {
          joint["type"] = "prismatic3d";
          body["velocity"] = w;
        }
        nlohmann::json spring = {{"name", "spring"}, {"type", "joint_spring"}, {"joint", "axle"},
                                 {"stiffness", k}, {"rest", rest}};
        if (c > 0) spring["damping"] = c;
        const nlohmann::json doc = {{"joinery", 1}, {"gravity", {0, 0, 0}}, {"bodies", {body}},
                                    {"joints", {joint}}, {"forces", {spring}}};
        const Scene scene = sceneFromJson(doc, "joint_spring_test.json");
        ModelSystem sys(scene.model);
        SimulationSettings set;
        set.tEnd = 3.0;
        set.rtol = 1e-11;
        set.atol = 1e-13;
        set.outputInterval = 0.05;
        Run run;
        run.result = runSimulation(sys, set, run.rec);
        REQUIRE(run.result.outcome == RunOutcome::Completed);
        REQUIRE(run.rec.size() == 61);
        double worst = 0, drift = 0, swing = 0;
        for (std::size_t i = 0; i < run.rec.size(); ++i) {
          const VectorXd& q = run.rec.q[i];
          double x;
          if (hinge) {
            // the rotation from the initial (identity) orientation is about the axis: its angle
            const Eigen::Vector4d e = q.segment<4>(3);
            x = 2 * std::atan2(e.tail<3>().dot(axis), e(0));
          } else {
            x = (q.head<3>() - Eigen::Vector3d(0.2, 0.1, 0.3)).dot(axis);
          }
          const double expected = closedForm(run.rec.t[i], J, k, c, rest, w0);
          worst = std::max(worst, std::abs(x - expected));
          swing = std::max(swing, std::abs(expected));
          drift = std::max(drift, std::abs(*run.rec.energy[i] - *run.rec.energy.front()));
        }
        INFO("J " << J << ": worst |x - closed form| " << worst << ", energy drift " << drift);
        CHECK(swing > 0.3);  // it does swing
        // the integrator's tolerance (rtol 1e-11) over 3 s of a few periods: 1e-8 leaves a margin
        CHECK(worst < 1e-8);
        const double e0 = *run.rec.energy.front();
        CHECK(e0 == Approx(0.5 * J * w0 * w0 + 0.5 * k * rest * rest).epsilon(1e-12));
        if (c == 0) {
          CHECK(drift < 1e-9 * e0);
        } else {
          // the damper takes energy out, never puts it in: the energy never grows, and by the end
          // it has lost at least the closed form's decay e^(-2 zeta W t) of the oscillation's part
          for (std::size_t i = 1; i < run.rec.size(); ++i) CHECK(*run.rec.energy[i] <= *run.rec.energy[i - 1] + 1e-12);
          const double zetaW = c / (2 * J);
          CHECK(*run.rec.energy.back() < e0 * std::exp(-zetaW * 3.0));
        }
      }
    }
  }
}

}  // namespace joinery
