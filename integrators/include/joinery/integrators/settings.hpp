#pragma once
/// @file settings.hpp
/// The run settings of a simulation (the scene's `simulation` object, docs/scene-format.md):
/// one type with the integrator and stabilization as enums, validated once, here.
///
/// The scene loader keeps the `simulation` object as written (Scene::simulation, a
/// SceneSection); parseSimulationSettings() reads and validates it. A program that builds
/// SimulationSettings itself is checked by the same rules when runSimulation() starts.
///
/// Adding an integrator kind: a value of IntegratorKind, its name in kIntegratorNames
/// (settings.cpp) and its construction in makeIntegrator (simulation.cpp); a new setting: a
/// field here, its key and rule in settings.cpp.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "joinery/core/scene_section.hpp"

namespace joinery {

/// Radau5: Radau IIA 5, the implicit (stiff) method, scene names "radau5" and "implicit".
/// Rkm: Kutta–Merson 4(5), "rkm" (loose tolerances on oscillating models).
enum class IntegratorKind { Rk4, Dopri5, Radau5, Rkm };
enum class Stabilization { None, Baumgarte, Projection };

const char* toString(IntegratorKind k) noexcept;
const char* toString(Stabilization s) noexcept;
/// "rk4" / "dopri5" / "rkm" / "radau5" or "implicit"; std::nullopt for anything else.
std::optional<IntegratorKind> parseIntegratorKind(std::string_view s) noexcept;
/// "none" / "baumgarte" / "projection"; std::nullopt for anything else.
std::optional<Stabilization> parseStabilization(std::string_view s) noexcept;
/// The names parseIntegratorKind / parseStabilization accept, in declaration order.
const std::vector<std::string>& integratorNames();
const std::vector<std::string>& stabilizationNames();

/// Run settings of the scene's `simulation` object. Defaults apply to absent fields.
struct SimulationSettings {
  double tEnd = 1.0;                        ///< end time (s), > 0
  IntegratorKind integrator = IntegratorKind::Dopri5;  ///< fixed-step rk4, adaptive dopri5, rkm or radau5
  double rtol = 1e-6;                       ///< relative tolerance of the adaptive methods, in (0, 1)
  double atol = 1e-9;                       ///< absolute tolerance of the adaptive methods, >= 0
  double step = 1e-3;                       ///< fixed step of rk4 (s), > 0; the adaptive methods' first trial step
  double outputInterval = 0.01;             ///< time between written samples (s), > 0
  double maxStep = 0;                       ///< largest step of the adaptive methods (s), >= 0; 0: no limit
  Stabilization stabilization = Stabilization::Projection;
  bool given = false;                       ///< true when the scene has a `simulation` object
};

/// Reads and validates a scene's `simulation` section (numbers may be expressions over the
/// scene's parameters). An absent section gives the defaults (`given` false).
/// @throws InputError naming the file, the path `/simulation/<key>`, the value and what was
///         expected: unknown keys (with a suggestion), non-numbers, t_end <= 0, rtol outside
///         (0, 1), atol < 0, step <= 0, output_interval <= 0, max_step < 0, unknown integrator or
///         stabilization names (with a suggestion).
SimulationSettings parseSimulationSettings(const SceneSection& section);
/// Same, from a plain JSON object (numbers only, no parameters); `file` names the source in
/// error messages, the object is at JSON path `/simulation`.
SimulationSettings parseSimulationSettings(const nlohmann::json& simulation, const std::string& file);

/// Checks settings built in a program by the rules of parseSimulationSettings.
/// @throws InputError with path `/simulation/<key>` for the first value that breaks a rule.
void validateSimulationSettings(const SimulationSettings& settings);

/// Every setting written out as a `simulation` object (reads back to the same settings).
nlohmann::json toJson(const SimulationSettings& settings);

}  // namespace joinery
