// Linearisation about a steady motion (relative equilibrium) on the constraint manifold, the
// symmetry directions eliminated; stability boundaries of a sweep. docs/analyses.md,
// "Stability of steady motions"; the method is summarised in steady.hpp.
#include "joinery/analyses/steady.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "joinery/core/errors.hpp"
#include "joinery/core/model_system.hpp"

namespace joinery {

namespace {

/// A candidate symmetry: the linear vector field eta(x) = L x + c on the state x = (q, q').
struct Candidate {
  std::string name;
  MatrixXd L;
  VectorXd c;
  int order = 0;  // preference when two move the state alike: body spins, translations, rotations
};

Matrix3d cross(const Vector3d& a) {
  Matrix3d m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

/// 4 x 4 matrices of e -> (0, a) (x) e (left) and e -> e (x) (0, a) (right), scalar first.
Eigen::Matrix4d quaternionProduct(const Vector3d& a, bool left) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Zero();
  m.block<1, 3>(0, 1) = -a.transpose();
  m.block<3, 1>(1, 0) = a;
  m.block<3, 3>(1, 1) = left ? cross(a) : Matrix3d(-cross(a));
  return m;
}

const char* axisName(int k) { return k == 0 ? "x" : k == 1 ? "y" : "z"; }

/// Translations and rotations of the world (rotations about axes through the origin, acting
/// on positions and orientations, lifted to the velocities) and every rigid3d body's spin
/// about its own frame's axes through its origin.
std::vector<Candidate> candidates(const Model& model) {
  const int n = model.numCoordinates(), N = 2 * n;
  // what each body is, from its mass properties: a spatial rigid body (a centre of mass and
  // Euler parameters), a spatial point, a planar rigid body (x, y, angle) or a planar point;
  // other bodies take no part in the candidates
  enum class Shape { None, Spatial, SpatialPoint, Planar, PlanarPoint };
  const auto shapeOf = [](const BodySlot& sl) {
    const std::optional<MassProperties> mp = sl.body->massProperties();
    if (!mp) return Shape::None;
    if (mp->translations == 3 && mp->rotations == 3 && sl.size >= 7 &&
        sl.body->coordinateKind(3) == CoordinateKind::Quaternion)
      return Shape::Spatial;
    if (mp->translations == 3 && mp->rotations == 0 && sl.size == 3) return Shape::SpatialPoint;
    if (mp->translations == 2 && mp->rotations == 1 && sl.size == 3) return Shape::Planar;
    if (mp->translations == 2 && mp->rotations == 0 && sl.size == 2) return Shape::PlanarPoint;
    return Shape::None;
  };
  bool planar = false;
  for (const BodySlot& sl : model.bodySlots()) planar = planar || shapeOf(sl) == Shape::Planar;
  std::vector<Candidate> out;
  for (int k = 0; k < 3; ++k) {
    Candidate tr{std::string("translation ") + axisName(k), MatrixXd::Zero(N, N), VectorXd::Zero(N), 1};
    Candidate rot{std::string("rotation about the world ") + axisName(k) + " axis", MatrixXd::Zero(N, N),
                  VectorXd::Zero(N), 2};
    const Vector3d a = Vector3d::Unit(k);
    bool rotates = !(planar && k < 2);
    for (const BodySlot& sl : model.bodySlots()) {
      const Shape shape = shapeOf(sl);
      const int o = sl.offset;
      if (shape == Shape::Spatial || shape == Shape::SpatialPoint) {
        tr.c(o + k) = 1;
        for (int half = 0; half < 2; ++half) rot.L.block<3, 3>(half * n + o, half * n + o) = cross(a);
        if (shape == Shape::Spatial)
          for (int half = 0; half < 2; ++half)
            rot.L.block<4, 4>(half * n + o + 3, half * n + o + 3) = 0.5 * quaternionProduct(a, true);
      } else if (shape == Shape::Planar || shape == Shape::PlanarPoint) {
        if (k < 2) tr.c(o + k) = 1;
        if (k == 2) {
          for (int half = 0; half < 2; ++half) {
            rot.L(half * n + o, half * n + o + 1) = -1;
            rot.L(half * n + o + 1, half * n + o) = 1;
          }
          if (shape == Shape::Planar) rot.c(o + 2) = 1;
        }
      }
    }
    if (tr.c.any()) out.push_back(std::move(tr));
    if (rotates && (rot.L.any() || rot.c.any())) out.push_back(std::move(rot));
  }
  for (const BodySlot& sl : model.bodySlots()) {
    if (shapeOf(sl) != Shape::Spatial) continue;
    for (int k = 0; k < 3; ++k) {
      Candidate spin{"spin of " + sl.body->name() + " about its " + axisName(k) + " axis", MatrixXd::Zero(N, N),
                     VectorXd::Zero(N), 0};
      for (int half = 0; half < 2; ++half)
        spin.L.block<4, 4>(half * n + sl.offset + 3, half * n + sl.offset + 3) =
            0.5 * quaternionProduct(Vector3d::Unit(k), false);
      out.push_back(std::move(spin));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) { return a.order < b.order; });
  return out;
}

/// x' = F(x) = (q', q''(q, q')) as simulate evaluates it (the fast path, whose regularized
/// multipliers enforce the rows to round-off away from singular positions; the dense
/// reference solver wherever a check fails).
class Flow {
 public:
  explicit Flow(const Model& model, double t) : n_(model.numCoordinates()), sys_(model) {
    s_.t = t;
    qdd_ = VectorXd::Zero(n_);
  }
  VectorXd operator()(const VectorXd& x) {
    s_.q = x.head(n_);
    s_.v = x.tail(n_);
    const AccelerationStatus st = sys_.calcAccelerations(s_, qdd_);
    if (!st.ok()) throw ModelError("steady modes: the accelerations are not determined at the state: " + st.message);
    VectorXd f(2 * n_);
    f << s_.v, qdd_;
    return f;
  }
  /// dF/dx d by fourth-order central differences with step h along d.
  VectorXd derivative(const VectorXd& x, const VectorXd& d, double h) {
    const VectorXd f1 = (*this)(x + h * d) - (*this)(x - h * d);
    const VectorXd f2 = (*this)(x + 2 * h * d) - (*this)(x - 2 * h * d);
    return (8 * f1 - f2) / (12 * h);
  }

