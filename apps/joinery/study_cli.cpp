// `joinery study` arguments, progress display and closing report (also used by joinery-mpi).
#include "study_cli.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <thread>

#include "joinery/core/json_input.hpp"
#include "joinery/core/scene.hpp"
#include "run_files.hpp"

namespace joinery::cli {

namespace {
std::vector<OptionSpec> studySpecs() {
  auto specs = commonOptions();
  specs.push_back({"--output", "-o", true, "the table to write, TABLE.csv (required)"});
  specs.push_back({"--jobs", "-j", true, "worker processes (default: the number of cores)"});
  specs.push_back({"--resume", "", false, "keep the rows of an existing table whose inputs match a case; run the rest"});
  specs.push_back({"--jsonl", "", true, "also write the table as JSON lines to this file"});
  specs.push_back({"--keep-csv", "", true, "keep each case's full CSV in this folder (case_NNNNNN.csv)"});
  specs.push_back({"--time-limit", "", true, "seconds a case may run before it is stopped (default: the study's time_limit, else none)"});
  specs.push_back({"--shard", "", true, "I/N: run only the cases with number % N == I (batch job arrays)"});
  specs.push_back({"--merge", "", false, "join shard tables given as arguments into -o TABLE.csv"});
  return specs;
}

std::string clock(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long t = std::lround(s);
  char buf[32];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}
}  // namespace

std::string studyHelp(const char* program) {
  return std::string("usage: ") + program + " study STUDY.json -o TABLE.csv [-j N] [--resume] [options]\n"
         "       " + program + " study --merge SHARD.csv... -o TABLE.csv\n\n"
         "Runs every case of a study (a base scene, a design of parameter values, the summary values\n"
         "to collect; docs/studies.md) in worker processes and writes one table: case, one column per\n"
         "parameter, one per collected item, exit, message. Rows are streamed as cases finish and\n"
         "sorted by case at the end. A case that fails, crashes or exceeds the time limit is a row with\n"
         "its exit status and message; the study goes on.\n\n"
         "exit status: 0 every case ran (some may have failed: see the exit column), 2 invalid study\n\n"
         "options:\n" + formatOptions(studySpecs());
}

StudyCommand parseStudyArgs(const std::vector<std::string>& argv) {
  const Args args = parseArgs(argv, studySpecs());
  StudyCommand c;
  if (args.has("--help")) {
    c.help = true;
    return c;
  }
  applyLogLevel(args);
  const auto out = args.get("--output");
  if (!out || out->empty()) throw UsageError{"study needs -o TABLE.csv"};
  c.run.table = *out;
  c.merge = args.has("--merge");
  if (c.merge) {
    if (args.positional.empty()) throw UsageError{"--merge needs the shard tables to join"};
    c.mergeInputs = args.positional;
    return c;
  }
  if (args.positional.size() != 1)
    throw UsageError{"study takes exactly one STUDY file (got " + std::to_string(args.positional.size()) + ")"};
  c.studyFile = args.positional[0];
  c.run.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (auto j = args.get("--jobs")) {
    char* end = nullptr;
    const long n = std::strtol(j->c_str(), &end, 10);
    if (end != j->c_str() + j->size() || n < 1 || n > 4096) throw UsageError{"-j '" + *j + "': expected a number of workers >= 1"};
    c.run.jobs = static_cast<int>(n);
  }
  c.run.resume = args.has("--resume");
  c.run.jsonLines = args.get("--jsonl").value_or("");
  c.run.caseOptions.csvFolder = args.get("--keep-csv").value_or("");
  if (auto t = args.get("--time-limit")) {
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (end != t->c_str() + t->size() || !(v > 0)) throw UsageError{"--time-limit '" + *t + "': expected seconds > 0"};
    c.run.timeLimit = v;
  }
  if (auto s = args.get("--shard")) {
    int i = -1, n = -1;
    char tail = 0;
    if (std::sscanf(s->c_str(), "%d/%d%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n)
      throw UsageError{"--shard '" + *s + "': expected I/N with 0 <= I < N"};
    c.run.shardIndex = i;
    c.run.shardCount = n;
  }
  return c;
}

StudyProgress::StudyProgress() : tty_(isatty(STDERR_FILENO) != 0) {}

void StudyProgress::operator()(const study::Progress& p) {
  const double f = p.total > 0 ? static_cast<double>(p.done) / static_cast<double>(p.total) : 1.0;
  char line[200];
  std::snprintf(line, sizeof line, "%ld/%ld cases, %ld failed, %.1f cases/s, %s left", p.done, p.total, p.failed,
                p.rate, p.done == p.total ? "0:00" : p.rate > 0 ? clock(p.remaining).c_str() : "?");
  if (tty_) {
    const int width = 30, filled = static_cast<int>(f * width);
    std::cerr << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
              << std::string(static_cast<std::size_t>(width - filled), ' ') << "] " << line << "   " << std::flush;
    shown_ = true;
  } else if (lastLog_ < 0 || p.elapsed - lastLog_ >= 10.0 || p.done == p.total) {
    if (p.done == p.total && lastLog_ >= 0 && shown_) return;  // the last line once
    std::cerr << "study: " << line << "\n";
    lastLog_ = p.elapsed;
    shown_ = p.done == p.total;
  }
}

void StudyProgress::finish() {
  if (tty_ && shown_) std::cerr << "\n";
  shown_ = false;
}

int reportStudy(const StudyCommand& cmd, const study::Outcome& o, double seconds) {
  std::cout << "joinery study " << cmd.studyFile << " -> " << cmd.run.table << "\n";
  std::cout << "  " << o.total << " cases";
  if (cmd.run.shardCount > 1) std::cout << " in shard " << cmd.run.shardIndex << "/" << cmd.run.shardCount;
  std::cout << ": " << o.ran << " run, " << o.skipped << " kept from the table, " << o.failed << " failed (exit != 0)"
            << ", " << seconds << " s\n";
  return kOk;
}

void refuseStudyOutputs(const StudyCommand& cmd, const study::Study& s) {
  std::vector<std::string> inputs{cmd.studyFile, s.sceneFile};
  try {  // the scene's includes, from a load of the base scene (its own errors are the study's to report)
    SceneOptions confined;  // as the cases will load it
    confined.confineIncludes = s.confineIncludes;
    confined.includeRoot = s.includeRoot;
    const Scene base = sceneFromJson(s.scene, s.sceneFile, confined);
    inputs.insert(inputs.end(), base.filesRead.begin(), base.filesRead.end());
  } catch (const Error&) {
  }
  refuseOutputOverInput(cmd.run.table, "-o", inputs);
  refuseOutputOverInput(cmd.run.jsonLines, "--jsonl", inputs);
  refuseSharedOutputs({{"-o", cmd.run.table}, {"--jsonl", cmd.run.jsonLines}});
}

}  // namespace joinery::cli
