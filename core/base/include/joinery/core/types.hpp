#pragma once
/// @file types.hpp
/// Eigen aliases used across joinery's public API.
#include <Eigen/Dense>

namespace joinery {
using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;
/// Read-only vector argument.
using CVecRef = const Eigen::Ref<const Eigen::VectorXd>&;
/// Writable vector output.
using VecRef = Eigen::Ref<Eigen::VectorXd>;
/// Writable matrix output (column-major, any stride).
using MatRef = Eigen::Ref<Eigen::MatrixXd>;
}  // namespace joinery
