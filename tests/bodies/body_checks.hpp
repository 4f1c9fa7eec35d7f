#pragma once
// Finite-difference and structural checks shared by the body tests (and run over every
// registered body type by test_body_conformance.cpp).
//
// Finite differences: central differences along a smooth curve q(s) = q + s v + s^2/2 a with
// step h = 1e-4. For O(1) coordinates and derivatives the first difference has truncation
// error ~h^2 |q'''| ~ 1e-8 and rounding ~eps/h ~ 1e-12; the second difference truncation
// ~h^2 ~ 1e-8 and rounding ~eps/h^2 ~ 2e-8. A tolerance of 1e-6 (absolute plus relative to
// the compared value) is therefore ~50x above the expected error, and far below the O(1)
// error any wrong term (a missing factor 2, a sign, a dropped bias term) produces.
#include <Eigen/Dense>
#include <functional>
#include <random>

#include "eigen_approx.hpp"
#include "joinery/core/body.hpp"

namespace joinery::test {

inline constexpr double kFdStep = 1e-4;
inline constexpr double kFdTol = 1e-6;

struct Motion {
  Eigen::VectorXd q, v, a;
  double t = 0.3;
  Eigen::VectorXd at(double s) const { return q + s * v + 0.5 * s * s * a; }
  Eigen::VectorXd velocityAt(double s) const { return v + s * a; }
};

/// A random smooth motion around `q0`: q0 + perturbation, random v and a (entries in [-1, 1]),
/// with the body's own normalization applied to q (a unit quaternion stays near unit).
inline Motion randomMotion(const Body& b, std::mt19937& rng, double spread = 0.5) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = b.numCoordinates();
  Eigen::VectorXd q0(n), v0(n);
  b.getInitialState(q0, v0);
  Motion m;
  m.q = q0;
  m.v.resize(n);
  m.a.resize(n);
  for (int i = 0; i < n; ++i) {
    m.q(i) += spread * u(rng);
    m.v(i) = u(rng);
    m.a(i) = u(rng);
  }
  b.normalizeCoordinates(m.q);
  return m;
}

/// d/ds f(q(s)) and d2/ds2 at s = 0 by central differences.
template <class F>
std::pair<Eigen::VectorXd, Eigen::VectorXd> fdDerivatives(const Motion& m, F f) {
  const double h = kFdStep;
  const Eigen::VectorXd fp = f(m.at(h)), f0 = f(m.at(0.0)), fm = f(m.at(-h));
  return {(fp - fm) / (2 * h), (fp - 2 * f0 + fm) / (h * h)};
}

inline Eigen::MatrixXd massMatrix(const Body& b, const Eigen::VectorXd& q, double t = 0.0) {
  Eigen::MatrixXd M(b.numCoordinates(), b.numCoordinates());
  b.calcMassMatrix(t, q, M);
  return M;
}

inline Eigen::VectorXd forces(const Body& b, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                              double t = 0.0) {
  Eigen::VectorXd Q(b.numCoordinates());
  b.calcForces(t, q, v, Q);
  return Q;
}

