// Radau IIA 5 (three-stage collocation, L-stable) with simplified Newton, an iteration matrix
// reused across steps (radau5_newton.hpp), RADAU5's error estimate and step-size control.
// Method and controller: Hairer & Wanner, Solving Ordinary Differential Equations II, 2nd ed.,
// §IV.8 and the code RADAU5.
#include "joinery/integrators/radau5.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "joinery/core/assert.hpp"
#include "joinery/core/errors.hpp"
#include "radau5_newton.hpp"
#include "step_control.hpp"

namespace joinery {

namespace detail {

const Radau5Coefficients& radau5Coefficients() {
  static const Radau5Coefficients k = [] {
    Radau5Coefficients r{};
    const double s6 = std::sqrt(6.0);
    r.c[0] = (4 - s6) / 10;
    r.c[1] = (4 + s6) / 10;
    r.c[2] = 1;
    Eigen::Matrix3d A;
    A << (88 - 7 * s6) / 360, (296 - 169 * s6) / 1800, (-2 + 3 * s6) / 225,
        (296 + 169 * s6) / 1800, (88 + 7 * s6) / 360, (-2 - 3 * s6) / 225,
        (16 - s6) / 36, (16 + s6) / 36, 1.0 / 9;
    const Eigen::Matrix3d Ainv = A.inverse();
    Eigen::EigenSolver<Eigen::Matrix3d> es(Ainv);
    int real = 0, cplx = 0;
    for (int i = 0; i < 3; ++i) {
      if (std::abs(es.eigenvalues()(i).imag()) < 1e-12) real = i;
      else if (es.eigenvalues()(i).imag() > 0) cplx = i;
    }
    r.T.col(0) = es.eigenvectors().col(real).real();
    r.T.col(1) = es.eigenvectors().col(cplx).real();
    r.T.col(2) = -es.eigenvectors().col(cplx).imag();
    r.Ti = r.T.inverse();
    const Eigen::Matrix3d L = r.Ti * Ainv * r.T;
    r.gamma = L(0, 0);
    r.alpha = L(1, 1);
    r.beta = L(2, 1);
    r.dd[0] = -(13 + 7 * s6) / 3;
    r.dd[1] = (-13 + 7 * s6) / 3;
    r.dd[2] = -1.0 / 3;
    return r;
  }();
  return k;
}

}  // namespace detail

namespace {

using detail::MatrixXc;
using detail::VectorXc;
constexpr double kRadau5Safe = 0.9, kRadau5Uround = 1e-16;
constexpr double kRadau5Quot1 = 1.0, kRadau5Quot2 = 1.2;

/// Lagrange basis on the nodes {0, c1, c2, 1} at tau, for the stage values (value 0 at 0).
void radau5Lagrange(double tau, double w[3]) {
  const auto& k = detail::radau5Coefficients();
  const double x[4] = {0, k.c[0], k.c[1], k.c[2]};
  for (int i = 1; i < 4; ++i) {
    double l = 1;
    for (int j = 0; j < 4; ++j)
      if (j != i) l *= (tau - x[j]) / (x[i] - x[j]);
    w[i - 1] = l;
  }
}

/// How a Newton iteration on the stage equations ended.
enum class NewtonOutcome {
  Converged,
  TooSlow,     ///< diverging or contracting too slowly: retry the step smaller
  StageFailed  ///< a stage could not be evaluated (ill posed, inconsistent, not finite)
};

}  // namespace

/// The method's state: step-size control, the stages, the Newton iteration and its matrix.
struct Radau5Integrator::Impl {
  Impl(Radau5Integrator& self, Radau5Options opt);
  /// The iteration matrix at the current state (the force linearization's KKT matrix, or the
  /// forward-difference Jacobian of q''); false when a perturbed state is not usable.
  bool computeJacobian();
  /// Stage values from the last step's collocation polynomial (or zero).
  void startValues(double h);
  NewtonOutcome newton(double t, double h, AccelerationStatus& failure, double& tFail);
  double errorEstimate(double t, double h, bool retry);
  /// Accepts the converged step (t -> tNew), chooses the next step and the Jacobian's reuse.
  StepResult accept(double t, double h, double err, double fac, double hnew, double tNew, bool last, double hmax);
  StepResult advance(double tLimit);
  double reuseThreshold() const { return kkt_ ? opt_.linearizedJacobianReuse : opt_.jacobianReuse; }

