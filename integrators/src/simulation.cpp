// The simulation loop: initial conditions, integration, drift control, sampling, outcome.
#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/integrators/events.hpp"
#include "joinery/integrators/radau5.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <sstream>

namespace joinery {

// ---- names --------------------------------------------------------------

const char* toString(RunOutcome o) noexcept {
  switch (o) {
    case RunOutcome::Completed: return "completed";
    case RunOutcome::InvalidInitialConditions: return "invalid_initial_conditions";
    case RunOutcome::IllPosed: return "ill_posed";
    case RunOutcome::Inconsistent: return "inconsistent";
    case RunOutcome::Failed: return "failed";
    case RunOutcome::Stopped: return "stopped";
  }
  return "unknown";
}

SimulationFailure::SimulationFailure(RunOutcome outcome, double t, const std::string& message)
    : SimulationError(message), outcome_(outcome), t_(t) {}

void SimulationResult::throwIfFailed() const {
  if (!completed()) throw SimulationFailure(outcome, t, message);
}

// ---- helpers ----------------------------------------------------------------------------

namespace {

std::string num(double v) { return formatNumber(v, 6); }

std::string rowName(const DynamicSystem& system, int row) {
  const auto& names = system.constraintRowNames();
  if (row >= 0 && row < static_cast<int>(names.size()))
    return "'" + names[static_cast<std::size_t>(row)] + "'";
  return "row " + std::to_string(row);
}

[[noreturn]] void badSetting(const std::string& key, const std::string& message) {
  throw InputError(message, "", "/simulation/" + key);
}

bool finiteState(const State& s) {
  return std::isfinite(s.t) && s.q.allFinite() && s.v.allFinite();
}

RunOutcome outcomeOf(const AccelerationStatus& st) {
  if (!st.finite) return RunOutcome::Failed;
  switch (st.posedness) {
    case Posedness::IllPosed: return RunOutcome::IllPosed;
    case Posedness::Inconsistent: return RunOutcome::Inconsistent;
    case Posedness::WellPosed: break;
  }
  return RunOutcome::Completed;
}

std::string describeStop(const AccelerationStatus& st, double t) {
  std::ostringstream os;
  os << "run stopped at t = " << t << ": ";
  if (!st.message.empty()) {
    os << st.message;
  } else if (!st.finite) {
    os << "non-finite accelerations";
  } else if (st.posedness == Posedness::IllPosed) {
    os << "the accelerations are not unique (ill posed)";
  } else {
    os << "the constraints contradict each other (inconsistent)";
  }
  return os.str();
}

}  // namespace

// ---- initial conditions -------------------------------------------------------------------

/// The interrupt flag of `options` is set (a SIGTERM/SIGINT arrived).
bool interrupted(const RunOptions& options) { return options.interrupt && *options.interrupt != 0; }

InitialConditionReport makeConsistent(DynamicSystem& system, State& s, const RunOptions& options,
                                      RunOutcome& outcome) {
  InitialConditionReport rep;
  outcome = RunOutcome::Completed;
  rep.before = system.calcConstraintResiduals(s);
  rep.after = rep.before;
  const double tol = options.consistencyTolerance;
  const auto tolP = [&](const State& x) { return tol * std::max(1.0, x.q.cwiseAbs().maxCoeff()); };
  const auto tolV = [&](const State& x) { return tol * std::max(1.0, x.v.cwiseAbs().maxCoeff()); };
  if (system.numConstraintRows() == 0) {
    const VectorXd q0 = s.q;
    system.normalizeCoordinates(s.q);
    rep.positionCorrection = s.q.size() ? (s.q - q0).cwiseAbs().maxCoeff() : 0.0;
    rep.projected = rep.positionCorrection > 0;
    return rep;
  }

  if (options.initialConditions == InitialConditionMode::Strict) {
    std::ostringstream os;
    if (!(rep.before.position <= tolP(s))) {
      outcome = RunOutcome::InvalidInitialConditions;
      os << "initial positions violate constraint " << rowName(system, rep.before.positionRow)
         << ": |phi| = " << num(rep.before.position) << " > tolerance " << num(tolP(s));
    } else if (!(rep.before.velocity <= tolV(s))) {
      outcome = RunOutcome::InvalidInitialConditions;
      os << "initial velocities violate constraint " << rowName(system, rep.before.velocityRow)
         << " at velocity level: residual " << num(rep.before.velocity) << " > tolerance "
         << num(tolV(s));
    }
    if (outcome != RunOutcome::Completed) {
      os << " (strict initial conditions: correct the initial state, or let joinery project it)";
      rep.message = os.str();
    }
    return rep;
  }

  const VectorXd q0 = s.q;
  const VectorXd v0 = s.v;
  system.normalizeCoordinates(s.q);
  ProjectionOptions projection = options.initialProjection;
  projection.interrupt = options.interrupt;
  const ProjectionReport pp = system.projectPositions(s, projection);
  const ProjectionReport pv = interrupted(options) ? ProjectionReport{} : system.projectVelocities(s, projection);
  if (pp.interrupted || pv.interrupted || interrupted(options)) {
    outcome = RunOutcome::Stopped;
    rep.message = "interrupted during the initial projection, before the first step";
    return rep;
  }
  rep.after = system.calcConstraintResiduals(s);
  rep.positionCorrection = s.q.size() ? (s.q - q0).cwiseAbs().maxCoeff() : 0.0;
  rep.velocityCorrection = s.v.size() ? (s.v - v0).cwiseAbs().maxCoeff() : 0.0;
  rep.projected = rep.positionCorrection > 0 || rep.velocityCorrection > 0;
  std::ostringstream os;
  if (!(rep.after.position <= tolP(s))) {
    outcome = RunOutcome::Inconsistent;
    os << "the initial conditions cannot be made consistent: after " << pp.iterations
       << " projection iterations constraint " << rowName(system, rep.after.positionRow)
       << " still has |phi| = " << num(rep.after.position) << " (tolerance " << num(tolP(s))
       << "); the constraints may contradict each other, or the initial positions are too far "
          "from a configuration that satisfies them";
  } else if (!(rep.after.velocity <= tolV(s))) {
    outcome = RunOutcome::Inconsistent;
    os << "the initial velocities cannot be made consistent: after " << pv.iterations
       << " projection iterations constraint " << rowName(system, rep.after.velocityRow)
       << " still has a velocity residual " << num(rep.after.velocity) << " (tolerance "
       << num(tolV(s)) << ")";
  } else if (rep.projected) {
    os << "initial conditions projected onto the constraints: max |dq| = "
       << num(rep.positionCorrection) << ", max |dv| = " << num(rep.velocityCorrection)
       << " (residuals before: position " << num(rep.before.position);
    if (rep.before.positionRow >= 0) os << " at " << rowName(system, rep.before.positionRow);
    os << ", velocity " << num(rep.before.velocity);
    if (rep.before.velocityRow >= 0) os << " at " << rowName(system, rep.before.velocityRow);
    os << ")";
  }
  rep.message = os.str();
  return rep;
}

// ---- the run --------------------------------------------------------------------------------

SimulationResult runSimulation(DynamicSystem& system, const SimulationSettings& settings,
                               Recorder& recorder, const ProgressCallback& progress,
                               const RunOptions& options) {
  return runSimulation(system, system.initialState(), settings, recorder, progress, options);
}

namespace {

/// The largest step of an adaptive method: the scene's `max_step` and the program's option,
/// the smaller of those given (0: no limit).
double largestStep(const SimulationSettings& settings, const RunOptions& options) {
  if (settings.maxStep > 0 && options.maxStep > 0) return std::min(settings.maxStep, options.maxStep);
  return settings.maxStep > 0 ? settings.maxStep : options.maxStep;
}

/// The integrator of `settings` (a new IntegratorKind is constructed here).
std::unique_ptr<Integrator> makeIntegrator(DynamicSystem& system, const SimulationSettings& settings,
                                           const RunOptions& options, const Baumgarte& bg) {
  switch (settings.integrator) {
    case IntegratorKind::Rk4: return std::make_unique<Rk4Integrator>(system, settings.step, bg);
    case IntegratorKind::Dopri5: {
      Dopri5Options o;
      o.rtol = settings.rtol;
      o.atol = settings.atol;
      o.initialStep = options.initialStep > 0 ? options.initialStep : settings.step;
      o.minStep = options.minStep;
      o.maxStep = largestStep(settings, options);
      return std::make_unique<Dopri5Integrator>(system, o, bg);
    }
    case IntegratorKind::Rkm: {  // Kutta–Merson 4(5): dopri5's settings
      RkmOptions o;
      o.rtol = settings.rtol;
      o.atol = settings.atol;
      o.initialStep = options.initialStep > 0 ? options.initialStep : settings.step;
      o.minStep = options.minStep;
      o.maxStep = largestStep(settings, options);
      return std::make_unique<RkmIntegrator>(system, o, bg);
    }
    case IntegratorKind::Radau5: {  // the implicit method
      Radau5Options o;
      o.rtol = settings.rtol;
      o.atol = settings.atol;
      o.initialStep = options.initialStep > 0 ? options.initialStep : settings.step;
      o.minStep = options.minStep;
      o.maxStep = largestStep(settings, options);
      o.useForceLinearization = options.forceLinearization;
      if (options.jacobianReuse > 0) o.jacobianReuse = o.linearizedJacobianReuse = options.jacobianReuse;
      if (options.radauSparseFrom >= 0) o.sparseFrom = options.radauSparseFrom;
      return std::make_unique<Radau5Integrator>(system, o, bg);
    }
  }
  throw SimulationError("unknown integrator kind");
}

/// One run of runSimulation, in named steps: settings, initial conditions, the step loop
/// with sampling and drift control, and the way it ends.
class Run {
 public:
  Run(DynamicSystem& system, const SimulationSettings& settings, Recorder& recorder,
      const ProgressCallback& progress, const RunOptions& options)
      : system_(system), settings_(settings), recorder_(recorder), progress_(progress), options_(options),
        wall0_(Clock::now()) {}

