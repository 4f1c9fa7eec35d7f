// Runs that are killed, run out of disk, or point their output at their input:
// a run stopped by SIGTERM/SIGINT keeps a well-formed CSV and exits 128 + the signal; a write
// error never leaves a torn row nor reports success; an output over an input is refused
// before anything is written; a run that writes nothing leaves an existing file untouched.
#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "run_command.hpp"
#include "sanitizers.hpp"
#include "spawn.hpp"
#include "temp_files.hpp"

using joinery::test::runCommand;
namespace fs = std::filesystem;

namespace {

fs::path runsTempDir() { return joinery::test::tempFolder("joinery_test_hostile_runs"); }

std::string pendulum(double tEnd, double interval) { return joinery::test::pendulumScene(tEnd, interval); }

/// The child's SIGXFSZ ignored, as before the program ignored it itself (spawn.hpp).
pid_t spawn(const std::vector<std::string>& args, const std::string& errFile, rlim_t fileSizeLimit = 0) {
  return joinery::test::spawn(args, errFile, fileSizeLimit, true);
}

/// The exit status of `pid` (-1: ended by a signal; -2: still running after `seconds`, killed).
int waitExit(pid_t pid, double seconds) {
  int status = 0;
  for (int i = 0; i < static_cast<int>(seconds * 100); ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -2;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::size_t fields(const std::string& line) { return static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1; }

/// Every row has the header's number of fields, all numbers, t strictly increasing, and the
/// file ends with a newline (no torn last row). Returns the number of rows.
std::size_t checkWellFormedCsv(const fs::path& path) {
  const std::string text = joinery::test::readText(path);
  REQUIRE(!text.empty());
  CHECK(text.back() == '\n');
  const auto ls = lines(text);
  REQUIRE(ls.size() >= 1);
  CHECK(ls[0].rfind("t,", 0) == 0);
  const std::size_t n = fields(ls[0]);
  double tPrev = -1;
  for (std::size_t i = 1; i < ls.size(); ++i) {
    INFO("row " << i << ": " << ls[i]);
    REQUIRE(fields(ls[i]) == n);
    char* end = nullptr;
    const double t = std::strtod(ls[i].c_str(), &end);
    REQUIRE(*end == ',');
    CHECK(t > tPrev);
    tPrev = t;
  }
  return ls.size() - 1;
}

std::size_t countLines(const fs::path& path) {
  const std::string text = joinery::test::readText(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}
}  // namespace

TEST_CASE("hostile: SIGTERM or SIGINT stops a run cleanly; its CSV and summary are kept", "[hostile][signal]") {
  const fs::path d = runsTempDir();
  // about 2 000 000 samples of a tightly integrated pendulum: minutes, unless stopped
  const std::string scene = joinery::test::writeText(d / "long.json", pendulum(1e5, 0.05));
  for (const int sig : {SIGTERM, SIGINT}) {
    INFO("signal " << sig);
    const fs::path out = d / "long.csv", summary = d / "long_summary.json", err = d / "long.err";
    fs::remove(out);
    const pid_t pid = spawn({kExe, "simulate", scene, "-o", out.string(), "--summary", summary.string()}, err.string());
    // wait until the run has written some rows (to its temporary file next to the output):
    // the header and 50 rows, 51 lines (waiting for 50 lines let a signal arrive after 49
    // rows, and the check below failed once under ASan on a busy machine)
    // (OUT.partial.XXXXXX: a unique name made for the run)
    fs::path partial;
    for (int i = 0; i < 3000 && (partial.empty() || countLines(partial) < 51); ++i) {
      for (const auto& e : fs::directory_iterator(d))
        if (e.path().filename().string().rfind("long.csv.partial.", 0) == 0) partial = e.path();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    REQUIRE(countLines(partial) >= 51);
    ::kill(pid, sig);
    const int status = waitExit(pid, 30);
    const std::string msg = joinery::test::readText(err);
    INFO(msg);
    CHECK(status == 128 + sig);  // the documented status: 143 for SIGTERM, 130 for SIGINT
    CHECK(msg.find(sig == SIGTERM ? "SIGTERM received" : "SIGINT received") != std::string::npos);
    CHECK(msg.find("interrupted after the step to t = ") != std::string::npos);
    CHECK(msg.find("kept in " + out.string()) != std::string::npos);
    CHECK_FALSE(fs::exists(partial));  // renamed into place
    const std::size_t rows = checkWellFormedCsv(out);
    CHECK(rows >= 50);
    const auto j = nlohmann::json::parse(joinery::test::readText(summary));
    CHECK(j["outcome"] == "stopped");
    CHECK(j["samples"].get<std::size_t>() == rows);  // every sample counted is in the file
  }
}

TEST_CASE("hostile: an output that is the input is refused before anything is written", "[hostile]") {
  const fs::path d = runsTempDir();
  fs::create_directories(d / "sub");
  const std::string scene = joinery::test::writeText(d / "self.json", pendulum(0.1, 0.01));
  const std::string before = joinery::test::readText(scene);
  fs::remove(d / "link.json");
  fs::create_symlink(d / "self.json", d / "link.json");
  const std::vector<std::string> spellings = {scene, (d / "sub" / ".." / "self.json").string(), (d / "link.json").string()};
  for (const auto& target : spellings) {
    INFO(target);
    for (const std::string& cmd : std::vector<std::string>{" simulate " + scene + " -o " + target, " simulate " + scene + " -o " +
                                      (d / "x.csv").string() + " --summary " + target,
                                  " graph " + scene + " -o " + target}) {
      INFO(cmd);
      const auto r = runCommand(kExe + cmd);
      CHECK(r.exitCode == 2);
      CHECK(r.output.find("is the input file") != std::string::npos);
      CHECK(joinery::test::readText(scene) == before);
    }
  }
  // a study's table over the study file; the study is valid (it ran before the refusal, and
  // an invalid design would exit 2 whether or not the output is checked)
  const std::string study = joinery::test::writeText(d / "study.json", R"({"joinery": 1, "scene": "self.json",
      "design": {"type": "list", "parameters": {"simulation.t_end": [0.01]}}, "collect": ["steps"]})");
  REQUIRE(runCommand(kExe + " study " + study + " -o " + (d / "study_table.csv").string()).exitCode == 0);
  const std::string studyBefore = joinery::test::readText(study);
  const auto r = runCommand(kExe + " study " + study + " -o " + (d / "sub" / ".." / "study.json").string());
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("is the input file") != std::string::npos);
  CHECK(joinery::test::readText(study) == studyBefore);
}

TEST_CASE("hostile: a full disk is a clear error and a non-zero exit, never success", "[hostile]") {
  if (!fs::exists("/dev/full")) return;  // Linux's always-full device
  const fs::path d = runsTempDir();
  const std::string scene = joinery::test::writeText(d / "full.json", pendulum(0.5, 0.01));
  auto r = runCommand(kExe + " simulate " + scene + " -o /dev/full");
  CHECK(r.exitCode == 5);
  CHECK(r.output.find("cannot write the CSV header to /dev/full: No space left on device") != std::string::npos);
  r = runCommand(kExe + " simulate " + scene + " -o " + (d / "ok.csv").string() + " --summary /dev/full");
  CHECK(r.exitCode == 5);  // an output that cannot be written fails the run
  CHECK(r.output.find("could not write the summary file") != std::string::npos);
  r = runCommand(kExe + " graph " + scene + " -o /dev/full");
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("No space left on device") != std::string::npos);
  r = runCommand(kExe + " simulate " + scene + " -o /dev/full --format npy");
  CHECK(r.exitCode == 5);
}

TEST_CASE("hostile: the disk filling up mid-run leaves whole rows only and fails the run", "[hostile]") {
  const fs::path d = runsTempDir();
  const std::string scene = joinery::test::writeText(d / "fill.json", pendulum(20, 0.001));  // ~20 000 rows, ~2 MB
  const fs::path out = d / "fill.csv", err = d / "fill.err";
  fs::remove(out);
  // every file the run writes is capped at 50 000 bytes: the CSV hits it after a few hundred rows
  const pid_t pid = spawn({kExe, "simulate", scene, "-o", out.string()}, err.string(), 50000);
  const int status = waitExit(pid, 60);
  const std::string msg = joinery::test::readText(err);
  INFO(msg);
  CHECK(status == 5);
  CHECK(msg.find("cannot write a sample to " + out.string() + ".partial.") != std::string::npos);
  CHECK(msg.find(": File too large") != std::string::npos);
  CHECK(msg.find("kept in " + out.string()) != std::string::npos);
  const std::size_t rows = checkWellFormedCsv(out);  // cut back to the last complete row
  CHECK(rows > 100);
  CHECK(fs::file_size(out) <= 50000);
}

TEST_CASE("hostile: a run that writes nothing leaves an existing output untouched", "[hostile]") {
  const fs::path d = runsTempDir();
  // a massless particle with no constraint: its acceleration is undetermined (ill posed)
  const std::string scene = joinery::test::writeText(d / "ill.json", R"({"joinery": 1,
    "bodies": [{"name": "p", "type": "particle", "dim": 1, "mass": 0}],
    "simulation": {"t_end": 1, "output_interval": 0.1}})");
  const fs::path out = d / "previous.csv";
  joinery::test::writeText(out, "t,p.x\n0,1\n");
  const auto r = runCommand(kExe + " simulate " + scene + " -o " + out.string());
  CHECK(r.exitCode == 3);
  CHECK(r.output.find("no sample was written; " + out.string() + " was not touched") != std::string::npos);
  CHECK(joinery::test::readText(out) == "t,p.x\n0,1\n");
  CHECK_FALSE(fs::exists(out.string() + ".partial"));
  // an output folder that does not exist: an error before the run
  const auto r2 = runCommand(kExe + " simulate " + scene + " -o " + (d / "no" / "such" / "x.csv").string());
  CHECK(r2.exitCode == 2);
  CHECK(r2.output.find("cannot open the output file for writing") != std::string::npos);
}

