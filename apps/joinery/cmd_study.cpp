// joinery study: parameter studies on this machine (docs/studies.md).
#include <chrono>
#include <iostream>

#include "commands.hpp"
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
  const study::Study s = study::loadStudy(cmd.studyFile);
  StudyProgress progress;
  cmd.run.progress = [&progress](const study::Progress& p) { progress(p); };
  const auto start = std::chrono::steady_clock::now();
  const study::Outcome o = study::runStudy(s, cmd.run);
  progress.finish();
  return reportStudy(cmd, o, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace joinery::cli
