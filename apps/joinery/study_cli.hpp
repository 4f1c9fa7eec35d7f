#pragma once
// The arguments and the progress display of `joinery study`, shared with `joinery-mpi`.
#include <string>
#include <vector>

#include "cli.hpp"
#include "joinery/study/study.hpp"

namespace joinery::cli {

struct StudyCommand {
  bool help = false;
  std::string studyFile;
  study::RunOptions run;
  bool merge = false;
  std::vector<std::string> mergeInputs;
};

/// Parses `study` arguments (after the word `study`). @throws UsageError
StudyCommand parseStudyArgs(const std::vector<std::string>& argv);
/// The help text.
std::string studyHelp(const char* program);

/// A progress bar on a terminal (cases done, failed, rate, time left), otherwise a quiet log
/// line at most every 10 s; both on standard error.
class StudyProgress {
 public:
  StudyProgress();
  void operator()(const study::Progress& p);
  void finish();

 private:
  bool tty_;
  double lastLog_ = -1;
  bool shown_ = false;
};

/// Refuses (UsageError, before anything is written) a table or --jsonl file that is the study
/// file, the study's scene or one of the files that scene includes, or one file for both.
void refuseStudyOutputs(const StudyCommand& cmd, const study::Study& s);

/// The closing lines on standard output; returns the exit status (0: every case ran).
int reportStudy(const StudyCommand& cmd, const study::Outcome& o, double seconds);

}  // namespace joinery::cli
