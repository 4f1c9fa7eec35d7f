// A scene's (or a component library's) "units": {"length": "mm", "mass": "g", "angle": "deg"}
// (docs/scene-format.md, "Units"): the file's numbers are converted to SI (m, kg, rad; time
// stays in seconds) when it is read, field by field, before anything else sees them. A number
// is multiplied by its field's factor; an expression string s becomes "(s)*factor". Only the
// fields whose dimension is known here are converted, and a field that is not known (a body,
// joint or force type without a table below, an expression over coordinates) is refused with
// its JSON path: a number left in millimetres would be a silently wrong answer.
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <set>

#include "scene_loader.hpp"

namespace joinery::scene_detail {

namespace {

/// Exponents of length, mass and angle (time is not converted).
struct Dim {
  int length = 0, mass = 0, angle = 0;
  bool none() const { return length == 0 && mass == 0 && angle == 0; }
};
constexpr Dim kNone{}, kLength{1, 0, 0}, kMass{0, 1, 0}, kAngle{0, 0, 1}, kInertia{2, 1, 0};
constexpr Dim kForce{1, 1, 0};               // N = kg m / s^2
constexpr Dim kLinearStiffness{0, 1, 0};     // N/m = kg / s^2 (and N s/m)
constexpr Dim kAngularStiffness{2, 1, -1};   // N m / rad (and N m s / rad)

struct UnitDef {
  const char* name;
  double factor;  // to SI
};
const std::vector<UnitDef> kLengthUnits{{"m", 1.0}, {"cm", 1e-2}, {"mm", 1e-3}, {"um", 1e-6}, {"km", 1e3},
                                        {"in", 0.0254}, {"ft", 0.3048}};
const std::vector<UnitDef> kMassUnits{{"kg", 1.0}, {"g", 1e-3}, {"mg", 1e-6}, {"t", 1e3}, {"lb", 0.45359237}};
const std::vector<UnitDef> kAngleUnits{{"rad", 1.0}, {"deg", 3.14159265358979323846 / 180}};

std::string unitNames(const std::vector<UnitDef>& units) {
  std::string out;
  for (std::size_t i = 0; i < units.size(); ++i) out += (i ? ", " : "") + std::string("\"") + units[i].name + "\"";
  return out;
}

std::string exactText(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

class Converter {
 public:
  explicit Converter(const SceneUnits& u) : u_(u) {}

  double factor(Dim d) const {
    return std::pow(u_.length, d.length) * std::pow(u_.mass, d.mass) * std::pow(u_.angle, d.angle);
  }

  /// A number or an expression string (or an array of them, or of arrays), scaled by `d`.
  void scale(const JsonCursor& in, nlohmann::json& out, Dim d) const {
    if (d.none()) return;
    const double f = factor(d);
    if (f == 1.0) return;
    const nlohmann::json& v = in.value();
    if (v.is_number()) {
      out = v.get<double>() * f;
    } else if (v.is_string()) {
      const std::string s = v.get<std::string>();
      static const std::regex kQualified("[A-Za-z_][A-Za-z_0-9]*\\.[A-Za-z_]");
      if (std::regex_search(s, kQualified))
        in.failWith("the expression \"" + s.substr(0, 60) + "\" names a coordinate or an instance's parameter; " +
                    "with \"units\" a scene's numbers are converted to SI field by field, and an expression over "
                    "coordinates (which are in SI) cannot be; expected a number or an expression of parameters and t "
                    "(or a scene without \"units\", in SI)");
      out = "(" + s + ")*" + exactText(f);
    } else if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) scale(in.at(i), out[i], d);
    }  // anything else: the factory says what it expected
  }

  void refuse(const JsonCursor& field, const std::string& owner) const {
    field.failWith("the scene's \"units\" (" + u_.describe() + ") has no conversion for this field of " + owner +
                   "; expected a scene in SI units (without \"units\") for it, or only the fields and types listed in "
                   "docs/scene-format.md (\"Units\")");
  }

  // ---- elements -----------------------------------------------------------------------------

