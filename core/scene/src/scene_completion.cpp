// Massless completion after loading (scene_completion.hpp).
#include "joinery/core/scene_completion.hpp"

#include "joinery/core/completion.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "scene_loader.hpp"

namespace joinery {

Scene completeMasslessPoints(Scene scene) {
  if (!scene.completeMassless) return scene;
  ModelWorkspace ws = scene.model.makeWorkspace();
  const State s = scene.model.initialState();
  const Solution sol = solveForwardDynamics(scene.model, s, ws);
  if (sol.diagnosis.status != Posedness::IllPosed) return scene;
  CompletionAnalysis analysis = analyzeMasslessBalances(scene.model, s, sol.diagnosis);
  if (!analysis.completable()) {
    scene.completion = std::move(analysis);
    return scene;  // nothing added; `check` reports why
  }
  nlohmann::json doc = scene.resolved();
  for (const auto& b : analysis.balances) doc["joints"].push_back(b.joint);
  Scene out = [&] {
    try {
      return sceneFromJson(doc, scene.file);
    } catch (const InputError& e) {
      throw InputError(std::string("complete_massless: the added force balance joints do not load: ") + e.what(),
                       scene.file, "/complete_massless");
    }
  }();
  out.completeMassless = true;
  out.filesRead = scene.filesRead;
  out.completion = std::move(analysis);
  scene_detail::SceneAccess::setOverrides(out, scene_detail::SceneAccess::overrides(scene));  // --set
  return out;
}

}  // namespace joinery
