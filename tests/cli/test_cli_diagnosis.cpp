// joinery check / solve / simulate / assemble on the bundled mistakes (examples/mistakes,
// docs/diagnosis.md): the first line names what to change, the exit status follows it.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.hpp"

using joinery::test::runCommand;

namespace {
const std::string kMistakes = std::string(JOINERY_SOURCE_DIR) + "/examples/mistakes/";

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }
std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("cli diagnosis: each mistake's first line names the joint, body or axis to change") {
  struct Case {
    std::string file;
    int exit;
    std::string first;  ///< the first line starts with this
  };
  const std::vector<Case> cases = {
      {"slider_crank_gap.json", 0, "warning: the initial positions violate wrist_pin by 0.05 m"},
      {"slider_crank_cannot_close.json", 4, "error: "},
      {"four_bar_locked_by_brace.json", 0, "warning: the mechanism is locked by brace"},
      {"four_bar_braced_and_driven.json", 4, "error: "},
      {"four_bar_two_drivers.json", 4, "error: motor against motor2"},
      {"four_bar_driven_at_rest.json", 0, "warning: the initial velocities violate motor by 10 rad/s"},
      {"slender_rods_zero_axial_inertia.json", 3,
       "error: rod1 has zero inertia about its own x axis: give it Ixx > 0 or constrain the spin"},
      {"free_massless_point.json", 3, "error: tip has zero mass and nothing holds it along world x and y"},
      {"flexible_node_unheld.json", 3,
       "error: interface node 'tip' of body 'bracket' (bracket.tip_x, bracket.tip_y) has no mass and no joint "
       "acts on it: give it mass or a joint on it"},
      {"planar_point_with_z.json", 0, "warning: pivot: point1 has z = 0.1"},
      {"millimetre_lengths.json", 0, "warning: the lengths look like millimetres"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const auto r = runCommand("(" + kExe + " check " + kMistakes + c.file + " 2>/dev/null)");
    CHECK(r.exitCode == c.exit);
    CHECK_THAT(firstLine(r.output), Catch::StartsWith(c.first));
  }
  // the braced, driven loop names the brace against the motor first, the loop's pins only as
  // alternatives that would cost a degree of freedom
  auto r = runCommand(kExe + " check " + kMistakes + "four_bar_braced_and_driven.json");
  CHECK_THAT(firstLine(r.output), Catch::StartsWith("error: brace against motor: they contradict each other") &&
                                      Catch::Contains("(removing A, B, C or D would also restore consistency"));
  r = runCommand(kExe + " check " + kMistakes + "slider_crank_cannot_close.json");
  CHECK_THAT(r.output, Catch::Contains("INCONSISTENT: the mechanism cannot be assembled"));
  // a driver with an infinite speed at t = 0 is invalid input, naming the driver
  r = runCommand(kExe + " check " + kMistakes + "driver_not_smooth.json");
  CHECK(r.exitCode == 2);
  CHECK_THAT(firstLine(r.output), Catch::Contains("motor: the prescribed motion is not twice differentiable at t = 0"));
  // a negative free length is invalid input naming the field
  r = runCommand(kExe + " check " + kMistakes + "negative_free_length.json");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("/forces/0/free_length"));
}

TEST_CASE("cli diagnosis: --strict turns warnings into errors (exit 2)") {
  for (const char* f : {"slider_crank_gap.json", "planar_point_with_z.json", "millimetre_lengths.json"}) {
    INFO(f);
    CHECK(runCommand(kExe + " check --strict " + kMistakes + f).exitCode == 2);
  }
  // solve on an unassembled state warns, and refuses with --strict
  auto r = runCommand(kExe + " solve " + kMistakes + "four_bar_driven_at_rest.json");
  CHECK(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("warning: the initial velocities violate motor by 10 rad/s") &&
                           Catch::Contains("at the assembled state"));
  r = runCommand(kExe + " solve --strict " + kMistakes + "slider_crank_gap.json");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("wrist_pin"));
}

