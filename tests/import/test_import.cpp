// The importers' conversion rules against closed forms written here, independently of the
// importer's code: geom inertias (a capsule as a cylinder and two hemispheres with the
// hemisphere's own 83/320 m r^2), URDF inertial frames, MJCF defaults, childclass, include,
// compiler settings and every orientation form; the import checks; an MJCF closed loop
// (equality connect) simulated against the same four-bar written as a scene.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>

#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/import/import.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/integrators/settings.hpp"
#include "joinery/core/model_system.hpp"
#include "temp_files.hpp"

namespace {

using joinery::ImportResult;
using Eigen::Matrix3d;
using Eigen::Vector3d;

ImportResult mjcf(const std::string& xml, const joinery::ImportOptions& o = {}) {
  return joinery::importModelText(xml, "mjcf", "test.xml", o);
}
ImportResult urdf(const std::string& xml, const joinery::ImportOptions& o = {}) {
  return joinery::importModelText(xml, "urdf", "test.urdf", o);
}

const nlohmann::json& bodyNamed(const nlohmann::json& scene, const std::string& name) {
  for (const auto& b : scene["bodies"])
    if (b["name"] == name) return b;
  FAIL("no body " << name);
  return scene;
}
const nlohmann::json& jointNamed(const nlohmann::json& scene, const std::string& name) {
  for (const auto& j : scene["joints"])
    if (j["name"] == name) return j;
  FAIL("no joint " << name);
  return scene;
}

Matrix3d inertiaOf(const nlohmann::json& b) {
  Matrix3d I = Matrix3d::Zero();
  if (b["inertia"][0].is_number()) {
    for (int i = 0; i < 3; ++i) I(i, i) = b["inertia"][i];
  } else {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) I(i, j) = b["inertia"][i][j];
  }
  return I;
}
Vector3d vecOf(const nlohmann::json& v) { return Vector3d(v[0].get<double>(), v[1].get<double>(), v[2].get<double>()); }
Matrix3d rotOf(const nlohmann::json& q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
}

