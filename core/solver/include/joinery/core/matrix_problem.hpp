#pragma once
/// @file matrix_problem.hpp
/// The matrix problem of the command-line contract (`joinery solve FILE`):
/// `{"joinery": 1, "coordinates": [...], "M": [[...]], "Q": [...], "A": [[...]], "b": [...], "C": [...]}`.

#include <Eigen/Dense>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "joinery/core/dense_solver.hpp"

namespace joinery {

/// A stacked system given directly as matrices.
struct MatrixProblem {
  std::vector<std::string> coordinates;  ///< n names
  Eigen::MatrixXd M;                     ///< n x n mass matrix (symmetric PSD)
  Eigen::VectorXd Q;                     ///< n applied + velocity-product forces
  Eigen::MatrixXd A;                     ///< m x n constraint matrix (m may be 0)
  Eigen::VectorXd b;                     ///< m right-hand side
  Eigen::VectorXd C;                     ///< n non-ideal work vector (empty = zero)
};

/// Reads a matrix problem from parsed JSON. @throws InputError naming `file`, the JSON path,
/// the value and what was expected (missing field, wrong type, wrong size, NaN string, ...).
MatrixProblem matrixProblemFromJson(const nlohmann::json& j, const std::string& file = {});

/// Reads and parses a matrix-problem file. @throws InputError (also for unreadable files and JSON syntax errors).
MatrixProblem loadMatrixProblem(const std::string& path);

/// Solves a matrix problem; InvalidProblemError from the solver is turned into an InputError
/// naming the JSON path of the offending entry (e.g. `/M/1/0`).
Solution solveMatrixProblem(const MatrixProblem& p, const DenseSolver& solver,
                            const std::string& file = {});

/// The `--json` report of the contract: n, m, rank_A, rank_MA, well_posed, consistent,
/// redundant_constraints, indeterminate, qdd, constraint_force_ideal,
/// constraint_force_nonideal, residual; plus status, messages and indeterminate_directions.
nlohmann::json solutionToJson(const Solution& s, const std::vector<std::string>& names);

/// A short human-readable report of a solution.
std::string solutionToText(const Solution& s, const std::vector<std::string>& names);

}  // namespace joinery
