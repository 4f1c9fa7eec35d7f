#pragma once
// Small command-line toolkit of the joinery program: argument parsing, exit codes.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/overrides.hpp"

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
  /// Every value of every valued option, in command-line order (repeatable options: --set).
  std::vector<std::pair<std::string, std::string>> values;
  bool has(const std::string& opt) const { return options.count(opt) > 0; }
  /// The last value given for `opt`.
  std::optional<std::string> get(const std::string& opt) const;
  /// Every value given for `opt`, in order.
  std::vector<std::string> getAll(const std::string& opt) const;
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

/// `--set NAME=VALUE` (repeatable): parameter overrides (joinery/core/overrides.hpp).
/// Every command that loads a scene adds setOption() to its specs and passes
/// overridesFrom(args) in SceneOptions::overrides (or setOverrides(args, options)).
OptionSpec setOption();
/// @throws InputError for a malformed NAME=VALUE.
std::vector<Override> overridesFrom(const Args& args);

}  // namespace joinery::cli
