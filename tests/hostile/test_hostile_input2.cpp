// The second round of hostile input: crashes of the assembly report, outputs that would
// destroy inputs, temporary files an attacker plants or two runs share, signals repeated or
// from a file size limit, a summary that cannot be written, physically impossible inertias,
// included files never quoted, and scene strings that would drive the terminal.
#include <catch2/catch.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "joinery/core/assembly.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/core/terminal_text.hpp"
#include "run_command.hpp"
#include "spawn.hpp"
#include "temp_files.hpp"
#include "test_paths.hpp"

using joinery::test::readText;
using joinery::test::runCommand;
using joinery::test::writeText;
namespace fs = std::filesystem;

namespace hostile2 {  // named: the unity build puts this file beside test_hostile_runs.cpp

fs::path dir() { return joinery::test::tempFolder("joinery_test_hostile_input2"); }

/// A rod pinned at its end, with its centre at (cx, cy) and an angular velocity w.
std::string rod(const std::string& cx, const std::string& cy, const std::string& w = "0") {
  return R"({"joinery": 1, "bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1,
    "position": [)" + cx + ", " + cy + R"(], "angular_velocity": )" + w + R"(}],
    "joints": [{"name": "pivot", "type": "revolute2d", "body1": "ground", "point1": [0, 0],
                "body2": "rod", "point2": [-0.5, 0]}]})";
}

std::string pendulum(double tEnd, double interval) { return joinery::test::pendulumScene(tEnd, interval); }

/// Files of `folder` whose name starts with `prefix`.
std::vector<fs::path> startingWith(const fs::path& folder, const std::string& prefix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  return out;
}

/// SIGXFSZ left at its default in the child: the program must ignore it itself (spawn.hpp).
pid_t spawn(const std::vector<std::string>& args, const std::string& log, rlim_t fsize = 0) {
  return joinery::test::spawn(args, log, fsize, false);
}

/// The exit status (-1 - signal when a signal ended it; -1000 still running after `seconds`).
int waitExit(pid_t pid, double seconds) {
  int status = 0;
  for (int i = 0; i < static_cast<int>(seconds * 100); ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1 - WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1000;
}

std::size_t countLines(const fs::path& p) {
  const std::string t = readText(p);
  return static_cast<std::size_t>(std::count(t.begin(), t.end(), '\n'));
}

/// Every line of a CSV has the header's number of fields and the text ends with a newline.
void checkWholeRows(const fs::path& p) {
  const std::string t = readText(p);
  REQUIRE(!t.empty());
  CHECK(t.back() == '\n');
  std::istringstream in(t);
  std::string header, line;
  std::getline(in, header);
  const auto n = std::count(header.begin(), header.end(), ',');
  while (std::getline(in, line)) REQUIRE(std::count(line.begin(), line.end(), ',') == n);
}

}  // namespace hostile2

using hostile2::checkWholeRows;
using hostile2::dir;
using hostile2::rod;
using hostile2::startingWith;

TEST_CASE("hostile 2: a joint over tolerance with no single row over it is reported, not a crash", "[hostile]") {
  // the pivot is off by 0.8 nm: the norm of the two rows passes the tolerance, neither row does
  const fs::path d = dir();
  const std::string off = writeText(d / "off.json", rod("0.5000000008", "8e-10"));
  for (const char* cmd : {" check ", " solve ", " assemble "}) {
    INFO(cmd);
    const auto r = runCommand(kExe + cmd + off + (std::string(cmd) == " assemble " ? " -o " + (d / "off_out.json").string() : ""));
    INFO(r.output);
    CHECK(r.exitCode >= 0);  // ended by itself (a segfault is -1)
    CHECK(r.exitCode != 1);  // no internal error
  }
  const joinery::Scene s = joinery::sceneFromJson(nlohmann::json::parse(rod("0.5000000008", "8e-10")), "off.json");
  const auto residuals = joinery::jointResiduals(s.model, s.model.initialState(), false, 1e-9);
  REQUIRE(residuals.size() == 1);  // the norm 1.13e-9 is over 1e-9
  REQUIRE(residuals[0].rows.size() == 1);  // the larger row, though neither is over it alone
  CHECK(std::abs(residuals[0].rows[0].value) == Approx(8e-10).epsilon(1e-3));
  CHECK(residuals[0].unit == "m");
  // an angular velocity of 1e200: an infinite tolerance, the same site
  const std::string fast = writeText(d / "fast.json", rod("0.5", "0", "1e200"));
  for (const char* cmd : {" check ", " assemble "}) {
    const auto r = runCommand(kExe + cmd + fast + (std::string(cmd) == " assemble " ? " -o " + (d / "fast_out.json").string() : ""));
    INFO(cmd << r.output);
    CHECK(r.exitCode >= 0);
    CHECK(r.exitCode != 1);
  }
}