 private:
  int n_;
  ModelSystem sys_;
  State s_;
  VectorXd qdd_;
};

/// The rows whose null space is the tangent space of the constraint manifold at (q, v):
/// [phi_q 0] (position rows, internal rows), [h_q 0] (integrable heights of velocity rows),
/// [psi_q psi_v] (every velocity-level residual), each scaled to unit norm.
MatrixXd manifoldRows(const Model& model, const State& s) {
  const int n = model.numCoordinates(), m = model.numConstraintRows();
  ModelWorkspace ws = model.makeWorkspace(true);
  model.calcMassAndForces(s, ws);
  model.calcConstraints(s, ws);
  const MatrixXd A = ws.A;
  // the contact heights of rolling_disk joints: their normal rows are the time derivatives
  // of n.(C - p1) - radius |n - (n.a) a| (docs/joints.md), kept at velocity level
  struct Disk {
    int row;
    const Body* body;
    Vector3d p1, normal, centre, axis;
    double radius;
  };
  std::vector<Disk> disks;
  for (const RowBlock& rb : model.rowBlocks()) {
    if (!rb.constraint) continue;
    const std::optional<RollingContact> rc = rb.constraint->rollingContact();
    if (!rc || !rc->disk || !rc->disk->points() || !rc->disk->frames()) continue;
    disks.push_back({rb.row + rc->normalRow, rc->disk, rc->planePoint, rc->normal, rc->centre, rc->axis, rc->radius});
  }
  auto heights = [&](const VectorXd& q) {
    VectorXd h = VectorXd::Zero(m);
    for (const Disk& dk : disks) {
      const BodySlot& sl = model.slotOf(*dk.body);
      const auto ql = q.segment(sl.offset, sl.size);
      const Vector3d C = dk.body->points()->calcPointPosition(ql, dk.centre);
      const Vector3d a = dk.body->frames()->calcOrientation(ql) * dk.axis;
      h(dk.row) = dk.normal.dot(C - dk.p1) - dk.radius * (dk.normal - dk.normal.dot(a) * a).norm();
    }
    return h;
  };
  auto psi = [&](const VectorXd& q) {
    State t = s;
    t.q = q;
    VectorXd r = VectorXd::Zero(m);
    model.calcVelocityErrors(t, ws, r);
    return r;
  };
  MatrixXd Hq(m, n), Pq(m, n);
  VectorXd q = s.q;
  for (int j = 0; j < n; ++j) {
    const double h = 1e-4 * std::max(1.0, std::abs(q(j))), qj = q(j);
    auto diff = [&](auto&& fn) {
      q(j) = qj + h;
      const VectorXd p1 = fn(q);
      q(j) = qj - h;
      const VectorXd m1 = fn(q);
      q(j) = qj + 2 * h;
      const VectorXd p2 = fn(q);
      q(j) = qj - 2 * h;
      const VectorXd m2 = fn(q);
      q(j) = qj;
      return VectorXd((8 * (p1 - m1) - (p2 - m2)) / (12 * h));
    };
    Hq.col(j) = diff(heights);
    Pq.col(j) = diff(psi);
  }
  std::vector<VectorXd> rows;
  auto add = [&](const VectorXd& r) {
    const double nr = r.norm();
    if (nr > 0) rows.push_back(r / nr);
  };
  for (const RowBlock& rb : model.rowBlocks()) {
    const ConstraintLevel level = rb.constraint ? rb.constraint->level() : ConstraintLevel::Position;
    if (level == ConstraintLevel::Acceleration) continue;
    for (int i = rb.row; i < rb.row + rb.size; ++i) {
      VectorXd r = VectorXd::Zero(2 * n);
      if (level == ConstraintLevel::Position) {
        r.head(n) = A.row(i).transpose();
        add(r);
      } else {
        r.head(n) = Hq.row(i).transpose();
        add(r);
      }
      r.head(n) = Pq.row(i).transpose();
      r.tail(n) = A.row(i).transpose();
      add(r);
    }
  }
  MatrixXd C(static_cast<Eigen::Index>(rows.size()), 2 * n);
  for (std::size_t i = 0; i < rows.size(); ++i) C.row(static_cast<Eigen::Index>(i)) = rows[i].transpose();
  return C;
}

/// Orthonormal basis of the null space (columns) and of the range of a matrix's columns.
MatrixXd nullBasis(const MatrixXd& C, int cols) {
  if (C.rows() == 0) return MatrixXd::Identity(cols, cols);
  // C^T P = Q R: the first rank columns of Q span the rows of C, the others its null space
  Eigen::ColPivHouseholderQR<MatrixXd> qr(C.transpose());
  qr.setThreshold(1e-8);
  const MatrixXd Q = qr.householderQ();
  return Q.rightCols(cols - static_cast<int>(qr.rank()));
}

MatrixXd rangeBasis(const MatrixXd& W) {
  if (W.cols() == 0) return MatrixXd(W.rows(), 0);
  Eigen::JacobiSVD<MatrixXd> svd(W, Eigen::ComputeFullU);
  const auto& sv = svd.singularValues();
  int rank = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i)
    if (sv(i) > 1e-8 * sv(0)) ++rank;
  return svd.matrixU().leftCols(rank);
}

std::string stateName(const Model& model, int i) {
  const int n = model.numCoordinates();
  const auto& names = model.coordinateNames();
  return i < n ? names[static_cast<std::size_t>(i)] : names[static_cast<std::size_t>(i - n)] + "'";
}

}  // namespace

