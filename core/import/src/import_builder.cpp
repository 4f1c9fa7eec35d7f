#include "import_builder.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <numeric>

#include "joinery/core/format.hpp"
#include "joinery/core/terminal_text.hpp"

namespace joinery::import_detail {

std::string num(double x) { return formatNumber(x); }

void MassProperties::add(double m, const Vector3d& c, const Matrix3d& Ic) {
  const double total = mass + m;
  const Vector3d newCom = total > 0.0 ? Vector3d((mass * com + m * c) / total) : com;
  auto shift = [](const Vector3d& d) -> Matrix3d {
    return d.squaredNorm() * Matrix3d::Identity() - d * d.transpose();
  };
  inertia = inertia + mass * shift(com - newCom) + Ic + m * shift(c - newCom);
  mass = total;
  com = newCom;
}

void Link::addExtent(const Vector3d& x) {
  if (!hasExtent) {
    lo = hi = x;
    hasExtent = true;
    return;
  }
  lo = lo.cwiseMin(x);
  hi = hi.cwiseMax(x);
}

std::string SceneBuilder::uniqueName(const std::string& raw, const std::string& fallback) {
  std::string s = raw.empty() ? fallback : raw;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  std::string name = s;
  for (int k = 2; names_.count(name) != 0; ++k) name = s + "_" + std::to_string(k);
  names_.insert(name);
  return name;
}

int SceneBuilder::addLink(Link l) {
  links_.push_back(std::move(l));
  return static_cast<int>(links_.size()) - 1;
}

void SceneBuilder::addJoint(nlohmann::json j, int body1, int body2, std::vector<PointField> fields) {
  j["body1"] = body1 == kGround ? "ground" : link(body1).name;
  j["body2"] = body2 == kGround ? "ground" : link(body2).name;
  edges_.emplace_back(body1, body2);
  joints_.push_back({std::move(j), std::move(fields)});
}

void SceneBuilder::addOutput(nlohmann::json o, std::vector<PointField> fields) {
  outputs_.push_back({std::move(o), std::move(fields)});
}

void SceneBuilder::addForce(nlohmann::json f, std::vector<PointField> fields) {
  forces_.push_back({std::move(f), std::move(fields)});
}

void SceneBuilder::notConverted(const std::string& where, const std::string& why, bool affectsDynamics) {
  result_.notConverted.push_back({where, why});
  if (affectsDynamics) result_.dynamicsComplete = false;
}

void SceneBuilder::warn(const std::string& where, const std::string& what) { result_.warnings.push_back({where, what}); }

nlohmann::json SceneBuilder::pointJson(const PointField& f) const {
  if (f.isAxis) {
    return vecJson(f.value);  // a direction: the body frame's axes are the link's
  }
  if (f.link == kGround) return vecJson(f.value);
  return vecJson(f.value - link(f.link).mass.com);
}

nlohmann::json SceneBuilder::resolve(const Pending& p) const {
  nlohmann::json j = p.j;
  for (const PointField& f : p.fields) {
    // "point": {"body": ..., "point": P} of an output channel is addressed as "point/point"
    const nlohmann::json v = pointJson(f);
    if (f.field.find('/') != std::string::npos)
      j[nlohmann::json::json_pointer("/" + f.field)] = v;
    else
      j[f.field] = v;
  }
  return j;
}

void SceneBuilder::checkLinks() {
  for (const Link& l : links_) {
    if (l.intermediate) continue;
    const MassProperties& m = l.mass;
    const Eigen::SelfAdjointEigenSolver<Matrix3d> es(0.5 * (m.inertia + m.inertia.transpose()));
    const Vector3d p = es.eigenvalues();  // ascending
    const double scale = std::max(p.cwiseAbs().maxCoeff(), 1e-300);
    if (m.mass < 0.0) warn(l.original, "negative mass " + num(m.mass));
    if (m.mass == 0.0 && m.inertia.isZero(0.0)) continue;  // massless: joinery's diagnosis decides
    if (p(0) < -1e-12 * scale) {
      warn(l.original, "inertia is not positive semi-definite (principal moments " + num(p(0)) + ", " + num(p(1)) +
                           ", " + num(p(2)) + "); the scene will not load until it is mended");
    } else if (p(0) <= 0.0 && m.mass > 0.0) {
      warn(l.original, "inertia is not positive (principal moments " + num(p(0)) + ", " + num(p(1)) + ", " +
                           num(p(2)) + "): the link turns freely about an axis");
    }
    if (p(0) + p(1) < p(2) * (1.0 - 1e-9) && p(0) >= -1e-12 * scale) {
      warn(l.original, "inertia breaks the triangle inequality (" + num(p(0)) + " + " + num(p(1)) + " < " + num(p(2)) +
                           "): no distribution of mass has it; often an inertia about the link origin or in the "
                           "wrong frame");
    }
    if (l.hasExtent && m.mass > 0.0) {
      const Vector3d margin = Vector3d::Constant(0.1 * (l.hi - l.lo).norm() + 1e-9);
      const Vector3d lo = l.lo - margin, hi = l.hi + margin;
      if ((m.com.array() < lo.array()).any() || (m.com.array() > hi.array()).any()) {
        const Vector3d c = m.com.cwiseMax(l.lo).cwiseMin(l.hi);
        warn(l.original, "centre of mass [" + num(m.com.x()) + ", " + num(m.com.y()) + ", " + num(m.com.z()) +
                             "] lies " + num((m.com - c).norm()) +
                             " m outside the bounding box of the link's geometry (link frame)");
      }
    }
  }
}

void SceneBuilder::checkConnectivity() {
  const int n = numLinks();
  std::vector<int> parent(static_cast<std::size_t>(n + 1));
  std::iota(parent.begin(), parent.end(), 0);  // index n: the ground
  std::function<int(int)> find = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x) x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  auto idx = [n](int i) { return i == kGround ? n : i; };
  for (const auto& [a, b] : edges_) parent[static_cast<std::size_t>(find(idx(a)))] = find(idx(b));
  std::map<int, std::vector<int>> groups;
  for (int i = 0; i < n; ++i)
    if (find(i) != find(n)) groups[find(i)].push_back(i);
  for (const auto& [root, members] : groups) {
    const bool free = std::any_of(members.begin(), members.end(), [&](int i) { return link(i).declaredFree; });
    if (free) continue;
    std::vector<std::string> names;
    for (int i : members) names.push_back(link(i).original);
    warn(link(members.front()).original,
         "not connected to the ground and not declared free: " + joinNames(names) + " float unattached");
  }
}