  void body(const JsonCursor& in, nlohmann::json& out) const {
    if (!in.value().is_object() || !in.has("type") || !in.at("type").value().is_string()) return;  // the loader says
    const std::string type = in.at("type").value().get<std::string>();
    static const std::set<std::string> kTypes{"particle", "rigid2d", "rigid3d"};
    static const std::map<std::string, Dim> kFields{{"mass", kMass},         {"inertia", kInertia},
                                                    {"position", kLength},   {"velocity", kLength},
                                                    {"angle", kAngle},       {"angular_velocity", kAngle},
                                                    {"dim", kNone},          {"name", kNone},
                                                    {"type", kNone}};
    if (!kTypes.count(type))
      refuse(in.at("type"), "a " + type + " body (\"units\" converts particle, rigid2d and rigid3d bodies)");
    for (auto it = in.value().begin(); it != in.value().end(); ++it) {
      const JsonCursor f = in.at(it.key());
      if (it.key() == "orientation") {
        orientation(f, out[it.key()]);
      } else if (it.key() == "visual") {
        visual(f, out[it.key()]);
      } else if (const auto d = kFields.find(it.key()); d != kFields.end()) {
        scale(f, out[it.key()], d->second);
      } else {
        refuse(f, "a " + type + " body");
      }
    }
  }

  /// A quaternion is dimensionless; {"axis", "angle"} and {"euler": {...}} take the scene's
  /// angle unit unless they give their own "unit".
  void orientation(const JsonCursor& in, nlohmann::json& out) const {
    if (!in.value().is_object()) return;
    if (in.has("angle") && !in.has("unit")) scale(in.at("angle"), out["angle"], kAngle);
    if (in.has("euler") && in.at("euler").value().is_object()) {
      const JsonCursor e = in.at("euler");
      if (e.has("angles") && !e.has("unit")) scale(e.at("angles"), out["euler"]["angles"], kAngle);
    }
  }

  void visual(const JsonCursor& in, nlohmann::json& out) const {
    if (!in.value().is_array()) return;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const JsonCursor s = in.at(i);
      if (!s.value().is_object()) continue;
      for (const char* key : {"size", "radius", "length", "position", "point1", "point2"})
        if (s.has(key)) scale(s.at(key), out[i][key], kLength);
    }
  }

  void shape(const JsonCursor& in, nlohmann::json& out) const {
    if (!in.value().is_object()) return;
    if (in.has("plane") && in.at("plane").value().is_object() && in.at("plane").has("point"))
      scale(in.at("plane").at("point"), out["plane"]["point"], kLength);
    if (in.has("sphere") && in.at("sphere").value().is_object()) {
      const JsonCursor s = in.at("sphere");
      for (const char* key : {"center", "radius"})
        if (s.has(key)) scale(s.at(key), out["sphere"][key], kLength);
    }
    for (const char* key : {"point", "points"})
      if (in.has(key)) scale(in.at(key), out[key], kLength);
  }

  /// The dimension of a coordinate named "body.coord": x, y, z lengths, theta an angle.
  static std::optional<Dim> coordinateDim(const std::string& qualified) {
    const auto dot = qualified.rfind('.');
    const std::string c = dot == std::string::npos ? qualified : qualified.substr(dot + 1);
    if (c == "x" || c == "y" || c == "z") return kLength;
    if (c == "theta") return kAngle;
    return std::nullopt;
  }

