// MJCF (MuJoCo's XML) -> scene, as MuJoCo 2.2.2 compiles the model (docs/import.md): the
// `include`s spliced in, `default` classes and `childclass`, the `compiler` settings (angle,
// inertiafromgeom, inertiagrouprange, coordinate, eulerseq, autolimits), body frames in every
// orientation form, `inertial` or the geoms' mass and inertia from their density, joints
// (several joints of one body become a chain through massless frames), `equality` connect and
// weld, sites as named points. tinyxml2 parses the XML.
#include <tinyxml2.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "import_builder.hpp"
#include "import_formats.hpp"
#include "joinery/core/errors.hpp"

namespace joinery::import_detail {
namespace {

using tinyxml2::XMLElement;

/// The attributes a default class gives each element kind (geom, joint, site), inherited.
struct DefaultClass {
  std::map<std::string, std::map<std::string, std::string>> attrs;
};

enum class FromGeom { Auto, True, False };

class MjcfReader {
 public:
  MjcfReader(const std::string& file, const ImportOptions& options, ImportResult& result)
      : file_(file), options_(options), result_(result), b_(result, options.component) {}

  void read(const std::string& text) {
    if (doc_.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS)
      throw InputError(std::string("XML syntax error: ") + (doc_.ErrorStr() ? doc_.ErrorStr() : "?"), file_);
    XMLElement* root = doc_.RootElement();
    if (root == nullptr || std::string(root->Name()) != "mujoco")
      throw InputError(std::string("the root element is <") + (root ? root->Name() : "") + ">, expected <mujoco>",
                       file_, "/");
    std::set<std::string> seen;
    expandIncludes(root, seen);
    modelName_ = root->Attribute("model") ? root->Attribute("model") : "";
    for (XMLElement* e = root->FirstChildElement("compiler"); e; e = e->NextSiblingElement("compiler")) compiler(e);
    classes_["main"] = DefaultClass{};
    for (XMLElement* e = root->FirstChildElement("default"); e; e = e->NextSiblingElement("default"))
      defaults(e, "", "/mujoco/default");
    for (XMLElement* e = root->FirstChildElement("asset"); e; e = e->NextSiblingElement("asset"))
      for (XMLElement* m = e->FirstChildElement("material"); m; m = m->NextSiblingElement("material"))
        if (m->Attribute("name") && m->Attribute("rgba")) materials_[m->Attribute("name")] = m->Attribute("rgba");
    for (XMLElement* e = root->FirstChildElement("option"); e; e = e->NextSiblingElement("option")) option(e);
    for (XMLElement* w = root->FirstChildElement("worldbody"); w; w = w->NextSiblingElement("worldbody"))
      worldbody(w);
    for (XMLElement* e = root->FirstChildElement("equality"); e; e = e->NextSiblingElement("equality")) equality(e);
    others(root);
    if (worldGeoms_ > 0)
      b_.notConverted("worldbody", std::to_string(worldGeoms_) +
                                       " geom(s) of the world body: the ground is not drawn and has no contacts",
                      false);
    if (contactGeoms_ > 0)
      b_.notConverted("geoms", "contacts of " + std::to_string(contactGeoms_) +
                                   " geom(s): joinery `contact` joints are not made from geoms; add them by hand",
                      false);
    if (decorations_ > 0)
      b_.notConverted("bodies", std::to_string(decorations_) + " camera(s) and light(s): no effect on the dynamics",
                      false);
    result_.scene = b_.finish(modelName_.empty() ? std::filesystem::path(file_).stem().string() : modelName_,
                              gravity_);
  }

 private:
  // ---- errors and numbers -------------------------------------------------------------
  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw InputError(message, file_, path);
  }

  std::vector<double> numbers(const char* text, const std::string& path, const char* attr) const {
    std::vector<double> out;
    const char* s = text;
    while (*s) {
      while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',') ++s;
      if (!*s) break;
      char* end = nullptr;
      const double v = std::strtod(s, &end);
      if (end == s || !std::isfinite(v))
        fail(path, std::string("attribute ") + attr + "=\"" + text + "\": expected finite numbers");
      out.push_back(v);
      s = end;
    }
    return out;
  }

  std::vector<double> numbers(const std::string& text, const std::string& path, const char* attr, std::size_t n) const {
    std::vector<double> v = numbers(text.c_str(), path, attr);
    if (v.size() != n)
      fail(path, std::string("attribute ") + attr + "=\"" + text + "\": expected " + std::to_string(n) +
                     " numbers, found " + std::to_string(v.size()));
    return v;
  }

  static Vector3d vec3(const std::vector<double>& v, std::size_t at = 0) { return {v[at], v[at + 1], v[at + 2]}; }

  double angleUnit() const { return degrees_ ? M_PI / 180.0 : 1.0; }

