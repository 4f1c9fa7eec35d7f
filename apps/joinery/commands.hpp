#pragma once
#include <string>
#include <vector>

namespace joinery::cli {
// Each subcommand: takes its arguments (after the subcommand name), returns the exit code.
int runSolve(const std::vector<std::string>& args);
int runCheck(const std::vector<std::string>& args);
int runGraph(const std::vector<std::string>& args);
int runSimulate(const std::vector<std::string>& args);
int runValidate(const std::vector<std::string>& args);
int runEquilibrium(const std::vector<std::string>& args);  // cmd_analyses.cpp
int runModes(const std::vector<std::string>& args);        // cmd_analyses.cpp
int runView(const std::vector<std::string>& args);  // cmd_view.cpp
int runStudyCommand(const std::vector<std::string>& args);  // joinery study (cmd_study.cpp)
int runLibrary(const std::vector<std::string>& args);  // cmd_library.cpp (shipped libraries)
int runAssemble(const std::vector<std::string>& args);  // cmd_assemble.cpp
int runPlot(const std::vector<std::string>& args);  // cmd_plot.cpp: columns of a table to SVG/PNG
int runKinematics(const std::vector<std::string>& args);  // cmd_kinematics.cpp
int runImport(const std::vector<std::string>& args);  // cmd_import.cpp (MJCF, URDF)
/// check (and solve) on a scene file; prints the report, returns the exit code.
int runSceneSolveOrCheck(const std::string& file, bool json, bool withAccelerations);
}  // namespace joinery::cli
