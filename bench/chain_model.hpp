#pragma once
// The benchmark chain of docs/benchmarks.md ("The benchmark chain"), as a joinery scene:
// N uniform rods (1 kg, 1 m, inertia about the centre of mass diag(1e-4, 1/12, 1/12)) as
// rigid3d bodies, joined end to end by spherical joints, the first pinned to the world origin,
// lying straight along +x at rest, gravity (0, 0, -9.81). Shared by bench/ and tests/fastpath.
#include <string>

#include <nlohmann/json.hpp>

#include "joinery/core/scene.hpp"

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
/// away from the flat singular position. Start: cranks vertical, couplers at y = 1, moving.
inline nlohmann::json fourBarScene(int N) {
  const double pi = 3.141592653589793;
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array();
  for (int i = 0; i <= N; ++i)
    bodies.push_back({{"name", "crank" + std::to_string(i)}, {"type", "rigid2d"}, {"mass", 1},
                      {"inertia", 1.0 / 12}, {"position", {i, 0.5}}, {"angle", pi / 2},
                      {"velocity", {0.5, 0}}, {"angular_velocity", -1}});
  for (int i = 0; i < N; ++i)
    bodies.push_back({{"name", "coupler" + std::to_string(i)}, {"type", "rigid2d"}, {"mass", 1},
                      {"inertia", 1.0 / 12}, {"position", {i + 0.5, 1}}, {"angle", 0},
                      {"velocity", {1, 0}}, {"angular_velocity", 0}});
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

inline Scene chainModel(int N, double spin = 0.0) {
  return sceneFromJson(chainScene(N, spin), "chain" + std::to_string(N) + ".json");
}

}  // namespace joinery::bench