  SimulationResult run(const State& initial);
  /// One-sided rows: the event functions watched after every step (events.hpp).
  void setEvents(OneSidedEvents* events) { events_ = events; }

 private:
  using Clock = std::chrono::steady_clock;

  void checkSettings(const State& initial) const;
  /// Ends the run with outcome `o` (closes the recorder; a failure to close fails a completed run).
  SimulationResult& finish(RunOutcome o, std::string message);
  /// Writes a sample (energy and residuals with it); throws SimulationError for non-finite values.
  void record(const State& x);
  /// Drift control of `x` (stabilization `projection`); `count`: an integration state, not a
  /// sample copy. True when x changed.
  bool drift(State& x, bool count);
  void reportProgress(double t);
  /// The time of output sample i (the last one exactly t_end).
  double outputTime(long long i) const {
    const double ti = t0_ + static_cast<double>(i) * settings_.outputInterval;
    return ti >= settings_.tEnd - 1e-9 * settings_.outputInterval ? settings_.tEnd : ti;
  }
  /// The step loop from the consistent initial state `s`; returns the finished result.
  SimulationResult& integrate(const State& s);
  /// Samples strictly inside the last step, from the integrator's dense output.
  void recordInside(double tNew, State& sample);
  /// Normalization and drift control of the accepted state, then its sample when due.
  void acceptStep(State& cur);
  /// The run's state is `cur` (an accepted step, or just past an event): its sample when due.
  void settleAt(const State& cur);
  /// After the step from `before`: an event located inside it ends the step there (samples
  /// before it written, the event resolved, the integrator restarted). True when one was.
  bool handleEvent(const State& before, State& cur, State& sample);
  /// Stops the run where the integrator is.
  SimulationResult& stopAtIntegrator(RunOutcome o, double t, std::string message);
  /// After an accepted step: why the run must stop although it is well (a work bound), or
  /// nothing.
  std::optional<std::string> runaway() const;
  /// The projected-work rule of runaway(): from this many accepted steps on, a run that would
  /// pass the step limit even with steps kRunawayStepGrowth times its largest so far stops.
  static constexpr long long kRunawayMinSteps = 1000;
  static constexpr double kRunawayStepGrowth = 1000;

