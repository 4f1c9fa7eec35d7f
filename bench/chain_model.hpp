#pragma once
// The benchmark chain of docs/benchmarks.md ("The benchmark chain"), as a joinery scene:
// N uniform rods (1 kg, 1 m, inertia about the centre of mass diag(1e-4, 1/12, 1/12)) as
// rigid3d bodies, joined end to end by spherical joints, the first pinned to the world origin,
// lying straight along +x at rest, gravity (0, 0, -9.81). Shared by bench/ and tests/fastpath.
#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include <nlohmann/json.hpp>

#include "joinery/core/scene.hpp"
#include "tree_geometry.hpp"

namespace joinery::bench {

/// The scene JSON of the N-link chain (spin: initial rigid rotation about +z, rad/s).
inline nlohmann::json chainScene(int N, double spin = 0.0) {
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array();
  for (int i = 0; i < N; ++i) {
    const double xc = i + 0.5;
    bodies.push_back({{"name", "link" + std::to_string(i)},
                      {"type", "rigid3d"},
                      {"mass", 1.0},
                      {"inertia", {1e-4, 1.0 / 12, 1.0 / 12}},
                      {"position", {xc, 0.0, 0.0}},
                      {"velocity", {0.0, spin * xc, 0.0}},
                      {"angular_velocity", {0.0, 0.0, spin}}});
    joints.push_back({{"name", "ball" + std::to_string(i)},
                      {"type", "spherical"},
                      {"body1", i == 0 ? std::string("ground") : "link" + std::to_string(i - 1)},
                      {"point1", i == 0 ? nlohmann::json::array({0.0, 0.0, 0.0})
                                        : nlohmann::json::array({0.5, 0.0, 0.0})},
                      {"body2", "link" + std::to_string(i)},
                      {"point2", {-0.5, 0.0, 0.0}}});
  }
  return {{"joinery", 1},
          {"name", "chain of " + std::to_string(N) + " rods on spherical joints"},
          {"gravity", {0.0, 0.0, -9.81}},
          {"bodies", bodies},
          {"joints", joints}};
}

/// The planar N-four-bar of validation benchmark A02 (also the tests' test::fourBarModel):
/// N + 1 cranks pinned to the ground at x = 0..N, joined at their tips by N couplers; 1 m,
/// 1 kg bars (inertia 1/12), rigid2d bodies and revolute2d joints; loops, redundancy-free
/// away from the flat singular position. Start: cranks vertical, couplers at y = 1, moving
/// (cranks at -1 rad/s, couplers translating). `crankAngle` (rad from +x; default pi/2, the
/// A02 start): every crank at that angle instead, the couplers level at its tips, the same
/// crank rate; off the vertical, gravity turns the cranks (bench/run_models_fd.sh uses 1 rad,
/// so that the angular accelerations cross-checked against Simbody are not all zero).
inline nlohmann::json fourBarScene(int N, double crankAngle = 3.141592653589793 / 2) {
  const double vertical = 3.141592653589793 / 2;
  // the A02 start exactly (cos(pi/2) = 6e-17 in floating point)
  const double co = crankAngle == vertical ? 0.0 : std::cos(crankAngle);
  const double si = crankAngle == vertical ? 1.0 : std::sin(crankAngle);
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array();
  for (int i = 0; i <= N; ++i)
    bodies.push_back({{"name", "crank" + std::to_string(i)}, {"type", "rigid2d"}, {"mass", 1},
                      {"inertia", 1.0 / 12}, {"position", {i + 0.5 * co, 0.5 * si}}, {"angle", crankAngle},
                      {"velocity", {0.5 * si, co == 0.0 ? 0.0 : -0.5 * co}}, {"angular_velocity", -1}});
  for (int i = 0; i < N; ++i)
    bodies.push_back({{"name", "coupler" + std::to_string(i)}, {"type", "rigid2d"}, {"mass", 1},
                      {"inertia", 1.0 / 12}, {"position", {i + co + 0.5, si}}, {"angle", 0},
                      {"velocity", {si, co == 0.0 ? 0.0 : -co}}, {"angular_velocity", 0}});
  for (int i = 0; i <= N; ++i) {
    const std::string c = "crank" + std::to_string(i);
    joints.push_back({{"name", "pin" + std::to_string(i)}, {"type", "revolute2d"}, {"body1", "ground"},
                      {"point1", {i, 0}}, {"body2", c}, {"point2", {-0.5, 0}}});
    if (i < N)
      joints.push_back({{"name", "left" + std::to_string(i)}, {"type", "revolute2d"}, {"body1", c},
                        {"point1", {0.5, 0}}, {"body2", "coupler" + std::to_string(i)},
                        {"point2", {-0.5, 0}}});
    if (i > 0)
      joints.push_back({{"name", "right" + std::to_string(i - 1)}, {"type", "revolute2d"},
                        {"body1", "coupler" + std::to_string(i - 1)}, {"point1", {0.5, 0}},
                        {"body2", c}, {"point2", {0.5, 0}}});
  }
  return {{"joinery", 1},
          {"name", "N-four-bar, N = " + std::to_string(N)},
          {"gravity", {0.0, -9.81, 0.0}},
          {"bodies", bodies},
          {"joints", joints}};
}

/// The benchmark tree: a binary tree of `depth` levels, N = 2^depth - 1 rods like the
/// chain's (1 kg, 1 m, inertia about the centre of mass diag(1e-4, 1/12, 1/12)), rigid3d bodies
/// on spherical joints, in heap order (body k's children are 2k+1 and 2k+2). The root's proximal
/// end is pinned to the world origin, lying along +x; each child's proximal end is its parent's
/// distal end, its orientation the parent's turned by treeTurn(k) (bench/tree_geometry.hpp: left
/// child 0.5 rad about the parent's z, right child 0.5 rad about its y), so that the tree spreads in 3-D. `spin`: a rigid
/// rotation of the whole tree about +z through the origin (rad/s). Gravity (0, 0, -9.81). The
/// Simbody twin is bench/peers/simbody_models.hpp (Ball mobilizers, the same turns as their q).
struct TreePose {
  std::vector<Eigen::Quaterniond> orientation;  ///< body to world
  std::vector<Eigen::Vector3d> proximal;        ///< the proximal end of each rod, world
};
inline TreePose treePose(int depth) {
  const int N = (1 << depth) - 1;
  TreePose p;
  p.orientation.resize(N);
  p.proximal.resize(N);
  p.orientation[0] = Eigen::Quaterniond::Identity();
  p.proximal[0] = Eigen::Vector3d::Zero();
  for (int k = 1; k < N; ++k) {
    const int parent = (k - 1) / 2;
    const std::array<double, 4> t = treeTurn(k);
    p.orientation[k] = (p.orientation[parent] * Eigen::Quaterniond(t[0], t[1], t[2], t[3])).normalized();
    p.proximal[k] = p.proximal[parent] + p.orientation[parent] * Eigen::Vector3d::UnitX();
  }
  return p;
}
inline nlohmann::json treeScene(int depth, double spin = 0.0) {
  const int N = (1 << depth) - 1;
  const TreePose p = treePose(depth);
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array();
  for (int k = 0; k < N; ++k) {
    const Eigen::Vector3d c = p.proximal[k] + p.orientation[k] * Eigen::Vector3d(0.5, 0, 0);
    const Eigen::Quaterniond& e = p.orientation[k];
    bodies.push_back({{"name", "rod" + std::to_string(k)},
                      {"type", "rigid3d"},
                      {"mass", 1.0},
                      {"inertia", {1e-4, 1.0 / 12, 1.0 / 12}},
                      {"position", {c.x(), c.y(), c.z()}},
                      {"orientation", {e.w(), e.x(), e.y(), e.z()}},
                      {"velocity", {-spin * c.y(), spin * c.x(), 0.0}},
                      {"angular_velocity", {0.0, 0.0, spin}}});
    joints.push_back({{"name", "ball" + std::to_string(k)},
                      {"type", "spherical"},
                      {"body1", k == 0 ? std::string("ground") : "rod" + std::to_string((k - 1) / 2)},
                      {"point1", k == 0 ? nlohmann::json::array({0.0, 0.0, 0.0})
                                        : nlohmann::json::array({0.5, 0.0, 0.0})},
                      {"body2", "rod" + std::to_string(k)},
                      {"point2", {-0.5, 0.0, 0.0}}});
  }
  return {{"joinery", 1},
          {"name", "binary tree of " + std::to_string(N) + " rods on spherical joints"},
          {"gravity", {0.0, 0.0, -9.81}},
          {"bodies", bodies},
          {"joints", joints}};
}

inline Scene chainModel(int N, double spin = 0.0) {
  return sceneFromJson(chainScene(N, spin), "chain" + std::to_string(N) + ".json");
}

}  // namespace joinery::bench
