// MJCF import and forward dynamics against MuJoCo 2.2.2 (docs/import.md, "Speed"):
//   - import + load + check of the model in joinery (importModel, sceneFromJson, checkScene),
//     best of 5, wall seconds;
//   - MuJoCo's own load of the same file (mj_loadXML), best of 5;
//   - one forward-dynamics evaluation: joinery's ModelSystem::calcAccelerations on the imported
//     scene against mj_forward on the model with contacts, limits, passive forces, friction loss,
//     actuation and armature off (the dynamics the two share), at qpos0, the timing loop of
//     bench/timing.hpp for both.
// usage: import_fd_mujoco MODEL.xml [--seconds S]. One JSON line per engine.
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "joinery/core/check.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/import/import.hpp"
#include "../timing.hpp"

namespace bt = joinery::benchtiming;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: import_fd_mujoco MODEL.xml [--seconds S]\n");
    return 2;
  }
  const std::string path = argv[1];
  double seconds = 1.0;
  for (int i = 2; i + 1 < argc; i += 2)
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
  joinery::ImportOptions options;
  options.limits = false;
  double importBest = 1e300, checkBest = 1e300, mjLoadBest = 1e300;
  int bodies = 0;
  bool wellPosed = false;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = bt::nowSeconds();
    const joinery::ImportResult r = joinery::importModel(path, options);
    const joinery::Scene scene = joinery::sceneFromJson(r.scene, path);
    const double t1 = bt::nowSeconds();
    const joinery::CheckReport report = joinery::checkScene(scene);
    const double t2 = bt::nowSeconds();
    importBest = std::min(importBest, t1 - t0);
    checkBest = std::min(checkBest, t2 - t0);
    bodies = static_cast<int>(r.scene["bodies"].size());
    wellPosed = report.status() == joinery::Posedness::WellPosed;
  }
  char err[1000] = "";
  mjModel* m = nullptr;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = bt::nowSeconds();
    mjModel* mm = mj_loadXML(path.c_str(), nullptr, err, sizeof err);
    mjLoadBest = std::min(mjLoadBest, bt::nowSeconds() - t0);
    if (!mm) {
      std::fprintf(stderr, "MuJoCo: %s\n", err);
      return 1;
    }
    if (m) mj_deleteModel(m);
    m = mm;
  }
  m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_PASSIVE | mjDSBL_FRICTIONLOSS | mjDSBL_ACTUATION |
                         mjDSBL_EQUALITY;
  for (int i = 0; i < m->nv; ++i) m->dof_armature[i] = 0;
  mjData* d = mj_makeData(m);
  // joinery: one evaluation at the initial state (qpos0)
  const joinery::ImportResult r = joinery::importModel(path, options);
  const joinery::Scene scene = joinery::sceneFromJson(r.scene, path);
  joinery::ModelSystem sys(scene.model);
  joinery::State a = sys.initialState(), b = a;
  b.q(0) += 1e-9;
  Eigen::VectorXd qdd(sys.numCoordinates());
  long calls = 0;
  double cpu = 0;
  bool structured = true;
  const double ns = bt::meanNanoseconds(
      [&](int which) {
        const auto st = sys.calcAccelerations(which ? b : a, qdd);
        structured = structured && st.structured;
      },
      seconds, 10, calls, &cpu);
  // MuJoCo: mj_forward at qpos0 and qpos0 + 1e-9 in the first coordinate
  long mjCalls = 0;
  double mjCpu = 0;
  const double mjNs = bt::meanNanoseconds(
      [&](int which) {
        mju_copy(d->qpos, m->qpos0, m->nq);
        d->qpos[0] += which ? 1e-9 : 0.0;
        mj_forward(m, d);
      },
      seconds, 10, mjCalls, &mjCpu);
  std::printf("{\"engine\": \"joinery\", \"model\": \"%s\", \"bodies\": %d, \"n\": %d, \"m\": %d, \"import_load_s\": %.4g, "
              "\"import_load_check_s\": %.4g, \"well_posed\": %d, \"fd_ns\": %.6g, \"fd_cpu_ns\": %.6g, \"calls\": %ld, "
              "\"structured\": %d}\n",
              path.c_str(), bodies, sys.numCoordinates(), sys.numConstraintRows(), importBest, checkBest,
              wellPosed ? 1 : 0, ns, cpu, calls, structured ? 1 : 0);
  std::printf("{\"engine\": \"mujoco\", \"model\": \"%s\", \"nbody\": %d, \"nv\": %d, \"load_s\": %.4g, \"fd_ns\": %.6g, "
              "\"fd_cpu_ns\": %.6g, \"calls\": %ld}\n",
              path.c_str(), m->nbody, m->nv, mjLoadBest, mjNs, mjCpu, mjCalls);
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
