// Reading the scene's `outputs` entries (private to the scene loader).
#include <string>
#include <vector>

#include "scene_support.hpp"

namespace joinery::detail {

OutputSpec readOutputSpec(const JsonCursor& e, const OutputNaming& naming, const SymbolTable& parameters) {
  e.requireObject();
  const std::vector<std::string> kKinds = channelKindNames();  // the built-in kinds and the registered ones
  std::vector<std::string> allowed{"name", "description", "frame"};
  allowed.insert(allowed.end(), kKinds.begin(), kKinds.end());
  e.rejectUnknownKeys(allowed);
  OutputSpec s;
  const JsonCursor nc = e.at("name");
  const std::string name = nc.string();
  bool valid = isValidName(name);
  if (!valid && naming.prefix.empty()) {  // the scene itself (a flattened scene writes "l1.tip")
    valid = !name.empty() && name.front() != '.' && name.back() != '.';
    for (std::size_t start = 0, dot = 0; valid && dot != std::string::npos; start = dot + 1) {
      dot = name.find('.', start);
      valid = isValidName(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    }
  }
  if (!valid) nc.fail("a channel name made of letters, digits and '_' only");
  if (e.has("description")) (void)e.at("description").string();
  s.name = naming.prefix + name;
  s.file = e.file();
  s.path = e.path();
  s.parameters = parameters;

  std::vector<std::string> given;
  for (const auto& k : kKinds)
    if (e.has(k)) given.push_back(k);
  if (given.size() != 1)
    e.failWith("channel '" + name + "' has " + (given.empty() ? "none" : joinNames(given)) +
               "; expected exactly one of: " + joinNames(kKinds));
  const std::string kind = given[0];
  const JsonCursor c = e.at(kind);
  if (kind == "value") {
    s.kind = OutputKind::Value;
    if (c.value().is_number()) {
      s.expression = formatNumber(c.number());
    } else {
      if (!c.value().is_string()) c.fail("an expression (a string or a number)");
      s.expression = naming.expression(c.value().get<std::string>(), c);
    }
  } else if (kind == "point") {
    s.kind = OutputKind::Point;
    c.requireObject();
    c.rejectUnknownKeys({"body", "point", "port", "acceleration"});
    if (c.has("port")) {
      if (c.has("body") || c.has("point"))
        c.at("port").failWith("'port' stands for 'body' and 'point'; expected either the port or the body and point");
      const JsonCursor pc = c.at("port");
      const auto [body, point] = naming.port(pc.string(), pc);
      s.target = body;
      for (std::size_t i = 0; i < point.size() && i < 3; ++i)
        s.point(static_cast<Eigen::Index>(i)) = point[i].get<double>();
    } else {
      const JsonCursor bc = c.at("body");
      s.target = naming.body(bc.string(), bc);
    }
    if (c.has("point")) {
      const JsonCursor pc = c.at("point");
      if (!pc.value().is_array() || (pc.size() != 2 && pc.size() != 3))
        pc.fail("an array of 2 or 3 numbers (the point in the body's frame)");
      for (std::size_t i = 0; i < pc.size(); ++i) s.point(static_cast<Eigen::Index>(i)) = evaluateNumber(pc.at(i), parameters);
    }
    if (c.has("acceleration")) {
      const JsonCursor ac = c.at("acceleration");
      if (!ac.value().is_boolean()) ac.fail("true or false (also write N.ax N.ay N.az)");
      s.acceleration = ac.value().get<bool>();
    }
  } else if (kind == "reaction" || kind == "effort" || kind == "gap") {
    s.kind = kind == "reaction" ? OutputKind::Reaction : kind == "gap" ? OutputKind::Gap : OutputKind::Effort;
    const std::string joint = c.string();
    s.target = naming.prefix + joint;
  } else if (kind == "energy") {
    s.kind = OutputKind::Energy;
    s.target = c.string();
  } else {  // a registered kind: its key's value names a body, a joint or a word
    const ChannelKindInfo& info = *findChannelKind(kind);
    s.kind = OutputKind::Registered;
    s.registeredKind = kind;
    if (info.target == ChannelTarget::Body) s.target = naming.body(c.string(), c);
    else if (info.target == ChannelTarget::Joint) s.target = naming.prefix + c.string();
    else s.target = c.string();
  }
  if (e.has("frame")) {  // reaction components in world axes (default) or the joint's own frame
    const JsonCursor fc = e.at("frame");
    if (s.kind != OutputKind::Reaction)
      fc.failWith("'frame' applies to a reaction channel only; expected no 'frame' on a " + kind + " channel");
    const std::string f = fc.string();
    if (f != "world" && f != "joint") fc.fail("\"world\" or \"joint\" (the axes of the reaction's components)");
    s.jointFrame = f == "joint";
  }
  return s;
}

nlohmann::json outputSpecJson(const OutputSpec& s) {
  nlohmann::json j = {{"name", s.name}};
  switch (s.kind) {
    case OutputKind::Value: {
      const std::string text = rewriteNames(s.expression, [&](const std::string& n) {
        if (n.find('.') == std::string::npos && s.parameters.hasConstant(n))
          return "(" + formatNumber(s.parameters.constant(n)) + ")";
        return n;
      });
      j["value"] = text;
      break;
    }
    case OutputKind::Point:
      j["point"] = {{"body", s.target}, {"point", {s.point.x(), s.point.y(), s.point.z()}}};
      if (s.acceleration) j["point"]["acceleration"] = true;
      break;
    case OutputKind::Reaction:
      j["reaction"] = s.target;
      if (s.jointFrame) j["frame"] = "joint";
      break;
    case OutputKind::Effort: j["effort"] = s.target; break;
    case OutputKind::Energy: j["energy"] = s.target; break;
    case OutputKind::Gap: j["gap"] = s.target; break;
    case OutputKind::Registered: j[s.registeredKind] = s.target; break;
  }
  return j;
}

}  // namespace joinery::detail
