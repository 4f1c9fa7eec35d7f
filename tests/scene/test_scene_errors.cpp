// Malformed and hostile scenes: each must throw InputError naming the file, the JSON path and
// what was expected; never another exception, a crash or a hang.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/scene.hpp"
#include "joinery/integrators/settings.hpp"
#include "scene_test_support.hpp"

using joinery::InputError;
using joinery::test::sceneData;

namespace {

/// One bad input: a file under data/ or inline JSON (loaded as data/inline.json, so that
/// includes resolve against data/), the JSON path of the error and a fragment of its message.
struct BadInput {
  std::string label;
  std::string file;  ///< relative to data/; empty for inline JSON
  std::string json;  ///< inline JSON text
  std::string path;
  std::string fragment;
  std::string errorFile = {};  ///< the file the error must name (relative to data/); default: the input
};

BadInput fromFile(std::string label, std::string file, std::string path, std::string fragment,
                  std::string errorFile = {}) {
  return {std::move(label), std::move(file), {}, std::move(path), std::move(fragment), std::move(errorFile)};
}

BadInput inlineJson(std::string label, std::string json, std::string path, std::string fragment,
                    std::string errorFile = {}) {
  return {std::move(label), {}, std::move(json), std::move(path), std::move(fragment), std::move(errorFile)};
}

/// The error a bad input throws, loaded as the command-line program loads a scene (the
/// `simulation` settings validated right after loading); fails the test for no error or
/// another exception type.
std::optional<InputError> errorOf(const BadInput& c) {
  try {
    if (!c.file.empty()) {
      (void)joinery::parseSimulationSettings(joinery::loadScene(sceneData(c.file)).simulation);
    } else {
      const nlohmann::json j = nlohmann::json::parse(c.json);
      (void)joinery::parseSimulationSettings(joinery::sceneFromJson(j, sceneData("inline.json")).simulation);
    }
  } catch (const InputError& e) {
    return e;
  } catch (const std::exception& e) {
    FAIL_CHECK("expected InputError, got another exception: " << e.what());
    return std::nullopt;
  }
  FAIL_CHECK("expected InputError, the input was accepted");
  return std::nullopt;
}

void checkAll(const std::vector<BadInput>& cases) {
  for (const BadInput& c : cases) {
    INFO("case: " << c.label);
    const std::optional<InputError> e = errorOf(c);
    if (!e) continue;
    INFO("message: " << e->what());
    CHECK(e->jsonPath() == c.path);
    CHECK_THAT(e->detail(), Catch::Contains(c.fragment));
    const std::string expectedFile =
        sceneData(!c.errorFile.empty() ? c.errorFile : !c.file.empty() ? c.file : "inline.json");
    CHECK(std::string(e->file()).find(expectedFile.substr(expectedFile.rfind('/') + 1)) != std::string::npos);
    CHECK_THAT(std::string(e->what()), Catch::Contains(e->jsonPath()));
  }
}

const char* kPendulum = R"("joinery": 1,
  "bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 0.1}],
  "joints": [{"name": "pivot", "type": "revolute2d", "body1": "ground", "body2": "rod", "point2": [-0.5, 0]}])";

std::string pendulumWith(const std::string& members) { return std::string("{") + kPendulum + ", " + members + "}"; }

}  // namespace