/// Checks the point marker of `b` at `local` along motion `m`: r' = J v and r'' = J a + bias.
inline void checkPointMarker(const Body& b, const Motion& m, const Eigen::Vector3d& local) {
  const PointMarker* pm = b.points();
  REQUIRE(pm != nullptr);
  const int n = b.numCoordinates();
  auto pos = [&](const Eigen::VectorXd& q) -> Eigen::VectorXd {
    return pm->calcPointPosition(q, local);
  };
  const auto [d1, d2] = fdDerivatives(m, pos);
  Eigen::MatrixXd J(3, n);
  J.setConstant(12345.0);  // the marker must write every entry
  pm->calcPointJacobian(m.q, local, J);
  const Eigen::Vector3d bias = pm->calcPointBias(m.q, m.v, local);
  INFO("body " << b.name() << " (" << b.typeName() << "), local " << local.transpose()
               << "\nq " << m.q.transpose() << "\nv " << m.v.transpose());
  CHECK_THAT(Eigen::MatrixXd(J * m.v), isApprox(d1, kFdTol, kFdTol));
  CHECK_THAT(Eigen::MatrixXd(J * m.a + bias), isApprox(d2, kFdTol, kFdTol));

  // The combined calls a body may override with its own code (Rigid3d: fixed-size, no
  // scratch) give J and the bias to round-off: calcPointJacobianAndBias into a J holding
  // garbage, addPointJacobianRows into rows already holding values (it adds) inside a wider
  // matrix, for 1 to 3 rows and both signs, also against the PointMarker default.
  constexpr double kRoundOff = 1e-14;
  Eigen::MatrixXd Jb(3, n);
  Jb.setConstant(12345.0);
  const Eigen::Vector3d biasB = pm->calcPointJacobianAndBias(m.q, m.v, local, Jb);
  CHECK_THAT(Jb, isApprox(J, kRoundOff, kRoundOff));
  CHECK_THAT(Eigen::MatrixXd(biasB), isApprox(bias, kRoundOff, kRoundOff));
  // calcPointVelocity (Rigid3d: x' + w x R p without J) is J v, also the PointMarker default
  // (round-off: a different sum of the same terms, all of order 1 here)
  const Eigen::Vector3d vel = pm->calcPointVelocity(m.q, m.v, local);
  const Eigen::Vector3d velDefault = pm->PointMarker::calcPointVelocity(m.q, m.v, local);
  CHECK_THAT(Eigen::MatrixXd(vel), isApprox(J * m.v, kRoundOff, kRoundOff));
  CHECK_THAT(Eigen::MatrixXd(velDefault), isApprox(J * m.v, kRoundOff, kRoundOff));
  std::mt19937 rng(static_cast<unsigned>(n) * 7919u);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int dim = 1; dim <= 3; ++dim) {
    for (const double sign : {1.0, -1.0}) {
      INFO("rows " << dim << ", sign " << sign);
      const Eigen::MatrixXd before = Eigen::MatrixXd::NullaryExpr(dim + 2, n + 3, [&] { return u(rng); });
      Eigen::MatrixXd expected = before, A = before, Adefault = before;
      expected.block(1, 2, dim, n) += sign * J.topRows(dim);
      const Eigen::Vector3d biasA = pm->addPointJacobianRows(m.q, m.v, local, sign, A.block(1, 2, dim, n));
      const Eigen::Vector3d biasD =
          pm->PointMarker::addPointJacobianRows(m.q, m.v, local, sign, Adefault.block(1, 2, dim, n));
      CHECK_THAT(A, isApprox(expected, kRoundOff, kRoundOff));
      CHECK_THAT(A, isApprox(Adefault, kRoundOff, kRoundOff));
      CHECK_THAT(Eigen::MatrixXd(biasA), isApprox(bias, kRoundOff, kRoundOff));
      CHECK_THAT(Eigen::MatrixXd(biasD), isApprox(bias, kRoundOff, kRoundOff));
    }
  }
}

