// joinery — command-line front end. Subcommands: check, solve, simulate, graph, validate.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "program_allocator.hpp"
#include "joinery/core/errors.hpp"
#include "run_files.hpp"
#include "scene_files.hpp"

namespace {
const char* kUsage =
    "usage: joinery <command> [options]\n\n"
    "commands:\n"
    "  check SCENE [--json]             assemble and diagnose a scene at its initial state\n"
    "  solve FILE [--json]              accelerations, constraint forces and diagnosis at one state\n"
    "                                   (FILE: a scene or a matrix problem)\n"
    "  simulate SCENE -o OUT.csv [--t-end T]   run the simulation, samples to CSV\n"
    "  graph SCENE -o OUT.dot           the body-joint graph in Graphviz DOT\n"
    "  validate MANIFEST [--quick]      run a validation set, print errors against references\n"
    "  equilibrium SCENE [--json]       static equilibrium, its stability and residual\n"
    "  modes SCENE [--at initial|equilibrium|steady] [-n K] [--sweep P=a:b:n] [--json]   linearised modes; steady motions\n"
    "  view SCENE [--results RUN.csv] -o PAGE.html   the mechanism animated, with plots, in one HTML page\n"
    "  study STUDY.json -o TABLE.csv [-j N] [--resume]   run a parameter study, one row per case\n"
    "  library [NAME [PART]]            shipped component libraries; with NAME its parts, parameters, ports\n"
    "  assemble SCENE -o OUT.json [--json]   the scene with a consistent initial state (exit 4: cannot close)\n"
    "  plot TABLE --y COL[,COL] [--x COL] -o PLOT.svg|.png   columns of a run (CSV, HDF5) or study table\n"
    "  kinematics SCENE [--driver NAME] [--range a:b:n] [--json] [-o TABLE.csv]   a driver's sweep: dead points\n"
    "  import MODEL -o SCENE.json       an MJCF (.xml) or URDF (.urdf) model as a scene; check, simulate\n"
    "                                   and view also take MODEL directly\n"
    "\n"
    "Run 'joinery <command> --help' for the options of a command;\n"
    "'joinery --version' prints the version and the memory allocator in use.\n"
    "before the command: --confine-includes[=DIR]   refuse included files outside the scene's\n"
    "                                   folder (or DIR), symbolic links followed; the default for\n"
    "                                   a scene owned by another user (--trust-includes: not)\n"
    "exit status: 0 ok, 2 invalid input, 3 ill posed, 4 inconsistent, 5 run failed,\n"
    "             6 validation check failed, 143/130 stopped by SIGTERM/SIGINT (simulate, study)\n";
}

int main(int argc, char** argv) {
  using namespace joinery::cli;
  configureProgramAllocator();
  ignoreFileSizeSignal();  // past `ulimit -f` a write fails (exit 5, whole rows) instead of SIGXFSZ killing
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? kInvalidInput : kOk;
  }
  if (args[0] == "--version") {
    std::cout << "joinery " << JOINERY_VERSION_STRING << "\nallocator: " << allocatorInUse() << "\n";
    return kOk;
  }
  // options before the command, for every scene the command loads (docs/scene-format.md, "Limits")
  if (const std::string bad = takeConfineIncludes(args); !bad.empty()) {
    std::cerr << "joinery: " << bad << "\n";
    return kInvalidInput;
  }
  if (args.empty()) {
    std::cerr << kUsage;
    return kInvalidInput;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "solve") return runSolve(args);
    if (cmd == "check") return runCheck(args);
    if (cmd == "simulate") return runSimulate(args);
    if (cmd == "graph") return runGraph(args);
    if (cmd == "validate") return runValidate(args);
    if (cmd == "equilibrium") return runEquilibrium(args);
    if (cmd == "modes") return runModes(args);
    if (cmd == "view") return runView(args);
    if (cmd == "study") return runStudyCommand(args);
    if (cmd == "library") return runLibrary(args);  // cmd_library.cpp
    if (cmd == "assemble") return runAssemble(args);  // cmd_assemble.cpp
    if (cmd == "plot") return runPlot(args);  // cmd_plot.cpp
    if (cmd == "kinematics") return runKinematics(args);  // cmd_kinematics.cpp
    if (cmd == "import") return runImport(args);  // cmd_import.cpp (MJCF, URDF)
    std::cerr << "joinery: unknown command '" << cmd << "'\n" << kUsage;
    return kInvalidInput;
  } catch (const UsageError& e) {
    std::cerr << "joinery " << cmd << ": " << e.message << " (see 'joinery " << cmd << " --help')\n";
    return kInvalidInput;
  } catch (const joinery::InputError& e) {
    std::cerr << "joinery " << cmd << ": error: " << e.what() << "\n";
    return kInvalidInput;
  } catch (const joinery::InvalidProblemError& e) {
    std::cerr << "joinery " << cmd << ": error: " << e.what() << "\n";
    return kInvalidInput;
  } catch (const joinery::SimulationError& e) {
    std::cerr << "joinery " << cmd << ": run failed: " << e.what() << "\n";
    return kRunFailed;
  } catch (const joinery::Error& e) {
    std::cerr << "joinery " << cmd << ": error: " << e.what() << "\n";
    return kInvalidInput;
  } catch (const std::exception& e) {
    std::cerr << "joinery " << cmd << ": internal error: " << e.what() << "\n";
    return kInternal;
  }
}