TEST_CASE("hostile 2: an instance parameter of 1e308 in the N-four-bar is an answer, not a crash", "[hostile]") {
  const fs::path src = fs::path(joinery_test_source_dir()) / "examples" / "scenes" / "n_four_bar_2.json";
  nlohmann::json j = nlohmann::json::parse(readText(src));
  j["include"] = {(fs::path(joinery_test_source_dir()) / "examples" / "lib" / "links.json").string()};
  j["instances"][0]["parameters"]["x"] = 1e308;
  const std::string file = writeText(dir() / "far_bar.json", j.dump());
  for (const char* cmd : {" check ", " solve "}) {
    const auto r = runCommand(kExe + cmd + file);
    INFO(cmd << r.output);
    CHECK(r.exitCode >= 0);
    CHECK(r.exitCode != 1);
  }
}

TEST_CASE("hostile 2: no output replaces an input or another output", "[hostile]") {
  const fs::path d = dir();
  fs::create_directories(d / "lib");
  const std::string lib = writeText(d / "lib" / "parts.json", R"({"joinery": 1, "components": {"bob": {
      "bodies": [{"name": "b", "type": "particle", "dim": 2, "mass": 1, "position": [1, 0]}]}}})");
  const std::string scene = writeText(d / "p.json", R"({"joinery": 1, "include": ["lib/parts.json"],
      "bodies": [], "instances": [{"name": "i", "component": "bob"}],
      "simulation": {"t_end": 0.02, "output_interval": 0.01}})");
  const std::string sceneText = readText(scene), libText = readText(lib);
  struct Case {
    std::string args;
    std::string refusal;
  };
  const std::string x = (d / "x.csv").string();
  fs::remove(x);
  const std::vector<Case> cases = {
      {" assemble " + scene + " -o " + scene, "is the input file"},
      {" assemble " + scene + " -o " + lib, "is the input file"},  // an included library
      {" simulate " + scene + " -o " + lib, "is the input file"},
      {" simulate " + scene + " -o " + x + " --summary " + lib, "is the input file"},
      {" simulate " + scene + " -o " + x + " --summary " + x, "is also the file of -o"},  // x.csv does not exist
      {" simulate " + scene + " -o " + x + " --summary " + (d / "lib" / ".." / "x.csv").string(), "is also the file of -o"},
      {" graph " + scene + " -o " + lib, "is the input file"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const auto r = runCommand(kExe + c.args);
    INFO(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find(c.refusal) != std::string::npos);
    CHECK(readText(scene) == sceneText);
    CHECK(readText(lib) == libText);
    CHECK_FALSE(fs::exists(x));
  }
  // a study's table or JSON lines over the study's scene, or over its library
  const std::string study = writeText(d / "st.json", R"({"joinery": 1, "scene": "p.json",
      "design": {"type": "list", "parameters": {"simulation.t_end": [0.01]}}, "collect": ["steps"]})");
  for (const std::string& args : {" study " + study + " -o " + scene, " study " + study + " -o " + x + " --jsonl " + scene,
                                  " study " + study + " -o " + lib, " study " + study + " -o " + x + " --jsonl " + x}) {
    INFO(args);
    const auto r = runCommand(kExe + args);
    INFO(r.output);
    CHECK(r.exitCode == 2);
    CHECK(readText(scene) == sceneText);
    CHECK(readText(lib) == libText);
  }
  // a different output is written as before
  const auto ok = runCommand(kExe + " simulate " + scene + " -o " + x + " --summary " + (d / "x.json").string());
  INFO(ok.output);
  CHECK(ok.exitCode == 0);
}

