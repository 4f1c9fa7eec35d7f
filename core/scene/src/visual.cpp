#include "joinery/core/visual.hpp"

#include <cctype>
#include <cmath>
#include <string>
#include <vector>

namespace joinery {

namespace {

nlohmann::json point(const JsonCursor& c, const FactoryContext& ctx, const std::string& what) {
  if (!c.value().is_array() || (c.size() != 2 && c.size() != 3))
    c.fail("an array of 2 or 3 numbers (" + what + " in the body frame)");
  const Vector3d v = ctx.vector3(c, true);
  return nlohmann::json::array({v.x(), v.y(), v.z()});
}

double positive(const JsonCursor& c, const FactoryContext& ctx, const std::string& what) {
  const double v = ctx.number(c);
  if (!(v > 0) || !std::isfinite(v)) {
    if (c.value().is_number()) c.fail(what + " > 0");
    c.failWith(c.value().dump() + " evaluates to " + std::to_string(v) + "; expected " + what + " > 0");
  }
  return v;
}

nlohmann::json color(const JsonCursor& c) {
  const auto& v = c.value();
  const std::string expectation = "a colour \"#rrggbb\" or [r, g, b] with entries in [0, 1]";
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    bool ok = s.size() == 7 && s[0] == '#';
    for (std::size_t i = 1; ok && i < s.size(); ++i) ok = std::isxdigit(static_cast<unsigned char>(s[i])) != 0;
    if (!ok) c.fail(expectation);
    return v;
  }
  if (!v.is_array() || v.size() != 3) c.fail(expectation);
  for (std::size_t i = 0; i < 3; ++i) {
    const double x = c.at(i).number();
    if (!(x >= 0 && x <= 1)) c.at(i).fail("a colour component in [0, 1]");
  }
  return v;
}

nlohmann::json readShape(const JsonCursor& s, const FactoryContext& ctx) {
  s.requireObject();
  static const std::vector<std::string> kTypes{"box", "sphere", "cylinder", "capsule"};
  if (!s.has("type")) s.failWith("missing field 'type'; expected one of: box, sphere, cylinder, capsule");
  const JsonCursor tc = s.at("type");
  const std::string type = tc.string();
  nlohmann::json out = {{"type", type}};
  if (type == "box") {
    s.rejectUnknownKeys({"type", "size", "position", "color"});
    const JsonCursor size = s.at("size");
    if (!size.value().is_array() || size.size() != 3) size.fail("an array of 3 numbers (the box's edge lengths)");
    out["size"] = nlohmann::json::array();
    for (std::size_t i = 0; i < 3; ++i) out["size"].push_back(positive(size.at(i), ctx, "an edge length"));
  } else if (type == "sphere") {
    s.rejectUnknownKeys({"type", "radius", "position", "color"});
    out["radius"] = positive(s.at("radius"), ctx, "a radius");
  } else if (type == "cylinder") {
    s.rejectUnknownKeys({"type", "radius", "length", "axis", "position", "color"});
    out["radius"] = positive(s.at("radius"), ctx, "a radius");
    out["length"] = positive(s.at("length"), ctx, "a length");
    out["axis"] = {0.0, 0.0, 1.0};
    if (s.has("axis")) {
      out["axis"] = point(s.at("axis"), ctx, "the axis direction");
      const double n = std::hypot(out["axis"][0].get<double>(), out["axis"][1].get<double>(), out["axis"][2].get<double>());
      if (!(n > 0)) s.at("axis").fail("a non-zero axis direction");
    }
  } else if (type == "capsule") {
    s.rejectUnknownKeys({"type", "point1", "point2", "radius", "position", "color"});
    out["point1"] = point(s.at("point1"), ctx, "an end point");
    out["point2"] = point(s.at("point2"), ctx, "an end point");
    out["radius"] = positive(s.at("radius"), ctx, "a radius");
  } else {
    tc.failWith("unknown shape type '" + type + "'" + didYouMean(type, kTypes) +
                "; expected one of: box, sphere, cylinder, capsule");
  }
  out["position"] = s.has("position") ? point(s.at("position"), ctx, "a position") : nlohmann::json::array({0.0, 0.0, 0.0});
  if (s.has("color")) out["color"] = color(s.at("color"));
  return out;
}

}  // namespace

nlohmann::json readVisual(const JsonCursor& c, const FactoryContext& ctx) {
  if (!c.value().is_array()) c.fail("an array of shapes (box, sphere, cylinder, capsule)");
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < c.size(); ++i) out.push_back(readShape(c.at(i), ctx));
  return out;
}

}  // namespace joinery
