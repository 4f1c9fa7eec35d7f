// The joinery executable as a user runs it: exit codes and output of the contract.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

using joinery::test::runCommand;

namespace {
const std::string kExe = JOINERY_EXE;
const std::string kExamples = std::string(JOINERY_SOURCE_DIR) + "/examples/problems/";

std::string writeTemp(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/joinery_test_cli_" + name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("cli: solve on a well-posed matrix problem exits 0 with the closed form") {
  const auto r = runCommand(kExe + " solve --json " + kExamples + "wheel_on_incline.json");
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.output);
  // theta'' = m g R sin(alpha) / (Ic + m R^2) = 6.54 (seed 002, Example 1); 1e-10 relative
  CHECK(j["qdd"]["theta"].get<double>() == Approx(6.54).epsilon(1e-10));
  CHECK(j["qdd"]["y"].get<double>() == Approx(1.635).epsilon(1e-10));
  CHECK(j["well_posed"] == true);
}

TEST_CASE("cli: the two-spring example with the balance added matches the paper") {
  const auto r = runCommand(kExe + " solve --json " + kExamples + "two_springs_m1_balance_added.json");
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.output);
  // m2 q2'' = -k2 (q2 - q1 - l20) = -10 with m2 = 2; x1'' = q1'' = k2 q2''/(k1 + k2)
  CHECK(j["qdd"]["q2"].get<double>() == Approx(-5.0).epsilon(1e-10));
  CHECK(j["qdd"]["x1"].get<double>() == Approx(-5.0 / 3.0).epsilon(1e-10));
}

TEST_CASE("cli: ill-posed problems exit 3 and name the indeterminate coordinates") {
  auto r = runCommand(kExe + " solve --json " + kExamples + "two_springs_massless_m1.json");
  REQUIRE(r.exitCode == 3);
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["indeterminate"] == nlohmann::json::array({"x1", "q1"}));
  CHECK(j["indeterminate_directions"][0]["force_balanced"] == true);
  r = runCommand(kExe + " solve " + kExamples + "wheel_with_massless_particle.json");
  REQUIRE(r.exitCode == 3);
  CHECK_THAT(r.output, Catch::Contains("ILL POSED") && Catch::Contains("Coordinates: x."));
}

TEST_CASE("cli: inconsistent constraints exit 4") {
  const auto r = runCommand(kExe + " solve " + kExamples + "contradicting_drivers.json");
  REQUIRE(r.exitCode == 4);
  CHECK_THAT(r.output, Catch::Contains("inconsistent constraints"));
}

TEST_CASE("cli: invalid files exit 2 naming the file and the field") {
  struct Case {
    std::string text, fragment;
  };
  const std::vector<Case> cases = {
      {"", "file is empty"},
      {"{\"joinery\": 1, \"M\": [[1, 0], [0, 1]], \"Q\": [1]}", "at /Q: has 1 entries; expected 2"},
      {"{\"joinery\": 1, \"M\": [[1, 2], [0, 1]]}", "at /M/0/1: M is not symmetric"},
      {"{\"joinery\": 1, \"M\": [[1, 0], [0, 1]], \"A\": [[1, 0]], \"b\": [\"x\"]}",
       "at /b/0: found \"x\" (a string); expected a number"},
      {"{\"joinery\": 1, \"M\": [[1]], ", "JSON syntax error"},
      {"[1, 2]", "expected a scene (with 'bodies') or a matrix problem"},
  };
  int k = 0;
  for (const auto& c : cases) {
    const std::string path = writeTemp("bad" + std::to_string(k++) + ".json", c.text);
    const auto r = runCommand(kExe + " solve " + path);
    INFO(c.text << "\n" << r.output);
    CHECK(r.exitCode == 2);
    CHECK_THAT(r.output, Catch::Contains(path) && Catch::Contains(c.fragment));
  }
  const auto missing = runCommand(kExe + " solve /nonexistent/problem.json");
  CHECK(missing.exitCode == 2);
  CHECK_THAT(missing.output, Catch::Contains("cannot open"));
}

TEST_CASE("cli: usage errors exit 2; --help exits 0") {
  CHECK(runCommand(kExe + " solve").exitCode == 2);
  CHECK(runCommand(kExe + " solve --frobnicate x.json").exitCode == 2);
  CHECK(runCommand(kExe + " no-such-command").exitCode == 2);
  const auto h = runCommand(kExe + " solve --help");
  CHECK(h.exitCode == 0);
  CHECK_THAT(h.output, Catch::Contains("usage: joinery solve"));
}

TEST_CASE("cli: a number too large for a double is an input error, not a crash") {
  const std::string path = writeTemp("huge.json", "{\"joinery\": 1, \"M\": [[1e400]]}");
  const auto r = runCommand(kExe + " solve " + path);
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains(path) && Catch::Contains("fit a double"));
}

TEST_CASE("cli: every bundled example scene loads, checks and runs") {
  // Scenes whose name says "massless" are ill posed on purpose (exit 3); all others must be
  // well posed (exit 0) and simulate for a short time.
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(JOINERY_SOURCE_DIR) / "examples" / "scenes";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    const std::string scene = entry.path().string();
    const bool illPosed = entry.path().filename().string().find("massless") != std::string::npos;
    const auto check = runCommand(kExe + " check " + scene);
    INFO(scene << "\n" << check.output);
    CHECK(check.exitCode == (illPosed ? 3 : 0));
    if (illPosed) {
      CHECK_THAT(check.output, Catch::Contains("ILL POSED") && Catch::Contains("undetermined"));
      continue;
    }
    const std::string csv = "/tmp/joinery_test_cli_" + entry.path().stem().string() + ".csv";
    const auto sim = runCommand(kExe + " simulate " + scene + " -o " + csv + " --t-end 0.05");
    INFO(sim.output);
    CHECK(sim.exitCode == 0);
    std::ifstream in(csv);
    std::string header;
    std::getline(in, header);
    CHECK(header.rfind("t,", 0) == 0);
  }
  CHECK(count >= 4);
}

TEST_CASE("cli: graph writes DOT naming every body and joint") {
  const std::string scene = std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/n_four_bar_2.json";
  const auto r = runCommand(kExe + " graph " + scene + " -o /tmp/joinery_test_cli_fb.dot");
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("2 independent loop(s)"));
  std::ifstream in("/tmp/joinery_test_cli_fb.dot");
  const std::string dot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* name : {"crank0.rod", "coupler1.rod", "pivot2", "right1"})
    CHECK_THAT(dot, Catch::Contains(name));
  CHECK(runCommand(kExe + " graph " + scene).exitCode == 2);  // -o is required
}
