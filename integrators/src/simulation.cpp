// The simulation loop: initial conditions, integration, drift control, sampling, outcome.
#include "joinery/core/format.hpp"
#include "joinery/integrators/simulation.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
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
  const ProjectionReport pp = system.projectPositions(s, options.initialProjection);
  const ProjectionReport pv = system.projectVelocities(s, options.initialProjection);
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

SimulationResult runSimulation(DynamicSystem& system, const State& initial,
                               const SimulationSettings& settings, Recorder& recorder,
                               const ProgressCallback& progress, const RunOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto wall0 = Clock::now();
  const int n = system.numCoordinates();

  // ---- settings ----
  validateSimulationSettings(settings);
  const IntegratorKind kind = settings.integrator;
  const Stabilization stab = settings.stabilization;
  const double t0 = initial.t;
  const double tEnd = settings.tEnd;
  if (!std::isfinite(tEnd) || !(tEnd >= t0))
    badSetting("t_end", "t_end = " + num(tEnd) + " must be finite and not before the initial time " + num(t0));
  const double dt = settings.outputInterval;
  if (initial.q.size() != n || initial.v.size() != n)
    throw SimulationError("initial state has " + std::to_string(initial.q.size()) + " coordinates and " +
                          std::to_string(initial.v.size()) + " velocities; the system has " +
                          std::to_string(n));

  SimulationResult res;
  res.state = initial;
  res.t = t0;
  bool recorderOpen = false;
  const auto finish = [&](RunOutcome o, std::string message) -> SimulationResult& {
    res.outcome = o;
    res.message = std::move(message);
    res.stats.wallSeconds = std::chrono::duration<double>(Clock::now() - wall0).count();
    if (recorderOpen) {
      try {
        recorder.end(res);
      } catch (const std::exception& e) {
        if (res.outcome == RunOutcome::Completed) {
          res.outcome = RunOutcome::Failed;
          res.message = std::string("closing the output failed: ") + e.what();
        }
      }
    }
    if (res.outcome != RunOutcome::Completed)
      spdlog::debug("simulation ended ({}) at t = {}: {}", toString(res.outcome), res.t, res.message);
    return res;
  };

  // ---- initial conditions ----
  State s = initial;
  if (!finiteState(s)) return finish(RunOutcome::Failed, "the initial state is not finite");
  RunOutcome icOutcome = RunOutcome::Completed;
  try {
    res.initial = makeConsistent(system, s, options, icOutcome);
  } catch (const std::exception& e) {
    return finish(RunOutcome::Failed, std::string("checking the initial conditions failed: ") + e.what());
  }
  res.state = s;
  if (icOutcome != RunOutcome::Completed) return finish(icOutcome, res.initial.message);
  if (!res.initial.message.empty()) spdlog::debug("{}", res.initial.message);

  const Baumgarte bg = stab == Stabilization::Baumgarte ? options.baumgarte : Baumgarte{};
  std::unique_ptr<Integrator> integ;
  if (kind == IntegratorKind::Rk4) {
    integ = std::make_unique<Rk4Integrator>(system, settings.step, bg);
  } else {
    Dopri5Options o;
    o.rtol = settings.rtol;
    o.atol = settings.atol;
    o.initialStep = options.initialStep > 0 ? options.initialStep : settings.step;
    o.minStep = options.minStep;
    o.maxStep = options.maxStep;
    integ = std::make_unique<Dopri5Integrator>(system, o, bg);
  }
  integ->reset(s);
  const bool dense = integ->hasDenseOutput();

  // output times t0 + i dt, the last one exactly t_end
  const auto outputTime = [&](long long i) {
    const double ti = t0 + static_cast<double>(i) * dt;
    return ti >= tEnd - 1e-9 * dt ? tEnd : ti;
  };
  long long outIndex = 1;
  bool outputsDone = tEnd <= t0;

  std::optional<double> stopAt;  // set when the recorder asks to stop after a sample
  const auto record = [&](const State& x) {
    if (!finiteState(x)) {
      std::ostringstream os;
      os << "non-finite state at t = " << x.t << " (not written)";
      throw SimulationError(os.str());
    }
    std::optional<double> e = system.calcEnergy(x);
    if (e && !std::isfinite(*e)) e.reset();
    ConstraintResiduals r = system.calcConstraintResiduals(x);
    if (!std::isfinite(r.position) || !std::isfinite(r.velocity)) {
      std::ostringstream os;
      os << "non-finite constraint residual at t = " << x.t << " (not written)";
      throw SimulationError(os.str());
    }
    recorder.record(Sample{x, e, r});
    if (recorder.stopRequested()) stopAt = x.t;
    ++res.stats.samples;
    res.stats.maxPositionResidual = std::max(res.stats.maxPositionResidual, r.position);
    res.stats.maxVelocityResidual = std::max(res.stats.maxVelocityResidual, r.velocity);
  };

  // projection of a state; `count`: an integration state (not a sample copy)
  const auto drift = [&](State& x, bool count) {
    if (stab != Stabilization::Projection) return false;
    const ProjectionReport pp = system.projectPositions(x, options.stepProjection);
    const ProjectionReport pv = system.projectVelocities(x, options.stepProjection);
    const bool changed = pp.iterations > 0 || pv.iterations > 0;
    if (count && changed) ++res.stats.projections;
    if (count && (!pp.converged || !pv.converged)) ++res.stats.projectionsNotConverged;
    return changed;
  };

  double lastProgress = -1;
  const auto report = [&](double t) {
    if (!progress) return;
    const double f = tEnd > t0 ? std::clamp((t - t0) / (tEnd - t0), 0.0, 1.0) : 1.0;
    if (f - lastProgress >= 1e-3 || (f >= 1.0 && lastProgress < 1.0)) {
      lastProgress = f;
      progress(f);
    }
  };

  State cur = s;
  State sample = s;
  try {
    recorder.begin(system.coordinateNames());
    recorderOpen = true;
    // the initial state must be well posed before anything is written
    {
      VectorXd qdd = VectorXd::Zero(n);
      const AccelerationStatus st = system.calcAccelerations(s, qdd, bg);
      if (!st.ok()) {
        res.t = s.t;
        return finish(outcomeOf(st) == RunOutcome::Completed ? RunOutcome::Failed : outcomeOf(st),
                      describeStop(st, s.t));
      }
    }
    record(s);
    report(t0);
    while (integ->time() < tEnd && !stopAt) {
      if (options.maxSteps > 0 && integ->stats().steps >= options.maxSteps) {
        res.stats.integrator = integ->stats();
        res.t = integ->time();
        res.state = integ->state();
        return finish(RunOutcome::Failed, "step limit of " + std::to_string(options.maxSteps) +
                                              " steps reached at t = " + num(integ->time()));
      }
      const double target = dense || outputsDone ? tEnd : outputTime(outIndex);
      const StepResult r = integ->advance(target);
      if (!r.ok) {
        res.stats.integrator = integ->stats();
        res.t = r.t;
        res.state = integ->state();
        return finish(outcomeOf(r.status), describeStop(r.status, r.t));
      }
      // samples strictly inside the step, from the dense output of the raw step
      if (dense) {
        while (!outputsDone && !stopAt && outputTime(outIndex) < r.tNew) {
          integ->interpolate(outputTime(outIndex), sample);
          system.normalizeCoordinates(sample.q);
          if (options.projectSamples) drift(sample, false);
          record(sample);
          if (outputTime(outIndex) >= tEnd) outputsDone = true;
          ++outIndex;
        }
      }
      // normalization and drift control of the accepted state
      cur = integ->state();
      const VectorXd& qRaw = integ->state().q;
      system.normalizeCoordinates(cur.q);
      bool changed = cur.q != qRaw;
      changed = drift(cur, true) || changed;
      if (!finiteState(cur)) {
        std::ostringstream os;
        os << "non-finite state after the step to t = " << cur.t;
        throw SimulationError(os.str());
      }
      if (changed) integ->reset(cur);
      res.state = cur;
      res.t = cur.t;
      if (!outputsDone && !stopAt && outputTime(outIndex) <= cur.t) {
        record(cur);
        if (outputTime(outIndex) >= tEnd) outputsDone = true;
        ++outIndex;
      }
      report(cur.t);
    }
  } catch (const std::exception& e) {
    res.stats.integrator = integ->stats();
    res.state = integ->state();
    res.t = std::max(res.t, integ->time());
    return finish(RunOutcome::Failed, e.what());
  }
  res.stats.integrator = integ->stats();
  if (stopAt) {
    std::ostringstream os;
    os << "stopped by the recorder after the sample at t = " << *stopAt;
    return finish(RunOutcome::Stopped, os.str());
  }
  report(tEnd);
  return finish(RunOutcome::Completed, "");
}

}  // namespace joinery