nlohmann::json SceneBuilder::finish(const std::string& name, const Vector3d& gravity, const nlohmann::json& extra) {
  checkLinks();
  checkConnectivity();
  nlohmann::json bodies = nlohmann::json::array();
  for (const Link& l : links_) {
    const Vector3d com = l.frame.apply(l.mass.com);
    nlohmann::json b = {{"name", l.name}, {"type", "rigid3d"}, {"mass", l.mass.mass}};
    const Matrix3d I = 0.5 * (l.mass.inertia + l.mass.inertia.transpose());
    if (I.isDiagonal(0.0))
      b["inertia"] = vecJson(I.diagonal());
    else
      b["inertia"] = matJson(I);
    b["position"] = vecJson(com);
    b["orientation"] = quaternionJson(l.frame.R);
    nlohmann::json visual = nlohmann::json::array();
    for (const Shape& s : l.shapes) {
      nlohmann::json v = {{"type", s.type}};
      const Vector3d c = s.a - l.mass.com;
      if (s.type == "sphere") {
        v["radius"] = s.radius, v["position"] = vecJson(c);
      } else if (s.type == "capsule") {
        v["point1"] = vecJson(s.a - l.mass.com), v["point2"] = vecJson(s.b - l.mass.com), v["radius"] = s.radius;
      } else if (s.type == "cylinder") {
        const Vector3d axis = s.b - s.a;
        v["radius"] = s.radius, v["length"] = axis.norm(), v["axis"] = vecJson(axis.normalized());
        v["position"] = vecJson(0.5 * (s.a + s.b) - l.mass.com);
      } else {  // box: the bounding box of the rotated box in the link's axes
        const Vector3d half = s.R.cwiseAbs() * s.half;
        v["size"] = vecJson(2.0 * half), v["position"] = vecJson(c);
      }
      if (!s.color.is_null()) v["color"] = s.color;
      visual.push_back(std::move(v));
    }
    if (!visual.empty()) b["visual"] = std::move(visual);
    bodies.push_back(std::move(b));
  }
  nlohmann::json joints = nlohmann::json::array(), forces = nlohmann::json::array(),
                 outputs = nlohmann::json::array();
  for (const Pending& p : joints_) joints.push_back(resolve(p));
  for (const Pending& p : forces_) forces.push_back(resolve(p));
  for (const Pending& p : outputs_) outputs.push_back(resolve(p));
  nlohmann::json scene = {{"joinery", 1}, {"name", name}, {"gravity", vecJson(gravity)}, {"bodies", bodies},
                          {"joints", joints}};
  if (!forces.empty()) scene["forces"] = forces;
  if (!outputs.empty()) scene["outputs"] = outputs;
  if (extra.is_object())
    for (const auto& [k, v] : extra.items()) scene[k] = v;
  if (!component_.empty()) {  // a library of one part, its first body's origin the port `base`
    nlohmann::json part = {{"bodies", scene["bodies"]}, {"joints", scene["joints"]}};
    for (const char* key : {"forces", "outputs"})
      if (scene.contains(key)) part[key] = scene[key];
    if (!links_.empty())
      part["ports"] = {{"base", {{"body", links_.front().name}, {"point", pointJson({"", 0, Vector3d::Zero()})}}}};
    return {{"joinery", 1}, {"components", {{component_, part}}}};
  }
  return scene;
}

