// joinery-mpi with faults in chosen cases, for tests/study/mpi_equals_threaded.cmake:
//   mpirun ... study_mpi_fault_driver crash:3,hang:5 study STUDY.json -o TABLE.csv ...
// The first argument is the fault list (fault_hook.hpp); the rest is joinery-mpi's command
// line, run by the program's own code (runMpiStudyProgram).
#include <cstdio>
#include <exception>
#include <vector>

#include "fault_hook.hpp"
#include "mpi_study.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: study_mpi_fault_driver FAULTS study STUDY.json -o TABLE.csv [options]\n");
    return 2;
  }
  std::function<void(const joinery::study::Case&)> hook;
  try {
    hook = joinery::test::faultHook(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "study_mpi_fault_driver: %s\n", e.what());
    return 2;
  }
  std::vector<char*> args(argv, argv + argc);
  args.erase(args.begin() + 1);
  args.push_back(nullptr);
  return joinery::cli::runMpiStudyProgram(argc - 1, args.data(),
                                          [&hook](joinery::study::CaseOptions& o) { o.beforeCase = hook; });
}
