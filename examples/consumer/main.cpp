#include <joinery/analyses/analyses.hpp>  // installed with the joinery::analyses target
#include <joinery/core/dense_solver.hpp>
#include <joinery/core/model_system.hpp>
#include <joinery/core/scene.hpp>         // the scene loader; its types come with joinery::joinery
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
  // a pendulum from JSON: its body and joint types register themselves from the bodies and
  // joints archives, which joinery::joinery links whole (an unresolved -ljoinery_bodies before)
  const auto pendulum = joinery::sceneFromJson(nlohmann::json::parse(R"({"joinery": 1,
      "bodies": [{"name": "rod", "type": "rigid2d", "mass": 1, "inertia": 1, "position": [0.5, 0]}],
      "joints": [{"name": "pivot", "type": "revolute2d", "body1": "ground", "point1": [0, 0],
                  "body2": "rod", "point2": [-0.5, 0]}]})"), "pendulum.json");
  const int dof = joinery::ModelSystem(pendulum.model).numCoordinates();
  std::cout << "a pendulum scene with " << dof << " coordinates\n";
  return s.diagnosis.wellPosed && dof == 3 && mjcf.scene["bodies"].size() == 1 && mjcf.scene["forces"].size() == 1 &&
                 urdf.scene["bodies"].size() == 1
             ? 0
             : 1;
}