TEST_CASE("hostile 2: the temporary file is a new file of its own, never a planted link", "[hostile]") {
  const fs::path d = dir();
  const std::string scene = writeText(d / "short.json", hostile2::pendulum(0.05, 0.01));
  const fs::path out = d / "o.csv";
  fs::remove(out);
  const std::string keep = writeText(d / "keep.txt", "keep me\n");
  fs::remove(d / "o.csv.partial");
  fs::create_symlink(d / "keep.txt", d / "o.csv.partial");  // the name an old release wrote to
  const auto r = runCommand(kExe + " simulate " + scene + " -o " + out.string());
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  CHECK(readText(keep) == "keep me\n");
  CHECK(hostile2::countLines(out) == 7);
  CHECK(fs::is_symlink(fs::symlink_status(d / "o.csv.partial")));  // left alone
  CHECK(startingWith(d, "o.csv.partial.").empty());                // its own temporary file renamed away
  // the new file has the mode a new file gets (not mkstemp's 0600)
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK((static_cast<unsigned>(fs::status(out).permissions()) & 0777u) == (0666u & ~mask));
}

TEST_CASE("hostile 2: two runs with the same output do not share a temporary file", "[hostile][signal]") {
  const fs::path d = dir();
  const std::string scene = writeText(d / "two.json", hostile2::pendulum(4, 0.001));  // 4 001 rows
  const fs::path out = d / "two.csv";
  fs::remove(out);
  const pid_t a = hostile2::spawn({kExe, "simulate", scene, "-o", out.string()}, (d / "a.log").string());
  const pid_t b = hostile2::spawn({kExe, "simulate", scene, "-o", out.string()}, (d / "b.log").string());
  CHECK(hostile2::waitExit(a, 120) == 0);
  CHECK(hostile2::waitExit(b, 120) == 0);
  checkWholeRows(out);
  CHECK(hostile2::countLines(out) == 4002);  // one whole run's table, header included: no NUL bytes, no mix
  CHECK(readText(out).find('\0') == std::string::npos);
  CHECK(startingWith(d, "two.csv.partial").empty());
}

TEST_CASE("hostile 2: a repeated SIGTERM (GNU timeout) still stops cleanly with the outputs in place", "[hostile][signal]") {
  const fs::path d = dir();
  const std::string scene = writeText(d / "long.json", hostile2::pendulum(1e5, 0.05));
  const fs::path out = d / "to.csv", summary = d / "s.json", log = d / "to.log";
  fs::remove(out);
  fs::remove(summary);
  const pid_t pid = hostile2::spawn({kExe, "simulate", scene, "-o", out.string(), "--summary", summary.string()}, log.string());
  for (int i = 0; i < 3000; ++i) {
    const auto partial = startingWith(d, "to.csv.partial.");
    if (!partial.empty() && hostile2::countLines(partial.front()) >= 51) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGTERM);
  ::kill(pid, SIGTERM);  // as timeout does: to the child, then to the process group
  const int status = hostile2::waitExit(pid, 30);
  const std::string msg = readText(log);
  INFO(msg);
  CHECK(status == 143);
  CHECK(msg.find("SIGTERM received") != std::string::npos);
  checkWholeRows(out);
  CHECK(hostile2::countLines(out) >= 51);
  CHECK(nlohmann::json::parse(readText(summary))["outcome"] == "stopped");
  CHECK(startingWith(d, "to.csv.partial").empty());
}

TEST_CASE("hostile 2: a file size limit is exit 5 with whole rows, without the test ignoring SIGXFSZ", "[hostile][signal]") {
  const fs::path d = dir();
  const std::string scene = writeText(d / "fill.json", hostile2::pendulum(20, 0.001));
  const fs::path out = d / "fill.csv", log = d / "fill.log";
  fs::remove(out);
  const pid_t pid = hostile2::spawn({kExe, "simulate", scene, "-o", out.string()}, log.string(), 100000);
  const int status = hostile2::waitExit(pid, 60);
  const std::string msg = readText(log);
  INFO(msg);
  CHECK(status == 5);  // not killed by SIGXFSZ (-1 - 25)
  CHECK(msg.find("File too large") != std::string::npos);
  checkWholeRows(out);
  CHECK(fs::file_size(out) <= 100000);
}