  // ---- include ------------------------------------------------------------------------
  void expandIncludes(XMLElement* parent, std::set<std::string>& seen) {
    for (XMLElement* e = parent->FirstChildElement(); e;) {
      if (std::string(e->Name()) != "include") {
        expandIncludes(e, seen);
        e = e->NextSiblingElement();
        continue;
      }
      const char* f = e->Attribute("file");
      if (!f) fail("/mujoco/include", "<include> without a file attribute");
      const std::filesystem::path p = std::filesystem::path(file_).parent_path() / f;
      if (!seen.insert(p.lexically_normal().string()).second)
        fail("/mujoco/include", std::string("'") + f + "' is included twice (MuJoCo refuses it too)");
      std::ifstream in(p, std::ios::binary);
      if (!in) fail("/mujoco/include", std::string("cannot open the included file '") + p.string() + "'");
      std::ostringstream ss;
      ss << in.rdbuf();
      const std::string text = ss.str();
      tinyxml2::XMLDocument inc;
      if (inc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS)
        throw InputError(std::string("XML syntax error: ") + (inc.ErrorStr() ? inc.ErrorStr() : "?"), p.string());
      XMLElement* root = inc.RootElement();
      if (!root) throw InputError("empty included file", p.string());
      // the included file's top-level elements take the place of the <include>, in order;
      // they are visited next (they may include further files)
      tinyxml2::XMLNode* after = e;
      for (XMLElement* c = root->FirstChildElement(); c; c = c->NextSiblingElement()) {
        tinyxml2::XMLNode* clone = c->DeepClone(&doc_);
        parent->InsertAfterChild(after, clone);
        after = clone;
      }
      XMLElement* next = e->NextSiblingElement();
      parent->DeleteChild(e);
      e = next;
    }
  }

  // ---- compiler, option, defaults -------------------------------------------------------
  void compiler(XMLElement* e) {
    const std::string path = "/mujoco/compiler";
    if (const char* a = e->Attribute("angle")) {
      const std::string v = a;
      if (v != "degree" && v != "radian") fail(path, "angle=\"" + v + "\": expected degree or radian");
      degrees_ = v == "degree";
    }
    if (const char* a = e->Attribute("inertiafromgeom")) {
      const std::string v = a;
      if (v == "auto") fromGeom_ = FromGeom::Auto;
      else if (v == "true") fromGeom_ = FromGeom::True;
      else if (v == "false") fromGeom_ = FromGeom::False;
      else fail(path, "inertiafromgeom=\"" + v + "\": expected auto, true or false");
    }
    if (const char* a = e->Attribute("coordinate")) {
      const std::string v = a;
      if (v != "local" && v != "global") fail(path, "coordinate=\"" + v + "\": expected local or global");
      global_ = v == "global";
    }
    if (const char* a = e->Attribute("eulerseq")) {
      const std::string v = a;
      if (v.size() != 3 || v.find_first_not_of("xyzXYZ") != std::string::npos)
        fail(path, "eulerseq=\"" + v + "\": expected three of x y z X Y Z");
      eulerseq_ = v;
    }
    if (const char* a = e->Attribute("autolimits")) autolimits_ = std::string(a) == "true";
    if (const char* a = e->Attribute("inertiagrouprange")) {
      const auto v = numbers(a, path, "inertiagrouprange", 2);
      groupLo_ = static_cast<int>(v[0]), groupHi_ = static_cast<int>(v[1]);
    }
    for (const char* a : {"boundmass", "boundinertia", "settotalmass"})
      if (e->Attribute(a) && std::strtod(e->Attribute(a), nullptr) > 0)
        b_.notConverted("compiler", std::string(a) + "=\"" + e->Attribute(a) + "\" is not applied", true);
    if (e->BoolAttribute("balanceinertia", false))
      b_.notConverted("compiler", "balanceinertia=\"true\" is not applied", true);
  }

  void option(XMLElement* e) {
    if (const char* g = e->Attribute("gravity")) gravity_ = vec3(numbers(g, "/mujoco/option", "gravity", 3));
    for (const char* a : {"density", "viscosity"})
      if (e->Attribute(a) && std::strtod(e->Attribute(a), nullptr) != 0)
        b_.notConverted("option", std::string(a) + "=\"" + e->Attribute(a) + "\": the medium's forces are not converted",
                        true);
    if (const char* w = e->Attribute("wind"))
      if (vec3(numbers(w, "/mujoco/option", "wind", 3)).norm() > 0)
        b_.notConverted("option", "wind is not converted", true);
    for (XMLElement* f = e->FirstChildElement("flag"); f; f = f->NextSiblingElement("flag"))
      if (f->Attribute("gravity") && std::string(f->Attribute("gravity")) == "disable") gravity_.setZero();
  }

