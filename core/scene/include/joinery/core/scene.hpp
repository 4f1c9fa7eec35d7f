#pragma once
/// @file scene.hpp
/// The scene loader: reads a scene file (format version 1, docs/scene-format.md), resolves
/// parameters, includes, components and instances, creates every body, joint and force
/// through the type registries and assembles the Model. It never runs a solver: massless
/// completion is the explicit step of scene_completion.hpp, and the `simulation` settings
/// are validated by the integrators (integrators/settings.hpp).
///
/// Every problem with the input throws InputError naming the file, the JSON path (RFC 6901
/// pointer such as `/instances/2/parameters/L`), the value found and what was expected.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/dense_solver.hpp"  // Eigen/Dense, Diagnosis: as the completion header gave them
#include "joinery/core/errors.hpp"
#include "joinery/core/massless_balance.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/outputs.hpp"
#include "joinery/core/overrides.hpp"
#include "joinery/core/scene_section.hpp"

namespace joinery {

namespace scene_detail {
struct Flattening;
struct SceneAccess;
}  // namespace scene_detail

/// The units a scene file writes its numbers in (its top-level `"units"`, docs/scene-format.md,
/// "Units"): the factors that take its lengths, masses and angles to m, kg and rad, with the
/// units' names. Time is always in seconds.
struct UnitSystem {
  double length = 1, mass = 1, angle = 1;
  std::string lengthName = "m", massName = "kg", angleName = "rad";
  bool isSi() const { return length == 1 && mass == 1 && angle == 1; }
  std::string describe() const;  ///< "length mm, mass g, angle deg"
};

/// A loaded scene (made by loadScene and sceneFromJson).
struct Scene {
  std::string name;  ///< the scene's `name` (may be empty)
  std::string file;  ///< the file it was read from (as given)
  Model model;
  /// The `simulation` object as written (null when absent), with its file, JSON path and the
  /// global parameters its numbers may use. The integrators interpret and validate it:
  /// parseSimulationSettings (integrators/settings.hpp).
  SceneSection simulation;
  /// True when massless points are to be completed (scene field `complete_massless` or
  /// SceneOptions::completeMassless). Loading only records the request; the completion is
  /// the explicit step completeMasslessPoints() (scene_completion.hpp).
  bool completeMassless = false;
  /// What completeMasslessPoints() found at the initial state: the balances it added (all
  /// completable; then `model` and `resolved()` include their joints), or the directions it
  /// could not complete (then nothing was added). Empty before that step, when not
  /// requested or when the model was not ill posed.
  CompletionAnalysis completion;
  /// The output channels of the scene's and its components' `"outputs"` lists, in
  /// declaration order (instance names qualify component channels: `l1.tip`); checked against
  /// the model at load. Compile with OutputChannels(scene.model, scene.outputs).
  std::vector<OutputSpec> outputs;
  /// Every file the loading read: the scene file and its included libraries (canonical paths),
  /// so that a program can refuse to write an output over any of them.
  std::vector<std::string> filesRead;
  /// The scene file's own `"units"` (SI when it has none). The model is in SI whatever they
  /// are; programs write results back in them where asked (`simulate --units scene`).
  UnitSystem units;

  /// The flattened scene: every instance expanded, names qualified (`l1.rod`), ports replaced
  /// by body + point, placements applied and numbers evaluated. Itself a valid scene file
  /// (no parameters needed, no includes, components or instances) that loads into the same model.
  /// Loading does not build it: the first call does (from the bodies, joints and forces of
  /// `model` as loaded, through their toJson()) and keeps it, so every call returns the same
  /// document; calls from several threads at once are safe.
  /// @throws std::logic_error when `model` is no longer the model the scene was loaded with
  /// (assigned or moved away before the first call).
  const nlohmann::json& resolved() const;

 private:
  friend struct scene_detail::SceneAccess;
  explicit Scene(Model m) : model(std::move(m)) {}
  /// What resolved() is built from, and the built document (shared by moved-to scenes).
  std::shared_ptr<scene_detail::Flattening> flattening_;
};

/// Options of loading a scene that are not in the file.
struct SceneOptions {
  /// Request the completion of massless points (as the scene field `complete_massless`:
  /// true does); completeMasslessPoints() then adds the balances (docs/completion.md).
  bool completeMassless = false;
  /// Confine included libraries to a folder: every include must resolve, symbolic links
  /// followed, inside `includeRoot` (when empty: the folder of the scene file); the shipped
  /// `joinery:` libraries are allowed. Off by default,
  /// because the format allows relative paths such as `../lib/links.json`; included files are
  /// always limited in size and never quoted in errors (docs/scene-format.md, "Limits").
  bool confineIncludes = false;
  std::string includeRoot{};
  /// Parameter overrides (`--set`, overrides.hpp), applied in order; an unknown name is an
  /// InputError with a suggestion. Scene::resolved() records them under `"overrides"`.
  std::vector<Override> overrides{};  // {}: SceneOptions{true} stays warning-free
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
