// joinery — the command-line program: its allocator, its signals, then the command
// (program.cpp dispatches on the commands the cmd_*.cpp sources register, command_table.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "command_table.hpp"
#include "program_allocator.hpp"
#include "run_files.hpp"

int main(int argc, char** argv) {
  using namespace joinery::cli;
  configureProgramAllocator();
  ignoreFileSizeSignal();  // past `ulimit -f` a write fails (exit 5, whole rows) instead of SIGXFSZ killing
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--version") {
    std::cout << "joinery " << JOINERY_VERSION_STRING << "\nallocator: " << allocatorInUse() << "\n";
    return kOk;
  }
  return runProgram(std::move(args));
}
