#pragma once
/// @file scene_completion.hpp
/// Massless completion as an explicit step after loading (docs/completion.md): the loader
/// only records the request (`complete_massless` or SceneOptions::completeMassless); this
/// step solves the model at its initial state and, when it is ill posed because massless
/// points lack their force balance, adds the balances and loads the scene again.

#include "joinery/core/scene.hpp"

namespace joinery {

/// When `scene.completeMassless` is set: adds the force balances of massless points as
/// `expression` joints when the model is ill posed at its initial state and every
/// indeterminate direction has one (then `model` and `resolved()` include their joints);
/// otherwise records in `scene.completion` why nothing was added. A scene that did not ask
/// for completion, or is not ill posed, is returned unchanged.
/// @throws InputError (path `/complete_massless`) when the added joints do not load.
Scene completeMasslessPoints(Scene scene);

}  // namespace joinery
