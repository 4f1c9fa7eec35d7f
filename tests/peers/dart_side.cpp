// The DART side of random_mechanisms (random_mechanism.hpp): trees only (DART 6 has no loop
// constraints in its forward dynamics) and no cylindrical joint (DART 6 has no cylinder
// joint). Built as C++17 with NDEBUG, like bench/peers/chain_fd_dart.cpp; includes the
// individual headers (Debian's <dart/dart.hpp> pulls in a header the package does not ship).
//
// Every joint is set from the mechanism's own q and u (the Simbody mobilizer's coordinates),
// converted where DART's differ: a ball joint's position is the rotation vector of R_FM (not
// a quaternion) and its speed the relative angular velocity in M (Simbody: in F); a screw's
// pitch is per turn (Simbody: per radian). The world pose and velocity of every body are then
// checked against Simbody's before any acceleration is compared, so a convention mistake
// shows as a state mismatch, never as a dynamics disagreement.
#include <dart/dynamics/BallJoint.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/Inertia.hpp>
#include <dart/dynamics/PrismaticJoint.hpp>
#include <dart/dynamics/RevoluteJoint.hpp>
#include <dart/dynamics/ScrewJoint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/dynamics/UniversalJoint.hpp>
#include <dart/dynamics/WeldJoint.hpp>

#include <cmath>
#include <string>

#include "random_mechanism.hpp"

namespace joinery::peers {
namespace {

using dart::dynamics::BodyNode;
using dart::dynamics::SkeletonPtr;

Eigen::Vector3d vec(const Vec3& a) { return {a[0], a[1], a[2]}; }
Vec3 arr(const Eigen::Vector3d& a) { return {a[0], a[1], a[2]}; }
Eigen::Matrix3d mat(const Mat3& a) {
  Eigen::Matrix3d R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R(i, j) = a[static_cast<std::size_t>(3 * i + j)];
  return R;
}
Eigen::Isometry3d iso(const Frame& f) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = mat(f.R);
  T.translation() = vec(f.p);
  return T;
}

template <class J>
typename J::Properties jointProperties(const JointDesc& j, int i) {
  typename J::Properties p;
  p.mName = "j" + std::to_string(i);
  p.mT_ParentBodyToJoint = iso(j.F);
  p.mT_ChildBodyToJoint = iso(j.M);
  return p;
}

/// Adds body i on its joint; false (with `why`) for a joint DART does not have.
bool addBody(SkeletonPtr& skel, std::vector<BodyNode*>& nodes, const Mechanism& m, int i, std::string& why) {
  using namespace dart::dynamics;
  const JointDesc& j = m.joints[static_cast<std::size_t>(i)];
  const BodyDesc& b = m.bodies[static_cast<std::size_t>(i)];
  BodyNode::Properties bp;
  bp.mName = "b" + std::to_string(i);
  const Eigen::Matrix3d I = mat(b.inertia);
  bp.mInertia = Inertia(b.mass, Eigen::Vector3d::Zero(), I);  // body frame at the centre of mass
  BodyNode* parent = j.parent < 0 ? nullptr : nodes[static_cast<std::size_t>(j.parent)];
  BodyNode* node = nullptr;
  switch (j.type) {
    case JointType::Spherical:
      node = skel->createJointAndBodyNodePair<BallJoint>(parent, jointProperties<BallJoint>(j, i), bp).second;
      break;
    case JointType::Revolute: {
      auto p = jointProperties<RevoluteJoint>(j, i);
      p.mAxis = Eigen::Vector3d::UnitZ();  // Simbody Pin: about F.z = M.z
      node = skel->createJointAndBodyNodePair<RevoluteJoint>(parent, p, bp).second;
      break;
    }
    case JointType::Universal: {
      auto p = jointProperties<UniversalJoint>(j, i);
      p.mAxis[0] = Eigen::Vector3d::UnitX();  // Simbody Universal: about x, then about the new y
      p.mAxis[1] = Eigen::Vector3d::UnitY();
      node = skel->createJointAndBodyNodePair<UniversalJoint>(parent, p, bp).second;
      break;
    }
    case JointType::Prismatic: {
      auto p = jointProperties<PrismaticJoint>(j, i);
      p.mAxis = Eigen::Vector3d::UnitX();  // Simbody Slider: along x
      node = skel->createJointAndBodyNodePair<PrismaticJoint>(parent, p, bp).second;
      break;
    }
    case JointType::Screw: {
      auto p = jointProperties<ScrewJoint>(j, i);
      p.mAxis = Eigen::Vector3d::UnitZ();
      p.mPitch = 2 * M_PI * j.pitch;  // DART: advance per turn
      node = skel->createJointAndBodyNodePair<ScrewJoint>(parent, p, bp).second;
      break;
    }
    case JointType::Weld:
      node = skel->createJointAndBodyNodePair<WeldJoint>(parent, jointProperties<WeldJoint>(j, i), bp).second;
      break;
    case JointType::Cylindrical:
      why = "cylindrical joint (DART 6 has none)";
      return false;
  }
  nodes.push_back(node);
  return true;
}

/// The joint's positions and velocities in DART's coordinates.
void setJointState(dart::dynamics::Joint* joint, const JointDesc& j) {
  if (j.type == JointType::Weld) return;
  Eigen::VectorXd q(static_cast<Eigen::Index>(joint->getNumDofs())), u(q.size());
  if (j.type == JointType::Spherical) {
    const Eigen::Quaterniond e(j.q[0], j.q[1], j.q[2], j.q[3]);
    const Eigen::Matrix3d R = e.normalized().toRotationMatrix();  // R_FM
    q = dart::dynamics::BallJoint::convertToPositions(R);
    u = R.transpose() * Eigen::Vector3d(j.u[0], j.u[1], j.u[2]);  // Simbody: w_FM in F; DART: in M
  } else {
    for (Eigen::Index k = 0; k < q.size(); ++k) {
      q(k) = j.q[static_cast<std::size_t>(k)];
      u(k) = j.u[static_cast<std::size_t>(k)];
    }
  }
  joint->setPositions(q);
  joint->setVelocities(u);
}

}  // namespace

