// flexible2d: a planar Euler–Bernoulli beam in a floating frame of reference (the
// flexible links that rotate), against closed forms: the FE consistent mass, the rigid-body
// inertia, the pinned-pinned and clamped-free bending frequencies, and the conservation of
// energy and momentum of a free, spinning, vibrating beam (which holds only if the
// velocity-product terms are exactly those of the mass matrix).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <random>
#include <nlohmann/json.hpp>

#include "joinery/analyses/analyses.hpp"
#include "joinery/bodies/floating_beam.hpp"
#include "joinery/core/check.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/body.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {
namespace {

using nlohmann::json;
const double kPi = std::acos(-1.0);
// a steel bar 1 m long, 10 mm x 10 mm: EI = 175 N m^2, rho A = 0.785 kg/m
const double kL = 1.0, kE = 2.1e11, kA = 1e-4, kI = 1e-8 / 12, kRho = 7850;

BeamSpec spec(int elements) {
  BeamSpec s;
  s.elements = elements;
  s.length = kL;
  s.E = kE;
  s.I = kI;
  s.A = kA;
  s.density = kRho;
  return s;
}

json rodBody(int elements, const std::string& frame, json extra = json::object()) {
  json b = {{"name", "rod"},
            {"type", "flexible2d"},
            {"beam", {{"elements", elements}, {"length", kL}, {"E", kE}, {"I", kI}, {"A", kA}, {"density", kRho}}},
            {"frame", frame}};
  b.update(extra);
  return b;
}

Scene load(json bodies, json joints, double g = 0) {
  json doc = {{"joinery", 1}, {"gravity", {0, -g, 0}}, {"bodies", bodies}, {"joints", joints}};
  return sceneFromJson(doc, "");
}

// the frame held: node 0 pinned at the origin and the frame's angle driven to 0
json holdFrame() {
  return json::array({{{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                       {"body2", "rod"}, {"point2", {0, 0}}},
                      {{"name", "hold"}, {"type", "driver"}, {"coordinate", "rod.theta"}, {"value", "0"}}});
}

}  // namespace

TEST_CASE("flexible2d: the elastic mass is the FE consistent mass; the frame's inertia is the rod's",
          "[flexible][floating]") {
  for (const auto frame : {FloatingBeam2d::Frame::Chord, FloatingBeam2d::Frame::Clamped}) {
    const int ne = 5;
    const FloatingBeam2d b("rod", spec(ne), frame, Vector3d::Zero(), Vector3d::Zero());
    const BeamMatrices fe = generatePlanarBeam(spec(ne));
    const int full = 3 * (ne + 1);
    REQUIRE(b.numElastic() == full - 3);
    // the kept coordinates, as the body names them
    std::vector<int> kept;
    for (int i = 0; i < full; ++i) {
      const bool removed = i == 0 || i == 1 || i == (frame == FloatingBeam2d::Frame::Chord ? 3 * ne + 1 : 2);
      if (!removed) kept.push_back(i);
    }
    double worst = 0;
    for (std::size_t a = 0; a < kept.size(); ++a)
      for (std::size_t c = 0; c < kept.size(); ++c) {
        worst = std::max(worst, std::abs(b.elasticMass()(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(c)) -
                                         fe.M(kept[a], kept[c])));
        CHECK(b.elasticStiffness()(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(c)) == fe.K(kept[a], kept[c]));
      }
    // Gauss quadrature of the shape functions against the closed-form element matrices
    CHECK(worst < 1e-14 * fe.M.cwiseAbs().maxCoeff());
    const int n = b.numCoordinates();
    VectorXd q = VectorXd::Zero(n);
    MatrixXd M(n, n);
    b.calcMassMatrix(0, q, M);
    CHECK(M(0, 0) == Approx(kRho * kA * kL).epsilon(1e-14));
    CHECK(M(2, 2) == Approx(kRho * kA * kL * kL * kL / 3).epsilon(1e-13));  // a rod about its end
    CHECK(M(1, 2) == Approx(kRho * kA * kL * kL / 2).epsilon(1e-13));        // first moment
    // deformed and turned: still symmetric positive definite
    for (Eigen::Index i = 2; i < n; ++i) q(i) = 0.01 * std::sin(1.0 + i);
    b.calcMassMatrix(0, q, M);
    CHECK((M - M.transpose()).norm() == 0);
    CHECK(Eigen::SelfAdjointEigenSolver<MatrixXd>(M).eigenvalues().minCoeff() > 0);
  }
}

TEST_CASE("flexible2d: bending frequencies of the held frame are the pinned-pinned and the cantilever's",
          "[flexible][floating]") {
  // closed forms: pinned-pinned (k pi)^2, clamped-free beta_k^2 with beta = 1.87510, 4.69409,
  // 7.85476; both times sqrt(EI / (rho A L^4)) / (2 pi)
  const double base = std::sqrt(kE * kI / (kRho * kA * std::pow(kL, 4))) / (2 * kPi);
  const double clamped[3] = {1.8751040687, 4.6940911330, 7.8547574382};
  for (const std::string frame : {"chord", "clamped"}) {
    for (int n : {4, 16}) {
      const Scene s = load(json::array({rodBody(n, frame)}), holdFrame());
      const ModesResult m = computeModes(s.model, s.model.initialState());
      REQUIRE(m.frequenciesHz.size() >= 3);
      for (int k = 0; k < 3; ++k) {
        const double beta = frame == "chord" ? (k + 1) * kPi : clamped[k];
        const double exact = beta * beta * base;
        const double f = m.frequenciesHz[static_cast<std::size_t>(k)];
        INFO(frame << ", " << n << " elements, mode " << k + 1 << ": " << f << " Hz vs " << exact);
        CHECK(f >= exact * (1 - 1e-9));  // consistent mass: a Rayleigh-Ritz upper bound
        // cubic elements: 16 elements resolve the first three modes within 1e-4
        CHECK(f <= exact * (1 + (n == 16 ? 1e-4 : 3e-2)));
      }
    }
  }
}

// [long]: 13 s in Release, 460 s under ASan/UBSan (a stiff beam at rtol 1e-11)
TEST_CASE("flexible2d: a free beam spinning and vibrating keeps its energy, momentum and angular momentum",
          "[flexible][floating][long]") {
  // no joints: the frame floats. Spin 20 rad/s about node 0, a sideways velocity, and the
  // centrifugal load starts the vibration. Energy (kinetic + elastic + gravity) and, without
  // gravity, the linear momentum are conserved by the exact equations; a wrong velocity-
  // product term breaks them at once.
  for (const double g : {0.0, 9.81}) {
    const json body = rodBody(6, "chord", {{"velocity", {0.5, -1.0}}, {"angular_velocity", 20}});
    const Scene s = load(json::array({body}), json::array(), g);
    ModelSystem sys(s.model);
    SimulationSettings set;
    set.tEnd = 0.2;
    set.rtol = 1e-11;
    set.atol = 1e-13;
    set.outputInterval = 0.01;
    MemoryRecorder rec;
    const SimulationResult r = runSimulation(sys, set, rec);
    REQUIRE(r.outcome == RunOutcome::Completed);
    REQUIRE(rec.size() > 10);
    double e0 = *rec.energy.front(), drift = 0, elastic = 0;
    const auto* rod = dynamic_cast<const FloatingBeam2d*>(s.model.findBody("rod"));
    REQUIRE(rod != nullptr);
    for (std::size_t i = 0; i < rec.size(); ++i) {
      drift = std::max(drift, std::abs(*rec.energy[i] - e0));
      elastic = std::max(elastic, rod->calcPotentialEnergy(rec.t[i], rec.q[i]));
    }
    INFO("g = " << g << ": energy " << e0 << " J, drift " << drift << " J, largest elastic energy " << elastic << " J");
    CHECK(elastic > 1e-6 * std::abs(e0));  // the beam does vibrate
    CHECK(drift < 1e-8 * std::abs(e0));
    if (g == 0) {
      // linear momentum: the first two rows of M v
      const int n = rod->numCoordinates();
      MatrixXd M(n, n);
      Eigen::Vector2d p0 = Eigen::Vector2d::Zero();
      double h0 = 0;
      for (std::size_t i = 0; i < rec.size(); ++i) {
        rod->calcMassMatrix(rec.t[i], rec.q[i], M);
        const VectorXd mv = M * rec.v[i];
        const Eigen::Vector2d p = mv.head<2>();
        // angular momentum about the world origin: R x P + p_theta (p_theta = dT/dtheta' is
        // the angular momentum about the frame's origin)
        const double h = rec.q[i](0) * p.y() - rec.q[i](1) * p.x() + mv(2);
        if (i == 0) {
          p0 = p;
          h0 = h;
        }
        CHECK((p - p0).norm() < 1e-9 * p0.norm());
        CHECK(std::abs(h - h0) < 1e-9 * std::abs(h0));
      }
    }
  }
}

TEST_CASE("flexible2d: M and the velocity-product forces are the virtual-work integrals of the point kinematics",
          "[flexible][floating]") {
  // An independent path to the same equations: integrate rho dV J^T J and -rho dV J^T (J' q')
  // over the beam with the body's own point markers (Gauss points), and check the markers'
  // bias J' q' against finite differences of J along the motion. The velocity-product
  // forces include the Coriolis coupling of axial and bending motion (the Sk term), which
  // neither energy nor momentum conservation can see (it does no work and no torque).
  for (const auto frame : {FloatingBeam2d::Frame::Chord, FloatingBeam2d::Frame::Clamped}) {
    const int ne = 3;
    const FloatingBeam2d b("rod", spec(ne), frame, Vector3d::Zero(), Vector3d::Zero());
    const int n = b.numCoordinates();
    VectorXd q(n), v(n);
    for (int i = 0; i < n; ++i) {
      q(i) = (i < 3 ? 0.7 : 0.02) * std::sin(1.3 * i + 0.4);
      v(i) = (i < 3 ? 3.0 : 0.5) * std::cos(0.9 * i + 0.2);
    }
    const PointMarker& pm = *b.points();
    const double gx[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526};
    const double gw[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538};
    const double l = kL / ne;
    MatrixXd Mq = MatrixXd::Zero(n, n), J(3, n), Jp(3, n), Jm(3, n);
    VectorXd Qq = VectorXd::Zero(n);
    double biasErr = 0;
    for (int e = 0; e < ne; ++e)
      for (int k = 0; k < 4; ++k) {
        const Vector3d at(l * (e + 0.5 * (1 + gx[k])), 0, 0);
        const double dm = kRho * kA * l * 0.5 * gw[k];
        pm.calcPointJacobian(q, at, J);
        const Vector3d bias = pm.calcPointBias(q, v, at);
        Mq += dm * J.transpose() * J;
        Qq -= dm * J.transpose() * bias;
        // J' q' by central differences along q(t) = q + t v (the bias is J' v at fixed v)
        const double h = 1e-6;
        pm.calcPointJacobian(q + h * v, at, Jp);
        pm.calcPointJacobian(q - h * v, at, Jm);
        biasErr = std::max(biasErr, (((Jp - Jm) / (2 * h)) * v - bias).norm() / std::max(1.0, bias.norm()));
      }
    // points off the axis (offset h across the beam, turning with the cross-section): J
    // against finite differences of the position, the bias against those of J
    for (const Vector3d& at : {Vector3d(0.25, 0.04, 0), Vector3d(0.8, -0.03, 0), Vector3d(1.0, 0.05, 0)}) {
      pm.calcPointJacobian(q, at, J);
      const double h = 1e-6;
      MatrixXd Jfd(3, n);
      for (int i = 0; i < n; ++i) {
        VectorXd dq = VectorXd::Zero(n);
        dq(i) = h;
        Jfd.col(i) = (pm.calcPointPosition(q + dq, at) - pm.calcPointPosition(q - dq, at)) / (2 * h);
      }
      CHECK((Jfd - J).norm() < 1e-8 * J.norm());
      pm.calcPointJacobian(q + h * v, at, Jp);
      pm.calcPointJacobian(q - h * v, at, Jm);
      const Vector3d bias = pm.calcPointBias(q, v, at);
      biasErr = std::max(biasErr, (((Jp - Jm) / (2 * h)) * v - bias).norm() / std::max(1.0, bias.norm()));
    }
    // undeformed, an offset point is where the rigid rod's point is
    const VectorXd rigid = [&] { VectorXd r = q; r.tail(b.numElastic()).setZero(); return r; }();
    const Vector3d off = pm.calcPointPosition(rigid, Vector3d(0.5, 0.1, 0));
    CHECK(off.x() == Approx(rigid(0) + std::cos(rigid(2)) * 0.5 - std::sin(rigid(2)) * 0.1).epsilon(1e-15));
    CHECK(off.y() == Approx(rigid(1) + std::sin(rigid(2)) * 0.5 + std::cos(rigid(2)) * 0.1).epsilon(1e-15));
    CHECK(biasErr < 1e-7);  // central differences: O(h^2) truncation and rounding
    MatrixXd M(n, n);
    b.calcMassMatrix(0, q, M);
    VectorXd Q(n);
    b.calcForces(0, q, v, Q);
    const VectorXd Kq = b.elasticStiffness() * q.tail(b.numElastic());
    Q.tail(b.numElastic()) += Kq;  // the velocity part only (rounding: of the size of K q)
    INFO("mass matrix difference " << (M - Mq).norm() << ", forces " << (Q - Qq).norm() << " of " << Qq.norm());
    CHECK((M - Mq).norm() < 1e-13 * Mq.norm());
    CHECK((Q - Qq).norm() < 1e-14 * (Qq.norm() + Kq.norm()));  // rounding of K q, ~1e-16 of it
  }
}

TEST_CASE("flexible2d: joint reactions on a beam of many coordinates (a beam on two pins carries m g / 2 at each)",
          "[flexible][floating][results]") {
  // statics, closed form: a uniform beam on pins at both ends under gravity; each pin carries
  // half its weight, and no axial force (bending and stretching are uncoupled in the frame).
  // The beam has 3 + 3 (ne + 1) - 3 coordinates: the wrench at a point is solved for bodies of
  // any size (it was limited to 8 coordinates, and a reaction output on this rod was NaN).
  const double g = 9.81;
  const json joints = json::array({{{"name", "left"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                                    {"body2", "rod"}, {"point2", {0, 0}}},
                                   {{"name", "right"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {kL, 0}},
                                    {"body2", "rod"}, {"point2", {kL, 0}}}});
  const Scene s = load(json::array({rodBody(6, "chord")}), joints, g);
  const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
  REQUIRE(eq.converged);
  const std::vector<JointResult> r = staticJointResults(s.model, eq.state);
  REQUIRE(r.size() == 2);
  const double half = 0.5 * kRho * kA * kL * g;
  for (const JointResult& j : r) {
    INFO(j.name << ": force on the rod " << j.side2.force.transpose());
    REQUIRE(j.side2.hasWrench);
    CHECK(j.side2.force.y() == Approx(half).epsilon(1e-9));
    CHECK(std::abs(j.side2.force.x()) < 1e-9 * half);
    CHECK(std::abs(j.side2.torque.z()) < 1e-9 * half * kL);
  }
  // and the midpoint sags by the closed form 5 w L^4 / (384 E I) (cubic elements: exact at nodes
  // for a uniform load with the consistent load vector)
  const auto& names = s.model.coordinateNames();
  const double sag = eq.state.q(std::find(names.begin(), names.end(), "rod.n3_v") - names.begin());
  CHECK(sag == Approx(-5 * kRho * kA * g * std::pow(kL, 4) / (384 * kE * kI)).epsilon(1e-9));
}

TEST_CASE("flexible2d: exact force Jacobians equal central differences of the forces", "[flexible][floating]") {
  // radau5's Newton matrix takes them (docs/integrators.md); a missing term is off by O(1) of
  // the entries' scale, central differences are good to ~1e-8 of it
  std::mt19937 rng(7);
  std::normal_distribution<double> N01;
  for (const auto frame : {FloatingBeam2d::Frame::Chord, FloatingBeam2d::Frame::Clamped}) {
    const FloatingBeam2d b("rod", spec(3), frame, Vector3d::Zero(), Vector3d::Zero(), 0.3, 1e-4);
    REQUIRE(b.providesForceJacobians());
    const int n = b.numCoordinates();
    const Vector3d g(0.5, -9.81, 1.0);
    for (int trial = 0; trial < 3; ++trial) {
      VectorXd q(n), v(n);
      for (int j = 0; j < n; ++j) {
        q(j) = (j < 3 ? 1.0 : 1e-3) * N01(rng);
        v(j) = (j < 3 ? 5.0 : 0.1) * N01(rng);
      }
      MatrixXd dq = MatrixXd::Zero(n, n), dv = MatrixXd::Zero(n, n);
      b.addForceJacobians(0, q, v, g, dq, dv);
      const auto Q = [&](const VectorXd& qq, const VectorXd& vv) {
        VectorXd out = VectorXd::Zero(n);
        b.calcForces(0, qq, vv, out);
        b.addGravityForce(qq, g, out);
        return out;
      };
      MatrixXd fq(n, n), fv(n, n);
      for (int j = 0; j < n; ++j) {
        const double hq = 1e-7 * std::max(1e-3, std::abs(q(j))), hv = 1e-6 * std::max(0.1, std::abs(v(j)));
        VectorXd p = q, m = q;
        p(j) += hq;
        m(j) -= hq;
        fq.col(j) = (Q(p, v) - Q(m, v)) / (2 * hq);
        p = v;
        m = v;
        p(j) += hv;
        m(j) -= hv;
        fv.col(j) = (Q(q, p) - Q(q, m)) / (2 * hv);
      }
      // the stiffness entries (EA/l ~ 6e7) set the scale of dQ/dq; compare the rest on its own
      const double sq = fq.cwiseAbs().maxCoeff(), sv = fv.cwiseAbs().maxCoeff();
      INFO("trial " << trial << ": |dQ/dq - fd| " << (dq - fq).cwiseAbs().maxCoeff() << " of " << sq
                    << ", |dQ/dv - fd| " << (dv - fv).cwiseAbs().maxCoeff() << " of " << sv);
      CHECK((dq - fq).cwiseAbs().maxCoeff() < 1e-7 * sq);
      CHECK((dv - fv).cwiseAbs().maxCoeff() < 1e-7 * sv);
      // the frame rows (velocity products and gravity) on their own scale: a missing term is
      // off by O(1) of it; the differences' round-off, with steps of ~1e-10 on the elastic
      // coordinates, is ~1e-6 of it
      CHECK((dq - fq).topRows(3).cwiseAbs().maxCoeff() < 2e-5 * std::max(1.0, fq.topRows(3).cwiseAbs().maxCoeff()));
    }
  }
}

TEST_CASE("flexible2d: points beyond the ends and bad fields are errors naming the JSON path", "[flexible][floating]") {
  try {
    load(json::array({rodBody(2, "pinned")}), json::array());
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("/bodies/0/frame"));
  }
  std::string e = "no error";
  try {
    const Scene s = load(json::array({rodBody(2, "chord")}),
                         json::array({{{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"body2", "rod"},
                                       {"point2", {1.5, 0}}}}));
    (void)checkScene(s);
  } catch (const Error& x) {
    e = x.what();
  }
  CHECK_THAT(e, Catch::Contains("no material point at [1.5, 0]") && Catch::Contains("0 <= s <= 1 along the beam"));
  // a round trip through toJson is exact
  const Scene s = load(json::array({rodBody(3, "clamped", {{"position", {0.2, 0.1}}, {"angle", 0.4}})}), json::array());
  const json again = s.model.findBody("rod")->toJson();
  const Scene s2 = load(json::array({again}), json::array());
  CHECK(s2.model.findBody("rod")->toJson() == again);
  CHECK(s2.model.initialState().q == s.model.initialState().q);
}

}  // namespace joinery