SteadyModesResult computeSteadyModes(const Model& model, const State& s0, const SteadyOptions& opt) {
  const int n = model.numCoordinates(), N = 2 * n;
  SteadyModesResult out;
  if (n == 0) return out;
  State s = s0;
  model.normalizeCoordinates(s.q);
  VectorXd x0(N);
  x0 << s.q, s.v;
  Flow flow(model, s.t);
  const VectorXd F0 = flow(x0);
  const double h = opt.step * std::max(1.0, x0.cwiseAbs().maxCoeff());

  const MatrixXd B = nullBasis(manifoldRows(model, s), N);
  const int d = static_cast<int>(B.cols());
  out.stateDimension = d;
  if (d == 0) return out;
  MatrixXd DFB(N, d);
  for (int j = 0; j < d; ++j) DFB.col(j) = flow.derivative(x0, B.col(j), h);
  double sigma = 0;
  for (int j = 0; j < d; ++j) sigma = std::max(sigma, DFB.col(j).norm());
  sigma = std::max(sigma, 1e-300);

  // the symmetries at x0: tangent to the manifold, bracket with F zero
  std::vector<Candidate> cand = candidates(model);
  std::vector<const Candidate*> sym;
  std::vector<VectorXd> orbit;
  for (const Candidate& c : cand) {
    const VectorXd sk = c.L * x0 + c.c;
    const double ns = sk.norm();
    if (!(ns > 0)) continue;
    const VectorXd w = B.transpose() * sk;
    if ((sk - B * w).norm() > opt.symmetryTolerance * ns) continue;
    const VectorXd bracket = DFB * w - c.L * F0;
    if (bracket.norm() > opt.symmetryTolerance * (sigma * ns + (c.L * F0).norm())) continue;
    sym.push_back(&c);
    orbit.push_back(sk);
    out.symmetries.push_back(c.name);
  }
  // the generator: F0 = sum c_k eta_k(x0) over an independent subset, in order of preference
  std::vector<int> basis;
  MatrixXd Sel(N, 0);
  for (std::size_t k = 0; k < sym.size(); ++k) {
    MatrixXd T(N, Sel.cols() + 1);
    T << Sel, orbit[k];
    if (rangeBasis(T).cols() > Sel.cols()) {
      Sel = T;
      basis.push_back(static_cast<int>(k));
    }
  }
  VectorXd coef = VectorXd::Zero(Sel.cols());
  if (Sel.cols() > 0) coef = Sel.colPivHouseholderQr().solve(F0);
  const VectorXd residual = F0 - Sel * coef;
  out.steadyResidual = residual.norm() / std::max(1.0, F0.norm());
  if (out.steadyResidual > opt.steadyTolerance) {
    std::vector<std::pair<double, int>> big;
    for (int i = 0; i < N; ++i) big.emplace_back(std::abs(residual(i)), i);
    std::sort(big.rbegin(), big.rend());
    std::ostringstream os;
    os << "the state is not a steady motion: its rate of change differs from the motion along the symmetries ("
       << (sym.empty() ? "none found" : std::to_string(sym.size()) + " found") << ") by " << residual.norm()
       << " (relative " << out.steadyResidual << "), largest in";
    for (std::size_t i = 0; i < std::min<std::size_t>(4, big.size()) && big[i].first > 0; ++i)
      os << (i ? ", " : " ") << stateName(model, big[i].second) << " " << residual(big[i].second);
    throw ModelError(os.str());
  }
  MatrixXd Lxi = MatrixXd::Zero(N, N);
  for (std::size_t i = 0; i < basis.size(); ++i) {
    const double ck = coef(static_cast<Eigen::Index>(i));
    const Candidate& c = *sym[static_cast<std::size_t>(basis[i])];
    Lxi += ck * c.L;
    if (std::abs(ck) > 1e-12 * std::max(1.0, coef.cwiseAbs().maxCoeff())) out.generator.emplace_back(c.name, ck);
  }
  const MatrixXd J = B.transpose() * (DFB - Lxi * B);  // d x d, on T

  // eliminated: the orbit directions, and the velocity scaling when it is a family direction
  MatrixXd W(d, static_cast<Eigen::Index>(orbit.size()));
  for (std::size_t k = 0; k < orbit.size(); ++k) W.col(static_cast<Eigen::Index>(k)) = B.transpose() * orbit[k];
  MatrixXd QS = rangeBasis(W);
  VectorXd scale = VectorXd::Zero(N);
  scale.tail(n) = s.v;
  const VectorXd f = B.transpose() * scale;
  if (f.norm() > 0 && (scale - B * f).norm() <= opt.symmetryTolerance * scale.norm()) {
    const VectorXd Jf = J * f;
    const VectorXd off = Jf - QS * (QS.transpose() * Jf);
    const VectorXd fOff = f - QS * (QS.transpose() * f);
    if (fOff.norm() > 1e-6 * f.norm() && off.norm() <= opt.symmetryTolerance * sigma * f.norm()) {
      MatrixXd T(d, W.cols() + 1);
      T << W, f;
      QS = rangeBasis(T);
      out.speedHeld = true;
    }
  }
  const int r = static_cast<int>(QS.cols());
  out.eliminated = r;
  // the complement of S in T: eigenvalues of J on T / S
  MatrixXd Qp;
  if (r == 0) {
    Qp = MatrixXd::Identity(d, d);
  } else {
    Eigen::JacobiSVD<MatrixXd> svd(QS, Eigen::ComputeFullU);
    Qp = svd.matrixU().rightCols(d - r);
  }
  std::vector<std::complex<double>> lam(static_cast<std::size_t>(r), std::complex<double>(0, 0));
  if (d - r > 0) {
    const MatrixXd Jq = Qp.transpose() * J * Qp;
    Eigen::EigenSolver<MatrixXd> es(Jq, false);
    if (es.info() != Eigen::Success) throw ModelError("steady modes: the eigenvalue iteration did not converge");
    for (Eigen::Index i = 0; i < es.eigenvalues().size(); ++i) lam.push_back(es.eigenvalues()(i));
  }
  double big = 1;
  for (const auto& z : lam) big = std::max(big, std::abs(z));
  const double tol = opt.zeroTolerance * big, unstable = opt.instabilityTolerance * big;
  out.maxRealPart = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < lam.size(); ++i) {
    if (std::abs(lam[i]) <= tol) ++out.zeroModes;
    if (lam[i].real() > unstable) ++out.unstableModes;
    if (static_cast<int>(i) >= r) out.maxRealPart = std::max(out.maxRealPart, lam[i].real());
  }
  out.stable = out.unstableModes == 0;
  std::sort(lam.begin(), lam.end(), [](const auto& a, const auto& b) {
    return a.real() != b.real() ? a.real() > b.real() : a.imag() > b.imag();
  });
  out.eigenvalues = std::move(lam);
  return out;
}

