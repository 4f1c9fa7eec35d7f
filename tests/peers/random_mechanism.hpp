#pragma once
// A random mechanism of rigid bodies described without any engine's types, shared by the
// joinery side (C++20: generator, scene file, solve, comparison) and the Simbody side (C++17:
// Simbody's headers do not compile as C++20) of the differential test random_mechanisms.
// Plain arrays only, so that both translation units agree on the layout whatever their flags.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace joinery::peers {

using Vec3 = std::array<double, 3>;
using Mat3 = std::array<double, 9>;  ///< row-major

/// A frame fixed in a body: axes R (columns, in the body frame) and origin p (body frame).
struct Frame {
  Mat3 R{};
  Vec3 p{};
};

enum class JointType { Spherical, Revolute, Universal, Prismatic, Cylindrical, Weld, Screw };
inline constexpr int kNumJointTypes = 7;
inline const char* jointTypeName(JointType t) {
  static const char* names[] = {"spherical", "revolute", "universal", "prismatic", "cylindrical", "weld", "screw"};
  return names[static_cast<int>(t)];
}

/// A rigid body; its frame is at the centre of mass (inertia about it, body frame).
struct BodyDesc {
  double mass = 1;
  Mat3 inertia{};
  std::string shape;  ///< "box", "rod" (two small dimensions) or "plate" (one small dimension)
};

/// The tree joint of body `child` to `parent` (-1: ground), as a Simbody mobilizer: frame F in
/// the parent, frame M in the child; q and u the mobilizer's coordinates and speeds.
///   spherical   F, M origins coincide                         (Simbody Ball, q = quaternion)
///   revolute    origins coincide, rotation about F.z = M.z   (Pin)
///   universal   origins coincide, F.x stays perpendicular to M.y  (Universal)
///   prismatic   translation along F.x = M.x, no rotation      (Slider)
///   cylindrical rotation about and translation along F.z = M.z (Cylinder)
///   weld        F = M                                         (Weld)
///   screw       rotation q about F.z = M.z and translation pitch * q along it (Screw)
struct JointDesc {
  JointType type = JointType::Spherical;
  double pitch = 0;  ///< screw: translation per radian (Simbody's convention)
  int parent = -1, child = 0;
  Frame F, M;
  std::vector<double> q, u;
};

/// A loop-closing ball joint: `point1` of body1 (-1: ground) coincides with a point of body2
/// (point2, found by the peer at the mechanism's state).
struct LoopDesc {
  int body1 = -1, body2 = 0;
  Vec3 point1{}, point2{};
};

struct Mechanism {
  std::uint64_t seed = 0;
  std::vector<BodyDesc> bodies;
  std::vector<JointDesc> joints;  ///< joints[i].child == i, parent < i
  std::vector<LoopDesc> loops;
  Vec3 gravity{};
};

/// A body's state and accelerations in the world frame (origin = centre of mass).
struct BodyResult {
  Mat3 R{};
  Vec3 x{}, v{}, w{}, a{}, alpha{};
  Vec3 eulerXYZ{};  ///< R as intrinsic (body-fixed) X, Y, Z rotations, from the peer
  /// The reaction of the body's tree joint: the force and the torque (about the origin of its
  /// frame M) that the parent applies to this body through the joint, world axes.
  Vec3 reactionForce{}, reactionTorque{};
};

struct PeerResult {
  bool ok = false;
  std::string error;
  std::vector<BodyResult> bodies;
  double kineticEnergy = 0;
  std::vector<double> massMatrix;  ///< the peer's generalized mass matrix, row-major nu x nu
  int nu = 0;
  bool hasReactions = true;  ///< BodyResult's reactions are the peer's (DART side: not filled)
};

/// Builds the mechanism in Simbody 3.7 at its state (finding the loop points, projecting the
/// speeds onto the loop constraints) and computes the accelerations.
PeerResult runSimbody(Mechanism& m);

/// The same tree in DART 6 at Simbody's state (`reference`: its result), when built with DART
/// (JOINERY_PEER_DART): accelerations, kinetic energy and mass matrix. Not ok (with the reason)
/// for a closed loop or a joint DART does not have (cylindrical), or when DART's world pose
/// and velocities differ from the reference's.
PeerResult runDart(const Mechanism& m, const PeerResult& reference);

}  // namespace joinery::peers
