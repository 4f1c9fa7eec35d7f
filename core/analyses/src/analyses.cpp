// Static equilibrium (Newton on the KKT system with a line search and a Levenberg–Marquardt
// fallback) and linearised modes on the constraint manifold. docs/analyses.md.
#include "joinery/analyses/analyses.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "joinery/core/model_system.hpp"
#include "joinery/core/errors.hpp"

namespace joinery {

namespace {

/// Evaluates g = Q(q, v) + A(q)^T lambda and phi(q) at a fixed time.
class Evaluator {
 public:
  Evaluator(const Model& model, double t) : model_(model), ws_(model.makeWorkspace(true)) {
    s_.t = t;
    s_.q = VectorXd::Zero(model.numCoordinates());
    s_.v = VectorXd::Zero(model.numCoordinates());
  }
  int n() const { return model_.numCoordinates(); }
  int m() const { return model_.numConstraintRows(); }
  void eval(const VectorXd& q, const VectorXd& v, const VectorXd& lambda, VectorXd& g, VectorXd& phi) {
    s_.q = q;
    s_.v = v;
    model_.calcMassAndForces(s_, ws_);
    model_.calcConstraints(s_, ws_);
    g = ws_.Q;
    if (m() > 0) g.noalias() += ws_.A.transpose() * lambda;
    phi = VectorXd::Zero(m());
    if (m() > 0) model_.calcPositionErrors(s_, ws_, phi);
  }
  /// Central differences of g and phi in q (Kt = dg/dq, P = dphi/dq), or of g in v (Kt only).
  void jacobian(const VectorXd& q, const VectorXd& v, const VectorXd& lambda, bool inV, MatrixXd& Kt,
                MatrixXd& P) {
    Kt.resize(n(), n());
    P.resize(m(), n());
    VectorXd gp, gm, pp, pm;
    VectorXd x = inV ? v : q;
    for (int j = 0; j < n(); ++j) {
      const double d = 1e-6 * std::max(1.0, std::abs(x(j)));
      const double xj = x(j);
      x(j) = xj + d;
      eval(inV ? q : x, inV ? x : v, lambda, gp, pp);
      x(j) = xj - d;
      eval(inV ? q : x, inV ? x : v, lambda, gm, pm);
      x(j) = xj;
      Kt.col(j) = (gp - gm) / (2 * d);
      P.col(j) = (pp - pm) / (2 * d);
    }
  }
  const ModelWorkspace& ws() const { return ws_; }
  const Model& model() const { return model_; }

 private:
  const Model& model_;
  ModelWorkspace ws_;
  State s_;
};

/// Orthonormal basis of the null space of A (n x (n - rank)); the identity without rows.
MatrixXd nullSpace(const MatrixXd& A, int n) {
  if (A.rows() == 0) return MatrixXd::Identity(n, n);
  Eigen::JacobiSVD<MatrixXd> svd(A, Eigen::ComputeFullV);
  const auto& sv = svd.singularValues();
  const double tol = 1e-9 * std::max(1.0, sv.size() ? sv(0) : 0.0);
  int rank = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i)
    if (sv(i) > tol) ++rank;
  return svd.matrixV().rightCols(n - rank);
}

std::vector<std::pair<std::string, double>> namedDirection(const Model& model, const VectorXd& d) {
  std::vector<std::pair<std::string, double>> out;
  const double nrm = d.norm();
  if (!(nrm > 0)) return out;
  for (int i = 0; i < d.size(); ++i)
    if (std::abs(d(i)) > 1e-3 * nrm) out.emplace_back(model.coordinateNames()[static_cast<std::size_t>(i)], d(i) / nrm);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return std::abs(a.second) > std::abs(b.second); });
  return out;
}

double maxAbs(const VectorXd& v) { return v.size() ? v.cwiseAbs().maxCoeff() : 0.0; }