TEST_CASE("malformed files are input errors with the file and position", "[scene][errors]") {
  checkAll({
      fromFile("syntax error", "bad/syntax_error.json", "/bodies/0", "JSON syntax error"),
      fromFile("syntax error names the line", "bad/syntax_error.json", "/bodies/0", "line 3"),
      fromFile("truncated file", "bad/truncated.json", "/bodies", "JSON syntax error"),
      fromFile("empty file", "bad/empty.json", "", "file is empty"),
      fromFile("missing file", "bad/there_is_no_such_file.json", "", "cannot open"),
      fromFile("a directory", "lib", "", "is a directory"),
      fromFile("1e400 overflows a double", "bad/huge_number.json", "/bodies/0/mass", "out of the range of a double"),
      fromFile("NaN is not JSON", "bad/nan_literal.json", "/bodies/0", "JSON syntax error"),
      fromFile("duplicate key", "bad/duplicate_key.json", "/bodies/0/mass", "duplicate key 'mass'"),
      // the JSON pointer counts array elements and nests (the strict reader's own tracking)
      fromFile("duplicate key in the third body", "bad/duplicate_key_third.json", "/bodies/2/mass", "duplicate key 'mass'"),
      fromFile("1e400 inside an array of the second body", "bad/huge_number_nested.json", "/bodies/1/position/1",
               "out of the range of a double"),
      fromFile("root is an array", "bad/root_array.json", "/", "expected an object"),
      fromFile("JSON nested 10000 deep", "bad/deep.json", "", "levels deep"),
  });
}

TEST_CASE("includes: missing, broken, cyclic and misplaced libraries", "[scene][errors]") {
  checkAll({
      fromFile("include cycle", "bad/include_cycle.json", "/include/0", "include cycle", "bad/cycle_b.json"),
      fromFile("include cycle lists the chain", "bad/include_cycle.json", "/include/0",
               "cycle_a.json -> ", "bad/cycle_b.json"),
      fromFile("a scene including itself", "bad/include_self.json", "/include/0", "include cycle"),
      fromFile("missing include", "bad/include_missing.json", "/include/1", "no_such_library.json' not found"),
      fromFile("include with a syntax error", "bad/include_broken.json", "/bodies/0", "included from",
               "bad/syntax_error.json"),
      fromFile("library with bodies", "bad/include_lib_with_bodies.json", "/bodies", "unknown key 'bodies'",
               "bad/lib_with_bodies.json"),
      fromFile("library without version", "bad/include_lib_no_version.json", "/",
               "missing required field 'joinery'", "bad/lib_no_version.json"),
      fromFile("include a directory", "bad/include_directory.json", "/include/0", "not a regular file"),
      fromFile("error inside an included component", "bad/include_bad_component.json",
               "/components/wheel/bodies/0/raduis", "in instance 'w1' of component 'wheel'",
               "bad/lib_bad_component.json"),
      fromFile("component defined twice", "bad/component_defined_twice.json", "/components/link",
               "defined twice"),
      inlineJson("include is not a list", R"({"joinery": 1, "include": "lib/links.json", "bodies": []})",
                 "/include", "expected an array of paths"),
      inlineJson("include entry is a number", R"({"joinery": 1, "include": [3], "bodies": []})", "/include/0",
                 "the path of a component library"),
  });
}

TEST_CASE("the top level: version, keys, names and required fields", "[scene][errors]") {
  checkAll({
      inlineJson("missing version", R"({"bodies": []})", "/", "missing required field 'joinery'"),
      inlineJson("version 2", R"({"joinery": 2, "bodies": []})", "/joinery", "the format version 1"),
      inlineJson("version as a string", R"({"joinery": "1", "bodies": []})", "/joinery", "the format version 1"),
      inlineJson("unknown top-level key", R"({"joinery": 1, "bodys": []})", "/bodys", "did you mean 'bodies'"),
      inlineJson("top-level ports", pendulumWith(R"("ports": {})"), "/ports", "unknown key 'ports'"),
      inlineJson("missing bodies, no instances", R"({"joinery": 1, "joints": []})", "/", "the scene has no bodies"),
      inlineJson("bodies is an object", R"({"joinery": 1, "bodies": {}})", "/bodies", "expected an array"),
      inlineJson("no bodies at all", R"({"joinery": 1, "bodies": []})", "/bodies", "no bodies"),
      inlineJson("name is a number", R"({"joinery": 1, "name": 7, "bodies": []})", "/name", "expected a string"),
      inlineJson("description is an array", pendulumWith(R"("description": [])"), "/description", "expected a string"),
      inlineJson("deep JSON in memory", [] {
        std::string deep = R"({"joinery": 1, "bodies": )";
        deep += std::string(10000, '[') + std::string(10000, ']') + "}";
        return deep;
      }(), "/", "levels deep"),
  });
}