namespace {

/// A boundary with a marginally stable side (eigenvalues on the imaginary axis, which leave
/// it like a square root: lambda^2 or (Re lambda)^2 analytic in p). Bisection on the verdict
/// first; near the boundary the computed real parts of the stable side are not exactly zero
/// (round-off and differencing errors amplified where eigenvalues meet), so the verdict is
/// biased towards the stable side. The boundary is then the zero of g(p) = (max Re)^2
/// extrapolated by a parabola through three points on the unstable side, where it is large.
double marginalBoundary(double a, double b, bool stableA, const std::function<SteadyModesResult(double)>& evaluate,
                        double tolerance) {
  const double width = std::abs(b - a);
  double s = a, u = b;  // stable and unstable ends
  if (!stableA) std::swap(s, u);
  for (int it = 0; it < 200 && std::abs(u - s) > tolerance; ++it) {
    const double c = 0.5 * (s + u);
    (evaluate(c).stable ? s : u) = c;
  }
  const double pStar = 0.5 * (s + u), dir = u > s ? 1.0 : -1.0;
  const double end = stableA ? b : a;  // the unstable end of the bracket
  for (double d = 1e-3 * width; 3 * d <= std::abs(end - pStar) + 1e-300; d *= 2) {
    Eigen::Matrix3d V;
    Eigen::Vector3d g;
    bool clear = true;
    for (int k = 0; k < 3; ++k) {
      const SteadyModesResult r = evaluate(pStar + dir * (k + 1) * d);
      double big = 1;
      for (const auto& z : r.eigenvalues) big = std::max(big, std::abs(z));
      clear = clear && r.maxRealPart > 1e-4 * big;
      V.row(k) << 1.0, k + 1.0, (k + 1.0) * (k + 1.0);
      g(k) = r.maxRealPart * r.maxRealPart;
    }
    if (!clear) continue;  // too close to the boundary for the real parts to stand out
    const Eigen::Vector3d c = V.fullPivLu().solve(g);  // g = c0 + c1 t + c2 t^2, p = pStar + dir d t
    double t = 0;
    if (std::abs(c(2)) * 9 < 1e-12 * std::abs(c(1))) {
      t = -c(0) / c(1);
    } else {
      const double disc = c(1) * c(1) - 4 * c(2) * c(0);
      if (disc < 0) break;
      const double t1 = (-c(1) + std::sqrt(disc)) / (2 * c(2)), t2 = (-c(1) - std::sqrt(disc)) / (2 * c(2));
      t = std::abs(t1) < std::abs(t2) ? t1 : t2;  // the root next to the points
    }
    if (!std::isfinite(t) || t > 1 || std::abs(t * d) > width) break;
    return pStar + dir * d * t;
  }
  return pStar;
}

}  // namespace