/// Stability from the reduced tangent stiffness -N^T dg/dq N at the final iterate, and the
/// report's message (converged: stable / unstable / neutral; not: the unbalanced direction).
void classify(const Model& model, Evaluator& ev, EquilibriumResult& res) {
  const int n = ev.n();
  const VectorXd v0 = VectorXd::Zero(n);
  MatrixXd Kt, P;
  VectorXd g, phi;
  ev.jacobian(res.state.q, v0, res.lambda, false, Kt, P);
  ev.eval(res.state.q, v0, res.lambda, g, phi);
  const MatrixXd N = nullSpace(ev.ws().A, n);
  res.freeDirections = static_cast<int>(N.cols());
  if (N.cols() > 0) {
    const MatrixXd Ks = -0.5 * (Kt + Kt.transpose());
    const MatrixXd Kr = N.transpose() * Ks * N;
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(Kr, Eigen::EigenvaluesOnly);
    const double lo = es.eigenvalues().minCoeff(), hi = es.eigenvalues().cwiseAbs().maxCoeff();
    res.minStiffness = lo;
    res.stable = lo > 1e-8 * std::max(hi, 1e-300);
  } else {
    res.stable = true;
  }
  std::ostringstream os;
  if (res.converged) {
    os << "equilibrium found in " << res.iterations << " iteration(s)"
       << (res.usedFallback ? " (with the Levenberg-Marquardt fallback)" : "") << "; "
       << (res.stable ? "stable" : (res.minStiffness < 0 ? "unstable" : "neutrally stable (a direction without stiffness)"))
       << ", smallest reduced stiffness " << res.minStiffness;
  } else {
    const VectorXd ft = N * (N.transpose() * g);
    res.direction = namedDirection(model, ft);
    os << "no static equilibrium found after " << res.iterations << " iteration(s): residual force "
       << res.residual << ", constraint residual " << res.constraintResidual;
    if (!res.direction.empty()) {
      os << "; net generalized force " << ft.norm() << " along the free direction";
      for (std::size_t i = 0; i < std::min<std::size_t>(res.direction.size(), 6); ++i)
        os << (i ? ", " : " (") << res.direction[i].first << " " << res.direction[i].second;
      os << ")";
    }
  }
  res.message = os.str();
}

}  // namespace

