// A URDF imported by joinery against DART 6.12's DartLoader on the same file (docs/import.md,
// "Validation"): DART sets random joint positions and velocities and computes its forward
// dynamics; the imported scene is placed in the same state (every link's centre of mass,
// orientation, velocity and angular velocity from DART) and solved. The world accelerations of
// every centre of mass and the angular accelerations must agree to --tol (default 1e-9,
// relative to the largest of DART's, or 1), and the mobility n - rank(A) must equal DART's
// number of degrees of freedom. Exit 0 when every draw passes.
#include <Eigen/Dense>
#include <cstdio>
#include <cstring>
#include <string>

#include "dart_urdf.hpp"
#include "joinery/bodies/quaternion.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/import/import.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: import_dart MODEL.urdf [--draws N] [--tol T]\n");
    return 2;
  }
  const std::string path = argv[1];
  int draws = 5;
  double tol = 1e-9;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--draws") == 0) draws = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--tol") == 0) tol = std::atof(argv[i + 1]);
  }
  joinery::ImportOptions options;
  options.limits = false;
  const joinery::ImportResult imported = joinery::importModel(path, options);
  bool ok = true;
  for (int draw = 0; draw < draws; ++draw) {
    const joinery::peers::DartResult dart = joinery::peers::dartForward(path, 100u + static_cast<unsigned>(draw), 1.0);
    if (!dart.ok) {
      std::printf("FAIL: %s\n", dart.error.c_str());
      return 1;
    }
    nlohmann::json scene = imported.scene;
    for (auto& b : scene["bodies"]) {
      const std::string name = b["name"];
      const auto it = std::find_if(dart.links.begin(), dart.links.end(), [&](const auto& l) { return l.name == name; });
      if (it == dart.links.end()) {
        std::printf("FAIL: DART has no link '%s'\n", name.c_str());
        return 1;
      }
      Eigen::Matrix3d R;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) R(r, c) = it->R[static_cast<std::size_t>(3 * r + c)];
      const Eigen::Quaterniond e(R);
      b["position"] = it->com;
      b["orientation"] = {e.w(), e.x(), e.y(), e.z()};
      b["velocity"] = it->v;
      b["angular_velocity"] = it->w;
    }
    const joinery::Scene sc = joinery::sceneFromJson(scene, path);
    const joinery::Model& model = sc.model;
    const joinery::State s = model.initialState();
    joinery::ModelWorkspace ws = model.makeWorkspace();
    const joinery::Solution sol = joinery::solveForwardDynamics(model, s, ws);
    const auto& names = model.coordinateNames();
    double dLin = 0, dAng = 0, sLin = 1, sAng = 1;
    for (const auto& l : dart.links) {
      const int k = static_cast<int>(std::find(names.begin(), names.end(), l.name + ".x") - names.begin());
      const Eigen::Vector3d a = sol.qdd.segment<3>(k);
      const Eigen::Vector4d e = s.q.segment<4>(k + 3);
      const Eigen::Vector3d alpha = 2.0 * joinery::quaternion::worldH(e) * sol.qdd.segment<4>(k + 3);
      const Eigen::Vector3d ad(l.a[0], l.a[1], l.a[2]), alphad(l.alpha[0], l.alpha[1], l.alpha[2]);
      dLin = std::max(dLin, (a - ad).cwiseAbs().maxCoeff());
      dAng = std::max(dAng, (alpha - alphad).cwiseAbs().maxCoeff());
      sLin = std::max(sLin, ad.cwiseAbs().maxCoeff());
      sAng = std::max(sAng, alphad.cwiseAbs().maxCoeff());
    }
    const int mobility = model.numCoordinates() - sol.diagnosis.rankA;
    const double err = std::max(dLin / sLin, dAng / sAng);
    const bool pass = err <= tol && mobility == dart.dofs && sol.diagnosis.wellPosed;
    std::printf("  draw %d: %zu links, DART dofs %d, joinery mobility %d; linear %.3g angular %.3g%s\n", draw,
                dart.links.size(), dart.dofs, mobility, dLin / sLin, dAng / sAng, pass ? "" : "  FAIL");
    ok = ok && pass;
  }
  std::printf("%s %s\n", path.c_str(), ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