TEST_CASE("bodies, joints and forces: types, names, fields", "[scene][errors]") {
  checkAll({
      inlineJson("body is a number", R"({"joinery": 1, "bodies": [3]})", "/bodies/0", "expected an object"),
      inlineJson("body without name", R"({"joinery": 1, "bodies": [{"type": "particle", "mass": 1}]})", "/bodies/0",
                 "missing required field 'name'"),
      inlineJson("body name is a number", R"({"joinery": 1, "bodies": [{"name": 1, "type": "particle", "mass": 1}]})",
                 "/bodies/0/name", "expected a string"),
      inlineJson("body name with a dash", R"({"joinery": 1, "bodies": [{"name": "my-rod", "type": "particle", "mass": 1}]})",
                 "/bodies/0/name", "letters, digits and '_'"),
      inlineJson("body name with an empty part", R"({"joinery": 1, "bodies": [{"name": "a..b", "type": "particle", "mass": 1}]})",
                 "/bodies/0/name", "letters, digits and '_'"),
      inlineJson("body name ending in a dot", R"({"joinery": 1, "bodies": [{"name": "a.", "type": "particle", "mass": 1}]})",
                 "/bodies/0/name", "letters, digits and '_'"),
      inlineJson("dotted body name in a component", R"({"joinery": 1,
          "components": {"c": {"bodies": [{"name": "a.b", "type": "particle", "mass": 1}]}},
          "instances": [{"name": "i", "component": "c"}], "bodies": []})",
                 "/components/c/bodies/0/name", "letters, digits and '_'"),
      inlineJson("qualified scene body clashing with an instance body", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link"}],
          "bodies": [{"name": "l1.rod", "type": "rigid2d", "mass": 1, "inertia": 1}]})",
                 "/components/link/bodies/0/name", "duplicate name 'l1.rod'", "lib/links.json"),
      inlineJson("empty body name", R"({"joinery": 1, "bodies": [{"name": "", "type": "particle", "mass": 1}]})",
                 "/bodies/0/name", "letters, digits and '_'"),
      inlineJson("declaring ground", R"({"joinery": 1, "bodies": [{"name": "ground", "type": "particle", "mass": 1}]})",
                 "/bodies/0/name", "fixed world body"),
      inlineJson("duplicate body names", R"({"joinery": 1, "bodies": [
          {"name": "a", "type": "particle", "mass": 1}, {"name": "a", "type": "particle", "mass": 2}]})",
                 "/bodies/1/name", "duplicate name 'a'"),
      inlineJson("joint named like a body", pendulumWith(R"("forces": [{"name": "rod", "type": "spring",
          "body1": "ground", "body2": "rod", "stiffness": 1}])"),
                 "/forces/0/name", "already used by the body at /bodies/0"),
      inlineJson("unknown body type", R"({"joinery": 1, "bodies": [{"name": "a", "type": "rigid2", "mass": 1}]})",
                 "/bodies/0/type", "did you mean 'rigid2d'"),
      inlineJson("missing body type", R"({"joinery": 1, "bodies": [{"name": "a", "mass": 1}]})", "/bodies/0",
                 "missing required field 'type'"),
      inlineJson("unknown body field", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "masss": 1}]})",
                 "/bodies/0/masss", "did you mean 'mass'"),
      inlineJson("\"NaN\" as a mass", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": "NaN"}]})",
                 "/bodies/0/mass", "unknown name 'NaN'"),
      inlineJson("\"inf\" as a mass", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": "inf"}]})",
                 "/bodies/0/mass", "unknown name 'inf'"),
      inlineJson("\"1e400\" as a mass", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": "1e400"}]})",
                 "/bodies/0/mass", "out of range"),
      inlineJson("division by zero", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": "1/0"}]})",
                 "/bodies/0/mass", "in expression \"1/0\""),
      inlineJson("overflowing expression", R"j({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": "exp(1000)"}]})j",
                 "/bodies/0/mass", "expected a finite number"),
      inlineJson("mass is a boolean", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": true}]})",
                 "/bodies/0/mass", "a number or an expression"),
      inlineJson("expression syntax error", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": "2*(1+"}]})",
                 "/bodies/0/mass", "in expression \"2*(1+\""),
      inlineJson("control character in an expression", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": "1\u0001"}]})",
                 "/bodies/0/mass", "unexpected character"),
      inlineJson("time in a constant field", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": "1+t"}]})",
                 "/bodies/0/mass", "unknown name 't'"),
      inlineJson("negative mass", R"({"joinery": 1, "bodies": [{"name": "a", "type": "particle", "mass": -1}]})",
                 "/bodies/0/mass", "a mass >= 0"),
      inlineJson("joint on an unknown body", R"({"joinery": 1,
          "bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 0.1}],
          "joints": [{"name": "pivot", "type": "revolute2d", "body1": "ground", "body2": "rdo"}]})",
                 "/joints/0/body2", "did you mean 'rod'"),
      inlineJson("unknown joint type", pendulumWith(R"("forces": [{"name": "s", "type": "sprung"}])"), "/forces/0/type",
                 "did you mean 'spring'"),
      inlineJson("joint without name", R"({"joinery": 1,
          "bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 0.1}],
          "joints": [{"type": "revolute2d", "body1": "ground", "body2": "rod"}]})",
                 "/joints/0", "missing required field 'name'"),
      inlineJson("joint name with a space", R"({"joinery": 1,
          "bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 0.1}],
          "joints": [{"name": "a b", "type": "revolute2d", "body1": "ground", "body2": "rod"}]})",
                 "/joints/0/name", "letters, digits and '_'"),
      inlineJson("joints is an object", pendulumWith(R"("forces": {})"), "/forces", "an array of forces"),
      inlineJson("unknown coordinate in a generalized force", pendulumWith(R"("forces": [{"name": "f", "type": "generalized",
          "coordinate": "rod.thet", "value": 1}])"),
                 "/forces/0/coordinate", "did you mean 'rod.theta'"),
      inlineJson("port at the top level without instances", pendulumWith(R"("forces": [{"name": "s", "type": "spring",
          "body1": "ground", "port2": "l1.top", "stiffness": 1}])"),
                 "/forces/0/port2", "no ports"),
  });
}

