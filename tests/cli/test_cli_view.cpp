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

TEST_CASE("cli view --summary: the run's events go into the page; a wrong summary is exit 2 naming it") {
  const std::string ball = std::string(JOINERY_SOURCE_DIR) + "/examples/contact/bouncing_ball.json";
  // to t = 0.5 s: the first impact (t0 = sqrt(2 h / g) = 0.4515 s) and no other
  REQUIRE(runCommand(kExe + " simulate " + ball + " -o " + kTmp + "ball.csv --t-end 0.5 --summary " + kTmp + "ball.json").exitCode == 0);
  auto r = runCommand(kExe + " view " + ball + " --results " + kTmp + "ball.csv --summary " + kTmp + "ball.json -o " + kTmp + "ball.html");
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("events: 1 from " + kTmp + "ball.json, 1 impact (marked on the time line)"));
  const std::string page = readAll(kTmp + "ball.html");
  CHECK(page.find("\"events\":[{\"impulse\":") != std::string::npos);
  CHECK(page.find("\"kind\":\"impact\"") != std::string::npos);
  CHECK(page.find("\"shapes\":[{\"plane\":") != std::string::npos);  // the contact's shapes, for drawing

  const std::string view = kExe + " view " + ball + " --results " + kTmp + "ball.csv -o " + kTmp + "x.html --summary ";
  r = runCommand(view + kTmp + "missing.json");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains(kTmp + "missing.json"));
  r = runCommand(view + ball);  // a scene, not a summary
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains(ball) && Catch::Contains("no \"events\" list; expected the summary of a run"));
  const std::string event = R"({"t": 0.45, "kind": "impact", "joint": "floor", "impulse": 3.3})";
  r = runCommand(view + write("s1.json", R"({"events": [)" + event + R"(, {"t": 0.46, "kind": "impact", "joint": "wall", "impulse": 1}]})"));
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("at /events/1/joint: 'wall' is not a joint of the scene; the summary is not of this scene"));
  r = runCommand(view + write("s2.json", R"({"events": [{"t": 7, "kind": "impact", "joint": "floor", "impulse": 1}]})"));
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("at /events/0/t: t = 7 is outside the run of the results (t from 0 to 0.5)"));
  r = runCommand(view + write("s3.json", R"({"events": [{"t": 0.1, "kind": "impact", "joint": "floor", "impulse": "big"}]})"));
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("at /events/0/impulse: found \"big\" (a string); expected a number"));
  r = runCommand(view + write("s4.json", R"({"events": [{"t": 0.1, "joint": "floor", "impulse": 1}]})"));
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("at /events/0: missing \"kind\""));
  r = runCommand(kExe + " view " + ball + " --summary " + kTmp + "ball.json -o " + kTmp + "x.html");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("--summary marks the events of a run: it needs the run's samples, --results RUN.csv"));
  r = runCommand(kExe + " view --help");
  CHECK_THAT(r.output, Catch::Contains("--summary") && Catch::Contains("marked on the time"));
}
#else
TEST_CASE("cli view: a program built without the viewer says so (exit 2)") {
  const auto r = runCommand(kExe + " view " + kScenes + "pendulum.json -o " + kTmp + "x.html");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("built without the viewer"));
}
#endif
