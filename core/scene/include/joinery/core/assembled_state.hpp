#pragma once
/// @file assembled_state.hpp
/// An assembled initial state recorded in a scene as written (`joinery assemble`,
/// docs/diagnosis.md, "Assembly"): the scene keeps its parameters, expressions, components
/// and instances; the top-level `"assembled"` object holds each body's assembled initial state
/// and a fingerprint of the model it was assembled for. Loading applies the state only while
/// the model is that model (same parameters and --set values); otherwise the written initial
/// state is used (and assembled again by check and simulate) and assembledStateNote says so.

#include <nlohmann/json.hpp>
#include <string>

namespace joinery {

class Model;
struct Scene;

/// The built-in body fields that hold an initial state (position, angle, orientation, velocity,
/// angular_velocity, q0, v0). With them, a body's own fields are those its
/// Body::writeInitialState writes: what an assembly changes and a fingerprint leaves out.
bool isInitialStateField(const std::string& key);

/// A fingerprint (16 hex digits, FNV-1a over the JSON text) of a flattened scene
/// (Scene::resolved()) of `model` without its bodies' initial states, its name and its --set record:
/// equal exactly when the model is the same apart from where it starts.
std::string modelFingerprint(const nlohmann::json& resolved, const Model& model);

/// `{"fingerprint": ..., "bodies": {name: {initial-state fields}}}` from a flattened scene
/// whose bodies hold the assembled state (withInitialState, assembly.hpp).
nlohmann::json assembledRecord(const nlohmann::json& assembledResolved, const Model& model);

/// The scene loaded from `document` with the record `document["assembled"]` applied: its
/// bodies start in the recorded state when the fingerprint matches (the scene is then loaded
/// again from its flattened form with that state); otherwise unchanged (assembledStateNote
/// says why). sceneFromJson calls it.
/// @throws InputError for a malformed record (naming /assembled).
/// Empty when `document` records no assembled state or `scene` (loaded from it) uses it;
/// otherwise what the commands say: the record is not used, the parameters that changed.
std::string assembledStateNote(const Scene& scene, const nlohmann::json& document);

Scene applyAssembledState(Scene scene, const nlohmann::json& document, const std::string& file);

}  // namespace joinery