  void joint(const JsonCursor& in, nlohmann::json& out) const {
    if (!in.value().is_object() || !in.has("type") || !in.at("type").value().is_string()) return;
    const std::string type = in.at("type").value().get<std::string>();
    const std::string owner = "a " + type + " joint";
    static const std::set<std::string> kTwoPoint{"revolute2d", "prismatic2d", "weld2d", "distance", "rope",
                                                 "spherical", "revolute3d", "universal", "cylindrical",
                                                 "prismatic3d", "weld3d", "planar3d", "point_on_line",
                                                 "point_on_plane", "screw", "revolute_driver",
                                                 "prismatic_driver", "rolling_disk", "contact", "gear",
                                                 "rack_pinion", "driver"};
    if (!kTwoPoint.count(type)) refuse(in.at("type"), owner + " (its fields have no unit table)");
    const bool turns = type == "revolute2d" || type == "revolute3d" || type == "revolute_driver";
    const bool travels = type == "prismatic2d" || type == "prismatic3d" || type == "prismatic_driver";
    for (auto it = in.value().begin(); it != in.value().end(); ++it) {
      const std::string& key = it.key();
      const JsonCursor f = in.at(key);
      static const std::set<std::string> kNames{"name", "type", "body", "body1", "body2", "port", "port1", "port2",
                                                "axis", "axis1", "axis2", "normal", "reference1", "reference2",
                                                "direction", "y_axis", "restitution", "friction", "ratio",
                                                "coordinate", "coordinate1", "coordinate2", "pinion", "rack",
                                                "joint1", "joint2", "pinion_joint", "rack_joint", "model"};
      static const std::set<std::string> kLengths{"point", "point1", "point2", "length", "radius", "pitch"};
      if (kNames.count(key)) continue;
      if (kLengths.count(key)) {
        scale(f, out[key], kLength);
      } else if (key == "angle" && type == "weld2d") {
        scale(f, out[key], kAngle);
      } else if (key == "shape1" || key == "shape2") {
        shape(f, out[key]);
      } else if (key == "limit" && (turns || travels) && f.value().is_object()) {
        for (const char* bound : {"min", "max"})
          if (f.has(bound)) scale(f.at(bound), out[key][bound], turns ? kAngle : kLength);
      } else if (key == "value" && (turns || travels)) {
        scale(f, out[key], turns ? kAngle : kLength);
      } else if (key == "value" && type == "driver" && in.has("coordinate") && in.at("coordinate").value().is_string()) {
        const auto d = coordinateDim(in.at("coordinate").value().get<std::string>());
        if (!d) refuse(f, owner + " on a coordinate that is not x, y, z or theta");
        scale(f, out[key], *d);
      } else if (key == "offset" && (type == "gear" || type == "rack_pinion")) {
        // the row is side2 - factor side1 - offset: offset has side 2's dimension
        Dim d = kLength;
        if (type == "gear") {
          if (in.has("joint2")) {
            d = kAngle;
          } else if (in.has("coordinate2") && in.at("coordinate2").value().is_string()) {
            const auto cd = coordinateDim(in.at("coordinate2").value().get<std::string>());
            if (!cd) refuse(f, owner);
            d = *cd;
          }
        }
        scale(f, out[key], d);
      } else {
        refuse(f, owner);
      }
    }
  }

  void force(const JsonCursor& in, nlohmann::json& out, const std::map<std::string, std::string>& jointTypes) const {
    if (!in.value().is_object() || !in.has("type") || !in.at("type").value().is_string()) return;
    const std::string type = in.at("type").value().get<std::string>();
    const std::string owner = "a " + type + " force";
    static const std::set<std::string> kTypes{"spring", "torsion2d", "force", "joint_spring"};
    if (!kTypes.count(type)) refuse(in.at("type"), owner + " (\"units\" converts spring, torsion2d, force and joint_spring)");
    Dim stiffness = kLinearStiffness;
    if (type == "torsion2d") stiffness = kAngularStiffness;
    if (type == "joint_spring") {
      // on a turn (N m/rad) or a travel (N/m): from "quantity", else from the joint's type
      std::string quantity;
      if (in.has("quantity") && in.at("quantity").value().is_string()) quantity = in.at("quantity").value().get<std::string>();
      if (quantity.empty() && in.has("joint") && in.at("joint").value().is_string()) {
        const auto found = jointTypes.find(in.at("joint").value().get<std::string>());
        if (found != jointTypes.end()) {
          static const std::set<std::string> kTurn{"revolute3d", "revolute_driver"},
              kTravel{"prismatic3d", "point_on_line", "prismatic_driver"};
          if (kTurn.count(found->second)) quantity = "turn";
          if (kTravel.count(found->second)) quantity = "travel";
        }
      }
      if (quantity != "turn" && quantity != "travel")
        refuse(in.has("joint") ? in.at("joint") : in, owner + " whose joint is not a revolute3d, prismatic3d, "
                                                           "point_on_line or driver of this file (give \"quantity\")");
      stiffness = quantity == "turn" ? kAngularStiffness : kLinearStiffness;
    }
    for (auto it = in.value().begin(); it != in.value().end(); ++it) {
      const std::string& key = it.key();
      const JsonCursor f = in.at(key);
      static const std::set<std::string> kNames{"name", "type", "body", "body1", "body2", "port", "port1",
                                                "port2", "joint", "quantity"};
      if (kNames.count(key)) continue;
      if (key == "point" || key == "point1" || key == "point2" || key == "free_length") {
        scale(f, out[key], kLength);
      } else if (key == "free_angle") {
        scale(f, out[key], kAngle);
      } else if (key == "stiffness" || key == "damping") {
        scale(f, out[key], stiffness);
      } else if (key == "rest" && type == "joint_spring") {
        scale(f, out[key], stiffness.angle != 0 ? kAngle : kLength);
      } else if (key == "value" && type == "force") {
        scale(f, out[key], kForce);
      } else {
        refuse(f, owner);
      }
    }
  }