TEST_CASE("parameters: cycles, names, types and values", "[scene][errors]") {
  checkAll({
      inlineJson("parameter cycle", pendulumWith(R"("parameters": {"a": "b + 1", "b": "2*a"})"), "/parameters/a",
                 "cycle: a -> b -> a"),
      inlineJson("parameter depending on itself", pendulumWith(R"("parameters": {"L": "L + 1"})"), "/parameters/L",
                 "cycle: L -> L"),
      inlineJson("reserved parameter name", pendulumWith(R"("parameters": {"t": 1})"), "/parameters/t", "reserved"),
      inlineJson("function as a parameter name", pendulumWith(R"("parameters": {"sin": 1})"), "/parameters/sin", "reserved"),
      inlineJson("invalid parameter name", pendulumWith(R"("parameters": {"2x": 1})"), "/parameters/2x",
                 "not a valid parameter name"),
      inlineJson("parameter name with a slash (escaped path)", pendulumWith(R"("parameters": {"a/b": 1})"), "/parameters/a~1b",
                 "not a valid parameter name"),
      inlineJson("parameter is an array", pendulumWith(R"("parameters": {"L": [1]})"), "/parameters/L",
                 "a number or an expression string"),
      inlineJson("parameters is a list", pendulumWith(R"("parameters": [1])"), "/parameters", "expected an object"),
      inlineJson("parameter with an unknown name", pendulumWith(R"("parameters": {"L": "2*mm", "m": 1})"), "/parameters/L",
                 "unknown name 'mm': a unit? numbers in joinery are SI and written without units (mm is 0.001 m"),
      inlineJson("parameter evaluating to infinity", pendulumWith(R"("parameters": {"big": "10^400"})"), "/parameters/big",
                 "finite"),
      inlineJson("parameter of a body field", R"({"joinery": 1, "parameters": {"m": 1},
          "bodies": [{"name": "a", "type": "particle", "mass": "mn"}]})",
                 "/bodies/0/mass", "did you mean 'm'"),
  });
}

