#pragma once
// Small command-line toolkit of the joinery program: argument parsing, exit codes.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace joinery::cli {

/// Exit codes of the contract (docs/scene-format.md, "Command line").
enum ExitCode : int {
  kOk = 0,
  kInternal = 1,      ///< a bug: an unexpected exception
  kInvalidInput = 2,  ///< bad file, bad option
  kIllPosed = 3,
  kInconsistent = 4,
  kRunFailed = 5,
  kValidationFailed = 6,  ///< joinery validate: some check failed (an extension of the contract)
};

/// Parsed arguments of one subcommand: positionals, flags and valued options.
struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  ///< "--t-end" -> "2.0"; flags map to ""
  bool has(const std::string& opt) const { return options.count(opt) > 0; }
  std::optional<std::string> get(const std::string& opt) const;
};

/// Description of one option for parsing and --help.
struct OptionSpec {
  std::string name;        ///< "--json"
  std::string shortName;   ///< "-o" or ""
  bool takesValue = false;
  std::string help;
};

/// Thrown for usage errors (unknown option, missing value); exit code 2.
struct UsageError {
  std::string message;
};

Args parseArgs(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs);
std::string formatOptions(const std::vector<OptionSpec>& specs);

/// Options every subcommand accepts: --help, --log-level.
std::vector<OptionSpec> commonOptions();
/// Applies --log-level (trace, debug, info, warn, error, off) to the default spdlog logger.
void applyLogLevel(const Args& args);

}  // namespace joinery::cli
