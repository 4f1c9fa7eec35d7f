#pragma once
/// @file scene_section.hpp
/// A section of a scene file that the scene loader keeps as written for another module to
/// interpret (the `simulation` object: integrators/settings.hpp). The loader does not know
/// the section's keys; the module that owns them validates them, once, with errors naming
/// the file and the JSON path of the section.

#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/expression.hpp"
#include "joinery/core/json_input.hpp"

namespace joinery {

/// A scene section as written, with where it is and the parameters its numbers may use.
struct SceneSection {
  /// The section's JSON object as written (expressions unevaluated); null when the scene
  /// has no such section.
  nlohmann::json json;
  std::string file;  ///< the scene file (for error messages)
  std::string path;  ///< JSON pointer of the section, e.g. "/simulation"
  /// The scene's global parameters: a numeric field may be an expression over them.
  SymbolTable parameters;

  /// True when the scene has this section.
  bool given() const noexcept { return !json.is_null(); }
  /// A cursor on the section (for JsonCursor::at, fail, rejectUnknownKeys).
  JsonCursor cursor() const { return JsonCursor(json, file, path); }
  /// A numeric field at `field` (a cursor inside this section): a finite JSON number, or a
  /// string expression over `parameters`, evaluated.
  /// @throws InputError at the field (syntax, unknown names, non-finite values).
  double number(const JsonCursor& field) const;
};

}  // namespace joinery
