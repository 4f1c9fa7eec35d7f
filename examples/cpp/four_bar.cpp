// A four-bar linkage assembled, checked and simulated through the C++ API, without a scene
// file. Built and run as the test `example_four_bar` (tests/mechanisms/CMakeLists.txt).
#include <cmath>
#include <cstdio>
#include "joinery/bodies/rigid2d.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/registry.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/forward_dynamics.hpp"
using namespace joinery;
// Joints come from their registered factories; this context resolves their body names.
struct BuilderContext final : FactoryContext {
  explicit BuilderContext(const ModelBuilder& b) : builder(b) {}
  double number(const JsonCursor& c) const override { return c.number(); }
  const Body& body(const JsonCursor& c) const override {
    if (const Body* b = builder.findBody(c.string())) return *b;
    c.fail("the name of a body of the builder");
  }
  const Body* findBody(const std::string& n) const override { return builder.findBody(n); }
  const SymbolTable& parameters() const override { return none; }
  const ModelBuilder& builder;
  SymbolTable none;  // no parameters: numeric fields are plain numbers
};

int main() {
  ModelBuilder builder;  const BuilderContext ctx(builder);
  auto bar = [&](const char* name, Eigen::Vector2d p, Eigen::Vector2d q) {  // 1 kg/m, from p to q
    const Eigen::Vector2d d = q - p, c = (p + q) / 2;  const double L = d.norm();
    builder.addBody(std::make_unique<Rigid2d>(name, L, L * L * L / 12,
                                              Eigen::Vector3d(c.x(), c.y(), std::atan2(d.y(), d.x())),
                                              Eigen::Vector3d::Zero()));
    return L / 2;
  };
  auto pin = [&](const char* name, const char* b1, double x1, const char* b2, double x2) {
    const nlohmann::json j = {{"name", name}, {"type", "revolute2d"}, {"body1", b1}, {"point1", {x1, 0}},
                              {"body2", b2}, {"point2", {x2, 0}}};
    builder.addConstraint(ConstraintRegistry::instance().create(JsonCursor(j, "four_bar.cpp"), ctx));
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
