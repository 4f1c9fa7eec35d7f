// Joint results in the joint's own frame (docs/results.md#the-joints-own-frame): a block on a
// frictionless guide of a tilted wedge, against the closed form of the incline. The pendulum,
// slider-crank and hinge cases of test_joint_results.cpp check the other frame rules.
//
// Tolerance: 1e-9 relative, as test_joint_results.cpp (the solvers work to round-off).
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "results_support.hpp"

using namespace joinery;
using namespace joinery::test;
using nlohmann::json;

TEST_CASE("joint frame: a block on the guide of a tilted wedge feels m g cos(beta) across the guide",
          "[results][frame]") {
  // The wedge (rigid2d, turned by beta, welded to the ground) carries a prismatic2d guide along
  // its own x axis; a block (mass m) slides on it without friction. Closed form of the incline:
  // the guide pushes the block with N = m g cos(beta) along the guide's normal and nothing along
  // it; the block pushes the wedge back with -N. In the guide's frame on either body (x along
  // the guide, y = z x x): force on the block (0, N), on the wedge (0, -N).
  const double g = 9.81, m = 1.7, beta = 0.45, d = 0.3;
  const double cb = std::cos(beta), sb = std::sin(beta);
  const json j = {
      {"joinery", 1}, {"gravity", {0, -g, 0}},
      {"bodies", {{{"name", "wedge"}, {"type", "rigid2d"}, {"mass", 4}, {"inertia", 0.2}, {"angle", beta}},
                  {{"name", "block"}, {"type", "rigid2d"}, {"mass", m}, {"inertia", 0.01},
                   {"position", {d * cb, d * sb}}, {"angle", beta}}}},
      {"joints", {{{"name", "fix"}, {"type", "weld2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                   {"body2", "wedge"}, {"point2", {0, 0}}},
                  {{"name", "guide"}, {"type", "prismatic2d"}, {"body1", "wedge"}, {"point1", {0, 0}},
                   {"body2", "block"}, {"point2", {0, 0}}, {"axis", {1, 0}}}}}};
  const Scene sc = sceneFromJson(j, "");
  const State st = sc.model.initialState();
  const JointRun dense = denseResults(sc.model, st);
  const JointRun structured = structuredResults(sc.model, st);
  requireSameResults(structured, dense);
  const double N = m * g * cb;
  for (const JointRun* r : {&dense, &structured}) {
    const JointResult& guide = byName(r->joints, "guide");
    REQUIRE(guide.side1.present);
    REQUIRE(guide.side2.present);
    for (const JointSide* sd : {&guide.side1, &guide.side2}) {
      CHECK(near3(sd->axes.col(0), Vector3d(cb, sb, 0)));  // along the guide, in the world
      CHECK(near3(sd->axes.col(1), Vector3d(-sb, cb, 0)));
    }
    CHECK(near3(guide.side2.forceLocal, Vector3d(0, N, 0)));
    CHECK(near3(guide.side1.forceLocal, Vector3d(0, -N, 0)));
    // the world components are the same force: N along the incline's normal
    CHECK(near3(guide.side2.force, N * Vector3d(-sb, cb, 0)));
    CHECK(near(r->qdd(3), -g * sb * cb));  // block.x'': g sin(beta) down the slope, x part
  }
  // the JSON carries them under "joint_frame" (world "force2" unchanged)
  const json out = jointResultsJson(dense.joints, sc.model.coordinateNames());
  const json& jf = out.at("guide").at("joint_frame");
  CHECK(std::abs(jf.at("force2")[1].get<double>() - N) <= 1e-9 * N);
  CHECK(std::abs(jf.at("axes2")[0][0].get<double>() - cb) <= 1e-12);
  CHECK(out.at("guide").at("force2")[1].get<double>() == Approx(N * cb).epsilon(1e-9));
}
