#pragma once
// Shared pieces of the Python binding (module _joinery): the model handle, JSON <-> Python
// conversion and the registration function of each area (one .cpp per area).
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "joinery/core/model.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/settings.hpp"

namespace joinery::python {

namespace py = pybind11;

/// JSON value -> Python object (dict, list, str, float, int, bool, None).
py::object toPython(const nlohmann::json& j);
/// Python object -> JSON: dicts (str keys), lists, tuples, NumPy arrays and scalars, numbers,
/// strings, bools, None. @throws std::invalid_argument (Python ValueError) for anything else.
/// Nesting deeper than detail::kMaxJsonDepth (a dict or list that contains itself included) is
/// refused before the conversion recurses further: ValueError, the interpreter survives.
nlohmann::json toJson(py::handle h, int depth = 0);
/// A file name given to the module (str or os.PathLike) as os.fspath gives it.
/// @throws std::invalid_argument (ValueError) for an embedded NUL, as Python's own open() does
/// (the C library would silently read the name up to the NUL).
std::string fileName(py::handle source);
/// The same check for a name already converted.
const std::string& checkedFileName(const std::string& name);

/// A loaded model: the scene (shared with every result that names its coordinates) and a
/// cached evaluation workspace. Immutable after loading, so usable from many threads: the
/// cached workspace is taken when free, else a call makes its own.
class PyModel {
 public:
  /// `scene` loaded and completed (completeMasslessPoints); its `simulation` section is
  /// validated here (InputError before any run).
  explicit PyModel(Scene scene);
  const Scene& scene() const noexcept { return *scene_; }
  /// The scene's `simulation` settings, validated (defaults for absent keys).
  const SimulationSettings& settings() const noexcept { return settings_; }
  const std::shared_ptr<const Scene>& shared() const noexcept { return scene_; }
  const Model& model() const noexcept { return scene_->model; }
  /// The state (q, qdot, t); absent q/qdot: the initial state's.
  /// @throws std::invalid_argument for a wrong length or a non-finite entry.
  State state(const std::optional<Eigen::VectorXd>& q, const std::optional<Eigen::VectorXd>& qdot,
              double t) const;
  /// Calls f(ModelWorkspace&) with the cached workspace when no other thread holds it.
  template <class F>
  auto withWorkspace(F&& f) const {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (lock.owns_lock()) return f(workspace_);
    ModelWorkspace local = scene_->model.makeWorkspace();
    return f(local);
  }

 private:
  std::shared_ptr<const Scene> scene_;
  SimulationSettings settings_;
  mutable std::mutex mutex_;
  mutable ModelWorkspace workspace_;
};

void bindErrors(py::module_& m);
void bindModel(py::module_& m);
void bindCheck(py::module_& m);
void bindSimulate(py::module_& m);
void bindRegistry(py::module_& m);
void bindStudy(py::module_& m);

}  // namespace joinery::python