EquilibriumResult findEquilibrium(const Model& model, const State& start, const EquilibriumOptions& opt) {
  Evaluator ev(model, start.t);
  const int n = ev.n(), m = ev.m();
  EquilibriumResult res;
  VectorXd q = start.q, v0 = VectorXd::Zero(n), lambda = VectorXd::Zero(m), g, phi;
  model.normalizeCoordinates(q);
  ev.eval(q, v0, lambda, g, phi);
  const double fs = maxAbs(g) > 0 ? maxAbs(g) : 1.0;  // force scale of the residual
  if (m > 0) {  // least-squares multipliers of the start: A^T lambda = -Q
    lambda = ev.ws().A.transpose().completeOrthogonalDecomposition().solve(-ev.ws().Q);
    ev.eval(q, v0, lambda, g, phi);
  }
  const auto merit = [&](const VectorXd& gg, const VectorXd& pp) {
    return (gg / fs).squaredNorm() + pp.squaredNorm();
  };
  const auto done = [&](const VectorXd& gg, const VectorXd& pp, const VectorXd& qq) {
    return maxAbs(gg) <= opt.forceTolerance * fs &&
           maxAbs(pp) <= opt.positionTolerance * std::max(1.0, maxAbs(qq));
  };
  MatrixXd Kt, P, J(n + m, n + m);
  VectorXd R(n + m), gt, pt;
  double f = merit(g, phi);
  for (res.iterations = 0; res.iterations < opt.maxIterations && !done(g, phi, q); ++res.iterations) {
    ev.jacobian(q, v0, lambda, false, Kt, P);
    ev.eval(q, v0, lambda, g, phi);  // the workspace holds A at q again
    J.setZero();
    J.topLeftCorner(n, n) = Kt / fs;
    if (m > 0) {
      J.topRightCorner(n, m) = ev.ws().A.transpose();  // lambda scaled by fs
      J.bottomLeftCorner(m, n) = P;
    }
    R << g / fs, phi;
    const VectorXd step = J.completeOrthogonalDecomposition().solve(-R);
    bool accepted = false;
    for (double a = 1; a > 1e-6 && !accepted; a *= 0.5) {
      VectorXd qt = q + a * step.head(n);
      model.normalizeCoordinates(qt);
      const VectorXd lt = lambda + a * fs * step.tail(m);
      ev.eval(qt, v0, lt, gt, pt);
      const double ft = merit(gt, pt);
      if (std::isfinite(ft) && ft < (1 - 1e-4 * a) * f) {
        q = qt, lambda = lt, g = gt, phi = pt, f = ft;
        accepted = true;
      }
    }
    if (accepted) continue;
    // Levenberg–Marquardt fallback on the same linearization
    const MatrixXd JtJ = J.transpose() * J;
    const VectorXd Jtr = J.transpose() * R;
    const double scale = std::max(JtJ.diagonal().maxCoeff(), 1e-300);
    for (double mu = 1e-6 * scale; mu < 1e8 * scale && !accepted; mu *= 10) {
      MatrixXd H = JtJ;
      H.diagonal().array() += mu;
      const VectorXd d = H.ldlt().solve(-Jtr);
      VectorXd qt = q + d.head(n);
      model.normalizeCoordinates(qt);
      const VectorXd lt = lambda + fs * d.tail(m);
      ev.eval(qt, v0, lt, gt, pt);
      const double ft = merit(gt, pt);
      if (std::isfinite(ft) && ft < f) {
        q = qt, lambda = lt, g = gt, phi = pt, f = ft;
        accepted = res.usedFallback = true;
      }
    }
    if (!accepted) break;  // stalled: no descent direction left
  }
  res.converged = done(g, phi, q);
  res.state.t = start.t;
  res.state.q = q;
  res.state.v = v0;
  res.lambda = lambda;
  res.residual = maxAbs(g);
  res.constraintResidual = maxAbs(phi);
  classify(model, ev, res);
  return res;
}

std::vector<JointResult> staticJointResults(const Model& model, const State& s) {
  ModelWorkspace ws = model.makeWorkspace(true);
  model.calcMassAndForces(s, ws);
  model.calcConstraints(s, ws);
  JointMultipliers mult;
  mult.resize(model.numConstraintRows());
  if (model.numConstraintRows() > 0) {
    const VectorXd f = -ws.Q;
    minimumNormMultipliers(ws.A, f, mult.ideal, &mult.redundant);
  }
  mult.total = mult.ideal;
  mult.valid = true;
  JointResultsWorkspace jw(model);
  std::vector<JointResult> out = jw.makeResults();
  calcJointResults(model, s, mult, jw, out);
  return out;
}

