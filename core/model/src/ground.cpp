#include "joinery/core/ground.hpp"

#include <nlohmann/json.hpp>

namespace joinery {
const std::vector<std::string>& GroundBody::coordinateNames() const {
  static const std::vector<std::string> none;
  return none;
}
nlohmann::json GroundBody::toJson() const { return {{"name", "ground"}, {"type", "ground"}}; }
}  // namespace joinery
