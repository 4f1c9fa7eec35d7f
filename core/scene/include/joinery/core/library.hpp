#pragma once
/// @file library.hpp
/// The component libraries shipped with joinery (docs/library.md): a scene includes one by
/// name, `"include": ["joinery:links"]`, and `joinery library` lists them. A shipped library
/// is the file `NAME.json` in the first of these directories that has it:
///   1. each directory of the environment variable JOINERY_LIB_PATH (':'-separated);
///   2. the repository's library folder (apps/joinery/lib), compiled in for build trees;
///   3. `../share/joinery/lib` next to the running executable (the installed location).

#include <filesystem>
#include <string>
#include <vector>

namespace joinery {

/// The prefix of an `include` entry that names a shipped library.
inline constexpr const char* kShippedLibraryPrefix = "joinery:";

/// The directories searched for shipped libraries, in order (existing or not).
std::vector<std::filesystem::path> shippedLibraryDirectories();

/// The names of the shipped libraries found (file names without `.json`), sorted, unique.
std::vector<std::string> shippedLibraryNames();

/// The file of the shipped library `name` (without the prefix), or an empty path when none
/// of the directories has it.
std::filesystem::path findShippedLibrary(const std::string& name);

}  // namespace joinery
