// DART 6.12 on a URDF file (dart_urdf.hpp). Individual headers (Debian's <dart/dart.hpp> pulls
// in a header the package does not ship).
#include "dart_urdf.hpp"

#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/utils/urdf/DartLoader.hpp>
#include <filesystem>
#include <random>

namespace joinery::peers {

namespace {
std::array<double, 3> arr(const Eigen::Vector3d& v) { return {v.x(), v.y(), v.z()}; }
}  // namespace

DartResult dartForward(const std::string& urdfPath, unsigned seed, double range) {
  DartResult out;
  dart::utils::DartLoader::Options options;
  options.mDefaultRootJointType = dart::utils::DartLoader::RootJointType::FLOATING;
  dart::utils::DartLoader loader(options);
  const dart::dynamics::SkeletonPtr skel = loader.parseSkeleton(dart::common::Uri::createFromPath(std::filesystem::absolute(urdfPath).string()));
  if (!skel) {
    out.error = "DartLoader could not read " + urdfPath;
    return out;
  }
  skel->setGravity(Eigen::Vector3d(0, 0, -9.81));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-range, range);
  const std::size_t n = skel->getNumDofs();
  Eigen::VectorXd q(n), v(n);
  for (std::size_t i = 0; i < n; ++i) q[i] = U(rng), v[i] = U(rng);
  skel->setPositions(q);
  skel->setVelocities(v);
  skel->computeForwardDynamics();
  out.dofs = static_cast<int>(n);
  for (std::size_t i = 0; i < skel->getNumBodyNodes(); ++i) {
    const dart::dynamics::BodyNode* b = skel->getBodyNode(i);
    DartLink l;
    l.name = b->getName();
    l.com = arr(b->getCOM());
    l.v = arr(b->getCOMLinearVelocity());
    l.w = arr(b->getAngularVelocity());
    l.a = arr(b->getCOMLinearAcceleration());
    l.alpha = arr(b->getAngularAcceleration());
    const Eigen::Matrix3d R = b->getWorldTransform().linear();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) l.R[static_cast<std::size_t>(3 * r + c)] = R(r, c);
    out.links.push_back(l);
  }
  out.ok = true;
  return out;
}

}  // namespace joinery::peers