TEST_CASE("cli diagnosis: assemble writes a scene that checks clean; cannot-close is exit 4") {
  const std::string out = std::string(joinery_test_tmp_dir()) + "/joinery_test_cli_assembled.json";
  std::remove(out.c_str());
  auto r = runCommand(kExe + " assemble " + kMistakes + "slider_crank_gap.json -o " + out);
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("initial positions violated wrist_pin: 0.05 m"));
  r = runCommand(kExe + " check " + out);
  CHECK(r.exitCode == 0);
  CHECK_THAT(firstLine(r.output), Catch::StartsWith("scene: "));  // no warning left
  r = runCommand(kExe + " assemble --json " + kMistakes + "four_bar_driven_at_rest.json -o " + out);
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j["assembled"] == true);
  CHECK(j["velocity_violations"].contains("motor"));
  // the assembled crank turns at the driver's 10 rad/s
  CHECK(j["velocity_changes"]["crank.theta"]["assembled"].get<double>() == Approx(10).epsilon(1e-9));
  const std::string bad = std::string(joinery_test_tmp_dir()) + "/joinery_test_cli_not_assembled.json";
  std::remove(bad.c_str());
  r = runCommand(kExe + " assemble " + kMistakes + "slider_crank_cannot_close.json -o " + bad);
  CHECK(r.exitCode == 4);
  CHECK_THAT(r.output, Catch::Contains("cannot be assembled") && Catch::Contains("nothing written"));
  CHECK(slurp(bad).empty());
}

TEST_CASE("cli diagnosis: simulate says on stderr and in its summary that a locked mechanism lost its velocity") {
  const std::string csv = std::string(joinery_test_tmp_dir()) + "/joinery_test_cli_locked.csv", sum = std::string(joinery_test_tmp_dir()) + "/joinery_test_cli_locked.json";
  const std::string err = std::string(joinery_test_tmp_dir()) + "/joinery_test_cli_locked.err";
  const auto r = runCommand("(" + kExe + " simulate " + kMistakes + "four_bar_locked_by_brace.json -o " + csv +
                            " --summary " + sum + " 2>" + err + ")");
  CHECK(r.exitCode == 0);
  CHECK_THAT(slurp(err), Catch::Contains("warning: the mechanism is locked by brace"));  // standard error
  CHECK_THAT(r.output, Catch::Contains("warning: the mechanism is locked by brace"));    // the run's summary
  const auto j = nlohmann::json::parse(slurp(sum));
  CHECK_THAT(j["initial_conditions"]["locked"].get<std::string>(),
             Catch::StartsWith("the mechanism is locked by brace") && Catch::Contains("crank.theta"));
}

TEST_CASE("cli: a completed balance and the graph read the same in every run", "[cli][completion]") {
  // GiNaC orders a sum's terms by hashes that depend on where the program is loaded (ASLR):
  // before the terms were put in a fixed order, four runs printed this balance four ways
  const std::string scene = std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/two_springs_completed_m1.json";
  const std::string dot = std::string(joinery_test_tmp_dir()) + "/joinery_test_cli_completed.dot";
  std::string first, firstDot;
  for (int run = 0; run < 6; ++run) {
    const auto r = runCommand(kExe + " check " + scene + " --json 2>/dev/null");
    REQUIRE(r.exitCode == 0);
    const auto j = nlohmann::json::parse(r.output);
    const std::string balance = j["completion"]["balances"][0]["balance"].get<std::string>();
    REQUIRE(runCommand(kExe + " graph " + scene + " -o " + dot).exitCode == 0);
    std::ifstream in(dot);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (run == 0) {
      first = balance;
      firstDot = text;
      // the constant first, then the terms by their text
      CHECK(balance == "-50-100*s1.mass.x+100*sign(s1.mass.x)-50*s2.chain.q1+50*s2.chain.q2");
    }
    CHECK(balance == first);
    CHECK(text == firstDot);
  }
}
