// Joint reactions by Newton's second law on a random spatial tree (the differential test
// against Simbody found it): a body held by one joint only feels that joint's force, so the
// force on it is m (a - g) whatever the rest of the mechanism does. The tree (random seed
// 108241 of tests/peers/random_mechanisms: a weld, two prismatic3d and a cylindrical joint on
// four rigid3d bodies) is one where Eigen 3.4.0's divide-and-conquer SVD of the row-scaled
// constraint matrix is wrong (U S V^T off by 0.6) although the matrix is well conditioned
// (cond 5.3): the multipliers then missed A^T lambda = f by 24 N in 109 N and the reactions
// by up to 20 %, with correct accelerations.
#include <catch2/catch.hpp>
#include <string>

#include "joinery/core/scene.hpp"
#include "results_support.hpp"

using namespace joinery;
using namespace joinery::test;

TEST_CASE("spatial tree: the reaction on a body held by one joint is m (a - g), on both paths", "[results]") {
  const Scene sc = loadScene(std::string(JOINERY_SOURCE_DIR) + "/tests/results/data/tree_four_bodies.json");
  const Model& model = sc.model;
  const State st = model.initialState();
  const JointRun d = denseResults(model, st);
  const JointRun sp = structuredResults(model, st);
  requireSameResults(sp, d);
  const auto& names = model.coordinateNames();
  const auto index = [&](const std::string& name) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return static_cast<Eigen::Index>(i);
    FAIL("no coordinate " << name);
    return Eigen::Index{-1};
  };
  const Vector3d gravity(-5.448727170118542, -1.966768269640053, -7.917025628299372);  // the scene's
  // each of b1, b2, b3 carries exactly one joint (b0 carries two: j0 and j1)
  const std::vector<std::pair<std::string, double>> held = {
      {"j1", 7.716025213057342}, {"j2", 9.328304213084937}, {"j3", 4.3644586428925916}};
  for (const JointRun* r : {&d, &sp}) {
    // the multipliers reproduce the constraint force they are solved from
    for (const auto& [joint, mass] : held) {
      const JointResult& jr = byName(r->joints, joint);
      const std::string b = jr.side2.body;
      const Vector3d a(r->qdd(index(b + ".x")), r->qdd(index(b + ".y")), r->qdd(index(b + ".z")));
      INFO(joint << " on " << b);
      // tolerance: round-off of the solves (forces of order 100 N, cond(A) 5.3)
      CHECK(near3(jr.side2.force, mass * (a - gravity), 1e-9, 100.0));
    }
  }
}