TEST_CASE("hostile: an output through a symbolic link replaces the file it points to, not the link",
          "[hostile]") {
  const fs::path d = runsTempDir();
  const std::string scene = joinery::test::writeText(d / "short.json", pendulum(0.05, 0.01));
  fs::create_directories(d / "results");
  const fs::path real = d / "results" / "run.csv";
  joinery::test::writeText(real, "old\n");
  const fs::path link = d / "latest.csv";
  fs::remove(link);
  fs::create_symlink(fs::path("results") / "run.csv", link);  // relative, as users make them
  const auto r = runCommand(kExe + " simulate " + scene + " -o " + link.string());
  REQUIRE(r.exitCode == 0);
  CHECK(fs::is_symlink(fs::symlink_status(link)));  // still a link, not replaced by a file
  const std::string text = joinery::test::readText(real);
  CHECK(text.rfind("t,", 0) == 0);  // the run's CSV is in the file the link points to
  CHECK(countLines(real) == 7);     // header + samples at t = 0, 0.01, ..., 0.05
  CHECK_FALSE(fs::exists(real.string() + ".partial"));
  CHECK_FALSE(fs::exists(link.string() + ".partial"));
}

TEST_CASE("hostile: SIGTERM stops a study; its table keeps the cases finished", "[hostile][signal]") {
  const fs::path d = runsTempDir();
  joinery::test::writeText(d / "study_scene.json", pendulum(0.1, 0.05));
  // two short cases, then two that would run for minutes
  const std::string study = joinery::test::writeText(d / "long_study.json", R"({"joinery": 1, "scene": "study_scene.json",
      "design": {"type": "list", "parameters": {"simulation.t_end": [0.1, 0.2, 1e5, 1e5]}},
      "collect": ["steps"]})");
  const fs::path table = d / "long_study.csv", err = d / "long_study.err";
  fs::remove(table);
  const pid_t pid = spawn({kExe, "study", study, "-o", table.string(), "-j", "1"}, err.string());
  for (int i = 0; i < 3000 && (!fs::exists(table) || countLines(table) < 3); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(countLines(table) == 3);  // the header and the two short cases
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the third case is running
  ::kill(pid, SIGTERM);
  const int status = waitExit(pid, 30);
  const std::string msg = joinery::test::readText(err);
  INFO(msg);
  CHECK(status == 143);
  CHECK(msg.find("SIGTERM received: stopped; the table keeps the 2 case(s) finished") != std::string::npos);
  const auto ls = lines(joinery::test::readText(table));
  REQUIRE(ls.size() == 3);
  CHECK(ls[1].rfind("0,", 0) == 0);
  CHECK(ls[2].rfind("1,", 0) == 0);
}

