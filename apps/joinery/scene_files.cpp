#include "scene_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace joinery::cli {

namespace {
// set once by takeConfineIncludes, before the command runs (and before a study forks workers)
bool gConfine = false;
bool gTrust = false;  // --trust-includes: no confinement by default
std::string gRoot;  // empty: each scene's own folder
}  // namespace

std::string takeConfineIncludes(std::vector<std::string>& args) {
  while (!args.empty()) {
    const std::string& a = args.front();
    if (a == "--trust-includes") {
      gTrust = true;
      args.erase(args.begin());
      continue;
    }
    if (a != "--confine-includes" && a.rfind("--confine-includes=", 0) != 0) break;
    std::string root;  // the scene's own folder
    if (a.size() > 18) {
      std::error_code ec;
      const std::filesystem::path dir(a.substr(19));
      if (dir.empty() || !std::filesystem::is_directory(dir, ec))
        return a + ": '" + dir.string() + "' is not a folder; expected --confine-includes or "
               "--confine-includes=DIR with an existing folder";
      root = std::filesystem::absolute(dir, ec).string();
    }
    gConfine = true;
    gRoot = root;
    args.erase(args.begin());
  }
  return {};
}

bool ownedByAnotherUser(const std::string& file) {
  struct stat st {};
  return ::stat(file.c_str(), &st) == 0 && st.st_uid != ::geteuid() && st.st_uid != 0;
}

SceneOptions withCommandConfinement(SceneOptions options, const std::string& file) {
  if (options.confineIncludes) return options;
  if (gConfine) {
    options.confineIncludes = true;
    options.includeRoot = gRoot;
  } else if (!gTrust && ownedByAnotherUser(file)) {
    options.confineIncludes = true;  // its own folder
  }
  return options;
}

}  // namespace joinery::cli
