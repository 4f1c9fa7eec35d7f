#pragma once
// The DART side of import_dart.cpp: DART 6.12's DartLoader reads a URDF file, sets random joint
// positions and velocities, and computes the forward dynamics. Plain arrays across the boundary
// (the DART side is compiled as C++17 with NDEBUG, like tests/peers/dart_side.cpp).
#include <array>
#include <string>
#include <vector>

namespace joinery::peers {

struct DartLink {
  std::string name;
  std::array<double, 3> com{}, v{}, w{}, a{}, alpha{};  ///< world: centre of mass, its velocity, angular velocity, accelerations
  std::array<double, 9> R{};                            ///< the link frame's rotation, row major
};

struct DartResult {
  bool ok = false;
  std::string error;
  int dofs = 0;
  std::vector<DartLink> links;
};

/// Loads `urdfPath` (a root link not named world gets a free joint), draws joint positions and
/// velocities uniformly in [-range, range] with `seed`, and returns DART's kinematics and accelerations.
DartResult dartForward(const std::string& urdfPath, unsigned seed, double range);

}  // namespace joinery::peers
