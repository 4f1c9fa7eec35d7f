// URDF -> scene (docs/import.md), parsed by urdfdom: links with their inertial frame (origin
// and rpy; the inertia given in that frame), joints (revolute, continuous, prismatic, fixed,
// floating, planar), limits, mimic as a coupling (gear / rack_pinion), visuals and collisions
// as `visual` shapes, gravity (0, 0, -9.81) as the simulators that read URDF use.
#include <console_bridge/console.h>
#include <urdf_model/model.h>
#include <urdf_parser/urdf_parser.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <map>
#include <mutex>

#include "import_builder.hpp"
#include "import_formats.hpp"
#include "joinery/core/errors.hpp"

namespace joinery::import_detail {
namespace {

/// urdfdom reports through console_bridge: its messages are collected for the error, never printed.
class Collector : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_WARN) messages += (messages.empty() ? "" : "; ") + text;
  }
  std::string messages;
};

std::mutex& consoleMutex() {
  static std::mutex m;
  return m;
}

Vector3d vec(const urdf::Vector3& v) { return {v.x, v.y, v.z}; }

Pose poseOf(const urdf::Pose& p) {
  Pose out;
  out.p = vec(p.position);
  Eigen::Quaterniond q(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z);
  if (q.norm() > 0) out.R = q.normalized().toRotationMatrix();
  return out;
}

class UrdfReader {
 public:
  UrdfReader(const std::string& file, const ImportOptions& options, ImportResult& result)
      : file_(file), options_(options), b_(result, options.component), result_(result) {}

  void read(const std::string& text) {
    urdf::ModelInterfaceSharedPtr model;
    std::string messages;
    {
      const std::lock_guard<std::mutex> lock(consoleMutex());
      Collector collector;
      console_bridge::OutputHandler* previous = console_bridge::getOutputHandler();
      console_bridge::useOutputHandler(&collector);
      try {
        model = urdf::parseURDF(text);
      } catch (const std::exception& e) {
        collector.messages += (collector.messages.empty() ? "" : "; ") + std::string(e.what());
        model.reset();
      }
      console_bridge::useOutputHandler(previous);
      messages = collector.messages;
    }
    if (!model) throw InputError("not a valid URDF: " + (messages.empty() ? std::string("urdfdom refused it") : messages), file_, "/robot");
    const urdf::LinkConstSharedPtr root = model->getRoot();
    if (!root) throw InputError("URDF without a root link", file_, "/robot");
    if (root->name == "world") {
      if (root->inertial && root->inertial->mass != 0)
        b_.notConverted("world", "the inertial of the link 'world' (it is the ground)", false);
      shapesOfGround(*root);
      for (const auto& j : root->child_joints) joint(*model, *j, kGround, Pose{});
    } else {
      const int r = link(*root, Pose{});
      if (options_.fixedBase) {
        nlohmann::json w = {{"name", b_.uniqueName(root->name + "_base", "base")}, {"type", "weld3d"}};
        b_.addJoint(w, kGround, r, {{"point1", kGround, Vector3d::Zero()}, {"point2", r, Vector3d::Zero()}});
      } else {
        b_.link(r).declaredFree = true;
      }
      children(*model, *root, r);
    }
    for (const auto& [name, m] : mimics_) mimic(name, m);
    result_.scene = b_.finish(model->getName().empty() ? std::filesystem::path(file_).stem().string() : model->getName(),
                              Vector3d(0, 0, -9.81));
  }

 private:
  void shapesOfGround(const urdf::Link& l) {
    if (!l.visual_array.empty() || !l.collision_array.empty())
      b_.notConverted(l.name, "the shapes of the link 'world' (the ground is not drawn)", false);
  }

  void shape(Link& L, const urdf::Geometry& g, const Pose& o, const nlohmann::json& color, bool draw,
             const std::string& where) {
    Shape s;
    s.a = o.p;
    s.color = color;
    Vector3d half = Vector3d::Zero();
    switch (g.type) {
      case urdf::Geometry::SPHERE: {
        const auto& sp = static_cast<const urdf::Sphere&>(g);
        s.type = "sphere", s.radius = sp.radius;
        half.setConstant(sp.radius);
        break;
      }
      case urdf::Geometry::BOX: {
        const auto& bx = static_cast<const urdf::Box&>(g);
        s.type = "box", s.R = o.R, s.half = 0.5 * vec(bx.dim);
        half = o.R.cwiseAbs() * s.half;
        break;
      }
      case urdf::Geometry::CYLINDER: {
        const auto& c = static_cast<const urdf::Cylinder&>(g);
        const Vector3d z = o.R.col(2);
        s.type = "cylinder", s.radius = c.radius, s.a = o.p - 0.5 * c.length * z, s.b = o.p + 0.5 * c.length * z;
        half = z.cwiseAbs() * 0.5 * c.length + Vector3d::Constant(c.radius);
        break;
      }
      case urdf::Geometry::MESH: {
        const auto& m = static_cast<const urdf::Mesh&>(g);
        Vector3d lo, hi;
        if (!stlBounds(m.filename, lo, hi)) {
          b_.notConverted(where, "mesh '" + m.filename + "' is not read (not drawn): only STL files found from the "
                                 "URDF's folder are, as their bounding box",
                          false);
          return;
        }
        const Vector3d scale = vec(m.scale);
        const Vector3d a = lo.cwiseProduct(scale), b = hi.cwiseProduct(scale);
        s.type = "box", s.R = o.R, s.half = 0.5 * (b - a).cwiseAbs();
        s.a = o.apply(0.5 * (a + b));
        half = o.R.cwiseAbs() * s.half;
        L.addExtent(s.a - half);
        L.addExtent(s.a + half);
        if (draw) L.shapes.push_back(s);
        return;
      }
    }
    L.addExtent(o.p - half);
    L.addExtent(o.p + half);
    if (draw) L.shapes.push_back(s);
  }

