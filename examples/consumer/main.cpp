#include <joinery/analyses/analyses.hpp>  // installed with the joinery::analyses target
#include <joinery/core/dense_solver.hpp>
#include <iostream>
int main() {
  Eigen::MatrixXd M(2, 2); M << 0, 0, 0, 0.75;
  Eigen::MatrixXd A(1, 2); A << 1, -0.25;
  const auto s = joinery::DenseSolver().solve(M, Eigen::Vector2d(19.62, 0), A, Eigen::VectorXd::Zero(1));
  std::cout << s.qdd(1) << "\n";
  return s.diagnosis.wellPosed ? 0 : 1;
}
