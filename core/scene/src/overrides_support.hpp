#pragma once
// Private to the scene loader: how parameter overrides (overrides.hpp) are applied. Scene
// parameters and simulation settings are written into a copy of the scene document before it
// is loaded; instance parameters are applied by the loader as it prepares each instance
// (instances may be nested inside components, so the document cannot simply be edited).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "joinery/core/overrides.hpp"
#include "joinery/core/expression.hpp"

namespace joinery::detail {

class OverrideSet {
 public:
  /// Splits `overrides` by kind and writes the scene parameters and simulation settings into
  /// `doc`. The loader does not know the simulation settings (scene_section.hpp): an unknown
  /// `simulation.KEY` is reported, with a suggestion, by the module that reads the section
  /// (parseSimulationSettings) at `/simulation/KEY`.
  OverrideSet(const std::vector<Override>& overrides, nlohmann::json& doc, const std::string& file);

  /// Called by the loader for every instance (qualified name) with its component's declared
  /// parameters: applies that instance's overrides into `fixed` (evaluating expressions over
  /// `outer`), remembers the names for suggestions. @throws InputError for an undeclared parameter.
  void applyToInstance(const std::string& qualified, const std::vector<std::string>& declared,
                       const SymbolTable& outer, SymbolTable& fixed);

  /// @throws InputError naming the first override that matched nothing, with a suggestion.
  void requireAllUsed() const;

 private:
  struct Pending {
    std::string name;
    nlohmann::json value;
  };
  std::string file_;
  std::map<std::string, std::vector<Pending>> instance_;  // qualified instance -> overrides
  std::vector<std::string> unknown_;                       // scene-parameter names not declared
  std::set<std::string> used_;
  std::vector<std::string> known_;                         // every name that could be overridden
};

}  // namespace joinery::detail
