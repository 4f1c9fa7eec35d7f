// Input errors of joints and force elements: each names the field (JSON path), the offending
// value and what was expected.
#include <catch2/catch.hpp>

#include "joint_test_support.hpp"

namespace joinery::test {
namespace {

/// Runs `make` and returns the InputError it throws (fails the test when it does not throw).
template <class F>
InputError inputError(F&& make) {
  try {
    make();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  return InputError("");
}

struct ErrorScene : TestScene {
  ErrorScene() {
    add("rigid2d", "body1");
    add("rigid2d", "body2");
    add("rigid3d", "box");
    add("particle2", "p");
    add("linear", "beam");
  }
};

}  // namespace

TEST_CASE("a joint on a body lacking the marker it needs is an input error naming the body", "[joints][errors]") {
  ErrorScene scene;
  SECTION("revolute2d on a linear body (no points)") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "revolute2d"}, {"body1", "body1"}, {"body2", "beam"}});
    });
    CHECK(e.jsonPath() == "/body2");
    CHECK(e.file() == "test.json");
    CHECK_THAT(e.detail(), Catch::Contains("body 'beam' (linear) has no point markers") &&
                               Catch::Contains("revolute2d joint"));
  }
  SECTION("prismatic2d on a particle (no frame)") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "prismatic2d"}, {"body1", "p"}, {"body2", "body1"}, {"axis", {1, 0}}});
    });
    CHECK(e.jsonPath() == "/body1");
    CHECK_THAT(e.detail(), Catch::Contains("body 'p' (particle) has no frame marker"));
  }
  SECTION("torsion2d on a particle (no frame)") {
    const auto e = inputError([&] {
      return scene.force({{"name", "t"}, {"type", "torsion2d"}, {"body1", "body1"}, {"body2", "p"}, {"stiffness", 1}});
    });
    CHECK(e.jsonPath() == "/body2");
    CHECK_THAT(e.detail(), Catch::Contains("body 'p' (particle) has no frame marker"));
  }
  SECTION("planar joint on a rigid3d body") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "weld2d"}, {"body1", "box"}, {"body2", "body1"}});
    });
    CHECK(e.jsonPath() == "/body1");
    CHECK_THAT(e.detail(), Catch::Contains("body 'box' (rigid3d) is not planar") &&
                               Catch::Contains("revolute3d"));
  }
  SECTION("spring on a linear body") {
    const auto e = inputError([&] {
      return scene.force({{"name", "s"}, {"type", "spring"}, {"body1", "beam"}, {"body2", "body1"}, {"stiffness", 1}});
    });
    CHECK(e.jsonPath() == "/body1");
    CHECK_THAT(e.detail(), Catch::Contains("body 'beam' (linear) has no point markers"));
  }
}

TEST_CASE("coordinate names: unknown coordinates and bodies, with suggestions", "[joints][errors]") {
  ErrorScene scene;
  SECTION("coupling with a misspelt coordinate") {
    const auto e = inputError([&] {
      return scene.joint(nlohmann::json::parse(R"({"name": "c", "type": "coupling",
          "terms": [{"coordinate": "body1.x", "coefficient": 1}, {"coordinate": "body1.tehta", "coefficient": 2}]})"));
    });
    CHECK(e.jsonPath() == "/terms/1/coordinate");
    CHECK_THAT(e.detail(), Catch::Contains("unknown coordinate 'body1.tehta'") &&
                               Catch::Contains("did you mean 'body1.theta'?") && Catch::Contains("x, y, theta"));
  }
  SECTION("coupling with an unknown body") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "c"}, {"type", "coupling"}, {"terms", {{{"coordinate", "bdy1.x"}}}}});
    });
    CHECK(e.jsonPath() == "/terms/0/coordinate");
    CHECK_THAT(e.detail(), Catch::Contains("unknown body 'bdy1'"));
  }
  SECTION("coupling with an unqualified name") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "c"}, {"type", "coupling"}, {"terms", {{{"coordinate", "theta"}}}}});
    });
    CHECK_THAT(e.detail(), Catch::Contains("'theta' is not a qualified coordinate name"));
  }
  SECTION("coupling with no terms") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "c"}, {"type", "coupling"}, {"terms", nlohmann::json::array()}});
    });
    CHECK(e.jsonPath() == "/terms");
  }
  SECTION("a velocity in a coordinate field") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "d"}, {"type", "driver"}, {"coordinate", "body1.x_dot"}, {"value", "t"}});
    });
    CHECK_THAT(e.detail(), Catch::Contains("has no coordinate 'x_dot'"));
  }
  SECTION("generalized force expression naming an unknown coordinate") {
    const auto e = inputError([&] {
      return scene.force({{"name", "g"}, {"type", "generalized"}, {"coordinate", "body1.x"},
                          {"value", "-2*body2.x_dt"}});
    });
    CHECK(e.jsonPath() == "/value");
    CHECK_THAT(e.detail(), Catch::Contains("-2*body2.x_dt") && Catch::Contains("did you mean 'body2.x_dot'?"));
  }
  SECTION("generalized force expression naming an unknown body") {
    const auto e = inputError([&] {
      return scene.force({{"name", "g"}, {"type", "generalized"}, {"coordinate", "body1.x"},
                          {"value", "-2*wheel.theta"}});
    });
    CHECK_THAT(e.detail(), Catch::Contains("unknown body 'wheel'"));
  }
  SECTION("a driver value that is not a function of time only") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "d"}, {"type", "driver"}, {"coordinate", "body1.x"}, {"value", "body2.x*t"}});
    });
    CHECK(e.jsonPath() == "/value");
    CHECK_THAT(e.detail(), Catch::Contains("'body2.x' cannot be used here"));
  }
  SECTION("an expression syntax error") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "d"}, {"type", "driver"}, {"coordinate", "body1.x"}, {"value", "sin(t"}});
    });
    CHECK(e.jsonPath() == "/value");
    CHECK_THAT(e.detail(), Catch::Contains("sin(t"));
  }
  SECTION("a nonideal law on a coordinate of another body") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "revolute2d"}, {"body1", "body1"}, {"body2", "ground"},
                          {"nonideal", {{"C", {{"body2.x", "Fi"}}}}}});
    });
    CHECK(e.jsonPath() == "/nonideal/C/body2.x");
    CHECK_THAT(e.detail(), Catch::Contains("'body2.x' is not a coordinate of the bodies of joint 'j'"));
  }
  SECTION("a nonideal expression using another body") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "revolute2d"}, {"body1", "body1"}, {"body2", "ground"},
                          {"nonideal", {{"C", {{"body1.x", "-Fi*body2.x_dot"}}}}}});
    });
    CHECK_THAT(e.detail(), Catch::Contains("'body2.x_dot' is not a coordinate of the bodies of joint 'j'"));
  }
}