TEST_CASE("hostile 2: a summary that cannot be written fails the run (exit 5)", "[hostile]") {
  if (!fs::exists("/dev/full")) return;
  const fs::path d = dir();
  const std::string scene = writeText(d / "sum.json", hostile2::pendulum(0.05, 0.01));
  const auto r = runCommand(kExe + " simulate " + scene + " -o " + (d / "sum.csv").string() + " --summary /dev/full");
  INFO(r.output);
  CHECK(r.exitCode == 5);
  CHECK(r.output.find("No space left on device") != std::string::npos);
  CHECK(hostile2::countLines(d / "sum.csv") == 7);  // the table is kept
}

TEST_CASE("hostile 2: an inertia no body can have is refused with the body and the rule", "[hostile]") {
  const auto load = [](const std::string& inertia) {
    return joinery::sceneFromJson(nlohmann::json::parse(R"({"joinery": 1, "bodies": [{"name": "brick", "type": "rigid3d",
        "mass": 1, "inertia": )" + inertia + "}]}"),
                                  "i.json");
  };
  try {
    (void)load("[1, 1, 5]");
    FAIL("accepted");
  } catch (const joinery::InputError& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("body 'brick'") != std::string::npos);
    CHECK(m.find("5 > 1 + 1") != std::string::npos);
    CHECK(m.find("triangle inequality") != std::string::npos);
    CHECK(m.find("/bodies/0/inertia") != std::string::npos);
  }
  CHECK_THROWS_AS(load("[[2, 0, 0], [0, 2, 0], [0, 0, 4.1]]"), joinery::InputError);  // the matrix form too
  CHECK_NOTHROW(load("[1, 1, 2]"));          // a flat plate: equality
  CHECK_NOTHROW(load("[0, 0.0833, 0.0833]"));  // a thin rod
  CHECK_NOTHROW(load("[0.4, 0.4, 0.4]"));      // a sphere
}

TEST_CASE("hostile 2: an included file that is JSON but not a library is never quoted", "[hostile]") {
  const fs::path d = dir();
  for (const std::string& content : {std::string(R"("ghp_SECRET")"), std::string("32768"),
                                     std::string(R"(["ghp_SECRET", "more"])"), std::string(R"({"joinery": "ghp_SECRET"})")}) {
    INFO(content);
    writeText(d / "secret.json", content);
    const std::string scene = writeText(d / "inc.json", R"({"joinery": 1, "include": ["secret.json"], "bodies": []})");
    const auto r = runCommand(kExe + " check " + scene);
    INFO(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("ghp_SECRET") == std::string::npos);
    CHECK(r.output.find("32768") == std::string::npos);
    CHECK(r.output.find("secret.json") != std::string::npos);  // the file is named
  }
}

