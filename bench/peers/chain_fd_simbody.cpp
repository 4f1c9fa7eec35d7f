// The benchmark chain (docs/benchmarks.md, "The benchmark chain") in Simbody 3.7: time per
// realize(Stage::Acceleration) on the spinning variant's initial state (Omega = 1 rad/s about
// +z), by the protocol of bench/timing.hpp. One JSON line like bench/chain_fd.cpp.
// Simbody from Debian is built without NDEBUG and its headers change layout with it: never
// define NDEBUG here (it segfaults in realizeTopology).
#undef NDEBUG
#include <cstdio>
#include <string>
#include <vector>

#include "Simbody.h"
#include "../timing.hpp"
#include "simbody_chain.hpp"

int main(int argc, char** argv) {
  using namespace SimTK;
  namespace bt = joinery::benchtiming;
  const int N = std::stoi(bt::arg(argc, argv, "--N", "64"));
  const double minSeconds = std::stod(bt::arg(argc, argv, "--min_s", "0.3"));
  const double tb = bt::nowSeconds();
  joinery::bench::SimbodyChain chain(N, 1.0);  // spinning: every velocity term exercised
  MultibodySystem& system = chain.system;
  const std::vector<MobilizedBody>& bodies = chain.bodies;
  const Vec3 com = chain.com;
  State& s = chain.state;
  const double build = bt::nowSeconds() - tb;
  const Vec3 tip = bodies.back().findStationAccelerationInGround(s, com);
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
      minSeconds, 20, calls, &cpuNs);
  std::printf(
      "{\"engine\": \"simbody\", \"path\": \"ABA\", \"N\": %d, \"n\": %d, \"m\": 0, \"fd_ns\": %.6g, \"fd_cpu_ns\": %.6g, "
      "\"fd_calls\": %ld, \"ns_per_body\": %.6g, \"build_s\": %.6g, "
      "\"tip_acc\": [%.15g, %.15g, %.15g]}\n",
      N, s.getNQ(), ns, cpuNs, calls, ns / N, build, tip[0], tip[1], tip[2]);
  return 0;
}
