// joinery library [NAME] (shipped component libraries, docs/library.md) and a bundled scene that
// includes one by name, as a user runs them.
#include <catch2/catch.hpp>
#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.hpp"

using joinery::test::runCommand;

namespace {

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The index of the first line at or after `from` that `pattern` matches whole (-1: none). Line
/// by line: std::regex recurses once per character, and a pattern over a whole listing
/// overflowed the stack in the sanitizer build.
long findLine(const std::vector<std::string>& lines, const std::string& pattern, long from = 0) {
  const std::regex re(pattern);
  for (long i = std::max(from, 0L); i < static_cast<long>(lines.size()); ++i)
    if (std::regex_match(lines[static_cast<std::size_t>(i)], re)) return i;
  return -1;
}
}  // namespace

TEST_CASE("cli: joinery library lists the shipped libraries and their parts") {
  const auto r = runCommand(kExe + " library");
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("joinery:links") && Catch::Contains("rod, bar, tube, crank, slider, pendulum"));
  CHECK_THAT(r.output, Catch::Contains("joinery:planar    parts: four_bar, slider_crank, wheel, spring_damper, "
                                       "torsion_spring, gear_pair, rack_pinion"));
  CHECK_THAT(r.output, Catch::Contains("joinery:spatial   parts: rod3d, bar3d, tube3d, arm_link, robot_arm2, wheel3d"));
  CHECK_THAT(r.output, Catch::Contains("joinery:vehicles  parts: quarter_car"));
}

TEST_CASE("cli: joinery library shows sub-mechanisms, their parts and re-exported ports") {
  const auto r = runCommand(kExe + " library planar");
  REQUIRE(r.exitCode == 0);
  // parameters in the file's order, with default, unit and meaning
  const auto lines = linesOf(r.output);
  const long part = findLine(lines, "four_bar");
  REQUIRE(part >= 0);
  const long a = findLine(lines, "    a +0.1 +m +crank length \\(A to B\\)", part);
  REQUIRE(a > part);
  CHECK(findLine(lines, "    b +0.3 +m .*", a + 1) == a + 1);
  CHECK_THAT(r.output, Catch::Contains("  made of: crank (crank), coupler (rod), rocker (crank), crank_coupler (revolute2d), "
                                       "coupler_rocker (revolute2d)"));
  CHECK_THAT(r.output, Catch::Contains("    crank_pin re-exports crank.pin"));
  CHECK_THAT(r.output, Catch::Contains("    k         1000              N/m     spring stiffness"));
  const auto v = runCommand(kExe + " library joinery:vehicles");
  REQUIRE(v.exitCode == 0);
  CHECK_THAT(v.output, Catch::Contains("    k_t       160000            N/m     tyre stiffness"));
  CHECK_THAT(v.output, Catch::Contains("    body      body (0, 0)"));
}

TEST_CASE("cli: joinery library NAME prints parts, parameters with defaults and units, and ports") {
  for (const std::string name : {"links", "joinery:links"}) {
    const auto r = runCommand(kExe + " library " + name);
    REQUIRE(r.exitCode == 0);
    // the rod's length: default 1, unit m; its density default and unit; its end ports
    const auto lines = linesOf(r.output);
    CHECK(findLine(lines, "    L +1 +m +length between the end ports") >= 0);
    CHECK(findLine(lines, "    density +7850 +kg/m\\^3 .*") >= 0);
    CHECK_THAT(r.output, Catch::Contains("    a         rod (-L/2, 0)") && Catch::Contains("    pin       arm (L/2, 0)"));
    for (const char* part : {"\nrod\n", "\ncrank\n", "\nslider\n", "\npendulum\n"}) CHECK_THAT(r.output, Catch::Contains(part));
  }
}

TEST_CASE("cli: joinery library with an unknown name exits 2 with a suggestion") {
  const auto r = runCommand(kExe + " library link");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown library 'link'; did you mean 'links'?"));
  CHECK(runCommand(kExe + " library a b c").exitCode == 2);
}

TEST_CASE("cli: joinery library NAME PART prints one part; an unknown part exits 2 with a suggestion") {
  const auto r = runCommand(kExe + " library spatial tube3d");
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::StartsWith("joinery:spatial\ntube3d\n") &&
                           Catch::Contains("    r_in      0.017             m       inner radius (0: a solid rod)"));
  CHECK_THAT(r.output, !Catch::Contains("rod3d"));
  // the spatial rolling wheel: its joint, the parameters of its state with their units, its port
  const auto w = runCommand(kExe + " library spatial wheel3d");
  REQUIRE(w.exitCode == 0);
  CHECK_THAT(w.output, Catch::StartsWith("joinery:spatial\nwheel3d\n") &&
                           Catch::Contains("made of: disc (rigid3d), contact (rolling_disk)") &&
                           Catch::Contains("turn_rate0") && Catch::Contains("rad/s") &&
                           Catch::Contains("    centre    disc (0, 0, 0)"));
  const auto bad = runCommand(kExe + " library planar wheels");
  CHECK(bad.exitCode == 2);
  CHECK_THAT(bad.output, Catch::Contains("unknown part 'wheels' of joinery:planar; did you mean 'wheel'?; parts: four_bar"));
}

TEST_CASE("cli: the bundled slider-crank built from joinery:links is well posed") {
  const auto r = runCommand(kExe + " check " + std::string(JOINERY_SOURCE_DIR) +
                            "/examples/scenes/slider_crank_library.json");
  CHECK(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("WELL POSED") && Catch::Contains("crank.pivot") &&
                           Catch::Contains("piston.guide"));
}
