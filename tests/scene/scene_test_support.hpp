#pragma once
// Shared helpers of the scene loader tests.
#include <initializer_list>
#include <string>

#include "joinery/core/model.hpp"
#include "joinery/core/scene.hpp"

namespace joinery::test {

/// A vector from its entries.
inline Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double d : v) x(i++) = d;
  return x;
}

/// Path of a file under tests/scene/data/.
inline std::string sceneData(const std::string& relative) {
  return std::string(JOINERY_SOURCE_DIR) + "/tests/scene/data/" + relative;
}

/// The index of a coordinate name in the model, or -1.
inline int coordinateIndex(const Model& m, const std::string& name) {
  const auto& names = m.coordinateNames();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

/// The resolved definition named `name` in the array `kind` ("bodies", "joints", "forces").
inline nlohmann::json resolvedElement(const Scene& s, const std::string& kind, const std::string& name) {
  for (const auto& e : s.resolved().at(kind))
    if (e.at("name") == name) return e;
  return nullptr;
}

}  // namespace joinery::test
