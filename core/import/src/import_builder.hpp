#pragma once
// The format-neutral half of the importers (docs/import.md): links with their world frames and
// mass properties, joints whose points are given in a link's frame, and the assembly of the
// scene document with the import checks. The MJCF and URDF readers (mjcf.cpp, urdf.cpp) only
// walk their files and call this.
#include <Eigen/Dense>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "joinery/import/import.hpp"

namespace joinery::import_detail {

using Eigen::Matrix3d;
using Eigen::Vector3d;

/// A rigid transform: x_parent = R x + p.
struct Pose {
  Matrix3d R = Matrix3d::Identity();
  Vector3d p = Vector3d::Zero();
  Pose operator*(const Pose& o) const { return {R * o.R, p + R * o.p}; }
  Vector3d apply(const Vector3d& x) const { return p + R * x; }
  Pose inverse() const { return {R.transpose(), -(R.transpose() * p)}; }
};

/// Mass, centre of mass and inertia about it, all in one frame.
struct MassProperties {
  double mass = 0.0;
  Vector3d com = Vector3d::Zero();
  Matrix3d inertia = Matrix3d::Zero();
  /// Adds a part of mass m, centre c and inertia Ic about c (same frame): parallel axes.
  void add(double m, const Vector3d& c, const Matrix3d& Ic);
};

/// A shape for the viewer, in its link's frame (converted to the body frame at the end).
struct Shape {
  std::string type;  ///< sphere, capsule, cylinder, box
  Vector3d a = Vector3d::Zero(), b = Vector3d::Zero();  ///< centre (all); capsule/cylinder: the two end points
  Matrix3d R = Matrix3d::Identity();                     ///< box: its axes in the link frame
  Vector3d half = Vector3d::Zero();                      ///< box half edges
  double radius = 0.0;
  nlohmann::json color;  ///< null or [r, g, b]
};

struct Link {
  std::string name;       ///< the scene name (already unique)
  std::string original;   ///< as written in the model (for messages)
  Pose frame;             ///< the link's frame in the world at the initial state
  MassProperties mass;    ///< in the link's frame
  std::vector<Shape> shapes;
  bool declaredFree = false;  ///< a free / floating joint: meant to be unattached
  bool intermediate = false;  ///< a massless frame between two joints of one MJCF body
  bool hasExtent = false;
  Vector3d lo = Vector3d::Zero(), hi = Vector3d::Zero();  ///< the geometry's bounding box, link frame
  void addExtent(const Vector3d& x);
};

/// Link index of the ground in joints.
inline constexpr int kGround = -1;

class SceneBuilder {
 public:
  explicit SceneBuilder(ImportResult& result, std::string component = {})
      : result_(result), component_(std::move(component)) {}

  /// A scene name made of letters, digits and `_`, unique among every name given so far;
  /// `fallback` when `raw` is empty.
  std::string uniqueName(const std::string& raw, const std::string& fallback);
  int addLink(Link link);
  Link& link(int i) { return links_[static_cast<std::size_t>(i)]; }
  const Link& link(int i) const { return links_[static_cast<std::size_t>(i)]; }
  int numLinks() const { return static_cast<int>(links_.size()); }
  /// The world frame of a link (identity for the ground).
  Pose frameOf(int i) const { return i == kGround ? Pose{} : link(i).frame; }

  /// A joint (or force, or output) whose fields `points` are points in the frame of the given
  /// link (kGround: world) and `axes` directions in it; they are written in the body frame
  /// (origin at the centre of mass) when the scene is finished.
  struct PointField {
    std::string field;
    int link;
    Vector3d value;
    bool isAxis = false;
  };
  void addJoint(nlohmann::json j, int body1, int body2, std::vector<PointField> fields);
  /// A joint between no bodies of its own (a coupling naming joints).
  void addCoupling(nlohmann::json j) { joints_.push_back({std::move(j), {}}); }
  void addOutput(nlohmann::json o, std::vector<PointField> fields);
  void addForce(nlohmann::json f, std::vector<PointField> fields);

  void notConverted(const std::string& where, const std::string& why, bool affectsDynamics);
  void warn(const std::string& where, const std::string& what);

  /// The scene document, after the import checks.
  nlohmann::json finish(const std::string& name, const Vector3d& gravity, const nlohmann::json& extra = {});

 private:
  struct Pending {
    nlohmann::json j;
    std::vector<PointField> fields;
  };
  nlohmann::json pointJson(const PointField& f) const;
  nlohmann::json resolve(const Pending& p) const;
  void checkLinks();
  void checkConnectivity();

  ImportResult& result_;
  std::string component_;  ///< not empty: finish() writes a component library
  std::vector<Link> links_;
  std::vector<Pending> joints_, outputs_, forces_;
  std::vector<std::pair<int, int>> edges_;
  std::set<std::string> names_{"ground"};
};

/// Rotation of `angle` about the unit `axis`.
Matrix3d axisAngle(const Vector3d& axis, double angle);
/// The rotation with the least angle taking (0, 0, 1) to the direction of `z` (as MuJoCo's zaxis).
Matrix3d rotationFromZ(const Vector3d& z);
/// The quaternion [w, x, y, z] of a rotation matrix, w >= 0.
nlohmann::json quaternionJson(const Matrix3d& R);
nlohmann::json vecJson(const Vector3d& v);
nlohmann::json matJson(const Matrix3d& m);
/// A number as text for messages.
std::string num(double x);

}  // namespace joinery::import_detail