TEST_CASE("gravity and simulation settings", "[scene][errors]") {
  checkAll({
      inlineJson("gravity of 1 number", pendulumWith(R"("gravity": [0])"), "/gravity", "[gx, gy, gz]"),
      inlineJson("gravity as a number", pendulumWith(R"("gravity": -9.81)"), "/gravity", "[gx, gy, gz]"),
      inlineJson("gravity with an unknown name", pendulumWith(R"("gravity": [0, "-g", 0])"), "/gravity/1",
                 "unknown name 'g'"),
      inlineJson("simulation is a number", pendulumWith(R"("simulation": 1)"), "/simulation", "expected an object"),
      inlineJson("unknown simulation key", pendulumWith(R"("simulation": {"t_ned": 1})"), "/simulation/t_ned",
                 "did you mean 't_end'"),
      inlineJson("t_end zero", pendulumWith(R"("simulation": {"t_end": 0})"), "/simulation/t_end", "t_end > 0"),
      inlineJson("t_end negative expression", pendulumWith(R"("parameters": {"T": 1}, "simulation": {"t_end": "-T"})"),
                 "/simulation/t_end", "evaluates to -1"),
      inlineJson("negative step", pendulumWith(R"("simulation": {"step": -1e-3})"), "/simulation/step", "step > 0"),
      inlineJson("zero output interval", pendulumWith(R"("simulation": {"output_interval": 0})"),
                 "/simulation/output_interval", "output_interval > 0"),
      inlineJson("rtol of 2", pendulumWith(R"("simulation": {"rtol": 2})"), "/simulation/rtol", "(0, 1)"),
      inlineJson("negative atol", pendulumWith(R"("simulation": {"atol": -1})"), "/simulation/atol", "atol >= 0"),
      inlineJson("unknown integrator", pendulumWith(R"("simulation": {"integrator": "rk5"})"), "/simulation/integrator",
                 "did you mean 'rk4'"),
      inlineJson("integrator is a number", pendulumWith(R"("simulation": {"integrator": 4})"), "/simulation/integrator",
                 "one of: rk4, dopri5"),
      inlineJson("unknown stabilization", pendulumWith(R"("simulation": {"stabilization": "projektion"})"),
                 "/simulation/stabilization", "did you mean 'projection'"),
      inlineJson("t_end is NaN text", pendulumWith(R"("simulation": {"t_end": "NaN"})"), "/simulation/t_end",
                 "unknown name 'NaN'"),
  });
}

