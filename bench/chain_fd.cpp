// Forward dynamics of the benchmark chain (docs/benchmarks.md, "The benchmark chain") in
// joinery: time per ModelSystem::calcAccelerations on a fixed state (the spinning variant's
// initial state, Omega = 1 rad/s about +z, so that every velocity term is exercised), by the
// protocol of bench/timing.hpp. One JSON line on stdout:
//   chain_fd --N 64 [--path structured|dense|densemetric] [--min_s 0.3]
// Fields: engine, path, N, n, m, fd_ns, fd_calls, ns_per_body, heap_bytes_per_body (heap in
// use by the ModelSystem after its first evaluation, over N), build_s, structured (1 when the
// structured path answered), tip_acc (acceleration of the tip link's centre, x y z).
#include <malloc.h>

#include <cstdio>
#include <string>

#include "chain_model.hpp"
#include "joinery/core/model_system.hpp"
#include "sparse_path.hpp"
#include "timing.hpp"

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
  // --model fourbar: the planar N-four-bar (A02) instead of the chain
  const bool fourBar = bt::arg(argc, argv, "--model", "chain") == std::string("fourbar");
  const double tb = bt::nowSeconds();
  const Scene scene = fourBar ? sceneFromJson(bench::fourBarScene(N), "fourbar.json")
                              : bench::chainModel(N, 1.0);
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
  const Eigen::Vector3d tip = fourBar ? Eigen::Vector3d(qdd.segment<3>(0)) : Eigen::Vector3d(qdd.segment<3>(7 * (N - 1)));
  long calls = 0;
  bool structured = true;
  double cpuNs = 0;
  const double ns = bt::meanNanoseconds(
      [&](int which) {
        st = sys.calcAccelerations(which ? b : a, qdd);
        structured = structured && st.structured;
      },
      minSeconds, 20, calls, &cpuNs);
  std::printf(
      "{\"engine\": \"joinery\", \"model\": \"%s\", \"path\": \"%s\", \"N\": %d, \"n\": %d, \"m\": %d, \"fd_ns\": %.6g, \"fd_cpu_ns\": %.6g, "
      "\"fd_calls\": %ld, \"ns_per_body\": %.6g, \"heap_bytes_per_body\": %.6g, \"build_s\": %.6g, "
      "\"structured\": %d, \"tip_acc\": [%.15g, %.15g, %.15g]}\n",
      fourBar ? "fourbar" : "chain", pathName.c_str(), N, sys.numCoordinates(), sys.numConstraintRows(), ns, cpuNs, calls, ns / N,
      static_cast<double>(heap1 - heap0) / N, build, structured ? 1 : 0, tip.x(), tip.y(), tip.z());
  return 0;
}
