// A four-bar linkage assembled, checked and simulated through the C++ API, without a scene
// file or any JSON: bodies and joints from their typed constructors (joints.hpp). Built and
// run as the test `example_four_bar` (tests/mechanisms/CMakeLists.txt).
#include <cmath>
#include <cstdio>
#include "joinery/bodies/rigid2d.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "joinery/joints/joints.hpp"
using namespace joinery;
int main() {
  ModelBuilder builder;
  auto bar = [&](const char* name, Eigen::Vector2d p, Eigen::Vector2d q) {  // 1 kg/m, from p to q
    const Eigen::Vector2d d = q - p, c = (p + q) / 2;  const double L = d.norm();
    builder.addBody(std::make_unique<Rigid2d>(name, L, L * L * L / 12,
                                              Eigen::Vector3d(c.x(), c.y(), std::atan2(d.y(), d.x())),
                                              Eigen::Vector3d::Zero()));
    return L / 2;
  };
  auto pin = [&](const char* name, const char* b1, double x1, const char* b2, double x2) {  // typed joints.hpp
    builder.addConstraint(joints::revolute2d(name, *builder.findBody(b1), {x1, 0, 0}, *builder.findBody(b2), {x2, 0, 0}));
  };
  const double a = bar("crank", {0, 0}, {0.6, 0.8}), b = bar("coupler", {0.6, 0.8}, {3, 2});
  const double c = bar("rocker", {3, 0}, {3, 2});
  pin("O", "crank", -a, "ground", 0), pin("A", "crank", a, "coupler", -b);
  pin("B", "coupler", b, "rocker", c), pin("D", "rocker", -c, "ground", 3);
  builder.setGravity({0, -9.81, 0});
  const Model model = builder.build();
  GraphAnalysis graph = analyzeGraph(model);  // check: topology, ranks, posedness
  ModelWorkspace ws = model.makeWorkspace();
  const Solution s0 = solveForwardDynamics(model, model.initialState(), ws);
  graph.setConstraintRank(s0.diagnosis.rankA);
  std::printf("n = %d, m = %d, loops = %d, mobility %d, %s, crank theta'' = %.6f\n", model.numCoordinates(),
              model.numConstraintRows(), graph.numLoops(), *graph.calcMobilityFromRank(),
              toString(s0.diagnosis.status), s0.qdd(2));
  SimulationSettings run;  // simulate: 5 s released from rest under gravity
  run.tEnd = 5, run.outputInterval = 0.01, run.rtol = 1e-9, run.atol = 1e-9;
  ModelSystem system(model);  MemoryRecorder rec;
  const SimulationResult r = runSimulation(system, run, rec);
  const double drift = std::abs(*rec.energy.back() - *rec.energy.front());
  std::printf("%s at t = %g: crank angle %.6f rad, energy drift %.2e J\n", toString(r.outcome), r.t,
              rec.q.back()(2), drift);
  return s0.diagnosis.wellPosed && r.completed() && drift < 1e-5 ? 0 : 1;
}