TEST_CASE("hostile 2: a scene's name cannot drive the terminal (C0, ESC and C1 controls)", "[hostile]") {
  CHECK(joinery::sanitizeForTerminal("a\x1b]0;pwned\x07\x1b[2Jb") == "a\\x1b]0;pwned\\x07\\x1b[2Jb");
  CHECK(joinery::sanitizeForTerminal("csi \xc2\x9b" "2J") == "csi \\u009b2J");  // U+009B, CSI
  CHECK(joinery::sanitizeForTerminal("lone \x9b") == "lone \\x9b");           // not UTF-8
  CHECK(joinery::sanitizeForTerminal("line\nbreak") == "line\\x0abreak");
  CHECK(joinery::sanitizeForTerminal("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  CHECK(joinery::sanitizeMessage("x\xc2\x9by") == "x\\u009by");  // error messages too
  const fs::path d = dir();
  nlohmann::json j = nlohmann::json::parse(hostile2::pendulum(0.1, 0.01));
  j["name"] = "title\x1b]0;pwned\x07\x1b[2J csi\xc2\x9b" "2J";
  const std::string scene = writeText(d / "esc.json", j.dump());
  for (const char* cmd : {" check ", " solve "}) {
    const auto r = runCommand(kExe + cmd + scene);
    INFO(cmd << r.output);
    CHECK(r.exitCode == 0);
    CHECK(r.output.find('\x1b') == std::string::npos);
    CHECK(r.output.find("\xc2\x9b") == std::string::npos);
    CHECK(r.output.find("title\\x1b]0;pwned") != std::string::npos);
  }
}

TEST_CASE("hostile 2: joinery library prints a library's strings sanitized", "[hostile]") {
  const fs::path d = dir() / "libs";
  fs::create_directories(d);
  writeText(d / "evil.json", R"({"joinery": 1, "description": "evil \u001b[2J library",
      "components": {"part": {"description": "clears \u001b]0;t\u0007 the screen \u009b2J",
        "parameters": {"L": 1}, "units": {"L": "m\u001b[31m"},
        "bodies": [{"name": "b", "type": "particle", "dim": 1, "mass": 1}]}}})");
  const auto r = runCommand("JOINERY_LIB_PATH=" + d.string() + " " + kExe + " library evil");
  INFO(r.output);
  CHECK(r.exitCode == 0);
  CHECK(r.output.find("clears") != std::string::npos);
  CHECK(r.output.find('\x1b') == std::string::npos);
  CHECK(r.output.find("\xc2\x9b") == std::string::npos);
}

TEST_CASE("hostile 2: --confine-includes allows the shipped libraries and is an option, not the environment", "[hostile]") {
  const fs::path d = dir();
  const std::string scene = (fs::path(joinery_test_source_dir()) / "examples" / "library" / "pendulums.json").string();
  const auto plain = runCommand(kExe + " check " + scene);
  INFO(plain.output);
  const auto confined = runCommand(kExe + " --confine-includes check " + scene);
  INFO(confined.output);
  CHECK(plain.exitCode == 0);
  CHECK(confined.exitCode == 0);  // a shipped library (joinery:links) is not "outside"
  CHECK(confined.output.find("outside") == std::string::npos);
  // the environment variable of the last release no longer confines (nor can be planted)
  fs::create_directories(d / "inner");
  writeText(d / "outer_lib.json", R"({"joinery": 1, "components": {}})");
  const std::string inner = writeText(d / "inner" / "s.json", R"({"joinery": 1, "include": ["../outer_lib.json"], "bodies": [{"name": "p", "type": "particle", "dim": 1, "mass": 1}]})");
  CHECK(runCommand("JOINERY_CONFINE_INCLUDES=1 " + kExe + " check " + inner).exitCode == 0);
  CHECK(runCommand(kExe + " --confine-includes check " + inner).exitCode == 2);
}

TEST_CASE("hostile 2: modes and equilibrium refuse a model whose dense matrices pass 4 GB", "[hostile]") {
  // a 3 000-link planar chain: 9 000 coordinates, 6 000 rows (the estimate of check: 8.6 GB)
  nlohmann::json j = {{"joinery", 1}, {"gravity", {0, -9.81, 0}}, {"bodies", nlohmann::json::array()},
                      {"joints", nlohmann::json::array()}};
  for (int i = 0; i < 3000; ++i) {
    const std::string name = "l" + std::to_string(i);
    j["bodies"].push_back({{"name", name}, {"type", "rigid2d"}, {"mass", 1}, {"inertia", 0.1}, {"position", {i + 0.5, 0}}});
    j["joints"].push_back({{"name", "j" + std::to_string(i)}, {"type", "revolute2d"},
                           {"body1", i == 0 ? std::string("ground") : "l" + std::to_string(i - 1)},
                           {"point1", {i == 0 ? 0.0 : 0.5, 0}}, {"body2", name}, {"point2", {-0.5, 0}}});
  }
  const std::string file = writeText(dir() / "chain3000.json", j.dump());
  for (const char* cmd : {" modes ", " equilibrium "}) {
    const auto start = std::chrono::steady_clock::now();
    const auto r = runCommand(kExe + cmd + file);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(cmd << r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("over the limit of 4000 MB") != std::string::npos);
    CHECK(seconds < 60);  // refused after the load, not after minutes of dense work
  }
}

TEST_CASE("hostile 2: a scene owned by another user is confined to its folder by default", "[hostile]") {
  if (::geteuid() != 0) return;  // making a file another user's needs root
  const fs::path d = dir() / "other";
  fs::create_directories(d / "inner");
  writeText(d / "outside.json", R"({"joinery": 1, "components": {}})");
  const std::string scene = writeText(d / "inner" / "s.json", R"({"joinery": 1, "include": ["../outside.json"], "bodies": [{"name": "p", "type": "particle", "dim": 1, "mass": 1}]})");
  REQUIRE(::chown(scene.c_str(), 65534, 65534) == 0);  // nobody
  const auto r = runCommand(kExe + " check " + scene);
  INFO(r.output);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("outside") != std::string::npos);
  CHECK(runCommand(kExe + " --trust-includes check " + scene).exitCode == 0);
  // a study owned by another user: its cases confined too
  writeText(d / "inner" / "st.json", R"({"joinery": 1, "scene": "s.json", "design": {"type": "list", "parameters": {"simulation.t_end": [0.01]}},
      "collect": ["steps"]})");
  REQUIRE(::chown((d / "inner" / "st.json").c_str(), 65534, 65534) == 0);
  const auto st = runCommand(kExe + " study " + (d / "inner" / "st.json").string() + " -o " + (d / "t.csv").string());
  INFO(st.output);
  CHECK(st.exitCode == 0);  // the table is written; its case failed
  CHECK(readText(d / "t.csv").find("outside") != std::string::npos);  // refused, not run with the outside library
}

