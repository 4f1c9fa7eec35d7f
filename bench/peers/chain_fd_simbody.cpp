// Forward dynamics of the benchmark models in Simbody 3.7: time per realize(Stage::Acceleration)
// on the same state as bench/chain_fd.cpp, by the protocol of bench/timing.hpp. One JSON line like
// bench/chain_fd.cpp:
//   chain_fd_simbody --N 64 [--model chain|tree|fourbar] [--depth 6] [--min_s 0.3] [--min_calls 20]
//                    [--crank_angle 1.5707963267948966] [--acc_out file]
//   chain    the benchmark chain (docs/benchmarks.md), Ball mobilizers, spinning (simbody_chain.hpp);
//   tree     the binary tree of rods, Ball mobilizers, spinning (simbody_models.hpp);
//   fourbar  the planar N-four-bar, Pin mobilizers and 2 PointInPlane rows per loop (--crank_angle:
//            as bench/chain_model.hpp's fourBarScene; default pi/2, the A02 start).
// --acc_out: every body's accelerations at the state of the first evaluation, one line per body in
// joinery's scene order: "ax ay az alpha_x alpha_y alpha_z" (centre of mass in the Ground frame,
// angular in the body frame, x along the rod) for the chain and the tree, "ax ay alpha_z" for the
// four-bar (bench/compare_fd_acc.py).
// Simbody from Debian is built without NDEBUG and its headers change layout with it: never
// define NDEBUG here (it segfaults in realizeTopology).
#undef NDEBUG
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "Simbody.h"
#include "../timing.hpp"
#include "simbody_chain.hpp"
#include "simbody_models.hpp"

namespace {

template <class Model>
int run(Model& model, const std::string& name, int N, double build, double minSeconds, long minCalls,
        const std::string& accOut, bool planar) {
  using namespace SimTK;
  namespace bt = joinery::benchtiming;
  MultibodySystem& system = model.system;
  const std::vector<MobilizedBody>& bodies = model.bodies;
  const Vec3 com = model.com;
  State& s = model.state;
  const Vec3 tip = (planar ? bodies.front() : bodies.back()).findStationAccelerationInGround(s, com);
  if (!accOut.empty()) {
    std::ofstream f(accOut);
    char line[256];
    for (const MobilizedBody& b : bodies) {
      const Vec3 a = b.findStationAccelerationInGround(s, com);
      const Vec3 al = ~b.getBodyRotation(s) * b.getBodyAngularAcceleration(s);  // in the body frame
      if (planar)
        std::snprintf(line, sizeof line, "%.17g %.17g %.17g\n", a[0], a[1], al[2]);
      else
        std::snprintf(line, sizeof line, "%.17g %.17g %.17g %.17g %.17g %.17g\n", a[0], a[1], a[2], al[0], al[1],
                      al[2]);
      f << line;
    }
  }
  State sa = s;
  Vector qa = s.getQ(), qb = qa;
  qb[0] += 1e-9;
  long calls = 0;
  double cpuNs = 0;
  const double ns = bt::meanNanoseconds(
      [&](int which) {
        sa.updQ() = which ? qb : qa;
        system.realize(sa, Stage::Acceleration);
      },
      minSeconds, minCalls, calls, &cpuNs);
  const int nb = static_cast<int>(bodies.size());
  std::printf(
      "{\"engine\": \"simbody\", \"model\": \"%s\", \"path\": \"%s\", \"N\": %d, \"n\": %d, \"m\": %d, \"fd_ns\": %.6g, "
      "\"fd_cpu_ns\": %.6g, \"fd_calls\": %ld, \"ns_per_body\": %.6g, \"build_s\": %.6g, "
      "\"tip_acc\": [%.15g, %.15g, %.15g]}\n",
      name.c_str(), s.getNMultipliers() ? "ABA+multipliers" : "ABA", N, s.getNQ(), s.getNMultipliers(), ns, cpuNs,
      calls, ns / nb, build, tip[0], tip[1], tip[2]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  namespace bt = joinery::benchtiming;
  const int N = std::stoi(bt::arg(argc, argv, "--N", "64"));
  const std::string model = bt::arg(argc, argv, "--model", "chain");
  const int depth = std::stoi(bt::arg(argc, argv, "--depth", "6"));
  const double minSeconds = std::stod(bt::arg(argc, argv, "--min_s", "0.3"));
  const long minCalls = std::stol(bt::arg(argc, argv, "--min_calls", "20"));
  const std::string accOut = bt::arg(argc, argv, "--acc_out", "");
  const double crankAngle = std::stod(bt::arg(argc, argv, "--crank_angle", "1.5707963267948966"));
  const double tb = bt::nowSeconds();
  if (model == "chain") {
    joinery::bench::SimbodyChain chain(N, 1.0);  // spinning: every velocity term exercised
    return run(chain, model, N, bt::nowSeconds() - tb, minSeconds, minCalls, accOut, false);
  }
  if (model == "tree") {
    joinery::bench::SimbodyTree tree(depth, 1.0);
    return run(tree, model, static_cast<int>(tree.bodies.size()), bt::nowSeconds() - tb, minSeconds, minCalls,
               accOut, false);
  }
  if (model == "fourbar") {
    joinery::bench::SimbodyFourBar fb(N, crankAngle);
    return run(fb, model, N, bt::nowSeconds() - tb, minSeconds, minCalls, accOut, true);
  }
  std::fprintf(stderr, "chain_fd_simbody: unknown --model %s\n", model.c_str());
  return 2;
}