  DynamicSystem& system_;
  const SimulationSettings& settings_;
  Recorder& recorder_;
  const ProgressCallback& progress_;
  const RunOptions& options_;
  Clock::time_point wall0_;
  SimulationResult res_;
  bool recorderOpen_ = false;
  double t0_ = 0;
  Baumgarte bg_;
  std::unique_ptr<Integrator> integ_;
  long long outIndex_ = 1;
  bool outputsDone_ = false;
  std::optional<double> stopAt_;  // set when the recorder asks to stop after a sample
  double lastProgress_ = -1;
  OneSidedEvents* events_ = nullptr;
  std::unique_ptr<EventLocator> locator_;
  double lastEventT_ = -1;
  long long eventsAtOneTime_ = 0;
  std::optional<State> failedAt_;  // the event state where the run failed (handleEvent)
};

void Run::checkSettings(const State& initial) const {
  validateSimulationSettings(settings_);
  const double tEnd = settings_.tEnd;
  if (!std::isfinite(tEnd) || !(tEnd >= initial.t))
    badSetting("t_end", "t_end = " + num(tEnd) + " must be finite and not before the initial time " + num(initial.t));
  // bounded work: a run whose samples or fixed steps would not fit the limits is refused
  // before it starts (an output_interval of 5e-324 would otherwise never end)
  const double t0 = initial.t, dt = settings_.outputInterval, span = tEnd - t0;
  if (span / dt > static_cast<double>(options_.maxSamples))
    badSetting("output_interval", "output_interval = " + num(dt) + " gives " + num(span / dt) + " samples over [" +
                                      num(t0) + ", " + num(tEnd) + "]; the limit is " +
                                      std::to_string(options_.maxSamples) + " (--max-samples, RunOptions::maxSamples)");
  if (settings_.integrator == IntegratorKind::Rk4 && span / settings_.step > static_cast<double>(options_.maxFixedSteps))
    badSetting("step", "step = " + num(settings_.step) + " gives " + num(span / settings_.step) + " steps over [" +
                           num(t0) + ", " + num(tEnd) + "]; the limit is " + std::to_string(options_.maxFixedSteps) +
                           " (--max-steps, RunOptions::maxFixedSteps)");
  const int n = system_.numCoordinates();
  if (initial.q.size() != n || initial.v.size() != n)
    throw SimulationError("initial state has " + std::to_string(initial.q.size()) + " coordinates and " +
                          std::to_string(initial.v.size()) + " velocities; the system has " + std::to_string(n));
}

SimulationResult& Run::finish(RunOutcome o, std::string message) {
  res_.outcome = o;
  res_.message = std::move(message);
  res_.stats.wallSeconds = std::chrono::duration<double>(Clock::now() - wall0_).count();
  if (recorderOpen_) {
    try {
      recorder_.end(res_);
    } catch (const std::exception& e) {
      if (res_.outcome == RunOutcome::Completed || res_.outcome == RunOutcome::Stopped) {
        res_.outcome = RunOutcome::Failed;
        res_.message = std::string("closing the output failed: ") + e.what();
      }
    }
  }
  if (res_.outcome != RunOutcome::Completed)
    spdlog::debug("simulation ended ({}) at t = {}: {}", toString(res_.outcome), res_.t, res_.message);
  return res_;
}

void Run::record(const State& x) {
  if (!finiteState(x)) {
    std::ostringstream os;
    os << "non-finite state at t = " << x.t << " (not written)";
    throw SimulationError(os.str());
  }
  std::optional<double> e = system_.calcEnergy(x);
  if (e && !std::isfinite(*e)) e.reset();
  ConstraintResiduals r = system_.calcConstraintResiduals(x);
  if (!std::isfinite(r.position) || !std::isfinite(r.velocity)) {
    std::ostringstream os;
    os << "non-finite constraint residual at t = " << x.t << " (not written)";
    throw SimulationError(os.str());
  }
  recorder_.record(Sample{x, e, r});
  if (recorder_.stopRequested()) stopAt_ = x.t;
  ++res_.stats.samples;
  res_.stats.maxPositionResidual = std::max(res_.stats.maxPositionResidual, r.position);
  res_.stats.maxVelocityResidual = std::max(res_.stats.maxVelocityResidual, r.velocity);
}

bool Run::drift(State& x, bool count) {
  if (settings_.stabilization != Stabilization::Projection) return false;
  const ProjectionReport pp = system_.projectPositions(x, options_.stepProjection);
  const ProjectionReport pv = system_.projectVelocities(x, options_.stepProjection);
  const bool changed = pp.iterations > 0 || pv.iterations > 0;
  if (count && changed) ++res_.stats.projections;
  if (count && (!pp.converged || !pv.converged)) ++res_.stats.projectionsNotConverged;
  return changed;
}

void Run::reportProgress(double t) {
  if (!progress_) return;
  const double tEnd = settings_.tEnd;
  const double f = tEnd > t0_ ? std::clamp((t - t0_) / (tEnd - t0_), 0.0, 1.0) : 1.0;
  if (f - lastProgress_ >= 1e-3 || (f >= 1.0 && lastProgress_ < 1.0)) {
    lastProgress_ = f;
    progress_(f);
  }
}

SimulationResult& Run::stopAtIntegrator(RunOutcome o, double t, std::string message) {
  res_.stats.integrator = integ_->stats();
  res_.t = t;
  res_.state = integ_->state();
  return finish(o, std::move(message));
}

void Run::recordInside(double tNew, State& sample) {
  while (!outputsDone_ && !stopAt_ && outputTime(outIndex_) < tNew) {
    integ_->interpolate(outputTime(outIndex_), sample);
    system_.normalizeCoordinates(sample.q);
    if (options_.projectSamples) drift(sample, false);
    record(sample);
    if (outputTime(outIndex_) >= settings_.tEnd) outputsDone_ = true;
    ++outIndex_;
  }
}

void Run::acceptStep(State& cur) {
  cur = integ_->state();
  const VectorXd& qRaw = integ_->state().q;
  system_.normalizeCoordinates(cur.q);
  bool changed = cur.q != qRaw;
  changed = drift(cur, true) || changed;
  if (!finiteState(cur)) {
    std::ostringstream os;
    os << "non-finite state after the step to t = " << cur.t;
    throw SimulationError(os.str());
  }
  if (changed) integ_->adjust(cur);
  settleAt(cur);
}

void Run::settleAt(const State& cur) {
  res_.state = cur;
  res_.t = cur.t;
  if (!outputsDone_ && !stopAt_ && outputTime(outIndex_) <= cur.t) {
    record(cur);
    if (outputTime(outIndex_) >= settings_.tEnd) outputsDone_ = true;
    ++outIndex_;
  }
  reportProgress(cur.t);
}

bool Run::handleEvent(const State& before, State& cur, State& sample) {
  State at;
  if (!locator_ || !locator_->check(*integ_, before, at)) return false;
  if (integ_->hasDenseOutput()) recordInside(at.t, sample);
  system_.normalizeCoordinates(at.q);
  drift(at, true);
  events_->resolve(at);
  drift(at, true);
  // a run must never stall on events: many at one instant mean the active set cycles. "One
  // instant" is within 1000 location tolerances (1e-9 s up to t = 1 s) of the previous event:
  // an event function that goes negative right after every resolution is located each time one
  // time tolerance later, and such a run crept on by 1e-12 s per event, forever
  const double instant = 1e3 * EventLocator::timeTolerance(at.t);
  if (at.t - lastEventT_ <= instant) {
    if (++eventsAtOneTime_ > 1000) {
      failedAt_ = at;  // (not the integrator's step end: a radau5 step may have reached t_end)
      throw SimulationError("more than 1000 one-sided events at t = " + num(at.t) + ", each within " +
                            num(instant) + " s of the last (the active set of the contacts and limits does "
                            "not settle; docs/contact.md)");
    }
  } else {
    eventsAtOneTime_ = 0;
  }
  lastEventT_ = at.t;
  integ_->reset(at);
  if (auto* rad = dynamic_cast<Radau5Integrator*>(integ_.get())) rad->forgetHistory();
  locator_->start(at);
  cur = at;
  settleAt(at);
  return true;
}

std::optional<std::string> Run::runaway() const {
  // the wall-time bound (--max-wall-time), when set
  if (options_.maxWallSeconds > 0) {
    const double wall = std::chrono::duration<double>(Clock::now() - wall0_).count();
    if (wall > options_.maxWallSeconds)
      return "wall-time limit of " + num(options_.maxWallSeconds) + " s (--max-wall-time) reached at t = " +
             num(integ_->time()) + " after " + std::to_string(integ_->stats().steps) + " steps";
  }
  // a run that cannot end within the step limit: even with steps kRunawayStepGrowth times the
  // largest one so far, the steps left to t_end would pass --max-steps (a t_end of 1e308).
  // The largest step, not the last or the mean: a run slowed for a while (an early transient
  // of small steps, an impact) keeps the large steps it took before, and one slowed from its
  // start is allowed a thousandfold growth
  const IntegratorStats& st = integ_->stats();
  if (options_.maxSteps <= 0 || st.steps < kRunawayMinSteps || !(st.maxStep > 0)) return std::nullopt;
  const double t = integ_->time(), left = settings_.tEnd - t;
  const double needed = static_cast<double>(st.steps) + left / (kRunawayStepGrowth * st.maxStep);
  if (!(needed > static_cast<double>(options_.maxSteps))) return std::nullopt;
  return "the run cannot reach t_end = " + num(settings_.tEnd) + " within the step limit of " +
         std::to_string(options_.maxSteps) + " steps (--max-steps): after " + std::to_string(st.steps) +
         " steps at t = " + num(t) + " (largest step " + num(st.maxStep) + " s) it would need more than " +
         num(needed) + " steps even with steps " + num(kRunawayStepGrowth) + " times larger";
}

SimulationResult& Run::integrate(const State& s) {
  const double tEnd = settings_.tEnd;
  const bool dense = integ_->hasDenseOutput();
  State cur = s;
  State sample = s;
  State before = s;
  try {
    recorder_.begin(system_.coordinateNames());
    recorderOpen_ = true;
    // the initial state must be well posed before anything is written
    VectorXd qdd = VectorXd::Zero(system_.numCoordinates());
    const AccelerationStatus st = system_.calcAccelerations(s, qdd, bg_);
    if (!st.ok()) {
      res_.t = s.t;
      // a model not finite at the initial state is an input error, as `check` says
      if (!st.finite) return finish(RunOutcome::InvalidInitialConditions, describeStop(st, s.t));
      return finish(outcomeOf(st) == RunOutcome::Completed ? RunOutcome::Failed : outcomeOf(st),
                    describeStop(st, s.t));
    }
    record(s);
    reportProgress(t0_);
    while (integ_->time() < tEnd && !stopAt_) {
      if (options_.maxSteps > 0 && integ_->stats().steps >= options_.maxSteps)
        return stopAtIntegrator(RunOutcome::Failed, integ_->time(),
                                "step limit of " + std::to_string(options_.maxSteps) + " steps (--max-steps) reached at t = " +
                                    num(integ_->time()));
      const double target = dense || outputsDone_ ? tEnd : outputTime(outIndex_);
      if (locator_) before = integ_->state();
      const StepResult r = integ_->advance(target);
      if (!r.ok) return stopAtIntegrator(outcomeOf(r.status), r.t, describeStop(r.status, r.t));
      // (after an event too: a run of events one after the other must still stop on a signal
      // or at --max-wall-time; it skipped both checks)
      if (!(locator_ && handleEvent(before, cur, sample))) {
        if (dense) recordInside(r.tNew, sample);
        acceptStep(cur);
      }
      if (const std::optional<std::string> why = runaway()) {
        res_.stats.integrator = integ_->stats();
        return finish(RunOutcome::Failed, *why);
      }
      if (interrupted(options_)) {
        res_.stats.integrator = integ_->stats();
        return finish(RunOutcome::Stopped, "interrupted after the step to t = " + num(cur.t));
      }
    }
  } catch (const std::exception& e) {
    res_.stats.integrator = integ_->stats();
    if (failedAt_) {  // at a located event
      res_.state = *failedAt_;
      res_.t = failedAt_->t;
    } else {
      res_.state = integ_->state();
      res_.t = std::max(res_.t, integ_->time());
    }
    return finish(RunOutcome::Failed, e.what());
  }
  res_.stats.integrator = integ_->stats();
  if (const auto* rad = dynamic_cast<const Radau5Integrator*>(integ_.get())) {
    const Radau5Stats& rs = rad->radauStats();
    spdlog::debug("radau5: {} Jacobians ({} force linearizations), {} factorizations ({} sparse, {} of them banded), "
                  "{} Newton iterations, {} Newton failures, {} error rejections", rs.jacobians, rs.linearizations,
                  rs.factorizations, rs.sparseFactorizations, rs.bandFactorizations, rs.newtonIterations,
                  rs.newtonFailures, rs.errorRejections);
  }
  if (stopAt_) return finish(RunOutcome::Stopped, "stopped by the recorder after the sample at t = " + num(*stopAt_));
  reportProgress(tEnd);
  return finish(RunOutcome::Completed, "");
}

SimulationResult Run::run(const State& initial) {
  checkSettings(initial);
  res_.state = initial;
  res_.t = t0_ = initial.t;
  outputsDone_ = settings_.tEnd <= t0_;
  // ---- initial conditions ----
  State s = initial;
  if (!finiteState(s)) return finish(RunOutcome::Failed, "the initial state is not finite");
  if (interrupted(options_)) return finish(RunOutcome::Stopped, "interrupted before the initial conditions were checked");
  RunOutcome icOutcome = RunOutcome::Completed;
  try {
    res_.initial = makeConsistent(system_, s, options_, icOutcome);
  } catch (const NonFiniteError& e) {
    // the status of the accelerations at the initial state names the element
    std::string why = e.what();
    try {
      VectorXd qdd = VectorXd::Zero(system_.numCoordinates());
      const AccelerationStatus st = system_.calcAccelerations(s, qdd, Baumgarte{});
      if (!st.finite && !st.message.empty()) why = st.message;
    } catch (const std::exception&) {  // keep the projection's own words
    }
    return finish(RunOutcome::InvalidInitialConditions, "checking the initial conditions failed: " + why);
  } catch (const std::exception& e) {
    return finish(RunOutcome::Failed, std::string("checking the initial conditions failed: ") + e.what());
  }
  res_.state = s;
  if (icOutcome != RunOutcome::Completed) return finish(icOutcome, res_.initial.message);
  if (!res_.initial.message.empty()) spdlog::debug("{}", res_.initial.message);
  // ---- the integrator and the step loop ----
  bg_ = settings_.stabilization == Stabilization::Baumgarte ? options_.baumgarte : Baumgarte{};
  integ_ = makeIntegrator(system_, settings_, options_, bg_);
  if (events_ != nullptr && events_->numEventFunctions() > 0) {
    // the contacts and limits at the start: impacts of closing ones, the active set
    events_->resolve(s);
    drift(s, true);
    res_.state = s;
    locator_ = std::make_unique<EventLocator>(system_, *events_);
    locator_->start(s);
  }
  integ_->reset(s);
  if (interrupted(options_)) return finish(RunOutcome::Stopped, "interrupted before the first step");
  return integrate(s);
}

}  // namespace

SimulationResult runSimulation(DynamicSystem& system, const SimulationSettings& settings, Recorder& recorder,
                               OneSidedEvents& events, const ProgressCallback& progress, const RunOptions& options) {
  return runSimulation(system, system.initialState(), settings, recorder, events, progress, options);
}

SimulationResult runSimulation(DynamicSystem& system, const State& initial, const SimulationSettings& settings,
                               Recorder& recorder, OneSidedEvents& events, const ProgressCallback& progress,
                               const RunOptions& options) {
  Run run(system, settings, recorder, progress, options);
  run.setEvents(&events);
  return run.run(initial);
}

SimulationResult runSimulation(DynamicSystem& system, const State& initial,
                               const SimulationSettings& settings, Recorder& recorder,
                               const ProgressCallback& progress, const RunOptions& options) {
  return Run(system, settings, recorder, progress, options).run(initial);
}

}  // namespace joinery
