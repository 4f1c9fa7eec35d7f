// The joinery program after main(): the command table, the usage text, the dispatch and the
// mapping of errors to exit statuses (command_table.hpp).
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "cli.hpp"
#include "command_table.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "scene_files.hpp"

namespace joinery::cli {

CommandTable& CommandTable::instance() {
  static CommandTable table;
  return table;
}

bool CommandTable::add(CommandInfo info) {
  if (find(info.name) != nullptr || info.run == nullptr) std::abort();  // a programming error: two commands, one name
  commands_.push_back(std::move(info));
  return true;
}

const CommandInfo* CommandTable::find(const std::string& name) const {
  for (const CommandInfo& c : commands_)
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<const CommandInfo*> CommandTable::commands() const {
  std::vector<const CommandInfo*> out;
  for (const CommandInfo& c : commands_) out.push_back(&c);
  std::sort(out.begin(), out.end(), [](const CommandInfo* a, const CommandInfo* b) {
    return a->order != b->order ? a->order < b->order : a->name < b->name;
  });
  return out;
}

std::string programUsage() {
  std::string text = "usage: joinery <command> [options]\n\ncommands:\n";
  for (const CommandInfo* c : CommandTable::instance().commands()) text += "  " + c->usage + "\n";
  text +=
      "\n"
      "Run 'joinery <command> --help' for the options of a command;\n"
      "'joinery --version' prints the version and the memory allocator in use.\n"
      "before the command: --confine-includes[=DIR]   refuse included files outside the scene's\n"
      "                                   folder (or DIR), symbolic links followed; the default for\n"
      "                                   a scene owned by another user (--trust-includes: not)\n"
      "exit status: 0 ok, 2 invalid input, 3 ill posed, 4 inconsistent, 5 run failed,\n"
      "             6 validation check failed, 143/130 stopped by SIGTERM/SIGINT (simulate, study)\n";
  return text;
}

int runProgram(std::vector<std::string> args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << programUsage();
    return args.empty() ? kInvalidInput : kOk;
  }
  // options before the command, for every scene the command loads (docs/scene-format.md, "Limits")
  if (const std::string bad = takeConfineIncludes(args); !bad.empty()) {
    std::cerr << "joinery: " << bad << "\n";
    return kInvalidInput;
  }
  if (args.empty()) {
    std::cerr << programUsage();
    return kInvalidInput;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  const CommandInfo* command = CommandTable::instance().find(cmd);
  if (command == nullptr) {
    std::vector<std::string> names;
    for (const CommandInfo* c : CommandTable::instance().commands()) names.push_back(c->name);
    std::cerr << "joinery: unknown command '" << cmd << "'" << didYouMean(cmd, names) << "\n" << programUsage();
    return kInvalidInput;
  }
  try {
    return command->run(args);
  } catch (const UsageError& e) {
    std::cerr << "joinery " << cmd << ": " << e.message << " (see 'joinery " << cmd << " --help')\n";
    return kInvalidInput;
  } catch (const joinery::SimulationError& e) {
    std::cerr << "joinery " << cmd << ": run failed: " << e.what() << "\n";
    return kRunFailed;
  } catch (const joinery::Error& e) {  // InputError, InvalidProblemError, ModelError: invalid input
    std::cerr << "joinery " << cmd << ": error: " << e.what() << "\n";
    return kInvalidInput;
  } catch (const std::exception& e) {
    std::cerr << "joinery " << cmd << ": internal error: " << e.what() << "\n";
    return kInternal;
  }
}

}  // namespace joinery::cli
