// The body field `visual` (shapes drawn by `joinery view`): read, checked, numbers evaluated
// and kept in the resolved scene; no effect on the model; bad shapes are InputErrors naming
// the JSON path of the shape or field.
#include <catch2/catch.hpp>
#include <string>

#include "joinery/core/scene.hpp"
#include "scene_test_support.hpp"

using joinery::InputError;
using joinery::test::resolvedElement;
using joinery::test::sceneData;

namespace {
nlohmann::json pendulum(const nlohmann::json& visual) {
  nlohmann::json body = {{"name", "bar"}, {"type", "rigid2d"}, {"mass", 1}, {"inertia", 0.1},
                         {"position", {0.5, 0}}};
  if (!visual.is_null()) body["visual"] = visual;
  return {{"joinery", 1},
          {"parameters", {{"r", 0.05}}},
          {"bodies", {body}},
          {"joints", {{{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                       {"body2", "bar"}, {"point2", {-0.5, 0}}}}}};
}

std::string errorPath(const nlohmann::json& visual, std::string& message) {
  try {
    (void)joinery::sceneFromJson(pendulum(visual), sceneData("inline.json"));
  } catch (const InputError& e) {
    message = e.what();
    return e.jsonPath();
  }
  return "(accepted)";
}
}  // namespace

TEST_CASE("visual shapes are kept in the resolved scene with numbers evaluated", "[scene][visual]") {
  const nlohmann::json visual = nlohmann::json::parse(R"([
    {"type": "capsule", "point1": [-0.5, 0], "point2": [0.5, 0], "radius": "r", "color": "#3366cc"},
    {"type": "box", "size": [0.2, "2*r", 0.1], "position": [0.5, 0, 0]},
    {"type": "sphere", "radius": 0.08, "color": [1, 0.5, 0]},
    {"type": "cylinder", "radius": "r", "length": 0.3}
  ])");
  const joinery::Scene with = joinery::sceneFromJson(pendulum(visual), "visual.json");
  const joinery::Scene without = joinery::sceneFromJson(pendulum(nullptr), "plain.json");
  const nlohmann::json v = resolvedElement(with, "bodies", "bar").at("visual");
  REQUIRE(v.size() == 4);
  CHECK(v[0] == nlohmann::json::parse(R"({"type": "capsule", "point1": [-0.5, 0.0, 0.0], "point2": [0.5, 0.0, 0.0],
                                          "radius": 0.05, "position": [0.0, 0.0, 0.0], "color": "#3366cc"})"));
  CHECK(v[1]["size"] == nlohmann::json::parse("[0.2, 0.1, 0.1]"));
  CHECK(v[1]["position"] == nlohmann::json::parse("[0.5, 0.0, 0.0]"));
  CHECK(v[2]["color"] == nlohmann::json::parse("[1, 0.5, 0]"));
  CHECK(v[3]["axis"] == nlohmann::json::parse("[0.0, 0.0, 1.0]"));  // the default: along z
  // drawing only: the same model
  CHECK(with.model.coordinateNames() == without.model.coordinateNames());
  CHECK(with.model.constraints().size() == without.model.constraints().size());
  // the resolved scene is a scene: it loads again with the same visual
  const joinery::Scene again = joinery::sceneFromJson(with.resolved(), "again.json");
  CHECK(resolvedElement(again, "bodies", "bar").at("visual") == v);
}

TEST_CASE("bad visual shapes name the JSON path", "[scene][visual]") {
  struct Case {
    const char* visual;
    const char* path;
    const char* fragment;
  };
  const Case cases[] = {
      {R"({"type": "sphere", "radius": 1})", "/bodies/0/visual", "expected an array of shapes"},
      {R"([{"type": "sphere", "radius": 1}, {"type": "box", "size": [1, 1, 1], "colour": "#ff0000"}])",
       "/bodies/0/visual/1/colour", "did you mean 'color'"},
      {R"([{"type": "cone", "radius": 1}])", "/bodies/0/visual/0/type", "unknown shape type 'cone'"},
      {R"([{"radius": 1}])", "/bodies/0/visual/0", "missing field 'type'"},
      {R"([{"type": "sphere", "radius": -1}])", "/bodies/0/visual/0/radius", "a radius > 0"},
      {R"([{"type": "box", "size": [1, 1]}])", "/bodies/0/visual/0/size", "3 numbers"},
      {R"([{"type": "cylinder", "radius": 1}])", "/bodies/0/visual/0", "length"},
      {R"([{"type": "cylinder", "radius": 1, "length": 1, "axis": [0, 0, 0]}])", "/bodies/0/visual/0/axis", "non-zero"},
      {R"([{"type": "capsule", "point1": [0, 0], "point2": [1, 0, 0, 0], "radius": 1}])",
       "/bodies/0/visual/0/point2", "2 or 3 numbers"},
      {R"([{"type": "sphere", "radius": 1, "color": "red"}])", "/bodies/0/visual/0/color", "#rrggbb"},
      {R"([{"type": "sphere", "radius": 1, "color": [1, 2, 0]}])", "/bodies/0/visual/0/color/1", "[0, 1]"},
      {R"([{"type": "sphere", "radius": "2*q"}])", "/bodies/0/visual/0/radius", "q"},
  };
  for (const Case& c : cases) {
    INFO("visual: " << c.visual);
    std::string message;
    CHECK(errorPath(nlohmann::json::parse(c.visual), message) == c.path);
    INFO("message: " << message);
    CHECK(message.find(c.fragment) != std::string::npos);
  }
}
