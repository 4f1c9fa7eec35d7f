#pragma once
/// @file simulation.hpp
/// The simulation loop: consistent initial conditions, integration with drift control,
/// a well-posedness check at every step, samples at every `output_interval` (and at
/// `t_end`) streamed to a Recorder, progress reports, and a result that says how the run
/// ended (with the exit status of `joinery simulate`). See docs/integrators.md.
///
/// A CLI runs a scene with
///
///     const SimulationSettings settings = parseSimulationSettings(scene.simulation);
///     ModelSystem system(scene.model);
///     CsvRecorder csv(outPath);
///     SimulationResult r = runSimulation(system, settings, csv, progressBar);
///
/// (the CLI maps r.outcome to its exit status).

#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "joinery/core/dynamic_system.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/integrators/integrator.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/settings.hpp"

namespace joinery {

enum class InitialConditionMode {
  Project,  ///< project inconsistent initial conditions onto the constraints and report it
  Strict    ///< reject initial conditions that violate a constraint beyond the tolerance
};

/// Settings beyond the scene's `simulation` object (SimulationSettings, settings.hpp).
struct RunOptions {
  InitialConditionMode initialConditions = InitialConditionMode::Project;
  /// Initial conditions are consistent when max |phi| <= tol * max(1, |q|_inf) and
  /// max |phi'|, |psi| <= tol * max(1, |v|_inf).
  double consistencyTolerance = 1e-9;
  /// Gauss–Newton projection of the initial conditions.
  ProjectionOptions initialProjection{50, 1e-12};
  /// Drift control after every accepted step (stabilization `projection`).
  ProjectionOptions stepProjection{6, 1e-12};
  /// Baumgarte parameters (1/s) for stabilization `baumgarte`.
  Baumgarte baumgarte{10.0, 10.0};
  /// dopri5, rkm: smallest step before "step-size collapse" (0: 1e-12 * max(1, |t|)); largest step (0: none).
  double minStep = 0;
  double maxStep = 0;
  /// dopri5, rkm: first trial step; 0 uses SimulationSettings::step.
  double initialStep = 0;
  /// Accepted steps allowed before the run fails (0: unlimited). A run that cannot end within
  /// it fails early: from 1000 steps on, when even steps 1000 times its largest so far would
  /// not reach t_end within maxSteps (a t_end of 1e308).
  long long maxSteps = 0;
  /// Wall-clock seconds the step loop may take before the run fails (0: unlimited).
  double maxWallSeconds = 0;
  /// Most samples a run may write, (t_end - t0) / output_interval; more is invalid input
  /// before the run starts (docs/scene-format.md, "Limits").
  long long maxSamples = 10'000'000;
  /// Most steps a fixed-step (rk4) run may take, (t_end - t0) / step; more is invalid input.
  long long maxFixedSteps = 100'000'000;
  /// Stabilization `projection`: samples taken from dense output inside a step are
  /// projected onto the constraints too (the integration state is not affected).
  bool projectSamples = true;
  /// radau5: build the Newton matrix from the system's force linearization when it
  /// has one (false: finite differences of q'', 2n evaluations per Jacobian); the Jacobian
  /// reuse thresholds (<= 0: Radau5Options' defaults).
  bool forceLinearization = true;
  double jacobianReuse = 0;
  /// radau5: sparse LU of the KKT matrix from this many unknowns on (< 0: Radau5Options'
  /// default; 0: always dense).
  int radauSparseFrom = -1;
  /// When set, read after every accepted step: a nonzero value ends the run there with
  /// RunOutcome::Stopped (the samples so far are kept; the recorder's end() closes them). Meant
  /// for a signal handler's flag (the CLI's SIGTERM/SIGINT, apps/joinery/run_files.hpp). Read
  /// during the start-up too: before the initial conditions, between the iterations of their
  /// projection, and before the first step (then nothing is recorded).
  const volatile std::sig_atomic_t* interrupt = nullptr;
};

/// How a run ended (the CLI maps each to its exit status: apps/joinery/exit_status.hpp).
enum class RunOutcome {
  Completed,                 ///< reached t_end
  InvalidInitialConditions,  ///< strict mode: the initial state violates a constraint
  IllPosed,                  ///< accelerations not unique at some state
  Inconsistent,              ///< constraints contradict each other
  Failed,                    ///< non-finite state, step-size collapse, output error, ...
  Stopped                    ///< the recorder asked to stop (Recorder::stopRequested)
};
const char* toString(RunOutcome o) noexcept;

/// What was done to the initial conditions.
struct InitialConditionReport {
  ConstraintResiduals before;     ///< residuals of the given initial state
  ConstraintResiduals after;      ///< residuals of the state the run starts from
  double positionCorrection = 0;  ///< max |dq| applied
  double velocityCorrection = 0;  ///< max |dv| applied
  bool projected = false;         ///< true when the state was changed
  std::string message;            ///< readable summary (names the worst rows)
};

/// Counters and figures of a run.
struct RunStatistics {
  IntegratorStats integrator;
  long long samples = 0;
  long long projections = 0;             ///< drift-control projections applied
  long long projectionsNotConverged = 0; ///< projections that stopped above tolerance
  double maxPositionResidual = 0;        ///< over the samples
  double maxVelocityResidual = 0;        ///< over the samples
  double wallSeconds = 0;
};

/// The outcome of runSimulation().
struct SimulationResult {
  RunOutcome outcome = RunOutcome::Completed;
  double t = 0;        ///< time reached; for a stopped run, the time of the failure
  State state;         ///< last accepted state (the state where the run stopped)
  std::string message; ///< empty when completed; otherwise what happened, when and why
  InitialConditionReport initial;
  RunStatistics stats;

  bool completed() const noexcept { return outcome == RunOutcome::Completed; }
  /// Throws SimulationFailure unless completed.
  void throwIfFailed() const;
};

/// A run that did not complete, as an exception (a SimulationError).
class SimulationFailure : public SimulationError {
 public:
  SimulationFailure(RunOutcome outcome, double t, const std::string& message);
  RunOutcome outcome() const noexcept { return outcome_; }
  double time() const noexcept { return t_; }

 private:
  RunOutcome outcome_;
  double t_;
};

/// Called with the fraction of [t0, t_end] done, in [0, 1], at most about a thousand times a
/// run, and with 1 at the end of a completed run.
using ProgressCallback = std::function<void(double fraction)>;

/// Runs `system` from its initial state to `settings.tEnd`.
///
/// Never throws for what happens during the run: ill-posed or inconsistent states, a
/// non-finite value, a step-size collapse or an output error end the run with the matching
/// outcome, the time, the last state and an explanation; every sample recorded so far stays.
/// @throws InputError for invalid settings (the rules of validateSimulationSettings, and
///         t_end before the initial time), path `/simulation/<key>`.
SimulationResult runSimulation(DynamicSystem& system, const SimulationSettings& settings,
                               Recorder& recorder, const ProgressCallback& progress = {},
                               const RunOptions& options = {});

/// Same, from a given initial state (its time is t0).
SimulationResult runSimulation(DynamicSystem& system, const State& initial,
                               const SimulationSettings& settings, Recorder& recorder,
                               const ProgressCallback& progress = {},
                               const RunOptions& options = {});

/// Checks and (in Project mode) projects initial conditions in place.
/// Returns the report; `outcome` receives InvalidInitialConditions (strict mode, violated),
/// Inconsistent (the projection cannot reach the constraints) or Completed (usable).
InitialConditionReport makeConsistent(DynamicSystem& system, State& s, const RunOptions& options,
                                      RunOutcome& outcome);

}  // namespace joinery