/// Checks the frame marker: R is a rotation, [w]x = R' R^T with w = Jw v, and
/// w' = Jw a + bias (w(s) = Jw(q(s)) q'(s) differentiated numerically).
inline void checkFrameMarker(const Body& b, const Motion& m) {
  const FrameMarker* fm = b.frames();
  REQUIRE(fm != nullptr);
  const int n = b.numCoordinates();
  const double h = kFdStep;
  const Eigen::Matrix3d R = fm->calcOrientation(m.q);
  INFO("body " << b.name() << " (" << b.typeName() << ")\nq " << m.q.transpose() << "\nv "
               << m.v.transpose());
  CHECK_THAT(Eigen::MatrixXd(R.transpose() * R), isApprox(Eigen::Matrix3d::Identity(), 1e-12, 1e-12));
  CHECK(R.determinant() == Approx(1.0).epsilon(1e-12));
  const Eigen::Matrix3d Rdot =
      (fm->calcOrientation(m.at(h)) - fm->calcOrientation(m.at(-h))) / (2 * h);
  const Eigen::Matrix3d W = Rdot * R.transpose();
  const Eigen::Vector3d wFd(W(2, 1), W(0, 2), W(1, 0));
  CHECK_THAT(Eigen::MatrixXd(W + W.transpose()), isApprox(Eigen::Matrix3d::Zero(), 0, kFdTol));
  auto omega = [&](double s) -> Eigen::Vector3d {
    Eigen::MatrixXd Jw(3, n);
    fm->calcAngularJacobian(m.at(s), Jw);
    return Jw * m.velocityAt(s);
  };
  Eigen::MatrixXd Jw(3, n);
  Jw.setConstant(12345.0);
  fm->calcAngularJacobian(m.q, Jw);
  CHECK_THAT(Eigen::MatrixXd(Jw * m.v), isApprox(wFd, kFdTol, kFdTol));
  const Eigen::Vector3d wdotFd = (omega(h) - omega(-h)) / (2 * h);
  CHECK_THAT(Eigen::MatrixXd(Jw * m.a + fm->calcAngularBias(m.q, m.v)),
             isApprox(wdotFd, kFdTol, kFdTol));
}

/// Symmetric (1e-12 relative: the bodies build M symmetric by construction, only rounding
/// may differ) and positive semi-definite (smallest eigenvalue >= -1e-12 |largest|).
inline void checkMassMatrix(const Eigen::MatrixXd& M) {
  const double scale = std::max(1.0, M.cwiseAbs().maxCoeff());
  CHECK((M - M.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * scale);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (M + M.transpose()));
  CHECK(es.eigenvalues().minCoeff() >= -1e-12 * scale);
}

/// Gravity force is minus the gradient of the gravity potential (central differences,
/// step 1e-6: the potential is linear in q for every body here, so only rounding ~1e-10).
inline void checkGravity(const Body& b, const Eigen::VectorXd& q, const Eigen::Vector3d& g) {
  const int n = b.numCoordinates();
  Eigen::VectorXd Q = Eigen::VectorXd::Zero(n);
  b.addGravityForce(q, g, Q);
  Eigen::VectorXd grad(n);
  const double h = 1e-6;
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd qp = q, qm = q;
    qp(i) += h;
    qm(i) -= h;
    grad(i) = (b.calcGravityPotential(qp, g) - b.calcGravityPotential(qm, g)) / (2 * h);
  }
  INFO("body " << b.name() << " (" << b.typeName() << ")");
  CHECK_THAT(Eigen::MatrixXd(Q), isApprox(-grad, 1e-8, 1e-8));
}

/// Internal constraints: phi' = A v and phi'' = A a - b along the motion.
inline void checkInternalConstraints(const Body& b, const Motion& m) {
  const int k = b.numInternalConstraints();
  if (k == 0) return;
  const int n = b.numCoordinates();
  auto phi = [&](const Eigen::VectorXd& q) -> Eigen::VectorXd {
    Eigen::VectorXd p(k);
    b.calcInternalPositionError(m.t, q, p);
    return p;
  };
  const auto [d1, d2] = fdDerivatives(m, phi);
  Eigen::MatrixXd A(k, n);
  Eigen::VectorXd bb(k);
  b.calcInternalConstraints(m.t, m.q, m.v, A, bb);
  CHECK_THAT(Eigen::MatrixXd(A * m.v), isApprox(d1, kFdTol, kFdTol));
  CHECK_THAT(Eigen::MatrixXd(A * m.a - bb), isApprox(d2, kFdTol, kFdTol));
}

}  // namespace joinery::test
