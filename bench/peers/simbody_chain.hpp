#pragma once
// The benchmark chain (docs/benchmarks.md, "The benchmark chain") built in Simbody 3.7, shared by
// chain_fd_simbody and chain_sim_simbody: N uniform rods (1 kg, 1 m, inertia about the centre
// of mass diag(1e-4, 1/12, 1/12)) on Ball mobilizers, the first at the ground origin, straight
// along +x (identity quaternions), gravity (0, 0, -9.81); `spin`: a rigid rotation of the whole
// chain about +z. Body frames sit at the proximal joint (Simbody takes the inertia about the
// body origin). Include after Simbody.h (with NDEBUG undefined, see the programs).
#include <vector>

namespace joinery::bench {

struct SimbodyChain {
  static constexpr double m = 1.0, L = 1.0, Iax = 1e-4, Itr = m * L * L / 12.0, g = 9.81;
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter{system};
  SimTK::GeneralForceSubsystem forces{system};
  SimTK::Force::UniformGravity gravity{forces, matter, SimTK::Vec3(0, 0, -g)};
  const SimTK::Vec3 com{0.5 * L, 0, 0};  // centre of mass in the body frame
  std::vector<SimTK::MobilizedBody> bodies;
  SimTK::State state;  // initial state, realized to Stage::Acceleration

  SimbodyChain(int N, double spin) {
    using namespace SimTK;
    Body::Rigid rod(MassProperties(m, com, Inertia(Iax, Itr, Itr).shiftFromMassCenter(com, m)));
    MobilizedBody parent = matter.Ground();
    for (int i = 0; i < N; ++i) {
      MobilizedBody::Ball b(parent, Transform(Vec3(i == 0 ? 0.0 : L, 0, 0)), rod, Transform(Vec3(0)));
      bodies.push_back(b);
      parent = b;
    }
    state = system.realizeTopology();
    system.realizeModel(state);
    if (spin != 0.0) bodies[0].setUToFitAngularVelocity(state, Vec3(0, 0, spin));
    system.realize(state, Stage::Acceleration);
  }
  SimbodyChain(const SimbodyChain&) = delete;  // the subsystems refer to `system`
  SimbodyChain& operator=(const SimbodyChain&) = delete;
};

}  // namespace joinery::bench
