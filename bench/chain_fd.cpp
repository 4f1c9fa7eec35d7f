// Forward dynamics of the benchmark models in joinery: time per ModelSystem::calcAccelerations
// on a fixed state, by the protocol of bench/timing.hpp. Models (--model):
//   chain   the benchmark chain (docs/benchmarks.md, "The benchmark chain"), N links, on the
//           spinning variant's initial state (Omega = 1 rad/s about +z, so that every velocity
//           term is exercised);
//   tree    the binary tree of rods of bench/chain_model.hpp (--depth d: N = 2^d - 1 rods), same
//           rods, joints and spin as the chain;
//   fourbar the planar N-four-bar (A02): N + 1 cranks and N couplers, N closed loops
//           (--crank_angle: fourBarScene's; default pi/2, the A02 start).
// One JSON line on stdout:
//   chain_fd --N 64 [--model chain|tree|fourbar] [--depth 6] [--path structured|dense|densemetric]
//            [--min_s 0.3] [--min_calls 20] [--crank_angle 1.5707963267948966] [--acc_out file]
// Fields: engine, model, path, N (bodies for the tree; links or cells otherwise), n, m, fd_ns,
// fd_calls, ns_per_body, heap_bytes_per_body (malloc's heap in use by the ModelSystem after its
// first evaluation, over N: without separate mappings, such as the large-page arrays of
// large_pages.hpp or glibc's own for large blocks), rss_bytes_per_body (the process's resident
// memory grown by the same, over N: every byte touched, mappings included), build_s, structured (1 when the structured path answered), tip_acc
// (acceleration of the last body's centre, x y z; for the four-bar crank 0's centre).
// --acc_out: every body's accelerations at the timed state, one line per body in scene order,
// "ax ay az alpha_x alpha_y alpha_z" (rigid3d: the centre's acceleration in the world frame, the
// angular acceleration in the body frame, 2 vec(e* e'') from the quaternion's second
// derivative) or "ax ay alpha" (rigid2d), for the cross-check against Simbody
// (bench/compare_fd_acc.py).
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "chain_model.hpp"
#include "joinery/core/model_system.hpp"
#include "sparse_path.hpp"
#include "timing.hpp"