TEST_CASE("hostile 2: a confined include is checked as opened: a FIFO does not hang the loader", "[hostile]") {
  const fs::path d = dir() / "fifo";
  fs::create_directories(d);
  fs::remove(d / "lib.json");
  REQUIRE(::mkfifo((d / "lib.json").c_str(), 0600) == 0);
  const std::string scene = writeText(d / "s.json", R"({"joinery": 1, "include": ["lib.json"], "bodies": []})");
  const auto start = std::chrono::steady_clock::now();
  const auto r = runCommand("timeout 20 " + kExe + " --confine-includes check " + scene);
  INFO(r.output);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("not a regular file") != std::string::npos);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 15);
  // the reader itself opens once and checks the opened file: a FIFO as the scene
  fs::remove(d / "scene_fifo.json");
  REQUIRE(::mkfifo((d / "scene_fifo.json").c_str(), 0600) == 0);
  CHECK_THROWS_AS(joinery::loadScene((d / "scene_fifo.json").string()), joinery::InputError);
}

TEST_CASE("hostile 2: a symbolic link flipped during a confined load never leaks the outside file", "[hostile]") {
  const fs::path d = dir() / "flip";
  fs::create_directories(d / "in");
  const auto lib = [](const char* body) {
    return std::string(R"({"joinery": 1, "components": {"p": {"bodies": [{"name": ")") + body +
           R"(", "type": "particle", "dim": 1, "mass": 1}]}}})";
  };
  writeText(d / "outside.json", lib("outside"));
  writeText(d / "in" / "real.json", lib("inside"));
  const nlohmann::json scene = nlohmann::json::parse(R"({"joinery": 1, "include": ["lib.json"], "bodies": [],
      "instances": [{"name": "i", "component": "p"}]})");
  const fs::path name = d / "in" / "lib.json";
  writeText(name, lib("inside"));
  std::atomic<bool> stop{false};
  std::thread flipper([&] {  // lib.json: a regular file inside, then a link to the outside file, ...
    for (int k = 0; !stop; ++k) {
      const fs::path tmp = d / "in" / ("tmp" + std::to_string(k % 2));
      std::error_code ec;
      fs::remove(tmp, ec);
      if (k % 2)
        fs::create_symlink(d / "outside.json", tmp, ec);
      else
        fs::copy_file(d / "in" / "real.json", tmp, ec);
      fs::rename(tmp, name, ec);  // atomic
    }
  });
  joinery::SceneOptions confined;
  confined.confineIncludes = true;
  int loaded = 0, refused = 0, leaked = 0;
  for (int i = 0; i < 400; ++i) {
    try {
      const joinery::Scene s = joinery::sceneFromJson(scene, (d / "in" / "s.json").string(), confined);
      ++loaded;
      for (const auto& sl : s.model.bodySlots())
        if (sl.body->name().find("outside") != std::string::npos) ++leaked;
    } catch (const joinery::InputError&) {
      ++refused;
    }
  }
  stop = true;
  flipper.join();
  INFO("loaded " << loaded << ", refused " << refused);
  CHECK(leaked == 0);
  CHECK(loaded + refused == 400);
}