  /// The bounding box of an STL mesh (binary or ASCII) named by a URDF `filename`: a path
  /// relative to the URDF's folder or a file:// URI; false when it cannot be read as STL.
  bool stlBounds(std::string name, Vector3d& lo, Vector3d& hi) const {
    if (name.rfind("file://", 0) == 0) name = name.substr(7);
    if (name.find("://") != std::string::npos) return false;  // package:// needs ROS to resolve
    std::filesystem::path p(name);
    if (p.is_relative()) p = std::filesystem::path(file_).parent_path() / p;
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bool any = false;
    auto add = [&](const Vector3d& v) {
      if (!v.allFinite()) return;
      lo = any ? Vector3d(lo.cwiseMin(v)) : v;
      hi = any ? Vector3d(hi.cwiseMax(v)) : v;
      any = true;
    };
    if (data.size() >= 84) {  // binary: 80-byte header, a count, 50 bytes per triangle
      std::uint32_t count = 0;
      std::memcpy(&count, data.data() + 80, 4);
      if (84 + 50 * static_cast<std::uint64_t>(count) == data.size()) {
        for (std::uint32_t t = 0; t < count; ++t)
          for (int k = 0; k < 3; ++k) {
            float xyz[3];
            std::memcpy(xyz, data.data() + 84 + 50 * static_cast<std::size_t>(t) + 12 + 12 * k, sizeof xyz);
            add(Vector3d(xyz[0], xyz[1], xyz[2]));
          }
        return any;
      }
    }
    std::istringstream text(data);  // ASCII: "vertex x y z"
    std::string word;
    while (text >> word)
      if (word == "vertex") {
        Vector3d v;
        if (!(text >> v.x() >> v.y() >> v.z())) return false;
        add(v);
      }
    return any;
  }

  int link(const urdf::Link& l, const Pose& frame) {
    Link L;
    L.original = l.name;
    L.name = b_.uniqueName(l.name, "link");
    L.frame = frame;
    if (l.inertial) {
      const urdf::Inertial& in = *l.inertial;
      const Pose o = poseOf(in.origin);
      Matrix3d I;
      I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
      if (in.mass < 0) throw InputError("link '" + l.name + "': mass " + num(in.mass) + ", expected >= 0", file_,
                                        "/robot/link[" + l.name + "]/inertial/mass");
      L.mass.add(in.mass, o.p, o.R * I * o.R.transpose());  // the inertia is given in the inertial frame
    }
    const bool drawCollisions = l.visual_array.empty();
    for (const auto& v : l.visual_array) {
      if (!v || !v->geometry) continue;
      nlohmann::json color;
      if (v->material && (v->material->color.r != 0 || v->material->color.g != 0 || v->material->color.b != 0))
        color = {v->material->color.r, v->material->color.g, v->material->color.b};
      shape(L, *v->geometry, poseOf(v->origin), color, true, l.name + " visual");
    }
    for (const auto& c : l.collision_array)
      if (c && c->geometry) shape(L, *c->geometry, poseOf(c->origin), nullptr, drawCollisions, l.name + " collision");
    const int i = b_.addLink(std::move(L));
    index_[l.name] = i;
    return i;
  }

  void children(const urdf::ModelInterface& model, const urdf::Link& l, int self) {
    // a chain deeper than this is refused rather than recursed into (the stack is finite:
    // under AddressSanitizer 5000 levels overflowed the 8 MiB main stack; robot arms and
    // legged machines are a few tens of links deep)
    constexpr int kMaxDepth = 1000;
    if (++depth_ > kMaxDepth)
      throw InputError("a chain of more than " + std::to_string(kMaxDepth) + " links below the root, at link '" +
                           l.name + "'; expected a shallower tree",
                       file_, "/robot/link[" + l.name + "]");
    for (const auto& j : l.child_joints) joint(model, *j, self, b_.link(self).frame);
    --depth_;
  }