TEST_CASE("components, instances, ports and placements", "[scene][errors]") {
  checkAll({
      inlineJson("components is a list", R"({"joinery": 1, "components": [], "bodies": []})", "/components",
                 "an object: component name -> definition"),
      inlineJson("component name with a dash", R"({"joinery": 1, "components": {"my-link": {}}, "bodies": []})",
                 "/components/my-link", "not a valid component name"),
      inlineJson("unknown component key", R"({"joinery": 1, "components": {"c": {"bodie": []}}, "bodies": []})",
                 "/components/c/bodie", "did you mean 'bodies'"),
      inlineJson("component bodies not a list", R"({"joinery": 1, "components": {"c": {"bodies": {}}}, "bodies": []})",
                 "/components/c/bodies", "expected an array"),
      inlineJson("unknown component", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "lnk"}], "bodies": []})",
                 "/instances/0/component", "did you mean 'link'"),
      inlineJson("no components at all", R"({"joinery": 1, "instances": [{"name": "l1", "component": "link"}], "bodies": []})",
                 "/instances/0/component", "no components are defined"),
      inlineJson("instance without component", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1"}], "bodies": []})",
                 "/instances/0", "missing required field 'component'"),
      inlineJson("unknown instance key", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link", "placment": {}}], "bodies": []})",
                 "/instances/0/placment", "did you mean 'placement'"),
      inlineJson("unknown instance parameter", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link"}, {"name": "l2", "component": "link", "parameters": {"Lenght": 2}}],
          "bodies": []})",
                 "/instances/1/parameters/Lenght", "unknown parameter 'Lenght' of component 'link'"),
      inlineJson("instance parameter with an unknown name", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link", "parameters": {"L": "2*Q"}}], "bodies": []})",
                 "/instances/0/parameters/L", "unknown name 'Q'"),
      inlineJson("component defaults see only their own parameters", R"({"joinery": 1, "parameters": {"g0": 1},
          "components": {"c": {"parameters": {"m": "g0"}, "bodies": [{"name": "p", "type": "particle", "mass": "m"}]}},
          "instances": [{"name": "i", "component": "c"}], "bodies": []})",
                 "/components/c/parameters/m", "unknown name 'g0'"),
      inlineJson("duplicate instance names", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link"}, {"name": "l1", "component": "link"}], "bodies": []})",
                 "/instances/1/name", "duplicate name 'l1'"),
      inlineJson("instance named like a body", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "p", "component": "link"}], "bodies": [{"name": "p", "type": "particle", "mass": 1}]})",
                 "/instances/0/name", "duplicate name 'p'"),
      inlineJson("instance named ground", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "ground", "component": "link"}], "bodies": []})",
                 "/instances/0/name", "fixed world body"),
      inlineJson("component nesting cycle", R"({"joinery": 1, "components": {
          "a": {"instances": [{"name": "x", "component": "b"}]},
          "b": {"instances": [{"name": "y", "component": "a"}]}},
          "instances": [{"name": "top", "component": "a"}], "bodies": []})",
                 "/components/b/instances/0/component", "component cycle: a -> b -> a"),
      inlineJson("component containing itself", R"({"joinery": 1, "components": {
          "a": {"instances": [{"name": "x", "component": "a"}]}},
          "instances": [{"name": "top", "component": "a"}], "bodies": []})",
                 "/components/a/instances/0/component", "component cycle: a -> a"),
      inlineJson("components nested 40 deep", [] {
        nlohmann::json j = {{"joinery", 1}, {"bodies", nlohmann::json::array()}};
        for (int i = 0; i < 40; ++i)
          j["components"]["c" + std::to_string(i)]["instances"] =
              nlohmann::json::array({{{"name", "i"}, {"component", "c" + std::to_string(i + 1)}}});
        j["components"]["c40"]["bodies"] =
            nlohmann::json::array({{{"name", "p"}, {"type", "particle"}, {"mass", 1}}});
        j["instances"] = nlohmann::json::array({{{"name", "top"}, {"component", "c0"}}});
        return j.dump();
      }(), "/components/c31/instances/0/component", "nested more than 32 levels"),
      inlineJson("exponential expansion", [] {
        // 600 instances of a component of 600 bodies: the limit (300000 bodies, joints, forces
        // and instances) is passed at body 100 of instance 500 (1 + 499 * 601 + 1 + 100)
        nlohmann::json j = {{"joinery", 1}, {"bodies", nlohmann::json::array()}};
        nlohmann::json list = nlohmann::json::array(), bodies = nlohmann::json::array();
        for (int k = 0; k < 600; ++k) {
          list.push_back({{"name", "i" + std::to_string(k)}, {"component", "c1"}});
          bodies.push_back({{"name", "p" + std::to_string(k)}, {"type", "particle"}, {"mass", 1}});
        }
        j["components"]["c0"]["instances"] = list;
        j["components"]["c1"]["bodies"] = bodies;
        j["instances"] = nlohmann::json::array({{{"name", "top"}, {"component", "c0"}}});
        return j.dump();
      }(), "/components/c1/bodies/99", "expands to more than 300000"),
      inlineJson("port that does not exist", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link"}], "bodies": [],
          "joints": [{"name": "j", "type": "revolute2d", "body1": "ground", "port2": "l1.topp"}]})",
                 "/joints/0/port2", "did you mean 'l1.top'"),
      inlineJson("port and body together", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link"}], "bodies": [],
          "joints": [{"name": "j", "type": "revolute2d", "body1": "ground", "port2": "l1.top", "body2": "l1.rod"}]})",
                 "/joints/0/port2", "not both"),
      inlineJson("port name is a number", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link"}], "bodies": [],
          "joints": [{"name": "j", "type": "revolute2d", "body1": "ground", "port2": 1}]})",
                 "/joints/0/port2", "a port name"),
      inlineJson("port on an unknown body", R"({"joinery": 1,
          "components": {"c": {"bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1}],
                               "ports": {"top": {"body": "rdo", "point": [0, 1]}}}},
          "instances": [{"name": "i", "component": "c"}], "bodies": []})",
                 "/components/c/ports/top/body", "unknown body 'rdo' in component 'c'; did you mean 'rod'"),
      inlineJson("port point of 4 numbers", R"({"joinery": 1,
          "components": {"c": {"bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1}],
                               "ports": {"top": {"body": "rod", "point": [0, 1, 2, 3]}}}},
          "instances": [{"name": "i", "component": "c"}], "bodies": []})",
                 "/components/c/ports/top/point", "2 or 3 numbers"),
      inlineJson("re-exported port that does not exist", R"({"joinery": 1, "include": ["lib/links.json"],
          "components": {"c": {"instances": [{"name": "l", "component": "link"}],
                               "ports": {"end": {"port": "l.bottm"}}}},
          "instances": [{"name": "i", "component": "c"}], "bodies": []})",
                 "/components/c/ports/end/port", "did you mean 'l.bottom'"),
      inlineJson("component joint on an unknown local body", R"({"joinery": 1,
          "components": {"c": {"bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1}],
                               "joints": [{"name": "j", "type": "revolute2d", "body1": "ground", "body2": "rdo"}]}},
          "instances": [{"name": "i", "component": "c"}], "bodies": []})",
                 "/components/c/joints/0/body2", "unknown body 'rdo' in component 'c'"),
      inlineJson("component joint on a scene body (names are local)", R"({"joinery": 1,
          "components": {"c": {"bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1}],
                               "joints": [{"name": "j", "type": "revolute2d", "body1": "cart", "body2": "rod"}]}},
          "instances": [{"name": "i", "component": "c"}],
          "bodies": [{"name": "cart", "type": "rigid2d", "mass": 1, "inertia": 1}]})",
                 "/components/c/joints/0/body1", "names inside a component are local"),
      inlineJson("component expression naming a scene body", R"({"joinery": 1,
          "components": {"c": {"bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1}],
                               "forces": [{"name": "f", "type": "generalized", "coordinate": "rod.x", "value": "-cart.x"}]}},
          "instances": [{"name": "i", "component": "c"}],
          "bodies": [{"name": "cart", "type": "rigid2d", "mass": 1, "inertia": 1}]})",
                 "/components/c/forces/0/value", "'cart.x' names no body of component 'c'"),
      inlineJson("component body invalid for one instance", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link"}, {"name": "l2", "component": "link", "parameters": {"m": -1}}],
          "bodies": []})",
                 "/components/link/bodies/0/mass", "in instance 'l2' of component 'link'", "lib/links.json"),
      inlineJson("duplicate body names in a component", R"({"joinery": 1,
          "components": {"c": {"bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1},
                                          {"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1}]}},
          "instances": [{"name": "i", "component": "c"}], "bodies": []})",
                 "/components/c/bodies/1/name", "duplicate name 'i.rod'"),
      inlineJson("placement with angle and orientation", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link", "placement": {"angle": 1, "orientation": [1, 0, 0, 0]}}],
          "bodies": []})",
                 "/instances/0/placement/orientation", "not both"),
      inlineJson("placement position of 4 numbers", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link", "placement": {"position": [1, 2, 3, 4]}}], "bodies": []})",
                 "/instances/0/placement/position", "an array of 2 numbers"),
      inlineJson("unknown placement key", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link", "placement": {"rotation": 1}}], "bodies": []})",
                 "/instances/0/placement/rotation", "unknown key 'rotation'"),
      inlineJson("placement quaternion not unit", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link", "placement": {"orientation": [2, 0, 0, 0]}}], "bodies": []})",
                 "/instances/0/placement/orientation", "unit quaternion"),
      inlineJson("placement angle with an unknown name", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link", "placement": {"angle": "phi"}}], "bodies": []})",
                 "/instances/0/placement/angle", "unknown name 'phi'"),
      inlineJson("spatial placement of a planar body", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link",
                         "placement": {"orientation": [0.7071067811865476, 0.7071067811865476, 0, 0]}}], "bodies": []})",
                 "/instances/0/placement", "turns out of the x-y plane"),
      inlineJson("planar body moved out of the plane", R"({"joinery": 1, "include": ["lib/links.json"],
          "instances": [{"name": "l1", "component": "link", "placement": {"position": [0, 0, 1]}}], "bodies": []})",
                 "/instances/0/placement", "expected z = 0"),
      inlineJson("line body turned", R"({"joinery": 1,
          "components": {"c": {"bodies": [{"name": "p", "type": "particle", "dim": 1, "mass": 1}]}},
          "instances": [{"name": "i", "component": "c", "placement": {"angle": 1}}], "bodies": []})",
                 "/instances/0/placement", "moves along the x axis only"),
  });
}