Matrix3d axisAngle(const Vector3d& axis, double angle) { return Eigen::AngleAxisd(angle, axis).toRotationMatrix(); }

Matrix3d rotationFromZ(const Vector3d& z) {
  const Vector3d u = z.normalized();
  const Vector3d e3 = Vector3d::UnitZ();
  const double c = e3.dot(u);
  if (c < -1.0 + 1e-14) return axisAngle(Vector3d::UnitX(), M_PI);  // MuJoCo: a half turn about x
  return Eigen::Quaterniond::FromTwoVectors(e3, u).toRotationMatrix();
}

nlohmann::json quaternionJson(const Matrix3d& R) {
  Eigen::Quaterniond q(R);
  q.normalize();
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  return {q.w(), q.x(), q.y(), q.z()};
}

nlohmann::json vecJson(const Vector3d& v) { return {v.x(), v.y(), v.z()}; }

nlohmann::json matJson(const Matrix3d& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < 3; ++i) rows.push_back({m(i, 0), m(i, 1), m(i, 2)});
  return rows;
}

}  // namespace joinery::import_detail


namespace joinery {

bool isImportableModel(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos) return false;
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == "xml" || ext == "mjcf" || ext == "urdf";
}

std::string importNotesText(const ImportResult& r, const std::string& prefix) {
  std::string out;
  // names and messages come from the model file: made safe for a terminal, a line each
  for (const ImportNote& n : r.notConverted)
    out += prefix + "not converted: " + sanitizeForTerminal(n.where + ": " + n.message) + "\n";
  for (const ImportNote& n : r.warnings) out += prefix + "warning: " + sanitizeForTerminal(n.where + ": " + n.message) + "\n";
  return out;
}

}  // namespace joinery