namespace {
/// The peak resident memory (VmHWM, kB) of a running process; -1 when it cannot be read.
long peakResidentKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}
}  // namespace

TEST_CASE("hostile: a study of ten million cases starts small and answers SIGTERM at once", "[hostile][signal]") {
  // The design was expanded into every case before the first ran (1.75 GB for 10^7 cases, 16-34 s
  // to answer SIGTERM, which arrived during the expansion). Cases are made as workers take them.
  const fs::path d = runsTempDir();
  joinery::test::writeText(d / "many_scene.json", pendulum(0.1, 0.05));
  const std::string study = joinery::test::writeText(d / "many_study.json", R"({"joinery": 1, "scene": "many_scene.json",
      "design": {"type": "random", "samples": 10000000, "seed": 3, "parameters": {"simulation.t_end": {"min": 0.05, "max": 0.1}}},
      "collect": ["steps"]})");
  const fs::path table = d / "many_study.csv", err = d / "many_study.err";
  fs::remove(table);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = spawn({kExe, "study", study, "-o", table.string(), "-j", "1"}, err.string());
  for (int i = 0; i < 6000 && (!fs::exists(table) || countLines(table) < 3); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const double toFirstRows = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long peakKb = peakResidentKb(pid);
  INFO("first rows after " << toFirstRows << " s; peak resident memory " << peakKb << " kB");
  REQUIRE(countLines(table) >= 3);  // the header and two cases
  // the program, its libraries and a model: about 30 MB in Release (the expanded design: 1.75
  // GB); AddressSanitizer's shadow memory takes more
#ifdef JOINERY_TEST_ASAN
  CHECK(peakKb < 1000000);
#else
  CHECK(peakKb < 300000);
#endif
  const auto sent = std::chrono::steady_clock::now();
  ::kill(pid, SIGTERM);
  const int status = waitExit(pid, 30);
  const double latency = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  const std::string msg = joinery::test::readText(err);
  INFO(msg << "\nanswered SIGTERM in " << latency << " s");
  CHECK(status == 143);
  CHECK(latency < 5);  // a generous bound: the driver looks at the flag every 0.25 s
  // whole rows only, numbered from 0 in order, each with the header's fields and exit 0
  const auto ls = lines(joinery::test::readText(table));
  REQUIRE(ls.size() >= 3);
  CHECK(ls[0] == "case,simulation.t_end,steps,exit,message");
  for (std::size_t i = 1; i < ls.size(); ++i) {
    INFO(ls[i]);
    CHECK(ls[i].rfind(std::to_string(i - 1) + ",", 0) == 0);
    CHECK(fields(ls[i]) == 5);
  }
  CHECK(msg.find("the table keeps the " + std::to_string(ls.size() - 1) + " case(s) finished") != std::string::npos);
}