TEST_CASE("expression joints: bad constraint lists are input errors at the row", "[scene][errors][expression]") {
  checkAll({
      inlineJson("expression joint with an unknown coordinate", pendulumWith(R"J("joints": [
          {"name": "pivot", "type": "revolute2d", "body1": "ground", "body2": "rod", "point2": [-0.5, 0]},
          {"name": "e", "type": "expression", "position": ["rod.x - 1", "rod.phi"]}])J"),
                 "/joints/1/position/1", "unknown coordinate 'rod.phi'"),
      inlineJson("expression joint with a syntax error", pendulumWith(R"J("joints": [
          {"name": "e", "type": "expression", "velocity": ["rod.x_dot + (rod.y_dot"]}])J"),
                 "/joints/0/velocity/0", "rod.x_dot + (rod.y_dot"),
      inlineJson("expression joint with an unknown name", pendulumWith(R"J("joints": [
          {"name": "e", "type": "expression", "position": ["rod.x - L"]}])J"),
                 "/joints/0/position/0", "unknown name 'L'"),
      inlineJson("expression joint with two kinds", pendulumWith(R"J("joints": [
          {"name": "e", "type": "expression", "position": ["rod.x"], "velocity": ["rod.x_dot"]}])J"),
                 "/joints/0", "exactly one of 'position'"),
      inlineJson("expression joint with none", pendulumWith(R"J("joints": [{"name": "e", "type": "expression"}])J"),
                 "/joints/0", "exactly one of 'position'"),
      inlineJson("expression joint with an empty list", pendulumWith(R"J("joints": [
          {"name": "e", "type": "expression", "velocity": []}])J"),
                 "/joints/0/velocity", "non-empty list"),
      inlineJson("expression joint: unknown coordinate in an A row", pendulumWith(R"J("joints": [
          {"name": "e", "type": "expression", "acceleration": [{"A": {"rod.x": 1, "rod.z": 2}, "b": 0}]}])J"),
                 "/joints/0/acceleration/0/A/rod.z", "unknown coordinate 'rod.z'"),
      inlineJson("expression joint in a component naming another component's body", R"J({"joinery": 1,
          "components": {"c": {"bodies": [{"name": "b", "type": "particle", "dim": 1, "mass": 1}],
                               "joints": [{"name": "e", "type": "expression", "position": ["b.x - bb.x"]}]}},
          "instances": [{"name": "i", "component": "c"}], "bodies": []})J",
                 "/components/c/joints/0/position/0", "unknown body 'bb'"),
  });
}