  Radau5Integrator& S;
  const int n_;
  Radau5Options opt_;
  double rtol_ = 0, atol_ = 0, fnewt_ = 0;
  double h_ = 0, faccon_ = 1, theta_ = 1;
  detail::GustafssonStep control_;
  bool first_ = true, lastRejected_ = false, jacFresh_ = false, haveJac_ = false, haveLu_ = false,
       haveStep_ = false, haveZ_ = false;
  double hCap_ = std::numeric_limits<double>::infinity();  // step at which Newton last failed (grows slowly)
  double newtonShrink_ = 0.5;  // step factor after a Newton failure
  int newtonCount_ = 0;        // Newton iterations of the last attempt
  // the iteration matrix: the KKT form when the system gives its force linearization, else
  // the finite differences (each made on first use)
  bool kkt_ = false;
  std::unique_ptr<detail::DifferencedMatrix> fd_;
  std::unique_ptr<detail::KktMatrix> kktMatrix_;
  detail::NewtonMatrix* matrix_ = nullptr;
  State linState_;
  MatrixXd Z_, W_, F_, dW_;  // 2n x 3
  VectorXd y0_, yt_, ft_, scal_, r1_, f2_;
  VectorXc rc_;
  MatrixXd Zlast_;  // stages of the last accepted step (dense output, start values)
  double tOld_ = 0, hLast_ = 0;
  Radau5Stats rstats_;
};

Radau5Integrator::Impl::Impl(Radau5Integrator& self, Radau5Options opt) : S(self), n_(self.n_), opt_(opt) {
  if (!opt_.fixedStep && !(opt_.rtol > 0))
    throw SimulationError("radau5: rtol must be > 0");
  if (opt_.fixedStep && !(opt_.initialStep > 0))
    throw SimulationError("radau5: a fixed step needs initialStep > 0");
  if (!(opt_.atol >= 0)) throw SimulationError("radau5: atol must be >= 0");
  // RADAU5's tolerance transformation
  const double quot = opt_.atol / std::max(opt_.rtol, 1e-300);
  rtol_ = 0.1 * std::pow(std::max(opt_.rtol, 1e-300), 2.0 / 3.0);
  atol_ = rtol_ * quot;
  // Newton stops at 3 % of the (transformed) tolerance: RADAU5's largest default, measured
  // cheapest on the stiff benchmarks (docs/performance.md) with no visible loss of accuracy
  fnewt_ = std::max(10 * kRadau5Uround / rtol_, 0.03);
  const int N = 2 * n_;
  if (!opt_.useForceLinearization) fd_ = std::make_unique<detail::DifferencedMatrix>(n_);  // else on first use (or never)
  for (MatrixXd* m : {&Z_, &W_, &F_, &dW_, &Zlast_}) *m = MatrixXd::Zero(N, 3);
  for (VectorXd* v : {&y0_, &yt_, &ft_, &scal_, &r1_, &f2_}) *v = VectorXd::Zero(N);
  rc_ = VectorXc::Zero(N);
}

bool Radau5Integrator::Impl::computeJacobian() {
  // S.y_ and S.k1_ hold the current state and its derivative
  if (opt_.useForceLinearization) {
    if (!kktMatrix_) kktMatrix_ = std::make_unique<detail::KktMatrix>(n_, opt_.sparseFrom, opt_.maxBand);
    ForceLinearization& lin = kktMatrix_->lin;
    linState_.t = S.state_.t;
    linState_.q = S.y_.head(n_);
    linState_.v = S.y_.tail(n_);
    // the sparse form (element by element, no n x n storage) where the KKT matrix is
    // factorized sparsely
    lin.wantSparse = opt_.sparseFrom > 0 && n_ + S.system_.numConstraintRows() >= opt_.sparseFrom;
    if (S.system_.calcForceLinearization(linState_, lin)) {
      S.stats_.forceEvaluations += lin.forceEvaluations;
      kkt_ = true;
      matrix_ = kktMatrix_.get();
      ++rstats_.jacobians;
      ++rstats_.linearizations;
      haveJac_ = jacFresh_ = true;
      haveLu_ = false;
      return true;
    }
  }
  kkt_ = false;
  if (!fd_) fd_ = std::make_unique<detail::DifferencedMatrix>(n_);
  matrix_ = fd_.get();
  for (int j = 0; j < 2 * n_; ++j) {
    const double yj = S.y_(j);
    const double delta = std::sqrt(kRadau5Uround * std::max(1e-5, std::abs(yj)));
    yt_ = S.y_;
    yt_(j) = yj + delta;
    const AccelerationStatus st = S.evaluate(S.state_.t, yt_, ft_);
    ++S.stats_.jacobianEvaluations;
    if (!st.ok()) return false;
    auto col = (ft_.tail(n_) - S.k1_.tail(n_)) / delta;
    if (j < n_) fd_->Jq.col(j) = col;
    else fd_->Jv.col(j - n_) = col;
  }
  ++rstats_.jacobians;
  haveJac_ = jacFresh_ = true;
  haveLu_ = false;
  return true;
}

void Radau5Integrator::Impl::startValues(double h) {
  const auto& k = detail::radau5Coefficients();
  if (!haveZ_ || first_) {
    Z_.setZero();
    W_.setZero();
    return;
  }
  // the last step's collocation polynomial, extrapolated, relative to its end value
  for (int i = 0; i < 3; ++i) {
    double w[3];
    radau5Lagrange(1 + k.c[i] * h / hLast_, w);
    Z_.col(i) = w[0] * Zlast_.col(0) + w[1] * Zlast_.col(1) + (w[2] - 1) * Zlast_.col(2);
  }
  W_.noalias() = Z_ * k.Ti.transpose();
}

NewtonOutcome Radau5Integrator::Impl::newton(double t, double h, AccelerationStatus& failure, double& tFail) {
  const auto& k = detail::radau5Coefficients();
  const double N = static_cast<double>(2 * n_);
  faccon_ = std::pow(std::max(faccon_, kRadau5Uround), 0.8);
  // a step that converges in one iteration keeps the matrix (theta at the threshold)
  theta_ = std::abs(reuseThreshold());
  double dynold = 1, thqold = 1;
  newtonShrink_ = 0.5;
  for (int newt = 0;; ++newt) {
    newtonCount_ = newt + 1;
    if (newt >= opt_.maxNewton) return NewtonOutcome::TooSlow;
    for (int i = 0; i < 3; ++i) {
      yt_ = S.y_ + Z_.col(i);
      const AccelerationStatus st = S.evaluate(t + k.c[i] * h, yt_, ft_);
      if (!st.ok()) {
        failure = st;
        tFail = t + k.c[i] * h;
        return NewtonOutcome::StageFailed;
      }
      F_.col(i) = ft_;
    }
    ++rstats_.newtonIterations;
    // transformed right-hand sides: T^-1 F - Lambda W / h
    dW_.noalias() = F_ * k.Ti.transpose();
    r1_ = dW_.col(0) - (k.gamma / h) * W_.col(0);
    rc_.real() = dW_.col(1) - (k.alpha * W_.col(1) - k.beta * W_.col(2)) / h;
    rc_.imag() = dW_.col(2) - (k.beta * W_.col(1) + k.alpha * W_.col(2)) / h;
    matrix_->solveReal(r1_);
    matrix_->solveComplex(rc_);
    dW_.col(0) = r1_;
    dW_.col(1) = rc_.real();
    dW_.col(2) = rc_.imag();
    double dyno = 0;
    for (int i = 0; i < 3; ++i) dyno += (dW_.col(i).array() / scal_.array()).square().sum();
    dyno = std::sqrt(dyno / (3 * N));
    if (!std::isfinite(dyno)) return NewtonOutcome::TooSlow;
    if (newt >= 1) {
      const double thq = dyno / dynold;
      theta_ = newt == 1 ? thq : std::sqrt(thq * thqold);
      thqold = thq;
      if (theta_ >= 0.99) return NewtonOutcome::TooSlow;
      faccon_ = theta_ / (1 - theta_);
      const double dyth =
          faccon_ * dyno * std::pow(theta_, opt_.maxNewton - 2 - newt) / fnewt_;
      if (dyth >= 1) {
        // RADAU5: retry with the step the predicted convergence allows
        newtonShrink_ = 0.8 * std::pow(std::clamp(dyth, 1e-4, 20.0), -1.0 / (4.0 + opt_.maxNewton - 2 - newt));
        return NewtonOutcome::TooSlow;
      }
    }
    dynold = std::max(dyno, kRadau5Uround);
    W_ += dW_;
    Z_.noalias() = W_ * k.T.transpose();
    if (faccon_ * dyno <= fnewt_) return NewtonOutcome::Converged;
  }
}

double Radau5Integrator::Impl::errorEstimate(double t, double h, bool retry) {
  const auto& k = detail::radau5Coefficients();
  const double N = static_cast<double>(2 * n_);
  f2_ = (k.dd[0] * Z_.col(0) + k.dd[1] * Z_.col(1) + k.dd[2] * Z_.col(2)) / h;
  r1_ = S.k1_ + f2_;
  matrix_->solveReal(r1_);
  double err = std::sqrt((r1_.array() / scal_.array()).square().sum() / N);
  if (err >= 1 && retry) {
    yt_ = S.y_ + r1_;
    const AccelerationStatus st = S.evaluate(t, yt_, ft_);
    if (st.ok()) {
      r1_ = ft_ + f2_;
      matrix_->solveReal(r1_);
      err = std::sqrt((r1_.array() / scal_.array()).square().sum() / N);
    }
  }
  return std::max(err, 1e-10);
}

StepResult Radau5Integrator::Impl::accept(double t, double h, double err, double fac, double hnew, double tNew,
                                          bool last, double hmax) {
  hnew = control_.accepted(h, err, fac, hnew, first_ || opt_.fixedStep);
  first_ = false;
  // accept
  y0_ = S.y_;
  tOld_ = t;
  hLast_ = h;
  Zlast_ = Z_;
  haveZ_ = haveStep_ = true;
  S.y_ += Z_.col(2);
  S.storeY(tNew);
  S.noteStep(h);
  S.haveDerivative_ = false;
  jacFresh_ = false;
  if (lastRejected_) hnew = std::min(hnew, h);
  lastRejected_ = false;
  const double reuse = reuseThreshold();
  if (!opt_.fixedStep && !(last && h < h_)) {
    if (theta_ < 0.3) hCap_ *= 1.2;
    hnew = std::min(hnew, hCap_);
    const double qt = hnew / h;
    if (theta_ <= reuse && qt >= kRadau5Quot1 && qt <= kRadau5Quot2) hnew = h;
    h_ = std::min(hnew, hmax);
  }
  // a fresh Jacobian at the new state when Newton contracted slowly
  if (theta_ > reuse) haveJac_ = false;
  StepResult r;
  r.tOld = t;
  r.ok = true;
  r.tNew = S.state_.t;
  return r;
}

// long: one step in the order of the method (Jacobian, Newton iteration, error estimate,
// acceptance, step-size control), each commented.
StepResult Radau5Integrator::Impl::advance(double tLimit) {
  StepResult r;
  r.tOld = S.state_.t;
  const AccelerationStatus st0 = S.ensureDerivative();
  if (!st0.finite) S.failNonFinite(S.state_.t, st0, "at an accepted state");
  if (!st0.ok()) {
    r.ok = false;
    r.status = st0;
    r.t = r.tNew = S.state_.t;
    return r;
  }
  S.loadY();
  const double hmax = opt_.maxStep > 0 ? opt_.maxStep : std::numeric_limits<double>::infinity();
  if (opt_.fixedStep) h_ = opt_.initialStep;
  else if (!(h_ > 0)) h_ = opt_.initialStep > 0 ? opt_.initialStep : 1e-6 * std::max(1.0, tLimit - S.state_.t);
  if (!haveJac_ && !computeJacobian()) {
    r.ok = false;
    r.status = S.currentStatus_;
    r.status.posedness = Posedness::IllPosed;
    r.status.message = "radau5: the Jacobian could not be evaluated next to the state";
    r.t = r.tNew = S.state_.t;
    return r;
  }
  detail::TrialFailure lastFailure;
  lastFailure.t = S.state_.t;
  for (;;) {
    const double t = S.state_.t;
    const double hmin = detail::StepSizeRule::minStep(opt_.minStep, t);
    if (!opt_.fixedStep && h_ < hmin)
      return detail::stepSizeCollapse("radau5", t, h_, hmin, lastFailure, t,
                                      "Newton does not converge or the error cannot be met");
    const detail::TrialStep trial = detail::StepSizeRule::towards(t, std::min(h_, hmax), tLimit);
    const double h = trial.h;
    const bool last = trial.last;
    scal_ = (atol_ + rtol_ * S.y_.cwiseAbs().array()).matrix();
    if (!haveLu_ || h != matrix_->step()) {
      matrix_->factorize(h, rstats_);
      haveLu_ = true;
    }
    startValues(h);
    AccelerationStatus failure;
    double tFail = t;
    const NewtonOutcome nr = newton(t, h, failure, tFail);
    if (nr != NewtonOutcome::Converged) {
      const bool stageFailed = nr == NewtonOutcome::StageFailed;
      if (opt_.fixedStep && stageFailed) {
        if (!failure.finite) S.failNonFinite(tFail, failure, "fixed-step radau5 stage");
        r.ok = false;
        r.status = failure;
        r.t = tFail;
        r.tNew = S.state_.t;
        return r;
      }
      ++S.stats_.rejected;
      ++rstats_.newtonFailures;
      if (stageFailed) lastFailure = {true, failure, tFail};
      h_ = h * (stageFailed ? detail::StepSizeRule::kFailShrink : newtonShrink_);
      // Newton, not the error, limits the step here: probe larger steps only slowly
      if (!stageFailed) hCap_ = h_;
      lastRejected_ = true;
      if (!jacFresh_) {
        if (!computeJacobian()) h_ = h * detail::StepSizeRule::kFailShrink;
      }
      if (opt_.fixedStep) throw SimulationError("radau5: Newton did not converge at a fixed step");
      continue;
    }
    const double err = opt_.fixedStep ? 0.0 : errorEstimate(t + h, h, first_ || lastRejected_);
    // RADAU5's safety factor: smaller when Newton needed many iterations
    const double nit = opt_.maxNewton;
    const double fac = std::min(kRadau5Safe, kRadau5Safe * (2 * nit + 1) / (newtonCount_ + 2 * nit));
    const double hnew = detail::GustafssonStep::proposal(h, err, fac);
    if (err < 1 || opt_.fixedStep) return accept(t, h, err, fac, hnew, last ? tLimit : t + h, last, hmax);
    ++S.stats_.rejected;
    ++rstats_.errorRejections;
    lastRejected_ = true;
    h_ = first_ ? h * 0.1 : hnew;
    if (!jacFresh_ && !computeJacobian()) h_ = h * detail::StepSizeRule::kFailShrink;
  }
}

Radau5Integrator::Radau5Integrator(DynamicSystem& system, Radau5Options opt, Baumgarte stab)
    : Integrator(system, stab), impl_(std::make_unique<Impl>(*this, opt)) {}

Radau5Integrator::~Radau5Integrator() = default;

StepResult Radau5Integrator::advance(double tLimit) { return impl_->advance(tLimit); }

void Radau5Integrator::forgetHistory() noexcept { impl_->haveZ_ = impl_->haveJac_ = impl_->haveLu_ = false; }

const Radau5Stats& Radau5Integrator::radauStats() const noexcept { return impl_->rstats_; }

void Radau5Integrator::interpolate(double t, State& out) {
  Impl& m = *impl_;
  if (!m.haveStep_) throw SimulationError("radau5: no step to interpolate in");
  const double tau = std::clamp((t - m.tOld_) / m.hLast_, 0.0, 1.0);
  double w[3];
  radau5Lagrange(tau, w);
  m.yt_ = m.y0_ + w[0] * m.Zlast_.col(0) + w[1] * m.Zlast_.col(1) + w[2] * m.Zlast_.col(2);
  out.t = t;
  out.q = m.yt_.head(n_);
  out.v = m.yt_.tail(n_);
}

}  // namespace joinery
