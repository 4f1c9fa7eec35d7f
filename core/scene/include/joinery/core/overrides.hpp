#pragma once
/// @file overrides.hpp
/// Parameter overrides (`--set NAME=VALUE`): change a scene parameter (`k`), an instance
/// parameter (`l1.L`, nested `arm.l1.L`) or a simulation setting (`simulation.t_end`) of a
/// scene at load time, without editing the file. Applied through SceneOptions::overrides;
/// the loaded Scene's `resolved()` JSON records them under `"overrides"`. docs/studies.md.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace joinery {

/// One override. `value` is a JSON number, or a JSON string holding an expression (over the
/// scene's parameters for a scene or simulation setting, over the enclosing scope's
/// parameters for an instance parameter) or a word (`simulation.integrator=rk4`).
struct Override {
  std::string name;
  nlohmann::json value;
};

/// Parses `NAME=VALUE`: a VALUE that reads completely as a finite number becomes a number,
/// anything else an expression string. @throws InputError (file "--set") when there is no
/// '=', or NAME or VALUE is empty.
Override parseOverride(const std::string& text);

/// `{"k": 2, "l1.L": "0.3"}` — what the resolved scene records.
nlohmann::json overridesJson(const std::vector<Override>& overrides);

}  // namespace joinery
