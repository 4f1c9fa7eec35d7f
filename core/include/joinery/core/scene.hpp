#pragma once
/// @file scene.hpp
/// The scene loader: reads a scene file (format version 1, docs/scene-format.md), resolves
/// parameters, includes, components and instances, creates every body, joint and force
/// through the type registries and assembles the Model.
///
/// Every problem with the input throws InputError naming the file, the JSON path (RFC 6901
/// pointer such as `/instances/2/parameters/L`), the value found and what was expected.

#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/completion.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/overrides.hpp"

namespace joinery {

/// Run settings of the scene's `simulation` object. Defaults apply to absent fields.
struct SimulationSettings {
  double tEnd = 1.0;                       ///< end time (s), > 0
  std::string integrator = "dopri5";       ///< "rk4" (fixed step) or "dopri5" (adaptive)
  double rtol = 1e-6;                      ///< relative tolerance of dopri5, in (0, 1)
  double atol = 1e-9;                      ///< absolute tolerance of dopri5, >= 0
  double step = 1e-3;                      ///< fixed step of rk4 (s), > 0; dopri5's first trial step
  double outputInterval = 0.01;            ///< time between written samples (s), > 0
  std::string stabilization = "projection";///< "none", "baumgarte" or "projection"
  bool given = false;                      ///< true when the scene has a `simulation` object
};

/// A loaded scene.
struct Scene {
  std::string name;  ///< the scene's `name` (may be empty)
  std::string file;  ///< the file it was read from (as given)
  Model model;
  SimulationSettings simulation;
  /// The flattened scene: every instance expanded, names qualified (`l1.rod`), ports replaced
  /// by body + point, placements applied and numbers evaluated. Itself a valid scene file
  /// (no parameters needed, no includes, components or instances) that loads into the same model.
  nlohmann::json resolved;
  /// True when massless points were to be completed (scene field `complete_massless` or
  /// SceneOptions::completeMassless).
  bool completeMassless = false;
  /// What the completion found at the initial state when it was requested: the balances it
  /// added (all completable; then `model` and `resolved` include their joints), or the
  /// directions it could not complete (then nothing was added). Empty when not requested
  /// or when the model was not ill posed.
  CompletionAnalysis completion;
};

/// Options of loading a scene that are not in the file.
struct SceneOptions {
  /// Complete massless points (as the scene field `complete_massless`: true does): when the
  /// model is ill posed at its initial state and every indeterminate direction has a
  /// symbolic force balance, add the balances as `expression` joints (docs/completion.md).
  bool completeMassless = false;
  /// Parameter overrides (`--set`, overrides.hpp), applied in order; an unknown name is an
  /// InputError with a suggestion. The resolved scene records them under `"overrides"`.
  std::vector<Override> overrides;
};

/// Reads and loads a scene file. Includes are resolved relative to the file's directory.
/// @throws InputError for any problem with the input (never another exception type for bad input).
Scene loadScene(const std::string& path);
Scene loadScene(const std::string& path, const SceneOptions& options);

/// Loads a scene from parsed JSON. `file` names the source in error messages and is the base
/// for relative `include` paths (its directory; the working directory when empty).
/// @throws InputError
Scene sceneFromJson(const nlohmann::json& document, const std::string& file);
Scene sceneFromJson(const nlohmann::json& document, const std::string& file, const SceneOptions& options);

}  // namespace joinery