TEST_CASE("unknown keys, missing fields and bad values", "[joints][errors]") {
  ErrorScene scene;
  SECTION("unknown key with a suggestion") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "revolute2d"}, {"body1", "body1"}, {"pont1", {0, 0}}, {"body2", "body2"}});
    });
    CHECK(e.jsonPath() == "/pont1");
    CHECK_THAT(e.detail(), Catch::Contains("unknown key 'pont1'; did you mean 'point1'?"));
  }
  SECTION("unknown key in a force") {
    const auto e = inputError([&] {
      return scene.force({{"name", "s"}, {"type", "spring"}, {"body1", "body1"}, {"body2", "body2"},
                          {"stiffness", 1}, {"freelength", 1}});
    });
    CHECK_THAT(e.detail(), Catch::Contains("did you mean 'free_length'?"));
  }
  SECTION("missing length") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "distance"}, {"body1", "body1"}, {"body2", "body2"}});
    });
    CHECK_THAT(e.detail(), Catch::Contains("missing required field 'length'"));
  }
  SECTION("non-positive length") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "distance"}, {"body1", "body1"}, {"body2", "body2"}, {"length", 0}});
    });
    CHECK(e.jsonPath() == "/length");
    CHECK_THAT(e.detail(), Catch::Contains("length must be > 0"));
  }
  SECTION("a body joined to itself") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "spherical"}, {"body1", "box"}, {"body2", "box"}});
    });
    CHECK(e.jsonPath() == "/body2");
    CHECK_THAT(e.detail(), Catch::Contains("same body as body1 ('box')"));
  }
  SECTION("a zero prismatic axis") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "prismatic2d"}, {"body1", "body1"}, {"body2", "body2"}, {"axis", {0, 0, 1}}});
    });
    CHECK(e.jsonPath() == "/axis");
    CHECK_THAT(e.detail(), Catch::Contains("no length in the x-y plane"));
  }
  SECTION("a negative stiffness") {
    const auto e = inputError([&] {
      return scene.force({{"name", "s"}, {"type", "spring"}, {"body1", "body1"}, {"body2", "body2"}, {"stiffness", -1}});
    });
    CHECK(e.jsonPath() == "/stiffness");
    CHECK_THAT(e.detail(), Catch::Contains("stiffness must be >= 0"));
  }
  SECTION("a driver with both forms") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "d"}, {"type", "driver"}, {"coordinate", "body1.x"}, {"body", "body1"}, {"value", "t"}});
    });
    CHECK_THAT(e.detail(), Catch::Contains("exactly one of 'coordinate'"));
  }
  SECTION("a point driver with a 1-component path") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "d"}, {"type", "driver"}, {"body", "body1"}, {"value", {"t"}}});
    });
    CHECK(e.jsonPath() == "/value");
  }
  SECTION("coulomb on a joint without a sliding direction") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "revolute2d"}, {"body1", "body1"}, {"body2", "body2"},
                          {"nonideal", {{"coulomb", 0.3}}}});
    });
    CHECK(e.jsonPath() == "/nonideal/coulomb");
    CHECK_THAT(e.detail(), Catch::Contains("needs a sliding direction"));
  }
  SECTION("nonideal with both laws, or an unknown key") {
    const auto both = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "prismatic2d"}, {"body1", "body1"}, {"body2", "body2"},
                          {"axis", {1, 0}}, {"nonideal", {{"coulomb", 0.3}, {"C", nlohmann::json::object()}}}});
    });
    CHECK_THAT(both.detail(), Catch::Contains("exactly one of 'C'"));
    const auto unknown = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "prismatic2d"}, {"body1", "body1"}, {"body2", "body2"},
                          {"axis", {1, 0}}, {"nonideal", {{"colomb", 0.3}}}});
    });
    CHECK_THAT(unknown.detail(), Catch::Contains("did you mean 'coulomb'?"));
  }
  SECTION("negative friction coefficient") {
    const auto e = inputError([&] {
      return scene.joint({{"name", "j"}, {"type", "prismatic2d"}, {"body1", "body1"}, {"body2", "body2"},
                          {"axis", {1, 0}}, {"nonideal", {{"coulomb", -0.3}}}});
    });
    CHECK_THAT(e.detail(), Catch::Contains("friction coefficient >= 0"));
  }
  SECTION("a force on the ground") {
    const auto e = inputError([&] {
      return scene.force({{"name", "f"}, {"type", "force"}, {"body", "ground"}, {"value", {1, 0}}});
    });
    CHECK(e.jsonPath() == "/body");
  }
}

}  // namespace joinery::test
