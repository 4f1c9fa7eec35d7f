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
       << (res.escapedUnstable ? " (Newton reached an unstable equilibrium; dynamic relaxation left it)"
           : res.relaxed       ? " (with the dynamic-relaxation fallback)"
           : res.usedLm        ? " (with the Levenberg-Marquardt fallback)"
                               : "")
       << "; "
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

namespace {

/// The iterate of the equilibrium search: positions, multipliers, and the residuals there.
struct Iterate {
  VectorXd q, lambda, g, phi;
  double f = 0;  // merit: |g / F|^2 + |phi|^2
};

/// Newton's method, line search and Levenberg–Marquardt, and the dynamic-relaxation fallback
/// on the scaled KKT system [dg/dq / F, A^T; dphi/dq, 0] (multipliers scaled by F).
class EquilibriumSearch {
 public:
  EquilibriumSearch(const Model& model, Evaluator& ev, const EquilibriumOptions& opt, double fs)
      : model_(model), ev_(ev), opt_(opt), fs_(fs), n_(ev.n()), m_(ev.m()), v0_(VectorXd::Zero(ev.n())) {}

  double merit(const VectorXd& g, const VectorXd& phi) const { return (g / fs_).squaredNorm() + phi.squaredNorm(); }
  bool done(const Iterate& x) const {
    return maxAbs(x.g) <= opt_.forceTolerance * fs_ &&
           maxAbs(x.phi) <= opt_.positionTolerance * std::max(1.0, maxAbs(x.q));
  }
  void evaluate(Iterate& x) {
    ev_.eval(x.q, v0_, x.lambda, x.g, x.phi);
    x.f = merit(x.g, x.phi);
  }

  /// Newton with a backtracking line search, Levenberg–Marquardt steps when the line search
  /// finds no descent; stops at convergence, at the iteration budget or when stalled.
  bool newton(Iterate& x, int& iterations, bool& usedLm) {
    for (; iterations < opt_.maxIterations && !done(x); ++iterations) {
      linearize(x);
      const VectorXd step = J_.completeOrthogonalDecomposition().solve(-R_);
      bool accepted = false;
      for (double a = 1; a > 1e-6 && !accepted; a *= 0.5) accepted = tryStep(x, a * step);
      if (accepted) continue;
      // Levenberg–Marquardt on the same linearization
      const MatrixXd JtJ = J_.transpose() * J_;
      const VectorXd Jtr = J_.transpose() * R_;
      const double scale = std::max(JtJ.diagonal().maxCoeff(), 1e-300);
      for (double mu = 1e-6 * scale; mu < 1e8 * scale && !accepted; mu *= 10) {
        MatrixXd H = JtJ;
        H.diagonal().array() += mu;
        accepted = tryStep(x, H.ldlt().solve(-Jtr));
        usedLm = usedLm || accepted;
      }
      if (!accepted) break;  // stalled: no descent direction left
    }
    return done(x);
  }

  /// Dynamic relaxation: implicit-Euler steps of the overdamped motion c q' = Q + A^T lambda
  /// on the constraints (pseudo-transient continuation), the pseudo time step tau growing as
  /// the residual falls (switched evolution relaxation). For small tau the step follows the
  /// force, downhill; for large tau it is Newton's step. Gives up after the budget.
  bool relax(Iterate& x, int& iterations, double tau0 = 0) {
    double tau = tau0 > 0 ? tau0 : opt_.relaxationInitialStep;
    double fPrev = x.f;
    for (int k = 0; k < opt_.relaxationIterations && !done(x); ++k, ++iterations) {
      linearize(x);
      MatrixXd H = J_;
      H.topLeftCorner(n_, n_).diagonal().array() -= 1.0 / tau;  // (c / tau) I - K, c = F / length
      const VectorXd step = H.completeOrthogonalDecomposition().solve(-R_);
      Iterate t = x;
      const double longest = opt_.relaxationMaxStep * std::max(1.0, maxAbs(x.q));
      if (!tryStepInto(x, step, t) || maxAbs(step.head(n_)) > longest) {
        tau *= 0.25;  // too long a pseudo step (or a non-finite state): shorten
        if (tau < 1e-14) return false;
        continue;
      }
      x = std::move(t);
      // switched evolution relaxation: tau grows as the residual falls (and is kept while it
      // rises: leaving an unstable region needs tau below 1 / its negative stiffness)
      tau = std::min(tau * std::clamp(std::sqrt(fPrev / std::max(x.f, 1e-300)), 1.0, 4.0), 1e12);
      fPrev = x.f;
      if (tau >= 1e6 && x.f < 1e-8) return true;  // Newton's regime: finish with Newton
    }
    return done(x);
  }

