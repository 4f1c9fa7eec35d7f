#include "joinery/core/library.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <system_error>

#include "joinery/core/json_input.hpp"
#include "scene_support.hpp"

namespace joinery {

namespace fs = std::filesystem;

namespace {

/// The running executable's path (Linux /proc/self/exe), or empty.
fs::path executablePath() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p;
}

bool validLibraryName(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-';
  });
}

}  // namespace

std::vector<fs::path> shippedLibraryDirectories() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("JOINERY_LIB_PATH")) {
    const std::string list(env);
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      if (end > start) dirs.emplace_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
#ifdef JOINERY_SOURCE_LIB_DIR
  dirs.emplace_back(JOINERY_SOURCE_LIB_DIR);
#endif
#ifdef JOINERY_INSTALL_LIB_RELATIVE
  const fs::path exe = executablePath();
  if (!exe.empty()) dirs.push_back((exe.parent_path() / JOINERY_INSTALL_LIB_RELATIVE).lexically_normal());
#endif
  return dirs;
}

std::vector<std::string> shippedLibraryNames() {
  std::set<std::string> names;
  for (const fs::path& dir : shippedLibraryDirectories()) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (p.extension() == ".json" && validLibraryName(p.stem().string()) && fs::is_regular_file(p, ec))
        names.insert(p.stem().string());
    }
  }
  return {names.begin(), names.end()};
}

fs::path findShippedLibrary(const std::string& name) {
  if (!validLibraryName(name)) return {};
  for (const fs::path& dir : shippedLibraryDirectories()) {
    const fs::path file = dir / (name + ".json");
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) return file;
  }
  return {};
}

namespace detail {

/// A component's `units` or `descriptions`: parameter name -> text, each name a parameter.
void checkParameterNotes(const JsonCursor& component, const char* key) {
  const JsonCursor notes = component.at(key);
  notes.requireObject();
  std::vector<std::string> params;
  if (component.has("parameters"))
    for (auto it = component.value().at("parameters").begin(); it != component.value().at("parameters").end(); ++it)
      params.push_back(it.key());
  for (auto it = notes.value().begin(); it != notes.value().end(); ++it) {
    const JsonCursor note = notes.at(it.key());
    if (std::find(params.begin(), params.end(), it.key()) == params.end())
      note.failWith("'" + it.key() + "' is not a parameter of this component" + didYouMean(it.key(), params) +
                    "; expected the name of one of its parameters");
    (void)note.string();
  }
}

/// The file of the shipped library an include entry "joinery:NAME" names (library.hpp).
fs::path shippedLibraryFile(const JsonCursor& entry, const std::string& given) {
  const std::string name = given.substr(std::string(kShippedLibraryPrefix).size());
  fs::path file = findShippedLibrary(name);
  if (!file.empty()) return file;
  const std::vector<std::string> names = shippedLibraryNames();
  std::vector<std::string> prefixed;
  for (const std::string& n : names) prefixed.push_back(kShippedLibraryPrefix + n);
  entry.failWith("unknown shipped library '" + given + "'" + didYouMean(given, prefixed) +
                 (names.empty() ? std::string("; no shipped libraries were found (set JOINERY_LIB_PATH to "
                                              "the folder of joinery's lib/*.json)")
                                : "; expected one of: " + detail::joinNames(prefixed)));
}

}  // namespace detail

}  // namespace joinery
