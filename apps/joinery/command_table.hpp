#pragma once
// The joinery program's commands: each command's source registers it here
// (JOINERY_REGISTER_COMMAND at the end of cmd_*.cpp), so a new command is one source and its
// line in apps/CMakeLists.txt (docs/architecture.md, "Where a new piece goes"). runProgram()
// dispatches on the first argument and lists the registered commands in `joinery --help`.
#include <string>
#include <vector>

namespace joinery::cli {

struct CommandInfo {
  std::string name;   ///< the word after `joinery`
  std::string usage;  ///< its entry in `joinery --help`: the synopsis, spaces, a one-line summary
  int order = 1000;   ///< its place in that list (the shipped commands 10, 20, ...; ties by name)
  int (*run)(const std::vector<std::string>& args) = nullptr;  ///< arguments after the name; the exit status
};

class CommandTable {
 public:
  static CommandTable& instance();
  /// Registers a command; returns true (for static initialisers). A duplicate name is a bug: abort.
  bool add(CommandInfo info);
  const CommandInfo* find(const std::string& name) const;
  /// In `order`, then by name.
  std::vector<const CommandInfo*> commands() const;

 private:
  std::vector<CommandInfo> commands_;
};

/// The usage text of `joinery --help` (every registered command).
std::string programUsage();

/// The program after main(): `--help`, the options before the command (--confine-includes),
/// the command found in CommandTable and run, its errors turned into exit statuses (cli.hpp)
/// with a message on standard error. `args`: argv without the program name.
int runProgram(std::vector<std::string> args);

}  // namespace joinery::cli

#define JOINERY_COMMAND_CONCAT_(a, b) a##b
#define JOINERY_COMMAND_CONCAT(a, b) JOINERY_COMMAND_CONCAT_(a, b)
/// Registers a command from its own source: JOINERY_REGISTER_COMMAND({"check", "check SCENE ...", 20, runCheck});
#define JOINERY_REGISTER_COMMAND(...)                                       \
  namespace {                                                               \
  const bool JOINERY_COMMAND_CONCAT(joinery_command_, __COUNTER__) =       \
      ::joinery::cli::CommandTable::instance().add(__VA_ARGS__);            \
  }