TEST_CASE("hostile 2: a matrix problem's coordinate names are sanitized in solve's table", "[hostile]") {
  // found by scripts/mutation_campaign.py: a name "\u009b2J" (C1 CSI) reached the terminal raw
  const std::string file = writeText(dir() / "names.json", R"({"joinery": 1, "coordinates": ["\u009b2J", "\u001b[31mq"],
      "M": [[1, 0], [0, 1]], "Q": [1, 2]})");
  const auto r = runCommand(kExe + " solve " + file);
  INFO(r.output);
  CHECK(r.exitCode == 0);
  CHECK(r.output.find('\x1b') == std::string::npos);
  CHECK(r.output.find("\xc2\x9b") == std::string::npos);
  CHECK(r.output.find("\\u009b2J") != std::string::npos);
}

TEST_CASE("hostile 2: a run that drifts off its constraints says so, in the report and the summary", "[hostile]") {
  // "stabilization": "none" on a chaotic double pendulum ended "completed", exit 0, with the
  // joints metres apart on 1 m links and no word of it. Two 1 m bars released horizontally,
  // integrated loosely (rtol 1e-3) without drift control: the residual grows past the
  // tolerance, 1e-3 of the model's size. The size: the box of the centres of mass (0.5, 0),
  // (1.5, 0) and the origin, diagonal 1.5 m (the radius of gyration sqrt(1/12) m is smaller).
  const auto scene = [](const char* stabilization) {
    return std::string(R"({"joinery": 1, "gravity": [0, -9.81, 0],
      "bodies": [{"name": "upper", "type": "rigid2d", "mass": 1, "inertia": 0.0833333333333333, "position": [0.5, 0]},
                 {"name": "lower", "type": "rigid2d", "mass": 1, "inertia": 0.0833333333333333, "position": [1.5, 0]}],
      "joints": [{"name": "shoulder", "type": "revolute2d", "body1": "ground", "point1": [0, 0], "body2": "upper", "point2": [-0.5, 0]},
                 {"name": "elbow", "type": "revolute2d", "body1": "upper", "point1": [0.5, 0], "body2": "lower", "point2": [-0.5, 0]}],
      "simulation": {"t_end": 20, "integrator": "dopri5", "rtol": 1e-3, "atol": 1e-3, "output_interval": 0.1,
                     "stabilization": ")") + stabilization + R"("}})";
  };
  const fs::path d = dir();
  for (const char* stabilization : {"none", "projection"}) {
    INFO(stabilization);
    const bool none = std::string(stabilization) == "none";
    const std::string file = writeText(d / (std::string("drift_") + stabilization + ".json"), scene(stabilization));
    const fs::path summary = d / (std::string("drift_") + stabilization + "_summary.json");
    const auto r = runCommand(kExe + " simulate " + file + " -o " + (d / "drift.csv").string() + " --summary " + summary.string());
    INFO(r.output);
    CHECK(r.exitCode == 0);  // the run did what it was asked
    const auto j = nlohmann::json::parse(readText(summary));
    const auto& drift = j.at("constraint_drift");
    CHECK(drift.at("length_scale").get<double>() == Approx(1.5).epsilon(1e-12));
    CHECK(drift.at("tolerance").get<double>() == Approx(1.5e-3).epsilon(1e-12));
    CHECK(drift.at("exceeded") == none);
    CHECK((r.output.find("the constraints drifted") != std::string::npos) == none);
    CHECK((r.output.find("[warning]") != std::string::npos) == none);
    if (none) {
      CHECK(drift.at("max_position_residual").get<double>() > 1.5e-3);
      CHECK(drift.at("message").get<std::string>().find("stabilization none") != std::string::npos);
    } else {
      CHECK(drift.at("max_position_residual").get<double>() < 1e-6);
    }
  }
}
