// One verdict in every output, on the bundled mistakes of the slider-crank (examples/mistakes,
// docs/diagnosis.md): check's first line and exit status, check --json's fields, solve and
// simulate agree; the fix each message proposes, applied, checks clean. joinery kinematics
// and assemble keeping the scene as written.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.hpp"

using joinery::test::runCommand;

namespace {
const std::string kVerdictMistakes = std::string(JOINERY_SOURCE_DIR) + "/examples/mistakes/";
std::string verdictLine1(const std::string& s) { return s.substr(0, s.find('\n')); }
nlohmann::json verdictReadJson(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}
std::string verdictScratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "joinery_test_cli_verdict";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}
void verdictWrite(const std::string& path, const nlohmann::json& j) { std::ofstream(path) << j.dump(2); }

/// check, check --json, solve and simulate on `file`: the same verdict everywhere.
void verdictAgree(const std::string& file, int exit, const std::string& first) {
  INFO(file);
  const auto text = runCommand("(" + kExe + " check " + file + " 2>/dev/null)");
  CHECK(text.exitCode == exit);
  CHECK_THAT(verdictLine1(text.output), Catch::StartsWith(first));
  const auto js = runCommand("(" + kExe + " check --json " + file + " 2>/dev/null)");
  CHECK(js.exitCode == exit);
  const nlohmann::json j = nlohmann::json::parse(js.output);
  const std::string status = exit == 0 ? "well_posed" : exit == 3 ? "ill_posed" : "inconsistent";
  CHECK(j["status"] == status);
  CHECK(j["well_posed"] == (exit == 0));
  if (exit == 4) CHECK(j["consistent"] == false);
  // the text's first line is the JSON's headline
  CHECK(verdictLine1(text.output) == std::string(exit == 0 ? "warning: " : "error: ") + j["headline"].get<std::string>());
  CHECK(runCommand(kExe + " solve " + file + " >/dev/null 2>&1").exitCode == exit);
  if (exit != 0) {
    const auto sim = runCommand("(" + kExe + " simulate " + file + " -o " + verdictScratch("run.csv") + " 2>&1 >/dev/null)");
    CHECK(sim.exitCode == exit);
    CHECK_THAT(verdictLine1(sim.output), Catch::Contains(j["headline"].get<std::string>()));
  }
}
}  // namespace

TEST_CASE("cli verdict: a massless body nothing holds is what every output says first (exit 3)") {
  const std::string f = kVerdictMistakes + "slider_crank_massless_sensor.json";
  verdictAgree(f, 3, "error: sensor has zero inertia about its own z axis");
  // the fix: mass and inertia for the sensor
  nlohmann::json doc = verdictReadJson(f);
  for (auto& b : doc["bodies"])
    if (b["name"] == "sensor") b["mass"] = 0.01, b["inertia"] = 1e-6;
  verdictWrite(verdictScratch("sensor_fixed.json"), doc);
  const auto r = runCommand(kExe + " check " + verdictScratch("sensor_fixed.json"));
  CHECK(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("WELL POSED"));
}

TEST_CASE("cli verdict: a guide on the wrong axis is assembled and named, not the pins (exit 0)") {
  const std::string f = kVerdictMistakes + "slider_crank_guide_wrong_axis.json";
  verdictAgree(f, 0, "warning: the initial positions violate guide by 0.5 m");
  auto r = runCommand(kExe + " assemble " + f + " -o " + verdictScratch("guide_asm.json"));
  CHECK(r.exitCode == 0);
  // the fix: the axis meant, [1, 0]; the model then checks clean
  nlohmann::json doc = verdictReadJson(f);
  for (auto& j : doc["joints"])
    if (j["name"] == "guide") j["axis"] = {1, 0};
  verdictWrite(verdictScratch("guide_fixed.json"), doc);
  r = runCommand(kExe + " check " + verdictScratch("guide_fixed.json"));
  CHECK(r.exitCode == 0);
  CHECK_THAT(verdictLine1(r.output), Catch::StartsWith("warning: the initial velocities violate motor"));  // the speed, only
}