  /// Leaves an unstable equilibrium along the free direction of most negative stiffness
  /// (either sign: both sides descend). Returns the pseudo time step that doubles the
  /// excursion per relaxation step, 1 / (2 kappa) with kappa = |that stiffness| / F.
  double perturbAlongUnstable(Iterate& x, double amplitude) {
    MatrixXd Kt, P;
    ev_.jacobian(x.q, v0_, x.lambda, false, Kt, P);
    evaluate(x);
    const MatrixXd N = nullSpace(ev_.ws().A, n_);
    if (N.cols() == 0) return 0;
    const MatrixXd Kr = N.transpose() * (-0.5 * (Kt + Kt.transpose())) * N;
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(Kr);
    const VectorXd d = N * es.eigenvectors().col(0);
    x.q += amplitude * d;
    model_.normalizeCoordinates(x.q);
    evaluate(x);
    const double kappa = std::abs(es.eigenvalues()(0)) / fs_;
    return kappa > 0 ? 0.5 / kappa : 0;
  }

 private:
  void linearize(const Iterate& x) {
    MatrixXd Kt, P;
    ev_.jacobian(x.q, v0_, x.lambda, false, Kt, P);
    ev_.eval(x.q, v0_, x.lambda, g_, phi_);  // the workspace holds A at q again
    J_.setZero(n_ + m_, n_ + m_);
    J_.topLeftCorner(n_, n_) = Kt / fs_;
    if (m_ > 0) {
      J_.topRightCorner(n_, m_) = ev_.ws().A.transpose();  // lambda scaled by F
      J_.bottomLeftCorner(m_, n_) = P;
    }
    R_.resize(n_ + m_);
    R_ << x.g / fs_, x.phi;
  }
  bool tryStepInto(const Iterate& x, const VectorXd& step, Iterate& t) {
    t.q = x.q + step.head(n_);
    model_.normalizeCoordinates(t.q);
    t.lambda = x.lambda + fs_ * step.tail(m_);
    evaluate(t);
    return std::isfinite(t.f);
  }
  /// Accepts the step when it lowers the merit (Armijo-like for the line search).
  bool tryStep(Iterate& x, const VectorXd& step) {
    Iterate t;
    if (tryStepInto(x, step, t) && t.f < (1 - 1e-4) * x.f) {
      x = std::move(t);
      return true;
    }
    return false;
  }

  const Model& model_;
  Evaluator& ev_;
  const EquilibriumOptions& opt_;
  double fs_;
  int n_, m_;
  VectorXd v0_, g_, phi_, R_;
  MatrixXd J_;
};

}  // namespace

EquilibriumResult findEquilibrium(const Model& model, const State& start, const EquilibriumOptions& opt) {
  Evaluator ev(model, start.t);
  const int n = ev.n(), m = ev.m();
  EquilibriumResult res;
  Iterate x;
  x.q = start.q;
  x.lambda = VectorXd::Zero(m);
  model.normalizeCoordinates(x.q);
  const VectorXd v0 = VectorXd::Zero(n);
  ev.eval(x.q, v0, x.lambda, x.g, x.phi);
  const double fs = maxAbs(x.g) > 0 ? maxAbs(x.g) : 1.0;  // force scale of the residual
  if (m > 0) {  // least-squares multipliers of the start: A^T lambda = -Q
    x.lambda = ev.ws().A.transpose().completeOrthogonalDecomposition().solve(-ev.ws().Q);
  }
  EquilibriumSearch search(model, ev, opt, fs);
  search.evaluate(x);
  const Iterate x0 = x;
  const bool startsAtRest = search.done(x0);
  bool usedLm = false;
  bool converged = search.newton(x, res.iterations, usedLm);
  res.usedFallback = usedLm;
  res.state.t = start.t;
  res.state.v = v0;
  const auto finish = [&](const Iterate& y) {
    res.converged = search.done(y);
    res.state.q = y.q;
    res.lambda = y.lambda;
    res.residual = maxAbs(y.g);
    res.constraintResidual = maxAbs(y.phi);
    classify(model, ev, res);
  };
  if (opt.fallback) {
    if (!converged) {
      // Newton and Levenberg–Marquardt stalled: dynamic relaxation from the start, then Newton
      Iterate y = x0;
      int it = res.iterations;
      bool lm2 = false;
      if (search.relax(y, it) || y.f < x.f) {
        const bool ok = search.newton(y, it, lm2);
        if (ok || y.f < x.f) {
          x = std::move(y);
          converged = ok;
          res.relaxed = true;
          res.usedFallback = true;
          res.usedLm = usedLm || lm2;
          res.iterations = it;
        }
      }
    }
    if (converged && !startsAtRest && opt.seekStable) {
      finish(x);
      if (!res.stable && res.minStiffness < 0) {
        // Newton went to an unstable equilibrium that a released body would leave: relax
        // from it, pushed along its unstable direction, to a stable one
        Iterate y = x;
        const double amp = opt.escapeAmplitude * std::max(1.0, maxAbs(y.q));
        const double tau0 = search.perturbAlongUnstable(y, amp);
        int it = res.iterations;
        bool lm2 = false;
        search.relax(y, it, tau0);
        if (search.newton(y, it, lm2)) {
          Iterate keep = x;
          x = std::move(y);
          finish(x);
          if (res.stable) {
            res.relaxed = res.escapedUnstable = res.usedFallback = true;
            res.usedLm = res.usedLm || usedLm || lm2;
            res.iterations = it;
            return res;
          }
          x = std::move(keep);  // no better: report the unstable one
        }
      }
    }
  }
  if (!res.relaxed) res.usedLm = usedLm;
  finish(x);
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
