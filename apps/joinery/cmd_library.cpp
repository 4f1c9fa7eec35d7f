// joinery library [NAME]: the component libraries shipped with joinery (docs/library.md).
// Without NAME it lists them; with NAME it prints each part's description, parameters
// (defaults, units, meaning) and ports, read from the library file itself.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/terminal_text.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/library.hpp"

namespace joinery::cli {

namespace {

const char* kLibraryHelp =
    "usage: joinery library [NAME [PART]]\n\n"
    "Lists the component libraries shipped with joinery; a scene includes one with\n"
    "\"include\": [\"joinery:NAME\"]. With NAME (or joinery:NAME), prints its parts, what each\n"
    "is made of, their parameters (defaults and units) and ports; with PART, that part only.\n"
    "Libraries are searched in JOINERY_LIB_PATH, then the build tree, then share/joinery/lib\n"
    "of the installation. The catalogue with pictures: docs/catalogue.md.\n\n"
    "exit status: 0 ok, 2 unknown library or part, or unreadable file\n\noptions:\n";

/// A library as written: ordered_json keeps the parameters and parts in the file's order.
using Json = nlohmann::ordered_json;

Json readLibrary(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError("cannot read the library file", file.string());
  try {
    return Json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("not valid JSON: ") + e.what(), file.string());
  }
}

/// A JSON value as the library writes it: numbers plainly, expressions as text.
/// A library's string for the terminal (sanitizeForTerminal: no control character reaches it).
std::string text(const Json& v) { return sanitizeForTerminal(v.is_string() ? v.get<std::string>() : v.dump()); }

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

/// "made of" line: the part's instances (part), bodies, joints and forces (type).
std::string madeOf(const Json& c) {
  std::string out;
  for (const char* kind : {"instances", "bodies", "joints", "forces"}) {
    if (!c.contains(kind)) continue;
    for (const Json& e : c[kind]) {
      const std::string what = e.contains("component") ? text(e["component"]) : text(e.value("type", Json("?")));
      out += (out.empty() ? "" : ", ") + text(e.value("name", Json("?"))) + " (" + what + ")";
    }
  }
  return out;
}

void printPart(std::ostream& os, const std::string& name, const Json& c) {
  os << "\n" << sanitizeForTerminal(name) << "\n";
  if (c.contains("description")) os << "  " << text(c["description"]) << "\n";
  if (const std::string parts = madeOf(c); !parts.empty()) os << "  made of: " << parts << "\n";
  const Json none = Json::object();
  const Json& params = c.contains("parameters") ? c["parameters"] : none;
  const Json& units = c.contains("units") ? c["units"] : none;
  const Json& notes = c.contains("descriptions") ? c["descriptions"] : none;
  os << "  parameters (name, default, unit, meaning):\n";
  for (auto it = params.begin(); it != params.end(); ++it) {
    const std::string unit = units.contains(it.key()) ? text(units[it.key()]) : "-";
    os << "    " << pad(sanitizeForTerminal(it.key()), 10) << pad(text(it.value()), 18) << pad(unit, 8)
       << (notes.contains(it.key()) ? text(notes[it.key()]) : "") << "\n";
  }
  os << "  ports (name, body, point in the body frame):\n";
  const Json& ports = c.contains("ports") ? c["ports"] : none;
  for (auto it = ports.begin(); it != ports.end(); ++it) {
    const Json& p = it.value();
    std::string where = p.contains("port") ? "re-exports " + text(p["port"]) : text(p.value("body", Json("?")));
    if (p.contains("point")) {
      where += " (";
      for (std::size_t i = 0; i < p["point"].size(); ++i) where += (i ? ", " : "") + text(p["point"][i]);
      where += ")";
    }
    os << "    " << pad(sanitizeForTerminal(it.key()), 10) << where << "\n";
  }
}

int listLibraries() {
  const auto names = shippedLibraryNames();
  std::cout << "shipped component libraries (include as \"joinery:NAME\"; 'joinery library NAME' for details):\n";
  for (const std::string& n : names) {
    const Json lib = readLibrary(findShippedLibrary(n));
    std::string parts;
    if (lib.contains("components"))
      for (auto it = lib["components"].begin(); it != lib["components"].end(); ++it)
        parts += (parts.empty() ? "" : ", ") + it.key();
    std::cout << "  joinery:" << pad(n, 10) << "parts: " << parts << "\n";
  }
  if (names.empty()) std::cout << "  (none found)\n";
  std::cout << "searched:";
  for (const auto& d : shippedLibraryDirectories()) std::cout << " " << d.string();
  std::cout << "\n";
  return kOk;
}

/// `joinery library NAME PART`: one part, or exit 2 with a suggestion and the list.
int printOnePart(const Json& lib, const std::string& name, const std::string& part) {
  const Json none = Json::object();
  const Json& parts = lib.contains("components") ? lib["components"] : none;
  if (!parts.contains(part)) {
    std::vector<std::string> names;
    for (auto it = parts.begin(); it != parts.end(); ++it) names.push_back(it.key());
    std::cerr << "joinery library: unknown part '" << part << "' of joinery:" << name << didYouMean(part, names)
              << "; parts:";
    for (const std::string& n : names) std::cerr << " " << n;
    std::cerr << "\n";
    return kInvalidInput;
  }
  std::ostringstream os;
  os << "joinery:" << name;
  printPart(os, part, parts[part]);
  std::cout << os.str();
  return kOk;
}

}  // namespace

int runLibrary(const std::vector<std::string>& argv) {
  const auto specs = commonOptions();
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kLibraryHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  if (args.positional.size() > 2) throw UsageError{"library takes at most a NAME and a PART"};
  if (args.positional.empty()) return listLibraries();
  std::string name = args.positional[0];
  if (name.rfind(kShippedLibraryPrefix, 0) == 0) name = name.substr(std::string(kShippedLibraryPrefix).size());
  const std::filesystem::path file = findShippedLibrary(name);
  if (file.empty()) {
    const auto names = shippedLibraryNames();
    std::cerr << "joinery library: unknown library '" << name << "'" << didYouMean(name, names)
              << "; shipped libraries:";
    for (const std::string& n : names) std::cerr << " " << n;
    std::cerr << (names.empty() ? " none found (set JOINERY_LIB_PATH)\n" : "\n");
    return kInvalidInput;
  }
  const Json lib = readLibrary(file);
  if (args.positional.size() == 2) return printOnePart(lib, name, args.positional[1]);
  std::ostringstream os;
  os << "joinery:" << name << "  (" << file.string() << ")\n";
  if (lib.contains("description")) os << text(lib["description"]) << "\n";
  if (lib.contains("components"))
    for (auto it = lib["components"].begin(); it != lib["components"].end(); ++it) printPart(os, it.key(), it.value());
  std::cout << os.str();
  return kOk;
}

JOINERY_REGISTER_COMMAND({"library",
    "library [NAME [PART]]            shipped component libraries; with NAME its parts, parameters, ports",
    110, runLibrary})

}  // namespace joinery::cli