std::vector<StabilityBoundary> findStabilityBoundaries(const std::vector<double>& values,
                                                       const std::vector<SteadyModesResult>& samples,
                                                       const std::function<SteadyModesResult(double)>& evaluate,
                                                       double tolerance) {
  std::vector<StabilityBoundary> out;
  for (std::size_t i = 0; i + 1 < values.size() && i + 1 < samples.size(); ++i) {
    if (samples[i].stable == samples[i + 1].stable) continue;
    double a = values[i], b = values[i + 1];
    const bool stableA = samples[i].stable;
    double fa = samples[i].maxRealPart, fb = samples[i + 1].maxRealPart;
    const double fStable = stableA ? fa : fb;
    if (std::isfinite(fa) && std::isfinite(fb) && fStable < -1e-6 && fa * fb < 0) {
      // regula falsi with the Illinois modification: the largest real part crosses zero
      int side = 0;
      for (int it = 0; it < 200 && std::abs(b - a) > tolerance; ++it) {
        double c = b - fb * (b - a) / (fb - fa);
        if (!(c > std::min(a, b) && c < std::max(a, b))) c = 0.5 * (a + b);
        const double fc = evaluate(c).maxRealPart;
        if (std::abs(fc) < 1e-15) {
          a = b = c;
          break;
        }
        if ((fc < 0) == (fb < 0)) {
          b = c, fb = fc;
          if (side == -1) fa *= 0.5;
          side = -1;
        } else {
          a = c, fa = fc;
          if (side == 1) fb *= 0.5;
          side = 1;
        }
      }
      // the last two iterates bracket the root; report the one with the smaller |f|
      out.push_back({std::abs(fa) < std::abs(fb) ? a : b, !stableA});
      continue;
    }
    out.push_back({marginalBoundary(a, b, stableA, evaluate, tolerance), !stableA});
  }
  return out;
}

}  // namespace joinery