TEST_CASE("cli verdict: the rod shorter than the crank is found before any simulation (30 degrees)") {
  const std::string f = kVerdictMistakes + "slider_crank_rod_shorter_than_crank.json";
  verdictAgree(f, 0, "warning: the mechanism cannot pass crank.theta = 0.5236 rad (30°): a dead point");
  // simulate says it before the run (its first line)
  auto r = runCommand("(" + kExe + " simulate " + f + " -o " + verdictScratch("short.csv") + " 2>&1 >/dev/null)");
  CHECK_THAT(verdictLine1(r.output), Catch::StartsWith("warning: the mechanism cannot pass crank.theta = 0.5236 rad"));
  // joinery kinematics: exit 4, the dead point in its JSON within 1e-3 rad of pi/6
  r = runCommand(kExe + " kinematics --json " + f);
  CHECK(r.exitCode == 4);
  const nlohmann::json j = nlohmann::json::parse(r.output);
  CHECK(j["completed"] == false);
  REQUIRE(j["singular"].size() == 1);
  CHECK(j["singular"][0]["kind"] == "dead_point");
  CHECK(std::abs(j["singular"][0]["value"].get<double>() - 0.52359877559829887) < 1e-3);
  // the fix: L = 0.4; a full turn, written as a table of every coordinate per driver value
  r = runCommand(kExe + " kinematics " + f + " --set L=0.4 -o " + verdictScratch("turn.csv"));
  CHECK(r.exitCode == 0);
  std::ifstream table(verdictScratch("turn.csv"));
  std::string header, row;
  std::getline(table, header);
  CHECK_THAT(header, Catch::StartsWith("motor,crank.x,crank.y,crank.theta,") && Catch::Contains("piston.x''"));
  int rows = 0;
  while (std::getline(table, row)) ++rows;
  CHECK(rows == 361);
  r = runCommand(kExe + " check " + f + " --set L=0.4");
  CHECK(r.exitCode == 0);
  CHECK_THAT(verdictLine1(r.output), Catch::StartsWith("warning: the initial velocities violate motor"));
}

TEST_CASE("cli assemble: the scene is kept as written; a changed parameter re-assembles and says so") {
  const std::string f = kVerdictMistakes + "slider_crank_rod_shorter_than_crank.json";
  const std::string out = verdictScratch("asm/sc_asm.json");
  std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  auto r = runCommand(kExe + " assemble " + f + " --set L=0.4 -o " + out);
  REQUIRE(r.exitCode == 0);
  const nlohmann::json doc = verdictReadJson(out);
  CHECK(doc["parameters"]["rpm"] == 300);                           // parameters as written
  CHECK(doc["parameters"]["L"] == 0.4);                             // --set written in
  CHECK(doc["bodies"][1]["position"][0] == "r + L/2");              // expressions kept
  CHECK(doc["simulation"]["t_end"] == "2*60/rpm");
  CHECK(doc["assembled"]["bodies"]["crank"]["angular_velocity"] == Approx(31.41592653589793));
  // the assembled file starts assembled: nothing to say
  r = runCommand(kExe + " check " + out + " 2>&1");
  CHECK(r.exitCode == 0);
  CHECK_THAT(verdictLine1(r.output), Catch::StartsWith("scene: "));
  // --set rpm=100 applies (the driver runs at 100 rpm) and the recorded state is not used
  r = runCommand("(" + kExe + " check --json " + out + " --set rpm=100 2>" + verdictScratch("note.txt") + ")");
  CHECK(r.exitCode == 0);
  std::ifstream note(verdictScratch("note.txt"));
  std::string n;
  std::getline(note, n);
  CHECK_THAT(n, Catch::StartsWith("note: the assembled initial state this file records") &&
                    Catch::Contains("rpm = 100 (300 when assembled)"));
  const nlohmann::json j = nlohmann::json::parse(r.output);
  CHECK(j["assembly"]["velocity_changes"]["crank.theta"]["assembled"].get<double>() ==
        Approx(100 * 2 * 3.141592653589793 / 60));
}

TEST_CASE("cli messages: an angle in degrees and a length in millimetres are said to be so, first") {
  nlohmann::json doc = verdictReadJson(kVerdictMistakes + "slider_crank_guide_wrong_axis.json");
  for (auto& j : doc["joints"])
    if (j["name"] == "guide") j["axis"] = {1, 0};
  nlohmann::json deg = doc;
  deg["bodies"][0]["angle"] = 90;  // meant: 90 degrees, against the motor's 0 at t = 0
  verdictWrite(verdictScratch("deg.json"), deg);
  auto r = runCommand(kExe + " check " + verdictScratch("deg.json"));
  CHECK(r.exitCode == 0);
  CHECK_THAT(verdictLine1(r.output), Catch::StartsWith("warning: the initial positions violate motor by 90 rad") &&
                                         Catch::Contains("(an angle in degrees? joinery's angles are in radians: 90° is 1.57 rad)"));
  nlohmann::json mm = doc;
  mm["parameters"]["L"] = "100 mm";
  verdictWrite(verdictScratch("mm.json"), mm);
  r = runCommand(kExe + " check " + verdictScratch("mm.json"));
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown name 'mm': a unit? numbers in joinery are SI") &&
                           !Catch::Contains("did you mean"));
}

