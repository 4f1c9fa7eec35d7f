// One-sided joints as input: limit on the five joints, rope, contact shapes; the errors of bad
// input name the field and what was expected; toJson round-trips (docs/contact.md).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "joinery/core/errors.hpp"
#include "joinery/core/one_sided.hpp"
#include "joinery/core/scene.hpp"

namespace joinery {
namespace {

using nlohmann::json;

json planarScene(json joint) {
  return {{"joinery", 1},
          {"bodies", {{{"name", "arm"}, {"type", "rigid2d"}, {"mass", 1}, {"inertia", 0.1}, {"position", {0.5, 0}}}}},
          {"joints", {joint}}};
}

json spatialScene(json joint) {
  return {{"joinery", 1},
          {"bodies", {{{"name", "arm"}, {"type", "rigid3d"}, {"mass", 1}, {"inertia", {0.1, 0.1, 0.1}}, {"position", {0.5, 0, 0}}}}},
          {"joints", {joint}}};
}

const OneSidedRows& rowsOf(const Scene& s) {
  const auto cs = s.model.constraints();
  REQUIRE(!cs.empty());
  const OneSidedRows* rows = oneSidedRows(*cs.back());
  REQUIRE(rows != nullptr);
  return *rows;
}

/// The local state of joint `c` at `st` (views into st).
LocalState localState(const Model& model, const State& st, const Constraint& c, std::vector<BodyStateView>& views) {
  for (const Body* b : c.bodies()) {
    const BodySlot& slot = model.slotOf(*b);
    views.push_back({b, st.q.data() + slot.offset, st.v.data() + slot.offset, slot.size});
  }
  LocalState ls;
  ls.bodies = std::span<const BodyStateView>(views);
  return ls;
}

/// The InputError of loading `doc`: its path and message.
std::pair<std::string, std::string> errorOf(const json& doc) {
  try {
    (void)sceneFromJson(doc, "scene.json");
  } catch (const InputError& e) {
    return {e.jsonPath(), e.what()};
  }
  FAIL("no InputError");
  return {};
}

TEST_CASE("limit on revolute2d, prismatic2d, revolute3d, prismatic3d, cylindrical: rows, labels, round trip",
          "[contact][input]") {
  const json lim = {{"min", -0.5}, {"max", 0.75}, {"restitution", 0.3}};
  const std::vector<json> docs = {
      planarScene({{"name", "j"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}}, {"body2", "arm"},
                   {"point2", {-0.5, 0}}, {"limit", lim}}),
      planarScene({{"name", "j"}, {"type", "prismatic2d"}, {"body1", "ground"}, {"point1", {0, 0}}, {"body2", "arm"},
                   {"point2", {-0.5, 0}}, {"axis", {1, 0}}, {"limit", lim}}),
      spatialScene({{"name", "j"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", {0, 0, 0}}, {"axis1", {0, 0, 1}},
                    {"body2", "arm"}, {"point2", {-0.5, 0, 0}}, {"axis2", {0, 0, 1}}, {"limit", lim}}),
      spatialScene({{"name", "j"}, {"type", "prismatic3d"}, {"body1", "ground"}, {"point1", {0, 0, 0}}, {"axis1", {1, 0, 0}},
                    {"body2", "arm"}, {"point2", {-0.5, 0, 0}}, {"limit", lim}}),
      spatialScene({{"name", "j"}, {"type", "cylindrical"}, {"body1", "ground"}, {"point1", {0, 0, 0}}, {"axis1", {1, 0, 0}},
                    {"body2", "arm"}, {"point2", {-0.5, 0, 0}}, {"axis2", {1, 0, 0}}, {"limit", lim}})};
  for (const json& doc : docs) {
    const Scene s = sceneFromJson(doc, "scene.json");
    const auto cs = s.model.constraints();
    const Constraint& c = *cs.back();
    INFO(c.typeName());
    const OneSidedRows& rows = rowsOf(s);
    REQUIRE(rows.count() == 2);
    CHECK(rows.label(0) == "min");
    CHECK(rows.label(1) == "max");
    CHECK(rows.restitution(1) == 0.3);
    CHECK(rows.localRow(1) == c.numRows() - 1);
    CHECK(c.toJson()["limit"] == lim);
    // the initial state: relative angle 0 (travel 0): distances 0.5 and 0.75 to the bounds
    const State st = s.model.initialState();
    std::vector<BodyStateView> views;
    const LocalState ls = localState(s.model, st, c, views);
    CHECK(rows.calcGap(ls, 0) == Approx(0.5).margin(1e-12));
    CHECK(rows.calcGap(ls, 1) == Approx(0.75).margin(1e-12));
  }
}

TEST_CASE("limit: one bound alone, and the errors of bad limits", "[contact][input]") {
  json j = {{"name", "j"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}}, {"body2", "arm"},
            {"point2", {-0.5, 0}}, {"limit", {{"max", 1.0}}}};
  CHECK(rowsOf(sceneFromJson(planarScene(j), "s.json")).count() == 1);
  const auto bad = [&](json limit) {
    json jj = j;
    jj["limit"] = limit;
    return errorOf(planarScene(jj));
  };
  CHECK(bad(json::object()).second.find("limits nothing") != std::string::npos);
  CHECK(bad({{"min", 1}, {"max", 0.5}}).first == "/joints/0/limit/max");
  CHECK(bad({{"min", -4}, {"max", 4}}).second.find("below 2 pi") != std::string::npos);
  CHECK(bad({{"min", 0}, {"restitution", 1.5}}).first == "/joints/0/limit/restitution");
  CHECK(bad({{"min", 0}, {"stop", 1}}).first == "/joints/0/limit/stop");
  CHECK(bad(3).first == "/joints/0/limit");
}

json ballScene(json shape1, json shape2) {
  return {{"joinery", 1},
          {"bodies", {{{"name", "ball"}, {"type", "particle"}, {"dim", 2}, {"mass", 1}, {"position", {0, 1}}}}},
          {"joints", {{{"name", "floor"}, {"type", "contact"}, {"body1", "ground"}, {"shape1", shape1}, {"body2", "ball"},
                       {"shape2", shape2}, {"restitution", 0.5}}}}};
}

TEST_CASE("contact shapes: one row per point, gaps, errors", "[contact][input]") {
  const json plane = {{"plane", {{"point", {0, 0}}, {"normal", {0, 2}}}}};
  const Scene s = sceneFromJson(ballScene(plane, {{"sphere", {{"center", {0, 0}}, {"radius", 0.25}}}}), "s.json");
  const OneSidedRows& rows = rowsOf(s);
  CHECK(rows.count() == 1);
  CHECK(rows.restitution(0) == 0.5);
  const auto cs = s.model.constraints();
  CHECK(cs.back()->toJson()["shape2"]["sphere"]["radius"] == 0.25);
  const Scene p = sceneFromJson(ballScene(plane, {{"points", {{0, 0}, {1, 0}, {0, 1}}}}), "s.json");
  CHECK(rowsOf(p).count() == 3);
  CHECK(rowsOf(p).label(2) == "point 3");
  CHECK(errorOf(ballScene(plane, plane)).first == "/joints/0/shape2");
  CHECK(errorOf(ballScene({{"point", {0, 0}}}, {{"point", {0, 0}}})).first == "/joints/0/shape2");
  CHECK(errorOf(ballScene({{"cube", 1}}, plane)).first == "/joints/0/shape1");
  CHECK(errorOf(ballScene(plane, {{"sphere", {{"center", {0, 0}}, {"radius", -1}}}})).first ==
        "/joints/0/shape2/sphere/radius");
  CHECK(errorOf(ballScene({{"plane", {{"point", {0, 0}}, {"normal", {0, 0}}}}}, {{"point", {0, 0}}})).first ==
        "/joints/0/shape1/plane/normal");
  json doc = ballScene(plane, {{"point", {0, 0}}});
  doc["joints"][0]["restitution"] = 2;
  CHECK(errorOf(doc).first == "/joints/0/restitution");
}

TEST_CASE("rope: one row that can only pull, gap L - |d|", "[contact][input]") {
  json doc = {{"joinery", 1},
              {"bodies", {{{"name", "bob"}, {"type", "particle"}, {"dim", 2}, {"mass", 1}, {"position", {0, -0.6}}}}},
              {"joints", {{{"name", "cable"}, {"type", "rope"}, {"body1", "ground"}, {"point1", {0, 0}}, {"body2", "bob"},
                           {"point2", {0, 0}}, {"length", 1.0}}}}};
  const Scene s = sceneFromJson(doc, "s.json");
  const OneSidedRows& rows = rowsOf(s);
  REQUIRE(rows.count() == 1);
  const State st = s.model.initialState();
  std::vector<BodyStateView> views;
  const LocalState ls = localState(s.model, st, *s.model.constraints().back(), views);
  CHECK(rows.calcGap(ls, 0) == Approx(0.4).margin(1e-12));
  CHECK(rows.calcRowScale(ls, 0) == Approx(0.6).margin(1e-12));
  doc["joints"][0]["length"] = 0;
  CHECK(errorOf(doc).first == "/joints/0/length");
}

}  // namespace
}  // namespace joinery