PeerResult runDart(const Mechanism& m, const PeerResult& reference) {
  PeerResult out;
  if (!m.loops.empty()) {
    out.error = "closed loop (DART 6: trees only)";
    return out;
  }
  SkeletonPtr skel = dart::dynamics::Skeleton::create("random");
  skel->setGravity(vec(m.gravity));
  std::vector<BodyNode*> nodes;
  for (int i = 0; i < static_cast<int>(m.joints.size()); ++i)
    if (!addBody(skel, nodes, m, i, out.error)) return out;
  for (std::size_t i = 0; i < m.joints.size(); ++i) setJointState(nodes[i]->getParentJoint(), m.joints[i]);
  skel->computeForwardDynamics();
  // the state must be the reference's (Simbody's) before the dynamics are compared
  double mismatch = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const BodyNode* b = nodes[i];
    const BodyResult& r = reference.bodies[i];
    const Eigen::Isometry3d& X = b->getWorldTransform();
    mismatch = std::max({mismatch, (X.linear() - mat(r.R)).cwiseAbs().maxCoeff(), (X.translation() - vec(r.x)).cwiseAbs().maxCoeff(),
                         (b->getCOMLinearVelocity() - vec(r.v)).cwiseAbs().maxCoeff(),
                         (b->getAngularVelocity() - vec(r.w)).cwiseAbs().maxCoeff()});
  }
  if (!(mismatch <= 1e-9)) {
    out.error = "DART's state differs from Simbody's by " + std::to_string(mismatch) + " (a convention of the DART side)";
    return out;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const BodyNode* b = nodes[i];
    BodyResult r = reference.bodies[i];  // pose, velocities, Euler angles: the same state
    r.a = arr(b->getCOMLinearAcceleration());
    r.alpha = arr(b->getAngularAcceleration());
    r.reactionForce = r.reactionTorque = Vec3{};
    out.bodies.push_back(r);
  }
  out.kineticEnergy = skel->computeKineticEnergy();
  const Eigen::MatrixXd& M = skel->getMassMatrix();
  out.nu = static_cast<int>(M.rows());
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    for (Eigen::Index j = 0; j < M.cols(); ++j) out.massMatrix.push_back(M(i, j));
  out.hasReactions = false;  // compared against Simbody only
  out.ok = true;
  return out;
}

}  // namespace joinery::peers