ModesResult computeModes(const Model& model, const State& s, const ModesOptions& opt) {
  const int n = model.numCoordinates(), m = model.numConstraintRows();
  Evaluator ev(model, s.t);
  ModesResult out;
  // multipliers at the state: A^T lambda = M q'' - Q (static when q'' = 0)
  VectorXd lambda = VectorXd::Zero(m), g, phi;
  ev.eval(s.q, s.v, lambda, g, phi);
  const MatrixXd M = ev.ws().M;
  const MatrixXd A = ev.ws().A;
  if (m > 0) {
    ModelSystem sys(model);
    VectorXd qdd = VectorXd::Zero(n);
    const AccelerationStatus st = sys.calcAccelerations(s, qdd);
    const VectorXd rhs = st.ok() ? VectorXd(M * qdd - ev.ws().Q) : VectorXd(-ev.ws().Q);
    lambda = A.transpose().completeOrthogonalDecomposition().solve(rhs);
  }
  MatrixXd Kt, Dt, P;
  ev.jacobian(s.q, s.v, lambda, false, Kt, P);
  ev.jacobian(s.q, s.v, lambda, true, Dt, P);
  const MatrixXd N = nullSpace(A, n);
  const int f = static_cast<int>(N.cols());
  out.freeDirections = f;
  if (f == 0) return out;
  const MatrixXd Mr = N.transpose() * (0.5 * (M + M.transpose())) * N;
  const MatrixXd Kr = N.transpose() * (-0.5 * (Kt + Kt.transpose())) * N;
  const MatrixXd Dr = N.transpose() * (-0.5 * (Dt + Dt.transpose())) * N;
  // massless directions of the reduced mass, condensed statically
  Eigen::SelfAdjointEigenSolver<MatrixXd> me(Mr);
  const double mmax = std::max(me.eigenvalues().maxCoeff(), 0.0);
  std::vector<int> heavy, light;
  for (int i = 0; i < f; ++i) (me.eigenvalues()(i) > 1e-9 * mmax && mmax > 0 ? heavy : light).push_back(i);
  const int r = static_cast<int>(heavy.size()), z = static_cast<int>(light.size());
  out.masslessExcluded = z;
  MatrixXd Um(f, r), U0(f, z);
  VectorXd mu(r);
  for (int i = 0; i < r; ++i) Um.col(i) = me.eigenvectors().col(heavy[static_cast<std::size_t>(i)]), mu(i) = me.eigenvalues()(heavy[static_cast<std::size_t>(i)]);
  for (int i = 0; i < z; ++i) U0.col(i) = me.eigenvectors().col(light[static_cast<std::size_t>(i)]);
  MatrixXd T = Um;  // reduced coordinates of the massive ones (massless follow statically)
  if (z > 0) {
    const MatrixXd K00 = U0.transpose() * Kr * U0, K0m = U0.transpose() * Kr * Um;
    Eigen::FullPivLU<MatrixXd> lu(K00);
    if (lu.rank() < z)
      throw ModelError("modes: " + std::to_string(z - lu.rank()) +
                       " massless direction(s) have neither inertia nor stiffness at this state (ill posed at rest)");
    T = Um - U0 * lu.solve(K0m);
  }
  if (r == 0) return out;
  const MatrixXd Kc = T.transpose() * Kr * T, Dc = T.transpose() * Dr * T;
  const VectorXd is = mu.cwiseSqrt().cwiseInverse();
  const MatrixXd Ks = is.asDiagonal() * (0.5 * (Kc + Kc.transpose())) * is.asDiagonal();
  Eigen::SelfAdjointEigenSolver<MatrixXd> ke(Ks);
  const double wmax = ke.eigenvalues().cwiseAbs().maxCoeff();
  const int count = opt.count > 0 ? std::min(opt.count, r) : r;
  const double pi2 = 2 * std::acos(-1.0);
  for (int i = 0; i < r; ++i) {
    const double w2 = ke.eigenvalues()(i);
    const VectorXd x = is.asDiagonal() * ke.eigenvectors().col(i);  // mass-normalized
    double hz = 0, zeta = 0;
    if (std::abs(w2) <= opt.zeroTolerance * wmax + 1e-12) {
      ++out.zeroModes;
    } else if (w2 < 0) {
      ++out.unstableModes;
      hz = -std::sqrt(-w2) / pi2;
    } else {
      hz = std::sqrt(w2) / pi2;
      zeta = x.dot(Dc * x) / (2 * std::sqrt(w2));
      if (std::abs(zeta) < 1e-12) zeta = 0;  // round-off of an undamped mode
    }
    if (i >= count) continue;
    VectorXd shape = N * (T * x);
    Eigen::Index k = 0;
    if (shape.size()) shape.cwiseAbs().maxCoeff(&k);
    if (shape.size() && shape(k) != 0) shape /= shape(k);
    out.frequenciesHz.push_back(hz);
    out.dampingRatios.push_back(zeta);
    out.shapes.push_back(shape);
  }
  return out;
}

}  // namespace joinery
