// a chain of rigid3d bodies on spherical joints whose last body has zero
// mass and zero inertia is ill posed, and the diagnosis names that body's coordinates.
//
// What is really undetermined: the massless end body b3 hangs on one spherical joint. Its
// rows are the 3 point rows of the joint and its quaternion norm (4 rows on 7 coordinates),
// and it has no mass block, so [M; A] loses 3 columns of rank: the 3 rotations of b3 about the
// joint point. With the joint at b3's centre of mass those rotations move the quaternion
// only (b3.e0..e3 named, not b3.x, y, z); with the joint at an end point a rotation also moves
// the centre (all 7 coordinates of b3 named). Nothing else is undetermined: a massless body
// carries no joint force (its translational columns force the joint's multipliers to zero),
// so b1 and b2 move exactly as the two-body chain without b3. Peer engines return NaN or
// abort here; joinery must return finite accelerations and a diagnosis.
#include <catch2/catch.hpp>
#include <random>

#include "joinery/bodies/rigid3d.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/integrators/simulation.hpp"
#include "mechanism_support.hpp"

namespace joinery {
namespace {

using test::axisAngle;

struct ChainState {
  std::vector<Vector3d> x, v, w;
  std::vector<Eigen::Vector4d> e;
};

/// A random configuration of `count` rods of length 1 along their body x axis, the first
/// pinned (spherical) at the origin by its end (-0.5, 0, 0), each next one's (-0.5, 0, 0) at
/// the previous one's (0.5, 0, 0) — except the last, whose joint point is `lastPoint` —
/// with random angular velocities and consistent translational velocities.
ChainState randomChain(std::mt19937& rng, int count, const Vector3d& lastPoint) {
  std::uniform_real_distribution<double> u(-1, 1);
  ChainState c;
  Vector3d joint = Vector3d::Zero(), jointVel = Vector3d::Zero();
  for (int i = 0; i < count; ++i) {
    const Eigen::Vector4d e = axisAngle(Vector3d(u(rng), u(rng), u(rng)), 3 * u(rng));
    const Matrix3d R = quaternion::rotation(e);
    const Vector3d w(2 * u(rng), 2 * u(rng), 2 * u(rng));
    const Vector3d p = (i == count - 1) ? lastPoint : Vector3d(-0.5, 0, 0);
    const Vector3d r = -R * p;  // centre relative to the joint point
    c.e.push_back(e);
    c.w.push_back(w);
    c.x.push_back(joint + r);
    c.v.push_back(jointVel + w.cross(r));
    const Vector3d tip = R * Vector3d(0.5, 0, 0) - R * p;  // next joint relative to this joint
    joint += tip;
    jointVel += w.cross(tip);
  }
  return c;
}

/// The chain as a model: masses/inertias from the lists (a zero entry makes that body massless).
test::MechanismBuilder::Assembled buildChain(const ChainState& c, const std::vector<double>& mass,
                                            const Vector3d& lastPoint) {
  test::MechanismBuilder mb;
  const int count = static_cast<int>(c.x.size());
  for (int i = 0; i < count; ++i) {
    const double m = mass[static_cast<std::size_t>(i)];
    // a rod along x with a square section: J = m diag(0.02/12, 1.01/12, 1.01/12)
    const Matrix3d J = m * Eigen::Vector3d(0.02 / 12, 1.01 / 12, 1.01 / 12).asDiagonal().toDenseMatrix();
    mb.add(std::make_unique<Rigid3d>("b" + std::to_string(i + 1), m, J, c.x[static_cast<std::size_t>(i)],
                                     c.e[static_cast<std::size_t>(i)], c.v[static_cast<std::size_t>(i)],
                                     c.w[static_cast<std::size_t>(i)]));
  }
  for (int i = 0; i < count; ++i) {
    const Vector3d p2 = (i == count - 1) ? lastPoint : Vector3d(-0.5, 0, 0);
    mb.joint({{"name", "ball" + std::to_string(i + 1)},
              {"type", "spherical"},
              {"body1", i == 0 ? std::string("ground") : "b" + std::to_string(i)},
              {"point1", i == 0 ? std::vector<double>{0, 0, 0} : std::vector<double>{0.5, 0, 0}},
              {"body2", "b" + std::to_string(i + 1)},
              {"point2", {p2.x(), p2.y(), p2.z()}}});
  }
  mb.gravity(Vector3d(0, 0, -9.81));
  return mb.build();
}

const std::set<std::string> kB3Quaternion{"b3.e0", "b3.e1", "b3.e2", "b3.e3"};
const std::set<std::string> kB3All{"b3.x", "b3.y", "b3.z", "b3.e0", "b3.e1", "b3.e2", "b3.e3"};

TEST_CASE("rigid3d chain on spherical joints with a massless end body is ill posed, naming it",
          "[mechanisms][acceptance][massless]") {
  std::mt19937 rng(20261121);
  const std::vector<double> masses{1.5, 2.0, 0.0};
  struct Case {
    const char* what;
    Vector3d lastPoint;
    std::set<std::string> expected;
  };
  const std::vector<Case> cases{
      {"joint at b3's centre: only its orientation is undetermined", Vector3d::Zero(), kB3Quaternion},
      {"joint at b3's end: its orientation and, with it, its centre", Vector3d(-0.5, 0, 0), kB3All}};
  for (const auto& cs : cases) {
    for (int trial = 0; trial < 5; ++trial) {
      INFO(cs.what << ", trial " << trial);
      const ChainState c = randomChain(rng, 3, cs.lastPoint);
      const auto chain = buildChain(c, masses, cs.lastPoint);
      const Model& model = chain.model;
      REQUIRE(model.numCoordinates() == 21);
      REQUIRE(model.numConstraintRows() == 12);  // 3 spherical x 3 + 3 quaternion norms
      const State s = model.initialState();
      const test::CheckResult r = test::checkAt(model, s);
      const Diagnosis& d = r.solution.diagnosis;
      INFO(test::allMessages(d));
      CHECK(d.status == Posedness::IllPosed);
      CHECK_FALSE(d.wellPosed);
      CHECK(d.rankA == 12);        // the joints of a chain are independent
      CHECK(d.rankMA == 21 - 3);   // the 3 rotations of b3 about its joint point
      CHECK(d.indeterminate.size() == 3);
      CHECK(test::indeterminateNames(model, d) == cs.expected);
      // the message names the body's coordinates; the answer is finite (no NaN, no abort)
      for (const auto& name : cs.expected) CHECK_THAT(test::allMessages(d), Catch::Contains(name));
      CHECK(r.solution.qdd.allFinite());
      // every undetermined direction is a rotation of b3 about the joint point: it moves
      // only b3's coordinates and has no component along the quaternion (norm row)
      for (const auto& dir : d.indeterminate) {
        CHECK(dir.direction.head(14).cwiseAbs().maxCoeff() <= 1e-12);
        CHECK(std::abs(dir.direction.segment<4>(17).dot(s.q.segment<4>(17))) <= 1e-12);
      }

      // b1 and b2 are determined and move as the chain without b3 (a massless body carries no
      // joint force). Tolerance 1e-9 relative: two SVD-based solves of different sizes, both
      // to round-off (about 1e-13 here), with a margin for the conditioning of [M; A].
      ChainState c2 = c;
      for (auto* v : {&c2.x, &c2.v, &c2.w}) v->pop_back();
      c2.e.pop_back();
      const auto two = buildChain(c2, {1.5, 2.0}, Vector3d(-0.5, 0, 0));
      const test::CheckResult r2 = test::checkAt(two.model, two.model.initialState());
      REQUIRE(r2.solution.diagnosis.wellPosed);
      const VectorXd a12 = r.solution.qdd.head(14), ref = r2.solution.qdd;
      CHECK((a12 - ref).cwiseAbs().maxCoeff() <= 1e-9 * std::max(1.0, ref.cwiseAbs().maxCoeff()));
    }
  }
}

TEST_CASE("the massless end body stops a run as ill posed (simulate exit 3), naming it",
          "[mechanisms][massless]") {
  std::mt19937 rng(7);
  const ChainState c = randomChain(rng, 3, Vector3d(-0.5, 0, 0));
  const auto chain = buildChain(c, {1.5, 2.0, 0.0}, Vector3d(-0.5, 0, 0));
  ModelSystem sys(chain.model);
  VectorXd qdd(21);
  const AccelerationStatus st = sys.calcAccelerations(chain.model.initialState(), qdd);
  INFO(st.message);
  CHECK(st.posedness == Posedness::IllPosed);
  CHECK_THAT(st.message, Catch::Contains("b3.e0") && Catch::Contains("b3.e3"));
  CHECK(qdd.allFinite());

  SimulationSettings set;
  set.tEnd = 1;
  set.outputInterval = 0.1;
  MemoryRecorder rec;
  const SimulationResult run = runSimulation(sys, set, rec);
  INFO(run.message);
  CHECK(run.outcome == RunOutcome::IllPosed);
  CHECK(run.t == 0.0);
  CHECK_THAT(run.message, Catch::Contains("b3."));
}

}  // namespace
}  // namespace joinery
