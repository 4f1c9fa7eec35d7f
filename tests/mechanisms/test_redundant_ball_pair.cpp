// Two ball joints on the same pair of bodies (a tree joint and a loop closure found by
// tests/peers/random_mechanisms, seeds 105632 and 108543): the six rows have rank 5 (one
// exactly redundant row) and leave a hinge about the line through the two centres. Eigen
// 3.4.0's divide-and-conquer SVD returned wrong singular vectors for these matrices, and the
// dense solver called the first draw well posed with |A q'' - b| = 3.1 (accelerations 13 %
// off Simbody's) and the second inconsistent; it now verifies each SVD and falls back to the
// Jacobi SVD (core/src/dense_solver.cpp).
#include <catch2/catch.hpp>

#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/scene.hpp"
#include "mechanism_support.hpp"

namespace joinery::test {
namespace {

std::string dataFile(const std::string& name) {
  return std::string(JOINERY_SOURCE_DIR) + "/tests/mechanisms/data/" + name;
}

Solution solveAtStart(const Scene& scene) {
  ModelWorkspace ws = scene.model.makeWorkspace();
  const Solution sol = solveForwardDynamics(scene.model, scene.model.initialState(), ws);
  INFO("diagnosis: " << allMessages(sol.diagnosis));
  REQUIRE(sol.diagnosis.wellPosed);
  CHECK(sol.diagnosis.redundant == 1);
  // rows of order 1, accelerations of order 10: round-off well below 1e-10
  CHECK(sol.diagnosis.residual < 1e-10);
  return sol;
}

}  // namespace

TEST_CASE("two ball joints on one pair of bodies: one redundant row, the same motion as a hinge", "[mechanisms][redundant]") {
  SECTION("seed 105632: balls j3 and loop0 between b0 and b3 against a revolute3d through both centres") {
    const nlohmann::json doc = readJsonFile(dataFile("random_105632.json"));
    const Scene balls = sceneFromJson(doc, "random_105632.json");
    const Solution a = solveAtStart(balls);
    // the hinge: through j3's centre along the line to loop0's centre, in each body's frame
    nlohmann::json hinged = doc;
    nlohmann::json joints = nlohmann::json::array(), j3, loop;
    for (const auto& j : doc["joints"]) {
      if (j["name"] == "j3") j3 = j;
      else if (j["name"] == "loop0") loop = j;
      else joints.push_back(j);
    }
    auto minus = [](const nlohmann::json& p, const nlohmann::json& q) {
      return nlohmann::json::array({p[0].get<double>() - q[0].get<double>(), p[1].get<double>() - q[1].get<double>(),
                                    p[2].get<double>() - q[2].get<double>()});
    };
    joints.push_back({{"name", "hinge"}, {"type", "revolute3d"}, {"body1", "b0"}, {"point1", j3["point1"]},
                      {"axis1", minus(loop["point1"], j3["point1"])}, {"body2", "b3"}, {"point2", j3["point2"]},
                      {"axis2", minus(loop["point2"], j3["point2"])}});
    hinged["joints"] = joints;
    const Scene hinge = sceneFromJson(hinged, "hinged.json");
    ModelWorkspace ws = hinge.model.makeWorkspace();
    const Solution b = solveForwardDynamics(hinge.model, hinge.model.initialState(), ws);
    REQUIRE(b.diagnosis.wellPosed);
    REQUIRE(hinge.model.coordinateNames() == balls.model.coordinateNames());
    // accelerations of order 10 from two formulations of one constraint: 1e-10
    CHECK((a.qdd - b.qdd).lpNorm<Eigen::Infinity>() < 1e-10);
  }
  SECTION("seed 108543: balls j2 and loop0 between b0 and b2 are consistent") {
    (void)solveAtStart(loadScene(dataFile("random_108543.json")));
  }
}

}  // namespace joinery::test
