// Generated beam matrices and the Craig–Bampton reduction (flexible.hpp).
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "joinery/bodies/flexible.hpp"

namespace joinery {

namespace {

/// The Euler-Bernoulli bending element of length l (cubic Hermite shape functions), for the
/// coordinates (w1, r1, w2, r2): stiffness k times EI / l^3, consistent mass m times rho A l / 420.
struct Hermite {
  double k[4][4], m[4][4];
  explicit Hermite(double l)
      : k{{12, 6 * l, -12, 6 * l}, {6 * l, 4 * l * l, -6 * l, 2 * l * l}, {-12, -6 * l, 12, -6 * l},
          {6 * l, 2 * l * l, -6 * l, 4 * l * l}},
        m{{156, 22 * l, 54, -13 * l}, {22 * l, 4 * l * l, 13 * l, -3 * l * l}, {54, 13 * l, 156, -22 * l},
          {-13 * l, -3 * l * l, -22 * l, 4 * l * l}} {}
};

}  // namespace

BeamMatrices generatePlanarBeam(const BeamSpec& s) {
  const int ne = s.elements;
  const double l = s.length / ne;
  // element matrices in the beam's own frame, coordinates (u1, w1, r1, u2, w2, r2)
  Eigen::Matrix<double, 6, 6> ke = Eigen::Matrix<double, 6, 6>::Zero(), me = ke;
  const double ea = s.E * s.A / l, ei = s.E * s.I / (l * l * l);
  const int ax[2] = {0, 3}, bd[4] = {1, 2, 4, 5};
  const double ka[2][2] = {{1, -1}, {-1, 1}}, ma[2][2] = {{2, 1}, {1, 2}};
  const Hermite h(l);
  const auto& kb = h.k;
  const auto& mb = h.m;
  const double rhoAl = s.density * s.A * l;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      ke(ax[a], ax[b]) = ea * ka[a][b];
      me(ax[a], ax[b]) = rhoAl / 6 * ma[a][b];
    }
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      ke(bd[a], bd[b]) = ei * kb[a][b];
      me(bd[a], bd[b]) = rhoAl / 420 * mb[a][b];
    }
  // to world directions: local (u, w) = R^T (x, y); rotations unchanged
  const double c = std::cos(s.angle), sn = std::sin(s.angle);
  Eigen::Matrix<double, 6, 6> R = Eigen::Matrix<double, 6, 6>::Zero();
  for (int node = 0; node < 2; ++node) {
    const int o = 3 * node;
    R(o, o) = c;
    R(o, o + 1) = sn;
    R(o + 1, o) = -sn;
    R(o + 1, o + 1) = c;
    R(o + 2, o + 2) = 1;
  }
  ke = R.transpose() * ke * R;
  me = R.transpose() * me * R;
  BeamMatrices out;
  const int n = 3 * (ne + 1);
  out.M = MatrixXd::Zero(n, n);
  out.K = MatrixXd::Zero(n, n);
  for (int e = 0; e < ne; ++e) {
    out.M.block<6, 6>(3 * e, 3 * e) += me;
    out.K.block<6, 6>(3 * e, 3 * e) += ke;
  }
  const Vector3d dir(c, sn, 0);
  for (int i = 0; i <= ne; ++i) {
    const std::string p = "n" + std::to_string(i) + "_";
    out.coordinates.insert(out.coordinates.end(), {p + "x", p + "y", p + "rz"});
    out.nodes.push_back(s.start + (s.length * i / ne) * dir);
  }
  return out;
}

BeamMatrices generateSpatialBeam(const SpatialBeamSpec& s) {
  const int ne = s.elements;
  const double l = s.length / ne;
  using M12 = Eigen::Matrix<double, 12, 12>;
  M12 ke = M12::Zero(), me = M12::Zero();
  // local coordinates per node: u v w rx ry rz (offsets 0..5, node 2 at +6)
  const auto put2 = [&](M12& m, int a, int b, const double k[2][2], double f) {
    const int idx[2] = {a, b};
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) m(idx[i], idx[j]) += f * k[i][j];
  };
  const auto put4 = [&](M12& m, const int idx[4], const double k[4][4], const double sign[4], double f) {
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) m(idx[i], idx[j]) += f * sign[i] * sign[j] * k[i][j];
  };
  const double two[2][2] = {{1, -1}, {-1, 1}}, mtwo[2][2] = {{2, 1}, {1, 2}};
  const Hermite h(l);
  const auto& kb = h.k;
  const auto& mb = h.m;
  const double rhoAl = s.density * s.A * l;
  put2(ke, 0, 6, two, s.E * s.A / l);
  put2(me, 0, 6, mtwo, rhoAl / 6);
  put2(ke, 3, 9, two, s.G * s.J / l);
  put2(me, 3, 9, mtwo, s.density * (s.Iy + s.Iz) * l / 6);
  const int xy[4] = {1, 5, 7, 11}, xz[4] = {2, 4, 8, 10};
  const double plus[4] = {1, 1, 1, 1}, minus[4] = {1, -1, 1, -1};  // x-z plane: ry = -dw/dx
  put4(ke, xy, kb, plus, s.E * s.Iz / (l * l * l));
  put4(me, xy, mb, plus, rhoAl / 420);
  put4(ke, xz, kb, minus, s.E * s.Iy / (l * l * l));
  put4(me, xz, mb, minus, rhoAl / 420);
  // rows of R: the local axes in world coordinates; local = R world
  const Vector3d ex = s.direction.normalized();
  const Vector3d ey = (s.yAxis - s.yAxis.dot(ex) * ex).normalized();
  Matrix3d R;
  R.row(0) = ex.transpose();
  R.row(1) = ey.transpose();
  R.row(2) = ex.cross(ey).transpose();
  M12 T = M12::Zero();
  for (int b = 0; b < 4; ++b) T.block<3, 3>(3 * b, 3 * b) = R;
  ke = T.transpose() * ke * T;
  me = T.transpose() * me * T;
  BeamMatrices out;
  const int n = 6 * (ne + 1);
  out.M = MatrixXd::Zero(n, n);
  out.K = MatrixXd::Zero(n, n);
  for (int e = 0; e < ne; ++e) {
    out.M.block<12, 12>(6 * e, 6 * e) += me;
    out.K.block<12, 12>(6 * e, 6 * e) += ke;
  }
  for (int i = 0; i <= ne; ++i) {
    const std::string p = "n" + std::to_string(i) + "_";
    out.coordinates.insert(out.coordinates.end(), {p + "x", p + "y", p + "z", p + "rx", p + "ry", p + "rz"});
    out.nodes.push_back(s.start + (s.length * i / ne) * ex);
  }
  return out;
}

