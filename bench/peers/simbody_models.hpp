#pragma once
// The binary tree of rods and the planar N-four-bar of bench/chain_model.hpp built in Simbody 3.7,
// for chain_fd_simbody (--model tree|fourbar). Rods as in simbody_chain.hpp: body frames at the
// proximal joint, +x along the rod, centre of mass at (L/2, 0, 0), inertia shifted to the body
// origin. Include after Simbody.h (with NDEBUG undefined, see the programs).
#include <array>
#include <vector>

#include "../tree_geometry.hpp"

namespace joinery::bench {

inline SimTK::Body::Rigid simbodyRod(double m, double L, double Iax, double Itr) {
  using namespace SimTK;
  const Vec3 com(0.5 * L, 0, 0);
  return Body::Rigid(MassProperties(m, com, Inertia(Iax, Itr, Itr).shiftFromMassCenter(com, m)));
}

/// The tree of treeScene(depth, spin): Ball mobilizers in heap order, each child's inboard frame
/// at its parent's distal end (L, 0, 0) with the parent's axes, its q the turn treeTurn(k) (the
/// rotation from parent to child); the root's u the rigid spin about +z. Gravity (0, 0, -9.81).
struct SimbodyTree {
  static constexpr double m = 1.0, L = 1.0, Iax = 1e-4, Itr = m * L * L / 12.0, g = 9.81;
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter{system};
  SimTK::GeneralForceSubsystem forces{system};
  SimTK::Force::UniformGravity gravity{forces, matter, SimTK::Vec3(0, 0, -g)};
  const SimTK::Vec3 com{0.5 * L, 0, 0};
  std::vector<SimTK::MobilizedBody> bodies;
  SimTK::State state;  // initial state, realized to Stage::Acceleration

  SimbodyTree(int depth, double spin) {
    using namespace SimTK;
    const int N = (1 << depth) - 1;
    const Body::Rigid rod = simbodyRod(m, L, Iax, Itr);
    for (int k = 0; k < N; ++k) {
      MobilizedBody parent = k == 0 ? MobilizedBody(matter.Ground()) : bodies[(k - 1) / 2];
      bodies.push_back(MobilizedBody::Ball(parent, Transform(Vec3(k == 0 ? 0.0 : L, 0, 0)), rod, Transform(Vec3(0))));
    }
    state = system.realizeTopology();
    system.realizeModel(state);
    for (int k = 1; k < N; ++k) {
      const std::array<double, 4> t = treeTurn(k);
      bodies[k].setQToFitRotation(state, Rotation(Quaternion(t[0], t[1], t[2], t[3])));
    }
    if (spin != 0.0) bodies[0].setUToFitAngularVelocity(state, Vec3(0, 0, spin));
    system.realize(state, Stage::Acceleration);
  }
  SimbodyTree(const SimbodyTree&) = delete;
  SimbodyTree& operator=(const SimbodyTree&) = delete;
};

/// The N-four-bar of fourBarScene(N, crankAngle): N + 1 cranks on Pin mobilizers at (i, 0, 0) on
/// the ground at the crank angle (q = crankAngle, u = -1 rad/s), coupler i on a Pin at crank i's
/// tip (q = -crankAngle: level; u = +1: translating); each loop closed at crank i + 1's tip by two Constraint::PointInPlane
/// (the planes x = L and y = 0 of crank i + 1's frame through its tip: the two non-redundant
/// in-plane rows, as the peers harness's `pip` closure). 2N + 1 mobilities, 2N rows, 1 dof.
/// Gravity (0, -9.81, 0). Bodies: cranks 0..N, then couplers 0..N-1 (the scene's order).
struct SimbodyFourBar {
  static constexpr double m = 1.0, L = 1.0, Iax = 1e-4, Itr = m * L * L / 12.0, g = 9.81;
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter{system};
  SimTK::GeneralForceSubsystem forces{system};
  SimTK::Force::UniformGravity gravity{forces, matter, SimTK::Vec3(0, -g, 0)};
  const SimTK::Vec3 com{0.5 * L, 0, 0};
  std::vector<SimTK::MobilizedBody> bodies;
  SimTK::State state;

  SimbodyFourBar(int N, double crankAngle) {
    using namespace SimTK;
    const Body::Rigid rod = simbodyRod(m, L, Iax, Itr);
    std::vector<MobilizedBody::Pin> cranks, couplers;
    for (int i = 0; i <= N; ++i)
      cranks.emplace_back(matter.Ground(), Transform(Vec3(i, 0, 0)), rod, Transform(Vec3(0)));
    for (int i = 0; i < N; ++i) {
      couplers.emplace_back(cranks[i], Transform(Vec3(L, 0, 0)), rod, Transform(Vec3(0)));
      Constraint::PointInPlane(cranks[i + 1], UnitVec3(1, 0, 0), L, couplers[i], Vec3(L, 0, 0));
      Constraint::PointInPlane(cranks[i + 1], UnitVec3(0, 1, 0), 0.0, couplers[i], Vec3(L, 0, 0));
    }
    state = system.realizeTopology();
    system.realizeModel(state);
    for (auto& c : cranks) {
      c.setOneQ(state, 0, crankAngle);
      c.setOneU(state, 0, -1.0);
    }
    for (auto& c : couplers) {
      c.setOneQ(state, 0, -crankAngle);
      c.setOneU(state, 0, 1.0);
    }
    bodies.assign(cranks.begin(), cranks.end());
    bodies.insert(bodies.end(), couplers.begin(), couplers.end());
    system.realize(state, Stage::Acceleration);
  }
  SimbodyFourBar(const SimbodyFourBar&) = delete;
  SimbodyFourBar& operator=(const SimbodyFourBar&) = delete;
};

}  // namespace joinery::bench
