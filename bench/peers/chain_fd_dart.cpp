// The benchmark chain (docs/benchmarks.md, "The benchmark chain") in DART 6.12: time per
// setPositions + setVelocities + computeForwardDynamics() on the spinning variant's initial
// state (Omega = 1 rad/s about +z), by the protocol of bench/timing.hpp. One JSON line like
// bench/chain_fd.cpp. Includes the individual headers: <dart/dart.hpp> from Debian pulls in a
// header the package does not ship.
#include <dart/dynamics/BallJoint.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/Inertia.hpp>
#include <dart/dynamics/Skeleton.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "../timing.hpp"

int main(int argc, char** argv) {
  using namespace dart::dynamics;
  namespace bt = joinery::benchtiming;
  const int N = std::stoi(bt::arg(argc, argv, "--N", "64"));
  const double minSeconds = std::stod(bt::arg(argc, argv, "--min_s", "0.3"));
  const double m = 1.0, L = 1.0, Iax = 1e-4, Itr = m * L * L / 12.0, spin = 1.0;
  const Eigen::Vector3d com(0.5 * L, 0, 0);
  const double tb = bt::nowSeconds();
  SkeletonPtr skel = Skeleton::create("chain");
  skel->setGravity(Eigen::Vector3d(0, 0, -9.81));
  std::vector<BodyNode*> bodies;
  BodyNode* parent = nullptr;
  for (int i = 0; i < N; ++i) {
    BallJoint::Properties jp;
    jp.mName = "ball" + std::to_string(i);
    jp.mT_ParentBodyToJoint = Eigen::Isometry3d::Identity();
    if (i > 0) jp.mT_ParentBodyToJoint.translation() = Eigen::Vector3d(L, 0, 0);
    jp.mT_ChildBodyToJoint = Eigen::Isometry3d::Identity();
    BodyNode::Properties bp;
    bp.mName = "link" + std::to_string(i);
    bp.mInertia = Inertia(m, com, Eigen::Vector3d(Iax, Itr, Itr).asDiagonal());  // about the COM
    auto pr = skel->createJointAndBodyNodePair<BallJoint>(parent, jp, bp);
    bodies.push_back(pr.second);
    parent = pr.second;
  }
  // rigid spin: joint 0's relative angular velocity (child frame = world at identity) is (0, 0, Omega)
  Eigen::VectorXd qa = Eigen::VectorXd::Zero(skel->getNumDofs()), v = qa;
  v(2) = spin;
  skel->setPositions(qa);
  skel->setVelocities(v);
  skel->computeForwardDynamics();
  const double build = bt::nowSeconds() - tb;
  const Eigen::Vector3d tip = bodies.back()->getCOMLinearAcceleration();
  Eigen::VectorXd qb = qa;
  qb(0) += 1e-9;
  long calls = 0;
  double cpuNs = 0;
  const double ns = bt::meanNanoseconds(
      [&](int which) {
        skel->setPositions(which ? qb : qa);
        skel->setVelocities(v);
        skel->computeForwardDynamics();
      },
      minSeconds, 20, calls, &cpuNs);
  std::printf(
      "{\"engine\": \"dart\", \"path\": \"ABA\", \"N\": %d, \"n\": %d, \"m\": 0, \"fd_ns\": %.6g, \"fd_cpu_ns\": %.6g, "
      "\"fd_calls\": %ld, \"ns_per_body\": %.6g, \"build_s\": %.6g, "
      "\"tip_acc\": [%.15g, %.15g, %.15g]}\n",
      N, static_cast<int>(skel->getNumDofs()), ns, cpuNs, calls, ns / N, build, tip[0], tip[1], tip[2]);
  return 0;
}