  void defaults(XMLElement* e, const std::string& parent, const std::string& path) {
    std::string name = e->Attribute("class") ? e->Attribute("class") : "";
    if (parent.empty()) {
      if (!name.empty() && name != "main") fail(path, "the top-level <default> has class=\"" + name + "\", expected main");
      name = "main";
    } else {
      if (name.empty()) fail(path, "a nested <default> without class");
      if (classes_.count(name)) fail(path, "default class '" + name + "' defined twice");
      classes_[name] = classes_[parent];
    }
    DefaultClass& cls = classes_[name];
    for (XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
      const std::string kind = c->Name();
      if (kind == "default") {
        defaults(c, name, path + "[" + name + "]/default");
        continue;
      }
      auto& attrs = classes_[name].attrs[kind];
      (void)cls;
      for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next()) attrs[a->Name()] = a->Value();
    }
  }

  /// The value of attribute `name` of element `e` (of kind e->Name()), from the element or its class.
  std::optional<std::string> attr(const XMLElement* e, const std::string& cls, const char* name) const {
    if (const char* v = e->Attribute(name)) return std::string(v);
    const auto c = classes_.find(cls);
    if (c == classes_.end()) return std::nullopt;
    const auto k = c->second.attrs.find(e->Name());
    if (k == c->second.attrs.end()) return std::nullopt;
    const auto a = k->second.find(name);
    if (a == k->second.end()) return std::nullopt;
    return a->second;
  }

  std::string classOf(const XMLElement* e, const std::string& childclass, const std::string& path) const {
    std::string cls = e->Attribute("class") ? e->Attribute("class") : (childclass.empty() ? "main" : childclass);
    if (!classes_.count(cls)) fail(path, "class=\"" + cls + "\": no such default class");
    return cls;
  }

  double number(const XMLElement* e, const std::string& cls, const char* name, double fallback,
                const std::string& path) const {
    const auto v = attr(e, cls, name);
    if (!v) return fallback;
    return numbers(*v, path, name, 1)[0];
  }

  // ---- frames -------------------------------------------------------------------------
  /// The rotation written on an element (quat, axisangle, euler, xyaxes or zaxis; at most one).
  Matrix3d orientation(const XMLElement* e, const std::string& cls, const std::string& path) const {
    int given = 0;
    Matrix3d R = Matrix3d::Identity();
    if (const auto q = attr(e, cls, "quat")) {
      ++given;
      const auto v = numbers(*q, path, "quat", 4);
      Eigen::Quaterniond quat(v[0], v[1], v[2], v[3]);
      if (quat.norm() < 1e-12) fail(path, "quat=\"" + *q + "\": a quaternion of zero length");
      R = quat.normalized().toRotationMatrix();
    }
    if (const auto a = attr(e, cls, "axisangle")) {
      ++given;
      const auto v = numbers(*a, path, "axisangle", 4);
      const Vector3d axis = vec3(v);
      if (axis.norm() < 1e-12) fail(path, "axisangle=\"" + *a + "\": an axis of zero length");
      R = axisAngle(axis.normalized(), v[3] * angleUnit());
    }
    if (const auto a = attr(e, cls, "euler")) {
      ++given;
      const auto v = numbers(*a, path, "euler", 3);
      R.setIdentity();
      for (int i = 0; i < 3; ++i) {
        const char c = eulerseq_[static_cast<std::size_t>(i)];
        const int k = std::tolower(c) - 'x';
        const Matrix3d Ri = axisAngle(Vector3d::Unit(k), v[static_cast<std::size_t>(i)] * angleUnit());
        R = std::islower(c) ? Matrix3d(R * Ri) : Matrix3d(Ri * R);  // lower case: axes that move
      }
    }
    if (const auto a = attr(e, cls, "xyaxes")) {
      ++given;
      const auto v = numbers(*a, path, "xyaxes", 6);
      Vector3d x = vec3(v), y = vec3(v, 3);
      if (x.norm() < 1e-12) fail(path, "xyaxes=\"" + *a + "\": an x axis of zero length");
      x.normalize();
      y -= x * x.dot(y);
      if (y.norm() < 1e-12) fail(path, "xyaxes=\"" + *a + "\": the y axis is parallel to the x axis");
      y.normalize();
      R.col(0) = x, R.col(1) = y, R.col(2) = x.cross(y);
    }
    if (const auto a = attr(e, cls, "zaxis")) {
      ++given;
      const Vector3d z = vec3(numbers(*a, path, "zaxis", 3));
      if (z.norm() < 1e-12) fail(path, "zaxis=\"" + *a + "\": an axis of zero length");
      R = rotationFromZ(z);
    }
    if (given > 1) fail(path, "more than one orientation (quat, axisangle, euler, xyaxes, zaxis) given");
    return R;
  }

  Pose pose(const XMLElement* e, const std::string& cls, const std::string& path) const {
    Pose p;
    if (const auto v = attr(e, cls, "pos")) p.p = vec3(numbers(*v, path, "pos", 3));
    p.R = orientation(e, cls, path);
    return p;
  }

  std::string pathOf(const std::string& parent, const XMLElement* e, int index) const {
    const char* n = e->Attribute("name");
    return parent + "/" + e->Name() + "[" + (n ? std::string(n) : std::to_string(index)) + "]";
  }

  // ---- bodies ---------------------------------------------------------------------------
  void worldbody(XMLElement* w) {
    int k = 0;
    for (XMLElement* c = w->FirstChildElement(); c; c = c->NextSiblingElement(), ++k) {
      const std::string kind = c->Name();
      const std::string path = pathOf("/mujoco/worldbody", c, k);
      if (kind == "body") body(c, kGround, Pose{}, "", path);
      else if (kind == "geom") ++worldGeoms_;
      else if (kind == "site") b_.notConverted(path, "a site of the world body: a fixed world point needs no output", false);
      else if (kind == "camera" || kind == "light") ++decorations_;
      else if (kind == "joint" || kind == "freejoint" || kind == "inertial")
        fail(path, "<" + kind + "> directly in <worldbody>: the world body cannot move");
      else b_.notConverted(path, "<" + kind + "> in the world body is not converted", false);
    }
  }

  struct Geom {
    std::string type;
    Pose frame;  // in the body
    Vector3d size = Vector3d::Zero();
    double halfLength = 0;
  };

  void geom(XMLElement* g, const std::string& cls, const std::string& path, Link& link, MassProperties& fromGeoms,
            bool& meshMass) {
    Geom G;
    G.type = attr(g, cls, "type").value_or("sphere");
    std::vector<double> size;
    if (const auto s = attr(g, cls, "size")) size = numbers(s->c_str(), path, "size");
    size.resize(3, 0.0);
    G.frame = pose(g, cls, path);
    if (const auto ft = attr(g, cls, "fromto")) {
      const auto v = numbers(*ft, path, "fromto", 6);
      const Vector3d a = vec3(v), c = vec3(v, 3);
      if ((c - a).norm() < 1e-12) fail(path, "fromto=\"" + *ft + "\": the two points coincide");
      G.frame.p = 0.5 * (a + c);
      G.frame.R = rotationFromZ(c - a);
      const double half = 0.5 * (c - a).norm();
      if (G.type == "capsule" || G.type == "cylinder") size[1] = half;
      else if (G.type == "box" || G.type == "ellipsoid") size[2] = half;
    }
    if (global_) G.frame = link.frame.inverse() * G.frame;
    const Vector3d s(size[0], size[1], size[2]);
    double volume = 0;
    Vector3d I = Vector3d::Zero();  // principal inertia per unit mass, in the geom frame
    Shape shape;
    shape.a = G.frame.p;
    const Vector3d z = G.frame.R.col(2);
    Vector3d halfExtent = Vector3d::Zero();
    if (G.type == "sphere") {
      const double r = s[0];
      volume = 4.0 / 3.0 * M_PI * r * r * r;
      I.setConstant(0.4 * r * r);
      shape.type = "sphere", shape.radius = r;
      halfExtent.setConstant(r);
    } else if (G.type == "capsule") {
      const double r = s[0], h = 2 * s[1];
      volume = M_PI * r * r * h + 4.0 / 3.0 * M_PI * r * r * r;
      // as MuJoCo 2.2.2: a cylinder and two hemispheres, the spheres' share of the mass moved
      const double sphereShare = 4 * r / (4 * r + 3 * h), cylShare = 1 - sphereShare;
      const double sphere = sphereShare * 2 * r * r / 5;
      I.x() = I.y() = cylShare * (3 * r * r + h * h) / 12 + sphere + sphereShare * h * (3 * r + 2 * h) / 8;
      I.z() = cylShare * r * r / 2 + sphere;
      shape.type = "capsule", shape.radius = r, shape.a = G.frame.p - s[1] * z, shape.b = G.frame.p + s[1] * z;
      halfExtent = z.cwiseAbs() * s[1] + Vector3d::Constant(r);
    } else if (G.type == "cylinder") {
      const double r = s[0], hh = s[1];
      volume = M_PI * r * r * 2 * hh;
      I.x() = I.y() = (3 * r * r + 4 * hh * hh) / 12;
      I.z() = r * r / 2;
      shape.type = "cylinder", shape.radius = r, shape.a = G.frame.p - hh * z, shape.b = G.frame.p + hh * z;
      halfExtent = z.cwiseAbs() * hh + Vector3d::Constant(r);
    } else if (G.type == "ellipsoid") {
      volume = 4.0 / 3.0 * M_PI * s[0] * s[1] * s[2];
      I = Vector3d(s[1] * s[1] + s[2] * s[2], s[0] * s[0] + s[2] * s[2], s[0] * s[0] + s[1] * s[1]) / 5;
      shape.type = "box", shape.R = G.frame.R, shape.half = s;  // drawn as its bounding box
      halfExtent = G.frame.R.cwiseAbs() * s;
    } else if (G.type == "box") {
      volume = 8 * s[0] * s[1] * s[2];
      I = Vector3d(s[1] * s[1] + s[2] * s[2], s[0] * s[0] + s[2] * s[2], s[0] * s[0] + s[1] * s[1]) / 3;
      shape.type = "box", shape.R = G.frame.R, shape.half = s;
      halfExtent = G.frame.R.cwiseAbs() * s;
    } else if (G.type == "mesh" || G.type == "hfield" || G.type == "sdf") {
      const bool counts = !(attr(g, cls, "mass") && numbers(*attr(g, cls, "mass"), path, "mass", 1)[0] == 0.0);
      if (counts) meshMass = true;
      b_.notConverted(path, "a " + G.type + " geom: its shape is not read (not drawn; its mass and inertia not computed)",
                      false);  // whether it counts is decided by the body (inertiafromgeom)
      return;
    } else if (G.type == "plane") {
      b_.notConverted(path, "a plane geom in a moving body: not drawn, no mass", false);
      return;
    } else {
      fail(path, "type=\"" + G.type + "\": expected sphere, capsule, ellipsoid, cylinder, box, mesh, plane or hfield");
    }
    for (int i = 0; i < 3; ++i)
      if (!(s[i] >= 0.0)) fail(path, "size=\"" + attr(g, cls, "size").value_or("") + "\": sizes must be >= 0");
    if (const auto rgba = attr(g, cls, "rgba")) {
      const auto v = numbers(*rgba, path, "rgba", 4);
      shape.color = {v[0], v[1], v[2]};
    } else if (const auto mat = attr(g, cls, "material"); mat && materials_.count(*mat)) {
      const auto v = numbers(materials_.at(*mat), path, "rgba", 4);
      shape.color = {v[0], v[1], v[2]};
    }
    link.shapes.push_back(shape);
    link.addExtent(G.frame.p - halfExtent);
    link.addExtent(G.frame.p + halfExtent);
    const auto contype = attr(g, cls, "contype"), conaffinity = attr(g, cls, "conaffinity");
    if ((contype ? std::atoi(contype->c_str()) : 1) != 0 || (conaffinity ? std::atoi(conaffinity->c_str()) : 1) != 0)
      ++contactGeoms_;
    const int group = static_cast<int>(number(g, cls, "group", 0, path));
    if (group < groupLo_ || group > groupHi_) return;  // outside inertiagrouprange
    double mass = 0;
    if (const auto m = attr(g, cls, "mass")) {
      mass = numbers(*m, path, "mass", 1)[0];
    } else {
      const double density = number(g, cls, "density", 1000.0, path);
      mass = density * volume;
    }
    if (mass < 0) fail(path, "mass " + num(mass) + ": expected >= 0");
    const Matrix3d Ic = G.frame.R * (mass * I).asDiagonal() * G.frame.R.transpose();
    fromGeoms.add(mass, G.frame.p, Ic);
  }

  MassProperties inertial(XMLElement* e, const Link& link, const std::string& path) {
    const Pose p0 = pose(e, "", path);
    const Pose p = global_ ? link.frame.inverse() * p0 : p0;
    const char* m = e->Attribute("mass");
    if (!m) fail(path, "<inertial> without mass");
    MassProperties out;
    const double mass = numbers(m, path, "mass", 1)[0];
    if (mass < 0) fail(path, "mass " + num(mass) + ": expected >= 0");
    Matrix3d I = Matrix3d::Zero();
    if (const char* d = e->Attribute("diaginertia")) {
      I = vec3(numbers(d, path, "diaginertia", 3)).asDiagonal();
    } else if (const char* f = e->Attribute("fullinertia")) {
      const auto v = numbers(f, path, "fullinertia", 6);  // ixx iyy izz ixy ixz iyz
      I << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
    } else {
      fail(path, "<inertial> without diaginertia or fullinertia");
    }
    out.add(mass, p.p, p.R * I * p.R.transpose());
    return out;
  }

  void body(XMLElement* e, int parent, const Pose& parentFrame, const std::string& inheritedClass,
            const std::string& path) {
    const std::string childclass = e->Attribute("childclass") ? e->Attribute("childclass") : inheritedClass;
    if (!childclass.empty() && !classes_.count(childclass))
      fail(path, "childclass=\"" + childclass + "\": no such default class");
    const Pose local = pose(e, "", path);
    Link link;
    link.original = e->Attribute("name") ? e->Attribute("name") : path;
    link.name = b_.uniqueName(e->Attribute("name") ? e->Attribute("name") : "", "body" + std::to_string(bodyCount_));
    ++bodyCount_;
    link.frame = global_ ? local : parentFrame * local;
    // mass properties: <inertial> or the geoms
    MassProperties fromGeoms, explicitInertial;
    bool hasInertial = false, meshMass = false;
    int k = 0;
    std::vector<std::pair<XMLElement*, std::string>> joints, sites, children;
    for (XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement(), ++k) {
      const std::string kind = c->Name();
      const std::string cpath = pathOf(path, c, k);
      if (kind == "geom") {
        geom(c, classOf(c, childclass, cpath), cpath, link, fromGeoms, meshMass);
      } else if (kind == "inertial") {
        explicitInertial = inertial(c, link, cpath);
        hasInertial = true;
      } else if (kind == "joint" || kind == "freejoint") {
        joints.emplace_back(c, cpath);
      } else if (kind == "site") {
        sites.emplace_back(c, cpath);
      } else if (kind == "body") {
        children.emplace_back(c, cpath);
      } else if (kind == "camera" || kind == "light") {
        ++decorations_;
      } else {
        b_.notConverted(cpath, "<" + kind + "> in a body is not converted", false);
      }
    }
    const bool useGeoms = fromGeom_ == FromGeom::True || (fromGeom_ == FromGeom::Auto && !hasInertial);
    link.mass = useGeoms ? fromGeoms : explicitInertial;
    if (useGeoms && meshMass)
      b_.notConverted(link.original, "the mass and inertia of its mesh geoms are missing from the body's", true);
    const int self = b_.addLink(link);
    bodyIndex_[link.original] = self;
    const Link L = b_.link(self);  // a copy: adding the intermediate frames below may move the links
    // joints: a chain through massless frames when there are several
    bool free = false;
    for (const auto& [j, jpath] : joints)
      if (std::string(j->Name()) == "freejoint" ||
          attr(j, classOf(j, childclass, jpath), "type").value_or("hinge") == "free")
        free = true;
    if (free && joints.size() > 1) fail(path, "a free joint together with other joints in one body");
    if (free && options_.fixedBase) {  // held where it is: welded to the ground
      nlohmann::json w = {{"name", b_.uniqueName(L.name + "_base", "base")}, {"type", "weld3d"}};
      b_.addJoint(w, kGround, self, {{"point1", kGround, L.frame.p}, {"point2", self, Vector3d::Zero()}});
      b_.notConverted(L.original, "its free joint: welded to the ground (--fixed-base)", false);
    } else if (free) {
      b_.link(self).declaredFree = true;
    } else if (joints.empty()) {
      nlohmann::json w = {{"name", b_.uniqueName(L.name + "_weld", "weld")}, {"type", "weld3d"}};
      b_.addJoint(w, parent, self, {{"point1", parent, b_.frameOf(parent).inverse().apply(L.frame.p)},
                                    {"point2", self, Vector3d::Zero()}});
    } else {
      int prev = parent;
      for (std::size_t i = 0; i < joints.size(); ++i) {
        int next = self;
        const char* jn = joints[i].first->Attribute("name");
        if (i + 1 < joints.size()) {
          Link mid;
          mid.name = b_.uniqueName(L.name + "__" + (jn ? jn : std::to_string(i)), "frame");
          mid.original = mid.name;
          mid.frame = L.frame;
          mid.intermediate = true;
          next = b_.addLink(mid);
        }
        joint(joints[i].first, classOf(joints[i].first, childclass, joints[i].second), joints[i].second, prev, next,
              self);
        prev = next;
      }
    }
    for (const auto& [s, spath] : sites) site(s, classOf(s, childclass, spath), spath, self);
    for (const auto& [c, cpath] : children) body(c, self, b_.link(self).frame, childclass, cpath);
  }

  void joint(XMLElement* j, const std::string& cls, const std::string& path, int body1, int body2, int owner) {
    const Link& B = b_.link(owner);
    const std::string type = attr(j, cls, "type").value_or("hinge");
    const std::string where = j->Attribute("name") ? j->Attribute("name") : path;
    Vector3d anchor = Vector3d::Zero(), axis = Vector3d::UnitZ();
    if (const auto p = attr(j, cls, "pos")) anchor = vec3(numbers(*p, path, "pos", 3));
    if (const auto a = attr(j, cls, "axis")) axis = vec3(numbers(*a, path, "axis", 3));
    if (global_) anchor = B.frame.inverse().apply(anchor), axis = B.frame.R.transpose() * axis;
    const Vector3d worldAnchor = B.frame.apply(anchor), worldAxis = B.frame.R * axis;
    const Pose F1 = b_.frameOf(body1), F2 = b_.frameOf(body2);
    nlohmann::json J = {{"name", b_.uniqueName(j->Attribute("name") ? j->Attribute("name") : "",
                                               "joint" + std::to_string(jointCount_++))}};
    std::vector<SceneBuilder::PointField> fields = {{"point1", body1, F1.inverse().apply(worldAnchor)},
                                                    {"point2", body2, F2.inverse().apply(worldAnchor)}};
    const bool axial = type == "hinge" || type == "slide";
    if (axial && axis.norm() < 1e-12) {
      b_.warn(B.original, "joint '" + where + "' has an axis of zero length");
      b_.notConverted(where, "a joint with an axis of zero length", true);
      return;
    }
    const double unit = type == "hinge" ? angleUnit() : 1.0;
    const double ref = number(j, cls, "ref", 0.0, path) * unit;
    if (type == "hinge") {
      J["type"] = "revolute3d";
      fields.push_back({"axis1", body1, F1.R.transpose() * worldAxis.normalized(), true});
      fields.push_back({"axis2", body2, F2.R.transpose() * worldAxis.normalized(), true});
    } else if (type == "slide") {
      J["type"] = "prismatic3d";
      fields.push_back({"axis1", body1, F1.R.transpose() * worldAxis.normalized(), true});
    } else if (type == "ball") {
      J["type"] = "spherical";
    } else {
      fail(path, "type=\"" + type + "\": expected hinge, slide, ball or free");
    }
    // range -> limit
    const auto limited = attr(j, cls, "limited");
    const auto range = attr(j, cls, "range");
    const bool isLimited = limited ? (*limited == "true" || (*limited == "auto" && range && autolimits_))
                                   : (range && autolimits_);
    if (isLimited && range) {
      const auto r = numbers(*range, path, "range", 2);
      if (type == "ball") {
        b_.notConverted(where, "the range of a ball joint (a cone of " + num(r[1] * unit) + " rad) has no counterpart",
                        true);
      } else if (!options_.limits) {
        b_.notConverted(where, "range [" + num(r[0] * unit) + ", " + num(r[1] * unit) + "] left out (limits off)", false);
      } else {
        J["limit"] = {{"min", r[0] * unit - ref}, {"max", r[1] * unit - ref}};
      }
    }
    // a hinge's or a slide's stiffness and damping: a joint_spring on the joint's turn or travel
    // (MuJoCo: qfrc_passive = -stiffness (q - springref) - damping q'; the joint's turn is q - ref)
    const double stiffness = number(j, cls, "stiffness", 0.0, path), damping = number(j, cls, "damping", 0.0, path);
    nlohmann::json spring;
    if (axial && (stiffness != 0.0 || damping != 0.0)) {
      if (!(stiffness >= 0) || !(damping >= 0))
        fail(path, "stiffness " + num(stiffness) + ", damping " + num(damping) + ": expected numbers >= 0");
      const std::string jointName = J["name"];
      spring = {{"name", b_.uniqueName(jointName + "_spring", "spring")}, {"type", "joint_spring"}, {"joint", jointName}};
      if (stiffness != 0.0) spring["stiffness"] = stiffness;
      if (damping != 0.0) spring["damping"] = damping;
      const double rest = number(j, cls, "springref", 0.0, path) * unit - ref;
      if (stiffness != 0.0 && rest != 0.0) spring["rest"] = rest;
    }
    std::string passive;
    for (const char* a : {"damping", "stiffness", "armature", "frictionloss"}) {
      if (axial && (std::string(a) == "damping" || std::string(a) == "stiffness")) continue;  // the spring above
      const double v = number(j, cls, a, 0.0, path);
      if (v != 0.0) passive += (passive.empty() ? "" : ", ") + std::string(a) + " " + num(v);
    }
    if (!passive.empty())
      b_.notConverted(where, passive + (axial ? ": no joinery element for a joint's rotor inertia (armature) or dry "
                                                "friction (frictionloss)"
                                              : ": no joinery element for a ball joint's own spring, damper, rotor "
                                                "inertia or friction (the scene's joint is ideal)"),
                      true);
    b_.addJoint(J, body1, body2, fields);
    if (!spring.is_null()) b_.addForce(spring, {});
  }

  void site(XMLElement* s, const std::string& cls, const std::string& path, int owner) {
    Pose p = pose(s, cls, path);
    if (const auto ft = attr(s, cls, "fromto")) {
      const auto v = numbers(*ft, path, "fromto", 6);
      p.p = 0.5 * (vec3(v) + vec3(v, 3));
    }
    if (global_) p = b_.link(owner).frame.inverse() * p;
    const char* n = s->Attribute("name");
    nlohmann::json o = {{"name", b_.uniqueName(n ? n : "", "site" + std::to_string(siteCount_++))},
                        {"point", {{"body", b_.link(owner).name}}}};
    b_.addOutput(o, {{"point/point", owner, p.p}});
  }

  // ---- equality and the rest ------------------------------------------------------------
  int bodyByName(const char* name, const std::string& path, const char* attrName) const {
    if (!name || std::string(name) == "world") return kGround;
    const auto it = bodyIndex_.find(name);
    if (it == bodyIndex_.end()) fail(path, std::string(attrName) + "=\"" + name + "\": no such body");
    return it->second;
  }

  void equality(XMLElement* eq) {
    int k = 0;
    for (XMLElement* c = eq->FirstChildElement(); c; c = c->NextSiblingElement(), ++k) {
      const std::string kind = c->Name();
      const std::string path = pathOf("/mujoco/equality", c, k);
      const std::string cls = classOf(c, "", path);
      const char* n = c->Attribute("name");
      const std::string where = n ? n : path;
      if (attr(c, cls, "active").value_or("true") == "false") {
        b_.notConverted(where, "an inactive equality constraint", false);
        continue;
      }
      if (kind != "connect" && kind != "weld") {
        b_.notConverted(where, "equality <" + kind + "> has no joinery counterpart here", true);
        continue;
      }
      if (!c->Attribute("body1")) fail(path, "<" + kind + "> without body1");
      const int b1 = bodyByName(c->Attribute("body1"), path, "body1");
      const int b2 = bodyByName(c->Attribute("body2"), path, "body2");
      if (b1 == b2) fail(path, "body1 and body2 are the same body");
      const Pose F1 = b_.frameOf(b1), F2 = b_.frameOf(b2);
      nlohmann::json J = {{"name", b_.uniqueName(n ? n : "", kind + std::to_string(k))}};
      if (kind == "connect") {
        const auto a = attr(c, cls, "anchor");
        if (!a) fail(path, "<connect> without anchor");
        Vector3d anchor = vec3(numbers(*a, path, "anchor", 3));
        if (global_) anchor = F1.inverse().apply(anchor);
        const Vector3d world = F1.apply(anchor);
        J["type"] = "spherical";
        b_.addJoint(J, b1, b2, {{"point1", b1, anchor}, {"point2", b2, F2.inverse().apply(world)}});
      } else {
        J["type"] = "weld3d";
        std::vector<double> rel;
        if (const auto r = attr(c, cls, "relpose")) rel = numbers(*r, path, "relpose", 7);
        if (!rel.empty() && Eigen::Vector4d(rel[3], rel[4], rel[5], rel[6]).norm() > 0) {
          // body2's pose in body1's frame, as written
          const Eigen::Quaterniond q(rel[3], rel[4], rel[5], rel[6]);
          J["orientation"] = quaternionJson(q.normalized().toRotationMatrix());
          b_.addJoint(J, b1, b2, {{"point1", b1, vec3(rel)}, {"point2", b2, Vector3d::Zero()}});
        } else {  // the relative pose at the initial state
          b_.addJoint(J, b1, b2, {{"point1", b1, F1.inverse().apply(F2.p)}, {"point2", b2, Vector3d::Zero()}});
        }
      }
      if (attr(c, cls, "solref") || attr(c, cls, "solimp"))
        b_.notConverted(where, "solref/solimp: joinery holds the constraint exactly (MuJoCo's is soft)", false);
    }
  }

  void others(XMLElement* root) {
    for (XMLElement* s = root->FirstChildElement("tendon"); s; s = s->NextSiblingElement("tendon")) {
      int k = 0;
      for (XMLElement* t = s->FirstChildElement(); t; t = t->NextSiblingElement(), ++k) {
        const std::string path = pathOf("/mujoco/tendon", t, k);
        const std::string cls = classOf(t, "", path);
        const bool passive = number(t, cls, "stiffness", 0, path) != 0 || number(t, cls, "damping", 0, path) != 0 ||
                             attr(t, cls, "limited").value_or("false") == "true";
        b_.notConverted(t->Attribute("name") ? t->Attribute("name") : path,
                        std::string("a ") + t->Name() + " tendon" +
                            (passive ? " with stiffness, damping or a limit (changes the dynamics)"
                                     : " (passive: it acts only through actuators)"),
                        passive);
      }
    }
    for (const char* section : {"actuator", "sensor", "contact", "keyframe"}) {
      int count = 0;
      for (XMLElement* s = root->FirstChildElement(section); s; s = s->NextSiblingElement(section))
        for (XMLElement* t = s->FirstChildElement(); t; t = t->NextSiblingElement()) ++count;
      if (count == 0) continue;
      const std::string what = std::string(section) == "actuator" ? "actuators: inputs, not the passive mechanism"
                               : std::string(section) == "sensor" ? "sensors: use output channels"
                               : std::string(section) == "contact" ? "contact pairs and exclusions"
                                                                   : "keyframes";
      b_.notConverted(section, std::to_string(count) + " " + what, false);
    }
  }

  std::string file_;
  const ImportOptions& options_;
  ImportResult& result_;
  SceneBuilder b_;
  tinyxml2::XMLDocument doc_;
  std::string modelName_;
  std::map<std::string, DefaultClass> classes_;
  std::map<std::string, std::string> materials_;
  std::map<std::string, int> bodyIndex_;
  bool degrees_ = true, global_ = false, autolimits_ = false;
  FromGeom fromGeom_ = FromGeom::Auto;
  int groupLo_ = 0, groupHi_ = 5;
  std::string eulerseq_ = "xyz";
  Vector3d gravity_{0, 0, -9.81};
  int worldGeoms_ = 0, contactGeoms_ = 0, decorations_ = 0, bodyCount_ = 0, jointCount_ = 0, siteCount_ = 0;
};

}  // namespace

ImportResult importMjcf(const std::string& text, const std::string& file, const ImportOptions& options) {
  return readWith<MjcfReader>("mjcf", text, file, options);
}

}  // namespace joinery::import_detail
