// A scene's "units" (docs/scene-format.md, "Units"): the same mechanism written in SI and in
// millimetres, grams and degrees (numbers, expressions, a component with ports and a placed
// instance, a 3-D body with an Euler orientation, limits, drivers, springs) loads to the same
// model: the same initial state, mass matrix, forces and constraint rows (to round-off: a
// factor 1e-3 is not exact in binary). Fields with no conversion are refused with their path.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>

#include "joinery/core/errors.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/core/plausibility.hpp"
#include "test_paths.hpp"

namespace joinery {
namespace {

using nlohmann::json;

const double kDeg = 3.14159265358979323846 / 180;

/// A planar crank with a component link on a placed instance, a 3-D pendulum on a hinge with a
/// limit, a joint spring and a point spring. `L(x)`, `M(x)`, `A(x)`: a length, mass or angle
/// written in the scene's units (s = 1 for SI, else mm, g, deg).
json mechanism(bool si) {
  const double l = si ? 1 : 1e3, m = si ? 1 : 1e3, a = si ? 1 : 1 / kDeg;
  auto L = [&](double x) { return x * l; };
  json doc = {{"joinery", 1},
              {"parameters", {{"r", L(0.12)}, {"spin", si ? "2*pi" : "360"}}},
              {"gravity", {0, L(-9.81), 0}},
              {"components",
               {{"link",
                 {{"parameters", {{"len", L(0.3)}}},
                  {"bodies", {{{"name", "rod"}, {"type", "rigid2d"}, {"mass", 0.7 * m},
                               {"inertia", 0.7 * m * l * l * 0.09 / 12}, {"position", {"len/2", 0}}}}},
                  {"ports", {{"tip", {{"body", "rod"}, {"point", {"len/2", 0}}}},
                             {"root", {{"body", "rod"}, {"point", {"-len/2", 0}}}}}}}}}},
              {"bodies",
               {{{"name", "crank"}, {"type", "rigid2d"}, {"mass", 1.3 * m}, {"inertia", 1.3 * m * l * l * 0.01},
                 {"position", {"r/2", 0}}, {"angle", 0}, {"angular_velocity", si ? 2.0 : 2.0 / kDeg}},
                {{"name", "bob"}, {"type", "rigid3d"}, {"mass", 2.0 * m}, {"inertia", {0.02 * m * l * l, 0.03 * m * l * l, 0.04 * m * l * l}},
                 {"position", {L(1.0), L(0.2), L(0.5)}},
                 {"orientation", {{"euler", {{"sequence", "ZYX"}, {"angles", {25 * kDeg * a, -10 * kDeg * a, 5 * kDeg * a}}}}}},
                 {"angular_velocity", {0, 0, 0.5 * a}},
                 {"visual", {{{"type", "sphere"}, {"radius", L(0.05)}}}}}}},
              {"instances", {{{"name", "arm"}, {"component", "link"},
                              {"placement", {{"position", {"r", 0}}, {"angle", 30 * kDeg * a}}}}}},
              {"joints",
               {{{"name", "pivot"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                 {"body2", "crank"}, {"point2", {"-r/2", 0}}, {"limit", {{"min", -170 * kDeg * a}, {"max", 170 * kDeg * a}}}},
                {{"name", "elbow"}, {"type", "revolute2d"}, {"body1", "crank"}, {"point1", {"r/2", 0}}, {"port2", "arm.root"}},
                {{"name", "hinge"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", {L(1.0), L(0.2), L(0.8)}},
                 {"axis1", {0, 1, 0}}, {"body2", "bob"}, {"point2", {0, 0, L(0.3)}}, {"axis2", {0, 1, 0}}}}},
              {"forces",
               {{{"name", "coil"}, {"type", "spring"}, {"body1", "ground"}, {"point1", {L(0.5), L(0.5)}},
                 {"port2", "arm.tip"}, {"stiffness", 40.0 * m}, {"damping", 0.3 * m}, {"free_length", L(0.2)}},
                {{"name", "twist"}, {"type", "torsion2d"}, {"body1", "ground"}, {"body2", "crank"},
                 {"stiffness", 3.0 * m * l * l / a}, {"free_angle", 10 * kDeg * a}},
                {{"name", "hinge_spring"}, {"type", "joint_spring"}, {"joint", "hinge"},
                 {"stiffness", 5.0 * m * l * l / a}, {"damping", 0.2 * m * l * l / a}, {"rest", 15 * kDeg * a}}}}};
  if (!si) doc["units"] = {{"length", "mm"}, {"mass", "g"}, {"angle", "deg"}};
  return doc;
}

double relDiff(const MatrixXd& a, const MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

}  // namespace

TEST_CASE("a scene in millimetres, grams and degrees loads to the same model as in SI", "[scene][units]") {
  const Scene si = sceneFromJson(mechanism(true), "si.json");
  const Scene mm = sceneFromJson(mechanism(false), "mm.json");
  REQUIRE(si.model.coordinateNames() == mm.model.coordinateNames());
  const State s1 = si.model.initialState(), s2 = mm.model.initialState();
  // 1e-3 and pi/180 are not exact in binary: each conversion rounds once, so the two models
  // agree to a few ulps; 1e-13 relative leaves room for the products of the mass matrix
  CHECK(relDiff(s2.q, s1.q) < 1e-13);
  CHECK(relDiff(s2.v, s1.v) < 1e-13);
  CHECK(s1.v.cwiseAbs().maxCoeff() > 0.4);  // the initial velocities are there to compare
  ModelWorkspace w1 = si.model.makeWorkspace(true), w2 = mm.model.makeWorkspace(true);
  si.model.calcMassAndForces(s1, w1);
  mm.model.calcMassAndForces(s2, w2);
  si.model.calcConstraints(s1, w1);
  mm.model.calcConstraints(s2, w2);
  CHECK(relDiff(w2.M, w1.M) < 1e-13);
  CHECK(relDiff(w2.Q, w1.Q) < 1e-13);
  CHECK(relDiff(w2.A, w1.A) < 1e-13);
  CHECK(relDiff(w2.b, w1.b) < 1e-13);
  CHECK(w1.Q.cwiseAbs().maxCoeff() > 1);  // gravity and the springs act
  // a wrong factor would show: the scene read as SI (its "units" dropped) is another model
  json dropped = mechanism(false);
  dropped.erase("units");
  dropped["joints"][0].erase("limit");  // 340 "rad" would be refused as more than a turn
  const Scene wrong = sceneFromJson(dropped, "dropped.json");
  ModelWorkspace w3 = wrong.model.makeWorkspace(true);
  wrong.model.calcMassAndForces(wrong.model.initialState(), w3);
  CHECK(relDiff(w3.M, w1.M) > 1);
  // the visual shapes are drawn in metres
  CHECK(mm.resolved().dump().find("0.05") != std::string::npos);
}

TEST_CASE("units: a component library declares its own units", "[scene][units]") {
  const std::string dir = std::string(joinery_test_tmp_dir());
  const std::string lib = dir + "/units_lib_mm.json";
  {
    std::ofstream out(lib);
    out << json{{"joinery", 1},
                {"units", {{"length", "mm"}, {"mass", "g"}}},
                {"components",
                 {{"bar",
                   {{"bodies", {{{"name", "b"}, {"type", "particle"}, {"dim", 2}, {"mass", 500}, {"position", {250, 0}}}}},
                    {"ports", {{"end", {{"body", "b"}, {"point", {0, 0}}}}}}}}}}}
               .dump();
  }
  const json scene = {{"joinery", 1},
                      {"include", {lib}},
                      {"gravity", {0, -9.81}},
                      {"instances", {{{"name", "x"}, {"component", "bar"}, {"placement", {{"position", {0.1, 0}}}}}}},
                      {"joints", {{{"name", "rod"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {0, 0}},
                                   {"port2", "x.end"}, {"length", 0.35}}}}};
  const Scene s = sceneFromJson(scene, dir + "/units_scene.json");
  const State st = s.model.initialState();
  // the library's 250 mm plus the SI scene's 0.1 m placement; 500 g
  CHECK(st.q(0) == Approx(0.35).epsilon(1e-15));
  ModelWorkspace w = s.model.makeWorkspace(true);
  s.model.calcMassAndForces(st, w);
  CHECK(w.M(0, 0) == Approx(0.5).epsilon(1e-15));
}

TEST_CASE("units: what cannot be converted is refused with its path", "[scene][units][errors]") {
  json base = {{"joinery", 1},
               {"units", {{"length", "mm"}}},
               {"bodies", {{{"name", "p"}, {"type", "particle"}, {"dim", 2}, {"mass", 1}, {"position", {100, 0}}}}}};
  auto fails = [](const json& doc, const std::string& path, const std::string& text) {
    try {
      (void)sceneFromJson(doc, "u.json");
      FAIL("loaded: " << doc.dump());
    } catch (const InputError& e) {
      INFO(e.what());
      CHECK(e.jsonPath() == path);
      CHECK(std::string(e.what()).find(text) != std::string::npos);
    }
  };
  SECTION("an unknown unit") {
    json d = base;
    d["units"]["length"] = "furlong";
    fails(d, "/units/length", "\"mm\"");
  }
  SECTION("time other than seconds") {
    json d = base;
    d["units"]["time"] = "ms";
    fails(d, "/units/time", "seconds");
  }
  SECTION("an expression over coordinates") {
    json d = base;
    d["forces"] = {{{"name", "f"}, {"type", "force"}, {"body", "p"}, {"value", {"-3*p.x", 0}}}};
    fails(d, "/forces/0/value/0", "names a coordinate");
  }
  SECTION("a generalized force") {
    json d = base;
    d["forces"] = {{{"name", "g"}, {"type", "generalized"}, {"coordinate", "p.x"}, {"value", "1"}}};
    fails(d, "/forces/0/type", "no conversion");
  }
  SECTION("an expression joint") {
    json d = base;
    d["joints"] = {{{"name", "e"}, {"type", "expression"}, {"position", {"p.x - 100"}}}};
    fails(d, "/joints/0/type", "no conversion");
  }
  SECTION("a linear body") {
    json d = base;
    d["bodies"].push_back({{"name", "lin"}, {"type", "linear"}, {"coordinates", {"u"}}, {"mass_matrix", {{1}}}});
    fails(d, "/bodies/1/type", "a linear body");
  }
}

TEST_CASE("units: the millimetre warning points to them, and a scene that declares them checks clean",
          "[scene][units][diagnosis]") {
  json pendulum = {{"joinery", 1},
                   {"gravity", {0, -9.81}},
                   {"bodies", {{{"name", "arm"}, {"type", "rigid2d"}, {"mass", 1}, {"inertia", 0.02}, {"position", {250, 0}}}}},
                   {"joints", {{{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                                {"body2", "arm"}, {"point2", {-250, 0}}}}}};
  auto warnings = [](const json& doc) {
    const Scene s = sceneFromJson(doc, "p.json");
    std::string all;
    for (const std::string& w : plausibilityWarnings(s)) all += w + "\n";
    return all;
  };
  const std::string before = warnings(pendulum);
  CHECK(before.find("\"units\": {\"length\": \"mm\"}") != std::string::npos);
  pendulum["units"] = {{"length", "mm"}, {"mass", "kg"}};
  pendulum["bodies"][0]["inertia"] = 0.02e6;  // kg mm^2
  CHECK(warnings(pendulum).find("millimetres") == std::string::npos);
}

}  // namespace joinery
