// joinery view as a user runs it: bad input (results of another scene, a broken CSV, a
// wrong visual shape) is exit 2 naming the first mismatch; a page is one self-contained file.
// The page in a browser is tested by test_viewer (tests/viewer).
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <string>

#include "run_command.hpp"

using joinery::test::runCommand;

namespace {
const std::string kScenes = std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/";
const std::string kTmp = std::string(joinery_test_tmp_dir()) + "/joinery_test_cli_view_";

std::string write(const std::string& name, const std::string& text) {
  std::ofstream(kTmp + name) << text;
  return kTmp + name;
}
std::string readAll(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), {}};
}
}  // namespace

#ifdef JOINERY_HAVE_VIEWER
TEST_CASE("cli view: results of another scene name the first missing coordinate column (exit 2)") {
  REQUIRE(runCommand(kExe + " simulate " + kScenes + "pendulum.json -o " + kTmp + "pendulum.csv --t-end 0.05").exitCode == 0);
  const auto r = runCommand(kExe + " view " + kScenes + "slider_crank.json --results " + kTmp + "pendulum.csv -o " + kTmp + "x.html");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("column 'crank.rod.x' (a coordinate of the scene) is missing") &&
                           Catch::Contains("the CSV has t, bob.x, bob.y, bob.x_dot"));
}

TEST_CASE("cli view: a broken CSV is reported with its line (exit 2)") {
  const std::string scene = kScenes + "pendulum.json";
  auto r = runCommand(kExe + " view " + scene + " --results " + write("a.csv", "t,bob.x,bob.y\n0,1,0\n0.1,0.9,zz\n") + " -o " + kTmp + "x.html");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("line 3, column 'bob.y': 'zz' is not a number"));
  r = runCommand(kExe + " view " + scene + " --results " + write("b.csv", "t,bob.x,bob.y\n0,1,0\n0.1,0.9\n") + " -o " + kTmp + "x.html");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("line 3 has 2 fields; expected 3"));
  r = runCommand(kExe + " view " + scene + " --results " + write("c.csv", "bob.x,t,bob.y\n1,0,0\n") + " -o " + kTmp + "x.html");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("the first column is 'bob.x'; expected 't'"));
  r = runCommand(kExe + " view " + scene + " --results " + write("d.csv", "t,bob.x,bob.y\n0.2,1,0\n0.1,1,0\n") + " -o " + kTmp + "x.html");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("time goes backwards at sample 2"));
}

TEST_CASE("cli view: a visual shape with a wrong field is exit 2 with its JSON path") {
  const std::string scene = write("visual.json", R"({"joinery": 1, "bodies": [
    {"name": "bob", "type": "particle", "dim": 2, "mass": 1, "position": [1, 0],
     "visual": [{"type": "sphere", "radius": 0.1}, {"type": "cylinder", "radius": 0.1, "lenght": 1}]}]})");
  const auto r = runCommand(kExe + " view " + scene + " -o " + kTmp + "x.html");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("at /bodies/0/visual/1/lenght: unknown key 'lenght'; did you mean 'length'?"));
}

TEST_CASE("cli view: the page is one file with the viewer, the scene and the samples inside") {
  REQUIRE(runCommand(kExe + " simulate " + kScenes + "pendulum.json -o " + kTmp + "p.csv --t-end 0.1").exitCode == 0);
  const auto r = runCommand(kExe + " view " + kScenes + "pendulum.json --results " + kTmp + "p.csv -o " + kTmp + "p.html");
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("1 bodies, 11 frames, 8 columns"));
  const std::string page = readAll(kTmp + "p.html");
  CHECK(page.find("<script id=\"joinery-data\" type=\"application/json\">") != std::string::npos);
  CHECK(page.find("<script id=\"joinery-samples\"") != std::string::npos);
  CHECK(page.find("joineryView") != std::string::npos);       // the bundled viewer
  CHECK(page.find("<script src=") == std::string::npos);       // nothing loaded from elsewhere
  CHECK(page.find("<link") == std::string::npos);
  CHECK(page.find("default-src 'none'") != std::string::npos);  // and the page may not fetch anything
}
#else
TEST_CASE("cli view: a program built without the viewer says so (exit 2)") {
  const auto r = runCommand(kExe + " view " + kScenes + "pendulum.json -o " + kTmp + "x.html");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("built without the viewer"));
}
#endif