  void joint(const urdf::ModelInterface& model, const urdf::Joint& j, int parent, const Pose& parentFrame) {
    const urdf::LinkConstSharedPtr child = model.getLink(j.child_link_name);
    if (!child) throw InputError("joint '" + j.name + "': no link '" + j.child_link_name + "'", file_);
    const Pose origin = poseOf(j.parent_to_joint_origin_transform);
    const int c = link(*child, parentFrame * origin);
    const std::string name = b_.uniqueName(j.name, "joint");
    names_[j.name] = name;
    types_[j.name] = j.type;
    const Vector3d axis = vec(j.axis);
    const bool axial = j.type == urdf::Joint::REVOLUTE || j.type == urdf::Joint::CONTINUOUS ||
                       j.type == urdf::Joint::PRISMATIC || j.type == urdf::Joint::PLANAR;
    nlohmann::json J = {{"name", name}};
    std::vector<SceneBuilder::PointField> fields = {{"point1", parent, origin.p}, {"point2", c, Vector3d::Zero()}};
    if (parent == kGround) fields[0].value = origin.p;
    if (axial && axis.norm() < 1e-12) {
      b_.warn(child->name, "joint '" + j.name + "' has an axis of zero length");
      b_.notConverted(j.name, "a joint with an axis of zero length", true);
      children(model, *child, c);
      return;
    }
    const Vector3d u = axial ? Vector3d(axis.normalized()) : Vector3d::UnitX();
    switch (j.type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS:
        J["type"] = "revolute3d";
        fields.push_back({"axis1", parent, origin.R * u, true});
        fields.push_back({"axis2", c, u, true});
        break;
      case urdf::Joint::PRISMATIC:
        J["type"] = "prismatic3d";
        fields.push_back({"axis1", parent, origin.R * u, true});
        break;
      case urdf::Joint::PLANAR: {
        J["type"] = "planar3d";
        fields.push_back({"normal", parent, origin.R * u, true});
        fields.push_back({"axis2", c, u, true});
        break;
      }
      case urdf::Joint::FIXED:
        J["type"] = "weld3d";
        break;
      case urdf::Joint::FLOATING:
        b_.link(c).declaredFree = true;
        children(model, *child, c);
        return;
      default:
        b_.notConverted(j.name, "a joint of unknown type", true);
        children(model, *child, c);
        return;
    }
    if ((j.type == urdf::Joint::REVOLUTE || j.type == urdf::Joint::PRISMATIC) && j.limits) {
      if (!options_.limits) {
        b_.notConverted(j.name, "limit [" + num(j.limits->lower) + ", " + num(j.limits->upper) + "] left out (limits off)",
                        false);
      } else if (j.limits->lower < j.limits->upper) {
        J["limit"] = {{"min", j.limits->lower}, {"max", j.limits->upper}};
      } else if (j.limits->lower != 0 || j.limits->upper != 0) {
        b_.notConverted(j.name, "limit with lower " + num(j.limits->lower) + " >= upper " + num(j.limits->upper), false);
      }
    }
    if (j.dynamics && (j.dynamics->damping != 0 || j.dynamics->friction != 0))
      b_.notConverted(j.name, "dynamics damping " + num(j.dynamics->damping) + ", friction " +
                                  num(j.dynamics->friction) + ": no joinery element for a spatial joint's damper or friction",
                      true);
    if (j.mimic) mimics_[j.name] = *j.mimic;
    b_.addJoint(J, parent, c, fields);
    children(model, *child, c);
  }

  void mimic(const std::string& name, const urdf::JointMimic& m) {
    const auto other = names_.find(m.joint_name);
    if (other == names_.end()) {
      b_.notConverted(name, "mimics '" + m.joint_name + "', which is not a joint of the model", true);
      return;
    }
    const auto turn = [](int t) { return t == urdf::Joint::REVOLUTE || t == urdf::Joint::CONTINUOUS; };
    const int t2 = types_[name], t1 = types_[m.joint_name];
    nlohmann::json c = {{"name", b_.uniqueName(names_[name] + "_mimic", "mimic")}};
    if (turn(t1) && turn(t2)) {
      c["type"] = "gear", c["joint1"] = other->second, c["joint2"] = names_[name], c["ratio"] = m.multiplier;
    } else if (turn(t1) && t2 == urdf::Joint::PRISMATIC) {
      c["type"] = "rack_pinion", c["pinion_joint"] = other->second, c["rack_joint"] = names_[name],
      c["radius"] = m.multiplier;
    } else {
      b_.notConverted(name, "mimic between these joint types has no joinery coupling", true);
      return;
    }
    c["offset"] = m.offset;
    b_.addCoupling(c);
  }

  std::string file_;
  const ImportOptions& options_;
  SceneBuilder b_;
  ImportResult& result_;
  std::map<std::string, int> index_;
  std::map<std::string, std::string> names_;
  std::map<std::string, int> types_;
  std::map<std::string, urdf::JointMimic> mimics_;
  int depth_ = 0;
};

}  // namespace

ImportResult importUrdf(const std::string& text, const std::string& file, const ImportOptions& options) {
  return readWith<UrdfReader>("urdf", text, file, options);
}

}  // namespace joinery::import_detail