  /// bodies, joints, forces, instances, ports and outputs of a scene or a component.
  void group(const JsonCursor& in, nlohmann::json& out) const {
    std::map<std::string, std::string> jointTypes;
    if (in.has("joints") && in.at("joints").value().is_array())
      for (const auto& j : in.at("joints").value())
        if (j.is_object() && j.contains("name") && j["name"].is_string() && j.contains("type") && j["type"].is_string())
          jointTypes[j["name"].get<std::string>()] = j["type"].get<std::string>();
    auto each = [&](const char* key, auto fn) {
      if (!in.has(key) || !in.at(key).value().is_array()) return;
      const JsonCursor list = in.at(key);
      for (std::size_t i = 0; i < list.size(); ++i) fn(list.at(i), out[key][i]);
    };
    each("bodies", [&](const JsonCursor& c, nlohmann::json& o) { body(c, o); });
    each("joints", [&](const JsonCursor& c, nlohmann::json& o) { joint(c, o); });
    each("forces", [&](const JsonCursor& c, nlohmann::json& o) { force(c, o, jointTypes); });
    each("instances", [&](const JsonCursor& c, nlohmann::json& o) {
      if (!c.value().is_object() || !c.has("placement") || !c.at("placement").value().is_object()) return;
      const JsonCursor p = c.at("placement");
      if (p.has("position")) scale(p.at("position"), o["placement"]["position"], kLength);
      if (p.has("angle")) scale(p.at("angle"), o["placement"]["angle"], kAngle);
      if (p.has("orientation")) orientation(p.at("orientation"), o["placement"]["orientation"]);
    });
    each("outputs", [&](const JsonCursor& c, nlohmann::json& o) {
      // a point channel's point (body frame); the other channels name joints and bodies
      if (c.value().is_object() && c.has("point") && c.at("point").value().is_object() && c.at("point").has("point"))
        scale(c.at("point").at("point"), o["point"]["point"], kLength);
    });
    if (in.has("ports") && in.at("ports").value().is_object()) {
      const JsonCursor ports = in.at("ports");
      for (auto it = ports.value().begin(); it != ports.value().end(); ++it) {
        const JsonCursor p = ports.at(it.key());
        if (p.value().is_object() && p.has("point")) scale(p.at("point"), out["ports"][it.key()]["point"], kLength);
      }
    }
  }

 private:
  const SceneUnits& u_;
};

double readUnit(const JsonCursor& units, const char* key, const std::vector<UnitDef>& table, std::string& name) {
  if (!units.has(key)) return 1.0;
  const JsonCursor f = units.at(key);
  if (f.value().is_string())
    for (const UnitDef& d : table)
      if (f.value().get<std::string>() == d.name) {
        name = d.name;
        return d.factor;
      }
  f.fail(std::string("a ") + key + " unit: one of " + unitNames(table));
}

}  // namespace

SceneUnits readSceneUnits(const JsonCursor& c) {
  c.requireObject();
  c.rejectUnknownKeys({"length", "mass", "angle", "time"});
  SceneUnits u;
  u.length = readUnit(c, "length", kLengthUnits, u.lengthName);
  u.mass = readUnit(c, "mass", kMassUnits, u.massName);
  u.angle = readUnit(c, "angle", kAngleUnits, u.angleName);
  if (c.has("time") && !(c.at("time").value().is_string() && c.at("time").value().get<std::string>() == "s"))
    c.at("time").fail("\"s\" (times, rates and tolerances stay in seconds)");
  return u;
}

nlohmann::json convertToSi(const JsonCursor& doc, const SceneUnits& units) {
  nlohmann::json out = doc.value();
  out.erase("units");
  if (units.isSi()) return out;
  const Converter conv(units);
  if (doc.has("gravity")) conv.scale(doc.at("gravity"), out["gravity"], kLength);
  conv.group(doc, out);
  if (doc.has("components") && doc.at("components").value().is_object()) {
    const JsonCursor comps = doc.at("components");
    for (auto it = comps.value().begin(); it != comps.value().end(); ++it)
      if (it.value().is_object()) conv.group(comps.at(it.key()), out["components"][it.key()]);
  }
  return out;
}

}  // namespace joinery::scene_detail

std::string joinery::UnitSystem::describe() const {
  return "length " + lengthName + ", mass " + massName + ", angle " + angleName;
}
