#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/matrix_problem.hpp"
#include "report.hpp"

namespace joinery::cli {

namespace {
const char* kSolveHelp =
    "usage: joinery solve FILE [--json]\n\n"
    "Accelerations and constraint forces at the initial state, with the well-posedness\n"
    "diagnosis of the singular-mass equation of motion.\n"
    "FILE is a scene, or a matrix problem: {\"joinery\": 1, \"coordinates\": [...], \"M\": [[...]],\n"
    "\"Q\": [...], \"A\": [[...]], \"b\": [...], \"C\": [...]} (A, b, C optional).\n\n"
    "exit status: 0 well posed, 3 ill posed (accelerations not unique),\n"
    "             4 inconsistent constraints or a scene that cannot be assembled,\n"
    "             2 invalid input (or, with --strict, an unassembled initial state or a warning)\n\noptions:\n";

}  // namespace

int runSolve(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--json", "", false, "print the result as JSON (keys of the contract)"});
  specs.push_back(completeMasslessOption());
  specs.push_back(setOption());
  specs.push_back(strictOption());
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kSolveHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  if (args.positional.size() != 1)
    throw UsageError{"solve takes exactly one FILE (got " + std::to_string(args.positional.size()) + ")"};
  const std::string& file = args.positional[0];
  const nlohmann::json doc = readJsonFile(file);
  if (doc.is_object() && !doc.contains("M") && doc.contains("bodies")) {
    SceneOptions options;
    options.completeMassless = args.has("--complete-massless");
    options.overrides = overridesFrom(args);
    return runSceneReport(file, args.has("--json"), true, options, args.has("--strict"));
  }
  if (args.has("--set")) throw UsageError{"--set applies to scenes, not to matrix problems"};
  if (!doc.is_object() || !doc.contains("M"))
    throw InputError("expected a scene (with 'bodies') or a matrix problem (with 'M')", file, "/");
  const MatrixProblem p = matrixProblemFromJson(doc, file);
  const Solution s = solveMatrixProblem(p, DenseSolver(), file);
  if (args.has("--json")) {
    std::cout << solutionToJson(s, p.coordinates).dump(2) << "\n";
  } else {
    std::cout << "joinery solve " << file << "\n" << solutionToText(s, p.coordinates);
  }
  return exitCodeFor(s.diagnosis);
}

JOINERY_REGISTER_COMMAND({"solve",
    "solve FILE [--json]              accelerations, constraint forces and diagnosis at one state\n"
    "                                   (FILE: a scene or a matrix problem)",
    30, runSolve})

}  // namespace joinery::cli
