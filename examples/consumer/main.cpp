#include <joinery/analyses/analyses.hpp>  // installed with the joinery::analyses target
#include <joinery/core/dense_solver.hpp>
#include <joinery/import/import.hpp>      // installed with the joinery::import target
#include <iostream>
int main() {
  Eigen::MatrixXd M(2, 2); M << 0, 0, 0, 0.75;
  Eigen::MatrixXd A(1, 2); A << 1, -0.25;
  const auto s = joinery::DenseSolver().solve(M, Eigen::Vector2d(19.62, 0), A, Eigen::VectorXd::Zero(1));
  std::cout << s.qdd(1) << "\n";
  // an MJCF pendulum (tinyxml2) and a URDF link (urdfdom), linked through joinery::import
  const auto mjcf = joinery::importModelText(
      R"(<mujoco><worldbody><body name="bob"><joint name="pin" axis="0 1 0" damping="0.1"/>
         <geom type="sphere" size="0.1" pos="0 0 -1"/></body></worldbody></mujoco>)", "mjcf", "pendulum.xml");
  const auto urdf = joinery::importModelText(
      R"(<robot name="r"><link name="base"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>)",
      "urdf", "r.urdf");
  std::cout << mjcf.scene["bodies"].size() << " MJCF body with " << mjcf.scene["forces"].size() << " joint spring, "
            << urdf.scene["bodies"].size() << " URDF body\n";
  return s.diagnosis.wellPosed && mjcf.scene["bodies"].size() == 1 && mjcf.scene["forces"].size() == 1 &&
                 urdf.scene["bodies"].size() == 1
             ? 0
             : 1;
}