namespace {
[[noreturn]] void fail(const std::string& m) { throw std::runtime_error(m); }
}  // namespace

CraigBamptonResult craigBampton(const MatrixXd& M, const MatrixXd& K, const std::vector<int>& boundary,
                                int modes) {
  const auto n = static_cast<int>(M.rows());
  const auto nb = static_cast<int>(boundary.size());
  std::vector<int> interior;
  std::vector<bool> isBoundary(static_cast<std::size_t>(n), false);
  for (int b : boundary) isBoundary[static_cast<std::size_t>(b)] = true;
  for (int i = 0; i < n; ++i)
    if (!isBoundary[static_cast<std::size_t>(i)]) interior.push_back(i);
  const auto ni = static_cast<int>(interior.size());
  if (modes < 0 || modes > ni)
    fail("asks for " + std::to_string(modes) + " fixed-interface modes; the interior has " + std::to_string(ni) +
         " coordinates");
  const auto pick = [](const MatrixXd& A, const std::vector<int>& r, const std::vector<int>& c) {
    MatrixXd out(static_cast<Eigen::Index>(r.size()), static_cast<Eigen::Index>(c.size()));
    for (std::size_t i = 0; i < r.size(); ++i)
      for (std::size_t j = 0; j < c.size(); ++j) out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = A(r[i], c[j]);
    return out;
  };
  const MatrixXd Kii = pick(K, interior, interior), Kib = pick(K, interior, boundary);
  const MatrixXd Mii = pick(M, interior, interior);
  CraigBamptonResult r;
  r.T = MatrixXd::Zero(n, nb + modes);
  for (int j = 0; j < nb; ++j) r.T(boundary[static_cast<std::size_t>(j)], j) = 1;
  if (ni == 0) return r;
  // K_ii must be positive definite: the boundary holds the interior (no rigid motion left)
  const Eigen::SelfAdjointEigenSolver<MatrixXd> kEig(Kii, Eigen::EigenvaluesOnly);
  const double kMax = std::max(kEig.eigenvalues().cwiseAbs().maxCoeff(), 1e-300);
  if (kEig.eigenvalues()(0) <= 1e-12 * kMax)
    fail("the interface does not hold the interior: its stiffness with the interface fixed is singular "
         "(smallest eigenvalue " + std::to_string(kEig.eigenvalues()(0)) + "); the interface coordinates must "
         "restrain the rigid-body motion");
  const Eigen::LDLT<MatrixXd> kii(Kii);
  const MatrixXd Psi = -kii.solve(Kib);
  Eigen::SelfAdjointEigenSolver<MatrixXd> mEig(Mii, Eigen::EigenvaluesOnly);
  const double mMax = std::max(mEig.eigenvalues().cwiseAbs().maxCoeff(), 1e-300);
  if (mEig.eigenvalues()(0) <= 1e-12 * mMax)
    fail("the interior mass is singular (massless interior coordinates): Craig–Bampton needs a positive "
         "definite mass with the interface fixed; make the massless coordinates interface coordinates");
  const Eigen::GeneralizedSelfAdjointEigenSolver<MatrixXd> eig(Kii, Mii);  // mass-normalized, ascending
  for (int i = 0; i < ni; ++i) {
    for (int j = 0; j < nb; ++j) r.T(interior[static_cast<std::size_t>(i)], j) = Psi(i, j);
    for (int k = 0; k < modes; ++k) r.T(interior[static_cast<std::size_t>(i)], nb + k) = eig.eigenvectors()(i, k);
  }
  const auto hz = [](double w2) { return std::sqrt(std::max(w2, 0.0)) / (2 * std::numbers::pi); };
  for (int k = 0; k < modes; ++k) r.frequenciesHz.push_back(hz(eig.eigenvalues()(k)));
  if (modes < ni) r.omittedFrequenciesHz.push_back(hz(eig.eigenvalues()(modes)));
  return r;
}

}  // namespace joinery