TEST_CASE("cli verdict: two drivers on a one-degree-of-freedom slider-crank are both named (exit 4)") {
  const std::string f = kVerdictMistakes + "slider_crank_two_drivers.json";
  // at the dead centre (theta = 0) only push contradicts the pins at velocity level; the
  // cause is that two drivers prescribe one degree of freedom, and both are named
  verdictAgree(f, 4, "error: motor and push both drive the mechanism, which has 1 degree of freedom without them");
  const auto js = runCommand("(" + kExe + " check --json " + f + " 2>/dev/null)");
  const nlohmann::json j = nlohmann::json::parse(js.output);
  CHECK(j["conflict"]["overdriven"] == true);
  CHECK(j["verdict"] == "inconsistent");  // not "cannot be assembled": the drivers contradict each other
  CHECK(j["conflict"]["joints"] == nlohmann::json::array({"motor", "push"}));
  // the fix: keep one driver (push removed): well posed, only the motor's speed to assemble
  nlohmann::json doc = verdictReadJson(f);
  for (std::size_t k = 0; k < doc["joints"].size(); ++k)
    if (doc["joints"][k]["name"] == "push") {
      doc["joints"].erase(k);
      break;
    }
  verdictWrite(verdictScratch("one_driver.json"), doc);
  const auto r = runCommand(kExe + " check " + verdictScratch("one_driver.json"));
  CHECK(r.exitCode == 0);
  CHECK_THAT(verdictLine1(r.output), Catch::StartsWith("warning: the initial velocities violate motor"));
}

TEST_CASE("cli verdict: a massless flag on a pin is named with its pin (exit 3)") {
  const std::string f = kVerdictMistakes + "slider_crank_massless_flag.json";
  verdictAgree(f, 3, "error: flag has zero inertia about flagpin: give it inertia or fix it with a weld");
  // both fixes it proposes make the model well posed: inertia (its mass may stay 0) ...
  nlohmann::json doc = verdictReadJson(f);
  for (auto& b : doc["bodies"])
    if (b["name"] == "flag") b["inertia"] = 1e-6;
  verdictWrite(verdictScratch("flag_inertia.json"), doc);
  auto r = runCommand(kExe + " check " + verdictScratch("flag_inertia.json"));
  CHECK(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("WELL POSED"));
  // ... or a weld2d in place of flagpin
  doc = verdictReadJson(f);
  for (auto& j : doc["joints"])
    if (j["name"] == "flagpin") j["type"] = "weld2d";
  verdictWrite(verdictScratch("flag_weld.json"), doc);
  r = runCommand(kExe + " check " + verdictScratch("flag_weld.json"));
  CHECK(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("WELL POSED"));
}

TEST_CASE("cli verdict: the bundled angle in degrees and length in millimetres say so first") {
  std::string f = kVerdictMistakes + "slider_crank_angle_in_degrees.json";
  verdictAgree(f, 0, "warning: the initial positions violate motor by 90 rad");
  auto r = runCommand(kExe + " check " + f);
  CHECK_THAT(verdictLine1(r.output), Catch::Contains("(an angle in degrees? joinery's angles are in radians: 90° is 1.57 rad)"));
  // the fix: radians, 0 as the motor holds at t = 0: the positions are then assembled
  nlohmann::json doc = verdictReadJson(f);
  doc["bodies"][0]["angle"] = 0;
  verdictWrite(verdictScratch("radians.json"), doc);
  r = runCommand(kExe + " check " + verdictScratch("radians.json"));
  CHECK(r.exitCode == 0);
  CHECK_THAT(verdictLine1(r.output), Catch::StartsWith("warning: the initial velocities violate motor"));
  f = kVerdictMistakes + "slider_crank_length_in_mm.json";
  for (const char* cmd : {" check ", " check --json ", " solve "}) {
    r = runCommand("(" + kExe + cmd + f + " 2>&1)");
    CHECK(r.exitCode == 2);
    CHECK_THAT(r.output, Catch::Contains("/parameters/L") && Catch::Contains("unknown name 'mm': a unit?") &&
                             Catch::Contains("write 0.1 for 100 mm"));
  }
  r = runCommand("(" + kExe + " simulate " + f + " -o " + verdictScratch("mm.csv") + " 2>&1)");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown name 'mm'"));
  doc = verdictReadJson(f);
  doc["parameters"]["L"] = 0.1;
  verdictWrite(verdictScratch("metres.json"), doc);
  r = runCommand(kExe + " check " + verdictScratch("metres.json"));
  CHECK(r.exitCode == 0);
}

TEST_CASE("cli verdict: the bundled assembled slider-crank re-assembles under --set and says so first") {
  const std::string f = kVerdictMistakes + "slider_crank_assembled.json";
  auto r = runCommand("(" + kExe + " check " + f + " 2>&1)");
  CHECK(r.exitCode == 0);
  CHECK_THAT(verdictLine1(r.output), Catch::StartsWith("scene: "));  // starts assembled: nothing to say
  for (const std::string& cmd : {std::string(" check "), " simulate -o " + verdictScratch("set.csv") + " "}) {
    INFO(cmd);
    r = runCommand("(" + kExe + cmd + f + " --set rpm=100 --set m_p=4 2>&1 >/dev/null)");
    CHECK(r.exitCode == 0);
    CHECK_THAT(verdictLine1(r.output), Catch::StartsWith("note: the assembled initial state this file records") &&
                                           Catch::Contains("rpm = 100 (300 when assembled)"));
  }
}
