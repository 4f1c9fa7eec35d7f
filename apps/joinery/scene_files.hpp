#pragma once
// The files a scene may read, as the command line sets it: `--confine-includes[=DIR]` before
// the command (docs/fuzzing.md, "What a hostile scene cannot do"). The option is parsed once by
// main and handed to every scene the command loads as SceneOptions::confineIncludes and
// includeRoot (loadSceneForCommand; a study's scene and its cases through study::loadStudy).
#include <string>
#include <vector>

#include "joinery/core/scene.hpp"

namespace joinery::cli {

/// Takes the leading `--confine-includes`, `--confine-includes=DIR` and `--trust-includes`
/// arguments off `args`. Returns an error message for a DIR that is not a folder (empty: fine).
std::string takeConfineIncludes(std::vector<std::string>& args);

/// `options` with the confinement of the command line (when `options` sets none itself) for
/// the scene or study `file`. Without an option, a file owned by another user (not you, not
/// root: someone else's folder, a shared scratch space) is confined to its own folder by
/// default; `--trust-includes` turns that off.
SceneOptions withCommandConfinement(SceneOptions options, const std::string& file);

/// True when `file` belongs to a user other than the one running and other than root.
bool ownedByAnotherUser(const std::string& file);

}  // namespace joinery::cli
