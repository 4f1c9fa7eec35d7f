// The Simbody side of random_mechanisms (random_mechanism.hpp). Built as C++17 without NDEBUG
// (Debian's Simbody is built without it; its headers change layout with it).
#include <cstdlib>
#include <iostream>

#include <Simbody.h>

#include "random_mechanism.hpp"

namespace joinery::peers {
namespace {

SimTK::Vec3 vec(const Vec3& a) { return {a[0], a[1], a[2]}; }
Vec3 arr(const SimTK::Vec3& a) { return {a[0], a[1], a[2]}; }

SimTK::Transform transform(const Frame& f) {
  SimTK::Mat33 R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R(i, j) = f.R[3 * i + j];
  return SimTK::Transform(SimTK::Rotation(R, true), vec(f.p));
}

SimTK::MobilizedBody makeMobilizer(SimTK::MobilizedBody& parent, const JointDesc& j, const SimTK::Body& body) {
  using namespace SimTK;
  const Transform F = transform(j.F), M = transform(j.M);
  switch (j.type) {
    case JointType::Spherical: return MobilizedBody::Ball(parent, F, body, M);
    case JointType::Revolute: return MobilizedBody::Pin(parent, F, body, M);
    case JointType::Universal: return MobilizedBody::Universal(parent, F, body, M);
    case JointType::Prismatic: return MobilizedBody::Slider(parent, F, body, M);
    case JointType::Cylindrical: return MobilizedBody::Cylinder(parent, F, body, M);
    case JointType::Weld: return MobilizedBody::Weld(parent, F, body, M);
    case JointType::Screw: return MobilizedBody::Screw(parent, F, body, M, j.pitch);
  }
  return {};
}

struct Built {
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter{system};
  SimTK::GeneralForceSubsystem forces{system};
  std::vector<SimTK::MobilizedBody> mob;
  SimTK::State state;

  Built(const Mechanism& m, bool withLoops) {
    using namespace SimTK;
    Force::UniformGravity(forces, matter, vec(m.gravity));
    for (const JointDesc& j : m.joints) {
      const BodyDesc& b = m.bodies[static_cast<std::size_t>(j.child)];
      Mat33 J;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) J(r, c) = b.inertia[static_cast<std::size_t>(3 * r + c)];
      const Body::Rigid body(MassProperties(b.mass, SimTK::Vec3(0), Inertia(J)));
      MobilizedBody parent = j.parent < 0 ? MobilizedBody(matter.Ground()) : mob[static_cast<std::size_t>(j.parent)];
      mob.push_back(makeMobilizer(parent, j, body));
    }
    if (withLoops)
      for (const LoopDesc& l : m.loops) {
        MobilizedBody b1 = l.body1 < 0 ? MobilizedBody(matter.Ground()) : mob[static_cast<std::size_t>(l.body1)];
        Constraint::Ball(b1, vec(l.point1), mob[static_cast<std::size_t>(l.body2)], vec(l.point2));
      }
    state = system.realizeTopology();
    system.realizeModel(state);
    for (std::size_t i = 0; i < m.joints.size(); ++i) {
      const JointDesc& j = m.joints[i];
      if (j.type == JointType::Spherical) {
        const Quaternion e(j.q[0], j.q[1], j.q[2], j.q[3]);
        MobilizedBody::Ball::downcast(mob[i]).setQToFitRotation(state, Rotation(e));
      } else {
        for (std::size_t k = 0; k < j.q.size(); ++k) mob[i].setOneQ(state, static_cast<int>(k), j.q[k]);
      }
      for (std::size_t k = 0; k < j.u.size(); ++k) mob[i].setOneU(state, static_cast<int>(k), j.u[k]);
    }
    system.realize(state, Stage::Position);
  }
};

}  // namespace

PeerResult runSimbody(Mechanism& m) {
  PeerResult out;
  try {
    if (!m.loops.empty()) {  // the loop points: point1 as drawn, point2 where it is on body2
      Built open(m, false);
      for (LoopDesc& l : m.loops) {
        const SimTK::Vec3 world =
            l.body1 < 0 ? vec(l.point1)
                        : open.mob[static_cast<std::size_t>(l.body1)].getBodyTransform(open.state) * vec(l.point1);
        l.point2 = arr(open.mob[static_cast<std::size_t>(l.body2)].getBodyTransform(open.state).shiftBaseStationToFrame(world));
      }
    }
    Built sb(m, std::getenv("JOINERY_PEER_NO_LOOPS") == nullptr);
    sb.system.realize(sb.state, SimTK::Stage::Velocity);
    if (!m.loops.empty()) sb.system.projectU(sb.state, 1e-14);
    sb.system.realize(sb.state, SimTK::Stage::Acceleration);
    SimTK::Vector_<SimTK::SpatialVec> reactions;  // at M, in Ground, parent on child
    sb.matter.calcMobilizerReactionForces(sb.state, reactions);
    for (const SimTK::MobilizedBody& b : sb.mob) {
      BodyResult r;
      const SimTK::Transform& X = b.getBodyTransform(sb.state);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.R[static_cast<std::size_t>(3 * i + j)] = X.R().asMat33()(i, j);
      r.x = arr(X.p());
      r.v = arr(b.getBodyOriginVelocity(sb.state));
      r.w = arr(b.getBodyAngularVelocity(sb.state));
      r.a = arr(b.getBodyOriginAcceleration(sb.state));
      r.alpha = arr(b.getBodyAngularAcceleration(sb.state));
      r.eulerXYZ = arr(X.R().convertRotationToBodyFixedXYZ());
      r.reactionTorque = arr(reactions[b.getMobilizedBodyIndex()][0]);
      r.reactionForce = arr(reactions[b.getMobilizedBodyIndex()][1]);
      out.bodies.push_back(r);
    }
    if (std::getenv("JOINERY_PEER_DEBUG") != nullptr) {  // the loop rows and their multipliers
      SimTK::Matrix G;
      sb.matter.calcG(sb.state, G);
      std::cerr << "Simbody G =\n" << G << "multipliers " << sb.state.getMultipliers() << "\n";
    }
    out.kineticEnergy = sb.matter.calcKineticEnergy(sb.state);
    SimTK::Matrix M;
    sb.matter.calcM(sb.state, M);
    out.nu = M.nrow();
    for (int i = 0; i < M.nrow(); ++i)
      for (int j = 0; j < M.ncol(); ++j) out.massMatrix.push_back(M(i, j));
    out.ok = true;
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace joinery::peers
