// joinery import and the scene commands on MJCF/URDF files directly (docs/import.md): exit
// statuses, what standard error names, the written scene loading as a scene.
#include <catch2/catch.hpp>

#include <filesystem>

#include "run_command.hpp"
#include "temp_files.hpp"

namespace {
const std::string kSerialArm = std::string(JOINERY_SOURCE_DIR) + "/tests/peers/import/data/serial_arm.urdf";
}

TEST_CASE("joinery import: a URDF arm, written and checked", "[import][cli]") {
  const auto dir = joinery::test::tempFolder("import_cli");
  const std::string out = (dir / "arm.json").string();
  // --no-limits: the ranges named on standard error instead of written as `limit`
  const auto r = joinery::test::runCommand(kExe + " import " + kSerialArm + " --no-limits -o " + out);
  INFO(r.output);
  CHECK(r.exitCode == 0);
  CHECK(r.output.find("urdf, 6 bodies") != std::string::npos);
  CHECK(r.output.find("not converted: stage: limit [-0.1, 0.1] left out") != std::string::npos);
  CHECK(std::filesystem::exists(out));
  const auto check = joinery::test::runCommand(kExe + " check " + out);
  INFO(check.output);
  CHECK(check.exitCode == 0);
  // and a URDF itself, directly (a pendulum of two links on continuous joints)
  const std::string pendulum = joinery::test::writeText(dir / "pendulum.urdf", R"(<robot name="p"><link name="world"/>
      <joint name="j1" type="continuous"><parent link="world"/><child link="a"/><axis xyz="0 1 0"/></joint>
      <link name="a"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/><inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.001"/></inertial></link>
      <joint name="j2" type="continuous"><parent link="a"/><child link="b"/><origin xyz="0 0 -1"/><axis xyz="0 1 0"/></joint>
      <link name="b"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/><inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.001"/></inertial></link>
    </robot>)");
  const auto direct = joinery::test::runCommand(kExe + " check " + pendulum + " --json");
  INFO(direct.output);
  CHECK(direct.exitCode == 0);
  CHECK(direct.output.find("\"well_posed\": true") != std::string::npos);
  const std::string csv = (dir / "pendulum.csv").string();
  const auto sim = joinery::test::runCommand(kExe + " simulate " + pendulum + " -o " + csv + " --t-end 0.2");
  INFO(sim.output);
  CHECK(sim.exitCode == 0);
  CHECK(joinery::test::readText(csv).rfind("t,a.x,a.y,a.z", 0) == 0);
}

TEST_CASE("joinery import: items that change the dynamics give exit 2, the scene still written", "[import][cli]") {
  const auto dir = joinery::test::tempFolder("import_cli_partial");
  const std::string model = joinery::test::writeText(dir / "damped.xml", R"(<mujoco><worldbody>
      <body name="arm"><joint name="hinge" damping="0.3" armature="0.02"/><geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02"/></body>
    </worldbody></mujoco>)");
  const std::string out = (dir / "damped.json").string();
  const auto r = joinery::test::runCommand(kExe + " import " + model + " -o " + out);
  INFO(r.output);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("not converted: hinge: armature 0.02") != std::string::npos);
  CHECK(std::filesystem::exists(out));
  const auto bad = joinery::test::runCommand(kExe + " import " + (dir / "missing.xml").string() + " -o " + out);
  CHECK(bad.exitCode == 2);
  CHECK(bad.output.find("missing.xml") != std::string::npos);
}

TEST_CASE("joinery check and view on MJCF and URDF files directly, joint ranges as limits", "[import][cli]") {
  const auto dir = joinery::test::tempFolder("import_cli_direct");
  const auto arm = joinery::test::runCommand(kExe + " check " + kSerialArm);
  INFO(arm.output);
  CHECK(arm.exitCode == 0);
  CHECK(arm.output.find("by rank (n - rank A) = 4") != std::string::npos);
  const std::string humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";  // libmujoco-samples
  if (!std::filesystem::exists(humanoid)) {
    WARN("no " << humanoid << " (Debian libmujoco-samples): the humanoid case is not run");
    return;
  }
  const auto h = joinery::test::runCommand(kExe + " check " + humanoid);
  INFO(h.output);
  CHECK(h.exitCode == 0);  // the items not converted are named, the check itself is well posed
  CHECK(h.output.find("joinery: import: not converted: right_knee: armature 0.01") != std::string::npos);
  CHECK(h.output.find("right_knee: damping") == std::string::npos);  // converted: a joint_spring
  CHECK(h.output.find("by rank (n - rank A) = 27") != std::string::npos);  // MuJoCo's nv
  const std::string page = (dir / "humanoid.html").string();
  const auto v = joinery::test::runCommand(kExe + " view " + humanoid + " -o " + page);
  INFO(v.output);
  CHECK(v.exitCode == 0);
  CHECK(joinery::test::readText(page).find("right_lower_arm") != std::string::npos);
}

TEST_CASE("joinery import: names from the model file are escaped before they reach the terminal", "[import][cli]") {
  const auto dir = joinery::test::tempFolder("import_cli_terminal");
  // a joint name holding U+009B (CSI, legal in XML 1.0) and "2J": raw, a terminal clears the screen
  const std::string model = joinery::test::writeText(dir / "csi.xml", "<mujoco><worldbody><body name=\"arm\">"
      "<joint name=\"h\xC2\x9B" "2J\" armature=\"0.3\"/><geom type=\"sphere\" size=\"0.1\"/></body></worldbody></mujoco>");
  const auto r = joinery::test::runCommand(kExe + " import " + model + " -o " + (dir / "csi.json").string());
  INFO(r.output);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("\xC2\x9B") == std::string::npos);
  CHECK(r.output.find("h\\u009b2J: armature 0.3") != std::string::npos);
}