bool mentions(const std::vector<joinery::ImportNote>& notes, const std::string& where, const std::string& what) {
  for (const auto& n : notes)
    if (n.where.find(where) != std::string::npos && n.message.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("MJCF geoms: mass and inertia from density as closed forms give them", "[import]") {
  const double rho = 700, r = 0.05, hh = 0.2;  // capsule radius, half length of its cylinder
  const ImportResult res = mjcf(R"(<mujoco><worldbody>
      <body name="box" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.2 0.3" density="500"/></body>
      <body name="cap" pos="1 0 1"><freejoint/><geom type="capsule" size="0.05 0.2" density="700"/></body>
      <body name="cyl" pos="2 0 1"><freejoint/><geom type="cylinder" size="0.1 0.25" mass="3"/></body>
      <body name="two" pos="3 0 1"><freejoint/>
        <geom type="sphere" size="0.1" pos="0.2 0 0" mass="2"/><geom type="sphere" size="0.1" pos="-0.2 0 0" mass="2"/></body>
    </worldbody></mujoco>)");
  const nlohmann::json& s = res.scene;
  {
    const auto& b = bodyNamed(s, "box");
    const double m = 500 * 0.2 * 0.4 * 0.6;
    CHECK(b["mass"].get<double>() == Approx(m).epsilon(1e-14));
    const Matrix3d I = inertiaOf(b);
    CHECK(I(0, 0) == Approx(m * (0.4 * 0.4 + 0.6 * 0.6) / 12).epsilon(1e-13));
    CHECK(I(1, 1) == Approx(m * (0.2 * 0.2 + 0.6 * 0.6) / 12).epsilon(1e-13));
    CHECK(I(2, 2) == Approx(m * (0.2 * 0.2 + 0.4 * 0.4) / 12).epsilon(1e-13));
  }
  {
    const auto& b = bodyNamed(s, "cap");
    const double h = 2 * hh;
    const double mc = rho * M_PI * r * r * h, ms = rho * 4.0 / 3.0 * M_PI * r * r * r;
    CHECK(b["mass"].get<double>() == Approx(mc + ms).epsilon(1e-13));
    // two hemispheres of mass ms/2, each 83/320 (ms/2) r^2 about its own centre, which is
    // h/2 + 3r/8 from the capsule's centre
    const double d = h / 2 + 3 * r / 8;
    const double transverse = mc * (3 * r * r + h * h) / 12 + 2 * (83.0 / 320.0 * (ms / 2) * r * r + (ms / 2) * d * d);
    const double axial = mc * r * r / 2 + 2 * (ms / 2) * 2 * r * r / 5;
    const Matrix3d I = inertiaOf(b);
    CHECK(I(0, 0) == Approx(transverse).epsilon(1e-12));
    CHECK(I(1, 1) == Approx(transverse).epsilon(1e-12));
    CHECK(I(2, 2) == Approx(axial).epsilon(1e-12));
  }
  {
    const Matrix3d I = inertiaOf(bodyNamed(s, "cyl"));
    CHECK(I(0, 0) == Approx(3 * (3 * 0.01 + 0.25) / 12).epsilon(1e-13));  // m (3 r^2 + L^2) / 12, L = 0.5
    CHECK(I(2, 2) == Approx(3 * 0.01 / 2).epsilon(1e-13));
  }
  {  // parallel axes: two spheres 0.4 apart
    const auto& b = bodyNamed(s, "two");
    const Matrix3d I = inertiaOf(b);
    CHECK(vecOf(b["position"]).isApprox(Vector3d(3, 0, 1), 1e-14));
    CHECK(I(0, 0) == Approx(2 * 0.4 * 2 * 0.01).epsilon(1e-13));
    CHECK(I(1, 1) == Approx(2 * 0.4 * 2 * 0.01 + 4 * 0.04).epsilon(1e-13));
  }
  CHECK(res.dynamicsComplete);
}

TEST_CASE("MJCF orientation forms, eulerseq and the angle unit agree with the rotations they name", "[import]") {
  const double a = 0.7;  // rad
  const Matrix3d Rx = Eigen::AngleAxisd(a, Vector3d::UnitX()).toRotationMatrix();
  const Matrix3d Rz = Eigen::AngleAxisd(0.3, Vector3d::UnitZ()).toRotationMatrix();
  const std::string deg = std::to_string(a * 180 / M_PI), deg3 = std::to_string(0.3 * 180 / M_PI);
  const ImportResult res = mjcf(R"(<mujoco><worldbody>
      <body name="q" quat=")" + std::to_string(std::cos(a / 2)) + " " + std::to_string(std::sin(a / 2)) +
                                R"( 0 0"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>
      <body name="aa" axisangle="1 0 0 )" + deg + R"("><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>
      <body name="eu" euler=")" + deg + " 0 " + deg3 + R"("><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>
      <body name="xy" xyaxes="1 0 0 0 )" + std::to_string(std::cos(a)) + " " + std::to_string(std::sin(a)) +
                                R"("><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>
      <body name="z" zaxis="0 0 -1"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>
    </worldbody></mujoco>)");
  CHECK(rotOf(bodyNamed(res.scene, "q")["orientation"]).isApprox(Rx, 1e-6));
  CHECK(rotOf(bodyNamed(res.scene, "aa")["orientation"]).isApprox(Rx, 1e-6));
  CHECK(rotOf(bodyNamed(res.scene, "eu")["orientation"]).isApprox(Rx * Rz, 1e-6));  // xyz: axes that move
  CHECK(rotOf(bodyNamed(res.scene, "xy")["orientation"]).isApprox(Rx, 1e-6));
  CHECK((rotOf(bodyNamed(res.scene, "z")["orientation"]) * Vector3d::UnitZ()).isApprox(-Vector3d::UnitZ(), 1e-12));
  // radians and an extrinsic sequence: Z then X about fixed axes is Rx * Rz as well
  const ImportResult rad = mjcf(R"(<mujoco><compiler angle="radian" eulerseq="ZXY"/><worldbody>
      <body name="eu" euler="0.3 0.7 0"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>
    </worldbody></mujoco>)");
  CHECK(rotOf(bodyNamed(rad.scene, "eu")["orientation"]).isApprox(Rx * Rz, 1e-12));
  CHECK_THROWS_WITH(mjcf(R"(<mujoco><worldbody><body quat="1 0 0 0" euler="0 0 0"/></worldbody></mujoco>)"),
                    Catch::Contains("more than one orientation"));
}

TEST_CASE("MJCF defaults, childclass, include and coordinate=\"global\"", "[import]") {
  const auto dir = joinery::test::tempFolder("import_include");
  joinery::test::writeText(dir / "parts.xml", R"(<mujoco><default><default class="heavy">
      <geom density="2000"/><joint axis="0 1 0" range="-30 60" limited="true"/></default></default></mujoco>)");
  // a class copies its parent's attributes when it is defined (as in MuJoCo): main's come first
  joinery::test::writeText(dir / "model.xml", R"(<mujoco><default><geom type="box" size="0.1 0.1 0.1"/></default>
    <include file="parts.xml"/>
    <worldbody>
      <body name="a" childclass="heavy"><joint name="ja"/><geom/>
        <body name="b" pos="0 0 -0.5"><joint name="jb" class="main"/><geom class="main"/></body>
      </body>
    </worldbody></mujoco>)");
  const ImportResult res = joinery::importModel((dir / "model.xml").string());
  CHECK(bodyNamed(res.scene, "a")["mass"].get<double>() == Approx(2000 * 0.008).epsilon(1e-14));
  CHECK(bodyNamed(res.scene, "b")["mass"].get<double>() == Approx(1000 * 0.008).epsilon(1e-14));
  const auto& ja = jointNamed(res.scene, "ja");
  CHECK(vecOf(ja["axis2"]).isApprox(Vector3d::UnitY()));
  CHECK(ja["limit"]["min"].get<double>() == Approx(-M_PI / 6).epsilon(1e-14));  // degrees by default
  CHECK(ja["limit"]["max"].get<double>() == Approx(M_PI / 3).epsilon(1e-14));
  const auto& jb = jointNamed(res.scene, "jb");
  CHECK(vecOf(jb["axis2"]).isApprox(Vector3d::UnitZ()));  // class main: MuJoCo's default axis
  CHECK_FALSE(jb.contains("limit"));
  // the limit loads: the one-sided rows of revolute3d
  const joinery::Scene loaded = joinery::sceneFromJson(res.scene, "model.xml");
  CHECK(loaded.model.numCoordinates() == 14);
  // the same chain written in global coordinates
  const ImportResult g = mjcf(R"(<mujoco><compiler coordinate="global"/><worldbody>
      <body name="a" pos="1 0 0"><joint name="ja" pos="1 0 0.1" axis="0 1 0"/><geom type="sphere" size="0.1" pos="1 0 0"/>
        <body name="b" pos="1 0 -0.5"><joint name="jb" pos="1 0 -0.4" axis="1 0 0"/><geom type="sphere" size="0.1" pos="1 0 -0.5"/></body>
      </body></worldbody></mujoco>)");
  CHECK(vecOf(bodyNamed(g.scene, "b")["position"]).isApprox(Vector3d(1, 0, -0.5)));
  CHECK(vecOf(jointNamed(g.scene, "jb")["point2"]).isApprox(Vector3d(0, 0, 0.1)));
  CHECK(vecOf(jointNamed(g.scene, "jb")["point1"]).isApprox(Vector3d(0, 0, -0.4)));
}

TEST_CASE("MJCF: several joints in one body become a chain through massless frames", "[import]") {
  const ImportResult res = mjcf(R"(<mujoco><worldbody>
      <body name="thigh" pos="0 0 1"><joint name="hx" axis="1 0 0"/><joint name="hy" axis="0 1 0"/><joint name="hz" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.05"/></body>
    </worldbody></mujoco>)");
  REQUIRE(res.scene["bodies"].size() == 3);
  CHECK(bodyNamed(res.scene, "thigh__hx")["mass"] == 0.0);
  CHECK(jointNamed(res.scene, "hy")["body1"] == "thigh__hx");
  CHECK(jointNamed(res.scene, "hz")["body2"] == "thigh");
  const joinery::Scene scene = joinery::sceneFromJson(res.scene, "test.xml");
  joinery::ModelWorkspace ws = scene.model.makeWorkspace();
  const joinery::Solution sol = joinery::solveForwardDynamics(scene.model, scene.model.initialState(), ws);
  CHECK(sol.diagnosis.wellPosed);  // the massless frames are determined by the joints
  CHECK(scene.model.numCoordinates() - sol.diagnosis.rankA == 3);
}

TEST_CASE("MJCF: a hinge's and a slide's stiffness and damping become joint springs, rest = springref - ref",
          "[import]") {
  const ImportResult res = mjcf(R"(<mujoco><compiler angle="degree"/><worldbody>
      <body name="arm"><joint name="h" ref="10" springref="40" stiffness="3" damping="0.2"/>
        <geom type="capsule" fromto="0 0 0 1 0 0" size="0.05"/>
        <body name="slider" pos="1 0 0"><joint name="s" type="slide" axis="1 0 0" stiffness="50" springref="0.1"/>
          <geom type="sphere" size="0.1"/></body></body></worldbody></mujoco>)");
  CHECK(res.dynamicsComplete);
  REQUIRE(res.scene["forces"].size() == 2);
  const nlohmann::json& h = res.scene["forces"][0];
  CHECK(h["type"] == "joint_spring");
  CHECK(h["joint"] == "h");
  CHECK(h["stiffness"] == 3.0);
  CHECK(h["damping"] == 0.2);
  CHECK(h["rest"].get<double>() == Approx(30 * 3.14159265358979323846 / 180).epsilon(1e-15));  // degrees to rad
  const nlohmann::json& sl = res.scene["forces"][1];
  CHECK(sl["joint"] == "s");
  CHECK(sl["rest"].get<double>() == Approx(0.1).epsilon(1e-15));  // a slide's springref is a length
  CHECK_FALSE(sl.contains("damping"));
  const joinery::Scene scene = joinery::sceneFromJson(res.scene, "springs.json");  // and it loads
  CHECK(scene.model.forces().size() == 2);
}

TEST_CASE("MJCF: what is not converted is named, and whether the dynamics are complete", "[import]") {
  const ImportResult res = mjcf(R"(<mujoco><worldbody><geom type="plane" size="1 1 1"/>
      <body name="arm"><joint name="j" damping="0.5" armature="0.1"/><geom type="capsule" fromto="0 0 0 1 0 0" size="0.05"/>
        <site name="tip" pos="1 0 0"/></body></worldbody>
      <actuator><motor joint="j"/></actuator></mujoco>)");
  CHECK_FALSE(res.dynamicsComplete);
  CHECK(mentions(res.notConverted, "j", "armature 0.1"));
  // the damping is converted: a joint_spring on the hinge (tests/peers/import checks its forces)
  REQUIRE(res.scene.contains("forces"));
  REQUIRE(res.scene["forces"].size() == 1);
  CHECK(res.scene["forces"][0] == nlohmann::json{{"name", "j_spring"}, {"type", "joint_spring"}, {"joint", "j"},
                                                 {"damping", 0.5}});
  CHECK_FALSE(mentions(res.notConverted, "j", "damping"));
  CHECK(mentions(res.notConverted, "actuator", "1 actuators"));
  CHECK(mentions(res.notConverted, "worldbody", "geom"));
  REQUIRE(res.scene["outputs"].size() == 1);  // the site as a named point, from the centre of mass
  CHECK(res.scene["outputs"][0]["name"] == "tip");
  CHECK(vecOf(res.scene["outputs"][0]["point"]["point"]).isApprox(Vector3d(0.5, 0, 0), 1e-12));
  const ImportResult motorOnly = mjcf(R"(<mujoco><worldbody><body name="arm"><joint name="j"/>
      <geom type="sphere" size="0.1"/></body></worldbody><actuator><motor joint="j"/></actuator></mujoco>)");
  CHECK(motorOnly.dynamicsComplete);  // an actuator is an input, not the passive mechanism
  CHECK_THROWS_WITH(mjcf(R"(<mujoco><worldbody><body><geom class="nope"/></body></worldbody></mujoco>)"),
                    Catch::Contains("no such default class"));
  CHECK_THROWS_WITH(mjcf("<mujoco><worldbody><body pos=\"1 2\"/></worldbody></mujoco>"),
                    Catch::Contains("expected 3 numbers"));
}

TEST_CASE("URDF: inertia in the inertial frame, joints, mimic, limits", "[import]") {
  const ImportResult res = urdf(R"(<robot name="r"><link name="world"/>
      <joint name="j1" type="revolute"><parent link="world"/><child link="a"/><origin xyz="0 0 1" rpy="0 0 0"/>
        <axis xyz="0 0 2"/><limit lower="-1" upper="1.5" effort="1" velocity="1"/></joint>
      <link name="a"><inertial><origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/><mass value="2"/>
        <inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="2.5"/></inertial></link>
      <joint name="j2" type="continuous"><parent link="a"/><child link="b"/><origin xyz="0.5 0 0"/><axis xyz="0 0 1"/>
        <mimic joint="j1" multiplier="-2" offset="0"/></joint>
      <link name="b"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
    </robot>)");
  const auto& a = bodyNamed(res.scene, "a");
  const Matrix3d I = inertiaOf(a);  // the principal axes turned a quarter turn about z
  CHECK(I(0, 0) == Approx(2).epsilon(1e-12));
  CHECK(I(1, 1) == Approx(1).epsilon(1e-12));
  CHECK(vecOf(a["position"]).isApprox(Vector3d(0.1, 0, 1), 1e-14));
  const auto& j1 = jointNamed(res.scene, "j1");
  CHECK(vecOf(j1["point2"]).isApprox(Vector3d(-0.1, 0, 0), 1e-14));  // the link origin from the centre of mass
  CHECK(vecOf(j1["axis1"]).isApprox(Vector3d::UnitZ()));
  CHECK(j1["limit"]["max"] == 1.5);
  const auto& mimic = jointNamed(res.scene, "j2_mimic");
  CHECK(mimic["type"] == "gear");
  CHECK(mimic["joint1"] == "j1");
  CHECK(mimic["ratio"] == -2.0);
  CHECK(res.scene["gravity"][2] == -9.81);
  const joinery::ImportResult noLimits = urdf(R"(<robot name="r"><link name="world"/>
      <joint name="j1" type="revolute"><parent link="world"/><child link="a"/><axis xyz="0 0 1"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint><link name="a"/></robot>)",
                                               joinery::ImportOptions{false, false});
  CHECK_FALSE(jointNamed(noLimits.scene, "j1").contains("limit"));
  CHECK(mentions(noLimits.notConverted, "j1", "left out"));
}

TEST_CASE("Import checks: inertia, centre of mass, axes, connectivity, named by link", "[import]") {
  const ImportResult res = urdf(R"(<robot name="r"><link name="world"/>
      <joint name="j1" type="revolute"><parent link="world"/><child link="bad"/><axis xyz="0 0 1"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <link name="bad"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/></inertial></link>
      <joint name="j2" type="revolute"><parent link="world"/><child link="far"/><axis xyz="0 0 0"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <link name="far"><inertial><origin xyz="2 0 0"/><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
        <visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>
      <joint name="j3" type="fixed"><parent link="world"/><child link="massless"/></joint><link name="massless"/>
    </robot>)");
  CHECK(mentions(res.warnings, "bad", "triangle inequality"));
  CHECK(mentions(res.warnings, "far", "outside the bounding box"));
  CHECK(mentions(res.warnings, "far", "axis of zero length"));
  CHECK(mentions(res.warnings, "far", "not connected to the ground"));  // its joint was not converted
  CHECK_FALSE(res.dynamicsComplete);
  CHECK_FALSE(mentions(res.warnings, "massless", ""));  // legal: joinery's diagnosis judges it
  const ImportResult neg = mjcf(R"(<mujoco><worldbody><body name="n"><joint/>
      <inertial pos="0 0 0" mass="1" fullinertia="1 1 1 2 0 0"/></body></worldbody></mujoco>)");
  CHECK(mentions(neg.warnings, "n", "not positive semi-definite"));
}

TEST_CASE("MJCF equality connect: a closed four-bar moves as the same mechanism written as a scene", "[import]") {
  // crank (ground pivot at the origin, 0.2 long), coupler (0.2) and rocker (0.2, ground pivot at
  // x = 0.4): an isosceles trapezoid (crank at 60 degrees, rocker at 120); the loop
  // is closed by `connect` at the far end of the coupler. Boxes with explicit masses
  // (the crank heavier: the symmetric start is no equilibrium).
  const ImportResult res = mjcf(R"(<mujoco><option gravity="0 0 -9.81"/><worldbody>
      <body name="crank" euler="0 -60 0"><joint name="a" axis="0 1 0"/>
        <geom type="box" size="0.1 0.01 0.01" pos="0.1 0 0" mass="3"/>
        <body name="coupler" pos="0.2 0 0" euler="0 60 0"><joint name="b" axis="0 1 0"/>
          <geom type="box" size="0.1 0.01 0.01" pos="0.1 0 0" mass="2"/></body></body>
      <body name="rocker" pos="0.4 0 0" euler="0 -120 0"><joint name="c" axis="0 1 0"/>
        <geom type="box" size="0.1 0.01 0.01" pos="0.1 0 0" mass="1"/></body>
    </worldbody><equality><connect name="close" body1="coupler" body2="rocker" anchor="0.2 0 0"/></equality></mujoco>)");
  // The same mechanism by hand: rotations about y by the Euler angles above (x to the world's
  // (cos t, 0, -sin t) for a turn t about y), centres of mass at the boxes' centres.
  auto dir = [](double deg) {
    const double t = deg * M_PI / 180;
    return Vector3d(std::cos(t), 0, -std::sin(t));
  };
  auto quat = [](double deg) {
    const double t = deg * M_PI / 180;
    return nlohmann::json{std::cos(t / 2), 0, std::sin(t / 2), 0};
  };
  auto I = [](double m, double a, double b, double c) {
    return nlohmann::json{m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3};
  };
  auto v = [](const Vector3d& x) { return nlohmann::json{x.x(), x.y(), x.z()}; };
  const Vector3d crankEnd = 0.2 * dir(-60);
  const Vector3d rockerPivot(0.4, 0, 0);
  const nlohmann::json byHand = {
      {"joinery", 1},
      {"gravity", {0, 0, -9.81}},
      {"bodies",
       {{{"name", "crank"}, {"type", "rigid3d"}, {"mass", 3}, {"inertia", I(3, 0.1, 0.01, 0.01)},
         {"position", v(0.1 * dir(-60))}, {"orientation", quat(-60)}},
        {{"name", "coupler"}, {"type", "rigid3d"}, {"mass", 2}, {"inertia", I(2, 0.1, 0.01, 0.01)},
         {"position", v(crankEnd + 0.1 * dir(0))}, {"orientation", quat(0)}},
        {{"name", "rocker"}, {"type", "rigid3d"}, {"mass", 1}, {"inertia", I(1, 0.1, 0.01, 0.01)},
         {"position", v(rockerPivot + 0.1 * dir(-120))}, {"orientation", quat(-120)}}}},
      {"joints",
       {{{"name", "a"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", {0, 0, 0}}, {"axis1", {0, 1, 0}},
         {"body2", "crank"}, {"point2", {-0.1, 0, 0}}, {"axis2", {0, 1, 0}}},
        {{"name", "b"}, {"type", "revolute3d"}, {"body1", "crank"}, {"point1", {0.1, 0, 0}}, {"axis1", {0, 1, 0}},
         {"body2", "coupler"}, {"point2", {-0.1, 0, 0}}, {"axis2", {0, 1, 0}}},
        {{"name", "c"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", v(rockerPivot)}, {"axis1", {0, 1, 0}},
         {"body2", "rocker"}, {"point2", {-0.1, 0, 0}}, {"axis2", {0, 1, 0}}},
        {{"name", "close"}, {"type", "spherical"}, {"body1", "coupler"}, {"point1", {0.1, 0, 0}}, {"body2", "rocker"},
         {"point2", {0.1, 0, 0}}}}},
      {"simulation", {{"t_end", 0.5}, {"integrator", "dopri5"}, {"rtol", 1e-10}, {"atol", 1e-12}, {"output_interval", 0.5}}}};
  // the loop closes at the initial state: the coupler's end meets the rocker's
  REQUIRE((crankEnd + 0.2 * dir(0) - (rockerPivot + 0.2 * dir(-120))).norm() < 1e-12);
  nlohmann::json imported = res.scene;
  imported["simulation"] = byHand["simulation"];
  auto finalState = [](const nlohmann::json& doc) {
    const joinery::Scene scene = joinery::sceneFromJson(doc, "four_bar");
    const joinery::SimulationSettings settings = joinery::parseSimulationSettings(scene.simulation);
    joinery::ModelSystem system(scene.model);
    joinery::MemoryRecorder rec;
    const joinery::SimulationResult out = joinery::runSimulation(system, settings, rec);
    REQUIRE(out.completed());
    return Eigen::VectorXd(rec.q.back());
  };
  const Eigen::VectorXd a = finalState(imported), b = finalState(byHand);
  REQUIRE(a.size() == b.size());
  CHECK((a - b).cwiseAbs().maxCoeff() < 1e-8);  // two integrations of one motion at rtol 1e-10
  CHECK((a - joinery::sceneFromJson(byHand, "x").model.initialState().q).norm() > 1e-2);  // it did move
}

TEST_CASE("Hostile model files: clear errors, no crash", "[import]") {
  // a URDF chain deeper than the importer recurses
  std::string chain = "<robot name=\"deep\"><link name=\"l0\"/>";
  for (int i = 1; i <= 1200; ++i)
    chain += "<link name=\"l" + std::to_string(i) + "\"/><joint name=\"j" + std::to_string(i) +
             "\" type=\"fixed\"><parent link=\"l" + std::to_string(i - 1) + "\"/><child link=\"l" +
             std::to_string(i) + "\"/></joint>";
  chain += "</robot>";
  CHECK_THROWS_WITH(urdf(chain), Catch::Contains("more than 1000 links"));
  CHECK_THROWS_WITH(urdf("<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/></robot>"),
                    Catch::Contains("not a valid URDF"));  // two roots: urdfdom's message
  CHECK_THROWS_WITH(mjcf("<mujoco><worldbody><body pos=\"nan 0 0\"/></worldbody></mujoco>"),
                    Catch::Contains("expected finite numbers"));
  CHECK_THROWS_WITH(mjcf("<mujoco><worldbody><body><geom type=\"box\" size=\"-1 1 1\"/></body></worldbody></mujoco>"),
                    Catch::Contains("sizes must be >= 0"));
  CHECK_THROWS_WITH(mjcf("<mujoco><worldbody><body></worldbody></mujoco>"), Catch::Contains("XML syntax error"));
  CHECK_THROWS_WITH(mjcf("<robot/>"), Catch::Contains("expected <mujoco>"));
  const auto dir = joinery::test::tempFolder("import_self_include");
  joinery::test::writeText(dir / "self.xml", "<mujoco><include file=\"self.xml\"/></mujoco>");
  CHECK_THROWS_WITH(joinery::importModel((dir / "self.xml").string()), Catch::Contains("included twice"));
  CHECK_THROWS_WITH(joinery::importModel((dir / "none.urdf").string()), Catch::Contains("cannot open"));
}

TEST_CASE("URDF massless links go through joinery's diagnosis", "[import]") {
  // a massless "virtual" link between two revolute joints (a universal joint written the URDF
  // way) is determined by its joints; a massless leaf on a revolute joint is not
  const std::string head = R"(<robot name="r"><link name="world"/>
      <joint name="yaw" type="continuous"><parent link="world"/><child link="virtual"/><axis xyz="0 0 1"/></joint>
      <link name="virtual"/>
      <joint name="pitch" type="continuous"><parent link="virtual"/><child link="arm"/><axis xyz="0 1 0"/></joint>
      <link name="arm"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
        <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.08" iyz="0" izz="0.08"/></inertial></link>)";
  auto diagnose = [](const std::string& xml) {
    const joinery::Scene scene = joinery::sceneFromJson(urdf(xml).scene, "r.urdf");
    joinery::ModelWorkspace ws = scene.model.makeWorkspace();
    const joinery::Solution sol = joinery::solveForwardDynamics(scene.model, scene.model.initialState(), ws);
    std::vector<std::string> names;
    for (int i : sol.diagnosis.indeterminateCoordinates) names.push_back(scene.model.coordinateNames()[static_cast<std::size_t>(i)]);
    return std::make_pair(sol.diagnosis.wellPosed, names);
  };
  const auto [ok, none] = diagnose(head + "</robot>");
  CHECK(ok);
  CHECK(none.empty());
  const auto [leafOk, leaf] = diagnose(head + R"(<joint name="wrist" type="continuous"><parent link="arm"/><child link="tip"/>
      <origin xyz="1 0 0"/><axis xyz="1 0 0"/></joint><link name="tip"/></robot>)");
  CHECK_FALSE(leafOk);  // nothing determines how the massless tip turns about the wrist
  REQUIRE_FALSE(leaf.empty());
  for (const auto& n : leaf) CHECK(n.rfind("tip.", 0) == 0);
}

TEST_CASE("URDF meshes: an STL file drawn as its bounding box, other meshes named", "[import]") {
  const auto dir = joinery::test::tempFolder("import_mesh");
  joinery::test::writeText(dir / "part.stl", "solid p\n facet normal 0 0 1\n  outer loop\n   vertex -1 0 0\n"
                                             "   vertex 2 1 0\n   vertex 0 3 0.5\n  endloop\n endfacet\nendsolid p\n");
  joinery::test::writeText(dir / "r.urdf", R"(<robot name="r"><link name="world"/>
      <joint name="j" type="continuous"><parent link="world"/><child link="a"/><axis xyz="0 0 1"/></joint>
      <link name="a"><inertial><origin xyz="0.5 1.5 0.25"/><mass value="1"/>
        <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
        <visual><geometry><mesh filename="part.stl" scale="1 1 2"/></geometry></visual>
        <visual><geometry><mesh filename="package://robot/meshes/hand.dae"/></geometry></visual></link></robot>)");
  const ImportResult res = joinery::importModel((dir / "r.urdf").string());
  const auto& a = bodyNamed(res.scene, "a");
  REQUIRE(a["visual"].size() == 1);
  CHECK(vecOf(a["visual"][0]["size"]).isApprox(Vector3d(3, 3, 1), 1e-12));        // z scaled by 2
  CHECK(vecOf(a["visual"][0]["position"]).isApprox(Vector3d(0, 0, 0.25), 1e-12));  // centre (0.5, 1.5, 0.5) from the COM
  CHECK(mentions(res.notConverted, "a visual", "package://robot/meshes/hand.dae"));
  CHECK(res.dynamicsComplete);
}

TEST_CASE("A URDF arm as a component: its base a port, instantiated and welded in a scene", "[import]") {
  const auto dir = joinery::test::tempFolder("import_component");
  joinery::ImportOptions o;
  o.limits = false;
  o.component = "tree";
  const ImportResult lib = joinery::importModel(std::string(JOINERY_SOURCE_DIR) + "/tests/peers/import/data/tree.urdf", o);
  REQUIRE(lib.scene["components"].contains("tree"));
  CHECK(lib.scene["components"]["tree"]["ports"]["base"]["body"] == "torso");
  joinery::test::writeText(dir / "tree_lib.json", lib.scene.dump());
  const nlohmann::json scene = {
      {"joinery", 1}, {"gravity", {0, 0, -9.81}}, {"include", {"tree_lib.json"}}, {"bodies", nlohmann::json::array()},
      {"instances", {{{"name", "left"}, {"component", "tree"}, {"placement", {{"position", {0, 1, 0}}}}},
                     {{"name", "right"}, {"component", "tree"}}}},
      {"joints", {{{"name", "mount"}, {"type", "weld3d"}, {"body1", "ground"}, {"point1", {0, 1, 0}}, {"port2", "left.base"}}}}};
  const joinery::Scene sc = joinery::sceneFromJson(scene, (dir / "scene.json").string());
  joinery::ModelWorkspace ws = sc.model.makeWorkspace();
  const joinery::Solution sol = joinery::solveForwardDynamics(sc.model, sc.model.initialState(), ws);
  CHECK(sol.diagnosis.wellPosed);
  // the welded tree keeps its 5 joints; the other is free: 6 + 5
  CHECK(sc.model.numCoordinates() - sol.diagnosis.rankA == 5 + 11);
  CHECK(sc.model.findBody("left.torso") != nullptr);
}
