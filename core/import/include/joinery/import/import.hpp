#pragma once
/// @file import.hpp
/// Import of models written for other engines (docs/import.md): MJCF (MuJoCo's XML, read with
/// tinyxml2) and URDF (read with urdfdom) become a scene document (docs/scene-format.md) with
/// the original names: rigid3d bodies with mass, centre of mass and inertia, the joints, the
/// equality constraints of MJCF as joints, geoms and visuals as `visual` shapes. Whatever is
/// not converted is listed in the result, never dropped silently; the import checks (inertia,
/// centre of mass, axes, connectivity) are warnings naming the link.
///
/// The importer only translates: it runs no solver, and the document it returns is loaded
/// like any scene (sceneFromJson), so the scene's own diagnosis (massless bodies, rank of
/// [M; A]) applies to it unchanged.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace joinery {

/// Options of an import that are not in the model file.
struct ImportOptions {
  /// Joint ranges as `limit` on the joints (the default). Off: ranges are left out and named
  /// among the items not converted (they do not count against the dynamics' completeness).
  bool limits = true;
  /// Weld what would be free to the ground where it is: URDF, the root link (a root link named
  /// `world` is the ground in any case); MJCF, every body on a free joint.
  bool fixedBase = false;
  /// Not empty: the result is a component library `{"joinery": 1, "components": {NAME: ...}}`
  /// to include, instead of a scene; the first body (the URDF root link, the first MJCF body)
  /// is its port `base`, at that body's origin. Gravity is left to the scene that includes it.
  std::string component{};
};

/// One thing said about the import: `where` names the element (body, link, joint, geom, as
/// written in the model), `message` says what.
struct ImportNote {
  std::string where;
  std::string message;
};

/// The outcome of an import.
struct ImportResult {
  std::string format;     ///< "mjcf" or "urdf"
  nlohmann::json scene;   ///< the scene document (format version 1)
  /// Items of the model that the scene does not carry, each with its reason.
  std::vector<ImportNote> notConverted;
  /// Import checks: inertia not positive or breaking the triangle inequality, a centre of
  /// mass far outside the link's geometry, a zero-length axis, disconnected bodies.
  std::vector<ImportNote> warnings;
  /// False when an item not converted changes the dynamics of the mechanism (an armature, a
  /// passive spring, a joint or equality type with no counterpart, a mesh whose mass counts):
  /// the scene's motion is not the model's (`joinery import` exits 2).
  bool dynamicsComplete = true;
};

/// True for a file name that importModel reads: `.xml` or `.mjcf` (MJCF), `.urdf` (URDF),
/// any case of the extension.
bool isImportableModel(const std::string& path);

/// Reads an MJCF or URDF file (by its extension) into a scene document.
/// @throws InputError for a file that cannot be read or parsed, or whose content is invalid
/// (the file named, the element's path such as `/mujoco/worldbody/body[2]/joint[1]`, the
/// value and what was expected).
ImportResult importModel(const std::string& path, const ImportOptions& options = {});

/// The same from text; `file` names the source in errors and is the base of relative
/// `include` paths (MJCF). `format` is "mjcf" or "urdf".
ImportResult importModelText(const std::string& text, const std::string& format, const std::string& file,
                             const ImportOptions& options = {});

/// The report of an import as lines for standard error: one line per item not converted
/// ("not converted: WHERE: WHY") and per warning ("warning: WHERE: WHAT"), each prefixed by
/// `prefix` (e.g. "joinery import: ").
std::string importNotesText(const ImportResult& r, const std::string& prefix);

}  // namespace joinery