TEST_CASE("hostile: the study table's temporary file is a new file, never a planted link", "[hostile]") {
  // The table was rewritten through TABLE.tmp, opened with O_TRUNC: a symbolic link planted there
  // was followed (the file it named overwritten) and then renamed over the table.
  const fs::path d = runsTempDir();
  joinery::test::writeText(d / "tmp_scene.json", pendulum(0.02, 0.01));
  const std::string study = joinery::test::writeText(d / "tmp_study.json", R"({"joinery": 1, "scene": "tmp_scene.json",
      "design": {"type": "list", "parameters": {"simulation.t_end": [0.01, 0.02]}}, "collect": ["steps"]})");
  const fs::path table = d / "tmp_study.csv", keep = d / "keep.txt";
  fs::remove(table);
  fs::remove(d / "tmp_study.csv.tmp");
  joinery::test::writeText(keep, "keep me\n");
  fs::create_symlink(keep, d / "tmp_study.csv.tmp");
  const auto r = runCommand(kExe + " study " + study + " -o " + table.string());
  INFO(r.output);
  CHECK(r.exitCode == 0);
  CHECK(joinery::test::readText(keep) == "keep me\n");
  CHECK_FALSE(fs::is_symlink(table));
  CHECK(countLines(table) == 3);
  CHECK(fs::is_symlink(d / "tmp_study.csv.tmp"));  // left alone
  for (const auto& e : fs::directory_iterator(d))  // no temporary file left behind
    CHECK(e.path().filename().string().rfind("tmp_study.csv.tmp.", 0) != 0);
  fs::remove(d / "tmp_study.csv.tmp");
}
