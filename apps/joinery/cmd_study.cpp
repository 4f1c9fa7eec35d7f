// joinery study: parameter studies on this machine (docs/studies.md).
#include <chrono>
#include <iostream>

#include "command_table.hpp"
#include "commands.hpp"
#include "run_files.hpp"
#include "scene_files.hpp"
#include "study_cli.hpp"

namespace joinery::cli {

int runStudyCommand(const std::vector<std::string>& argv) {
  StudyCommand cmd = parseStudyArgs(argv);
  if (cmd.help) {
    std::cout << studyHelp("joinery");
    return kOk;
  }
  if (cmd.merge) {
    const long n = study::mergeTables(cmd.mergeInputs, cmd.run.table);
    std::cout << "joinery study --merge: " << cmd.mergeInputs.size() << " tables, " << n << " rows -> "
              << cmd.run.table << "\n";
    return kOk;
  }
  refuseOutputOverInput(cmd.run.table, "-o", {cmd.studyFile});
  refuseOutputOverInput(cmd.run.jsonLines, "--jsonl", {cmd.studyFile, cmd.run.table});
  const study::Study s = study::loadStudy(cmd.studyFile, withCommandConfinement({}, cmd.studyFile));  // --confine-includes
  refuseStudyOutputs(cmd, s);  // also the study's scene and its includes
  installInterruptHandlers();  // SIGTERM/SIGINT: finish the table with the rows so far
  cmd.run.interrupt = interruptFlag();
  StudyProgress progress;
  cmd.run.progress = [&progress](const study::Progress& p) { progress(p); };
  const auto start = std::chrono::steady_clock::now();
  const study::Outcome o = study::runStudy(s, cmd.run);
  progress.finish();
  const int status = reportStudy(cmd, o, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (o.interrupted) {
    const int sig = interruptSignal();
    std::cerr << "joinery study: " << signalName(sig) << " received: stopped; the table keeps the " << o.ran
              << " case(s) finished (the others run with --resume)\n";
    return 128 + sig;
  }
  return status;
}

JOINERY_REGISTER_COMMAND({"study",
    "study STUDY.json -o TABLE.csv [-j N] [--resume]   run a parameter study, one row per case",
    100, runStudyCommand})

}  // namespace joinery::cli
