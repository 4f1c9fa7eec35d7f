#pragma once
// The planar contact chain of docs/performance.md ("Contacts"): N uniform rods (rigid2d, length
// L, mass m, inertia m L^2 / 12) joined end to end by revolute2d joints, above a floor y = 0,
// gravity (0, -9.81). Two cases:
//   swing:  the first rod pinned to the world at (0, height), the chain straight along +x at
//           rest; a circle of radius `radius` at the distal end of every rod (N contacts)
//           swings down onto the floor;
//   lying:  a free chain lying flat, its circles (one at each joint and at both ends: N + 1
//           contacts) `height` above the floor, released at rest: every contact closes at the
//           same instant, then the chain lies on the floor with all of them active.
// contacts = false: the same chain without the contact joints (the reference of the cost of
// an event). Shared by bench/contact_chain.cpp and tests/contact.
#include <string>

#include <nlohmann/json.hpp>

namespace joinery::bench {

struct ContactChainOptions {
  int N = 100;
  bool lying = false;
  bool contacts = true;
  double length = 0.1, mass = 0.1, radius = 0.005;
  double restitution = 0.3;
  /// swing: height of the pivot (<= 0: N L / 2); lying: gap of the circles above the floor
  double height = -1;
};

inline nlohmann::json contactChainScene(const ContactChainOptions& o) {
  const double L = o.length;
  const double pivot = o.height > 0 ? o.height : 0.5 * o.N * L;
  const double y = o.lying ? o.radius + o.height : pivot;
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array();
  auto contact = [&](const std::string& name, const std::string& body, double x) {
    joints.push_back({{"name", name},
                      {"type", "contact"},
                      {"body1", "ground"},
                      {"shape1", {{"plane", {{"point", {0.0, 0.0}}, {"normal", {0.0, 1.0}}}}}},
                      {"body2", body},
                      {"shape2", {{"sphere", {{"center", {x, 0.0}}, {"radius", o.radius}}}}},
                      {"restitution", o.restitution}});
  };
  for (int i = 0; i < o.N; ++i) {
    const std::string link = "link" + std::to_string(i);
    bodies.push_back({{"name", link},
                      {"type", "rigid2d"},
                      {"mass", o.mass},
                      {"inertia", o.mass * L * L / 12},
                      {"position", {(i + 0.5) * L, y}},
                      {"angle", 0.0}});
    if (i > 0 || !o.lying)
      joints.push_back({{"name", "hinge" + std::to_string(i)},
                        {"type", "revolute2d"},
                        {"body1", i == 0 ? std::string("ground") : "link" + std::to_string(i - 1)},
                        {"point1", i == 0 ? nlohmann::json::array({0.0, pivot}) : nlohmann::json::array({0.5 * L, 0.0})},
                        {"body2", link},
                        {"point2", {-0.5 * L, 0.0}}});
    if (!o.contacts) continue;
    if (o.lying) contact("floor" + std::to_string(i), link, -0.5 * L);
    if (!o.lying || i == o.N - 1) contact(o.lying ? "floor_end" : "floor" + std::to_string(i), link, 0.5 * L);
  }
  return {{"joinery", 1},
          {"name", std::string(o.lying ? "lying" : "swinging") + " chain of " + std::to_string(o.N) + " rods" +
                       (o.contacts ? " on a floor" : "")},
          {"gravity", {0.0, -9.81, 0.0}},
          {"bodies", bodies},
          {"joints", joints}};
}

}  // namespace joinery::bench
