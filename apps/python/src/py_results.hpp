#pragma once
// Results handed to Python: a solve (accelerations, forces, diagnosis) and the check report.
#include "joinery/core/check.hpp"
#include "joinery/core/dense_solver.hpp"
#include "py_common.hpp"

namespace joinery::python {

/// One solve at one state.
struct PySolution {
  Solution solution;
  std::shared_ptr<const Scene> scene;  ///< names coordinates and rows (null for a matrix problem)
  State state;
  /// A matrix problem's coordinate names (when scene is null); rows are then "row[i]".
  std::shared_ptr<const std::vector<std::string>> problemNames;
  /// The per-joint results (jointResultsJson), computed on first access of `joints`.
  std::shared_ptr<nlohmann::json> joints = std::make_shared<nlohmann::json>();
};

/// The diagnosis of a solve (a distinct Python class over the same data).
struct PyDiagnosis : PySolution {};

/// What `joinery check` reports at the initial state (checkScene), with the solve and the
/// scene it points into.
struct PyCheckReport {
  CheckReport report;
  PySolution solve;  ///< report.solution with the names of the model
};

PyCheckReport makeCheck(const PyModel& model);

/// {name: value} for a vector over named entries.
py::dict named(const Eigen::VectorXd& v, const std::vector<std::string>& names);

}  // namespace joinery::python