namespace {
/// The process's resident memory (bytes), from /proc/self/statm.
long residentBytes() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace joinery;
  namespace bt = joinery::benchtiming;
  const int N = std::stoi(bt::arg(argc, argv, "--N", "64"));
  const std::string pathName = bt::arg(argc, argv, "--path", "structured");
  const double minSeconds = std::stod(bt::arg(argc, argv, "--min_s", "0.3"));
  ModelSystemOptions opt;
  opt.path = pathName == "dense"         ? EvaluationPath::Dense
             : pathName == "densemetric" ? EvaluationPath::DenseMetric
                                         : EvaluationPath::Structured;
  const std::string modelName = bt::arg(argc, argv, "--model", "chain");
  const bool fourBar = modelName == "fourbar", tree = modelName == "tree";
  if (!fourBar && !tree && modelName != "chain") {
    std::fprintf(stderr, "chain_fd: unknown --model %s\n", modelName.c_str());
    return 2;
  }
  const int depth = std::stoi(bt::arg(argc, argv, "--depth", "6"));
  const long minCalls = std::stol(bt::arg(argc, argv, "--min_calls", "20"));
  const std::string accOut = bt::arg(argc, argv, "--acc_out", "");
  const double crankAngle = std::stod(bt::arg(argc, argv, "--crank_angle", "1.5707963267948966"));
  const double tb = bt::nowSeconds();
  const Scene scene = fourBar ? sceneFromJson(bench::fourBarScene(N, crankAngle), "fourbar.json")
                      : tree  ? sceneFromJson(bench::treeScene(depth, 1.0), "tree.json")
                              : bench::chainModel(N, 1.0);
  const int bodies = static_cast<int>(scene.model.bodySlots().size());
  const double build = bt::nowSeconds() - tb;
  if (bt::arg(argc, argv, "--debug", "0") == std::string("1")) {
    // the structured solve by itself, with its figures (no fallback)
    ModelWorkspace ws = scene.model.makeWorkspace(false);
    const State s = scene.model.initialState();
    scene.model.calcBodyBlocks(s, ws);
    scene.model.calcRowBlocks(s, ws);
    detail::BlockKkt kkt;
    kkt.setup(scene.model, 1e-13, 1e-12);
    kkt.analyze(ws);
    VectorXd x(scene.model.numCoordinates());
    const detail::SparseOutcome o = kkt.solve(ws, ws.b, 1e-6, 4, x);
    std::printf("factorized %d finite %d released %d iterations %d residual %g |bs| %g fill %lld\n",
                o.factorized, o.finite, o.released, o.iterations, o.residual, o.rhsNorm, kkt.fillBlocks());
    return 0;
  }
  const auto heap0 = mallinfo2().uordblks;
  const long rss0 = residentBytes();
  ModelSystem sys(scene.model, opt);
  const State s0 = sys.initialState();
  State a = s0, b = s0;
  b.q(0) += 1e-9;
  VectorXd qdd(sys.numCoordinates());
  AccelerationStatus st = sys.calcAccelerations(a, qdd);
  if (!st.ok()) {
    std::fprintf(stderr, "chain_fd: not well posed: %s\n", st.message.c_str());
    return 1;
  }
  const auto heap1 = mallinfo2().uordblks;
  const long rss1 = residentBytes();
  const Eigen::Vector3d tip = fourBar ? Eigen::Vector3d(qdd.segment<3>(0))
                                      : Eigen::Vector3d(qdd.segment<3>(scene.model.bodySlots().back().offset));
  if (!accOut.empty()) {
    std::ofstream f(accOut);
    char line[256];
    for (const BodySlot& b : scene.model.bodySlots()) {
      const int o = b.offset;
      if (b.size == 7) {  // x y z e0 e1 e2 e3: alpha = 2 vec(e* e''), body frame
        const Eigen::Vector3d ev = a.q.segment<3>(o + 4), dv = qdd.segment<3>(o + 4);
        const double e0 = a.q(o + 3), d0 = qdd(o + 3);
        const Eigen::Vector3d al = 2.0 * (e0 * dv - d0 * ev - ev.cross(dv));
        std::snprintf(line, sizeof line, "%.17g %.17g %.17g %.17g %.17g %.17g\n", qdd(o), qdd(o + 1),
                      qdd(o + 2), al.x(), al.y(), al.z());
      } else if (b.size == 3) {  // x y theta
        std::snprintf(line, sizeof line, "%.17g %.17g %.17g\n", qdd(o), qdd(o + 1), qdd(o + 2));
      } else {
        std::fprintf(stderr, "chain_fd: unexpected body of %d coordinates\n", b.size);
        return 1;
      }
      f << line;
    }
  }
  long calls = 0;
  bool structured = true;
  double cpuNs = 0;
  const double ns = bt::meanNanoseconds(
      [&](int which) {
        st = sys.calcAccelerations(which ? b : a, qdd);
        structured = structured && st.structured;
      },
      minSeconds, minCalls, calls, &cpuNs);
  std::printf(
      "{\"engine\": \"joinery\", \"model\": \"%s\", \"path\": \"%s\", \"N\": %d, \"n\": %d, \"m\": %d, \"fd_ns\": %.6g, \"fd_cpu_ns\": %.6g, "
      "\"fd_calls\": %ld, \"ns_per_body\": %.6g, \"heap_bytes_per_body\": %.6g, \"rss_bytes_per_body\": %.6g, \"build_s\": %.6g, "
      "\"structured\": %d, \"tip_acc\": [%.15g, %.15g, %.15g]}\n",
      modelName.c_str(), pathName.c_str(), tree ? bodies : N, sys.numCoordinates(), sys.numConstraintRows(), ns, cpuNs,
      calls, ns / bodies, static_cast<double>(heap1 - heap0) / bodies,
      static_cast<double>(rss1 - rss0) / bodies, build, structured ? 1 : 0, tip.x(), tip.y(), tip.z());
  return 0;
}
