#pragma once
/// @file dynamic_system.hpp
/// The generic second-order system that integrators see (docs/integrators.md):
///
///     q'' = f(t, q, q')     subject to   phi(q, t) = 0   (holonomic rows)
///                                        psi(q, q', t) = 0 (velocity-level rows)
///
/// An integrator knows a DynamicSystem only: never a body, a joint or a Model. ModelSystem
/// (below) adapts a Model; tests and users may write their own systems (a closed-form ODE,
/// a reduced model). The defaults of the virtual hooks describe a system without
/// constraints, so an ODE only implements the pure virtuals.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/dense_solver.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

/// What an acceleration evaluation says about the state: the rank diagnosis of the
/// singular-mass equation (equations.md §4), re-checked at every evaluation of a run.
struct AccelerationStatus {
  Posedness posedness = Posedness::WellPosed;
  /// False when the model produced a NaN or an infinite value (force, mass, constraint);
  /// `message` names the entry. The accelerations are then meaningless.
  bool finite = true;
  /// Empty when well posed and finite; otherwise the explanation (coordinates named).
  std::string message;
  int rankA = 0;      ///< numerical rank of A (-1 when unknown)
  /// m - rank A: redundant rows at this state (legal). From the dense solver's rank decision;
  /// on the structured fast path, the rows whose elimination pivot vanished to round-off
  /// (|pivot| < 1e-8 / rho: dependent on the rows eliminated before them); rows only nearly
  /// dependent (near a singular position) are counted in `released` but not here.
  int redundant = 0;
  /// Fast paths: combinations of rows released by the regularization (redundant, or nearly
  /// dependent at or near a singular position). 0 from the dense solver.
  int released = 0;
  /// True when the structured (sparse) fast path answered.
  bool structured = false;
  /// Structured path: connected components of the body-joint graph it handed to the dense
  /// solver (a failed pivot or residual there); the others were solved through the structure.
  int denseComponents = 0;
  /// True when the accelerations are the least-squares answer of constraint rows that are
  /// momentarily dependent (a singular position) and very slightly inconsistent because of
  /// drift; still counted as well posed (see ModelSystemOptions::singularInconsistency).
  bool leastSquares = false;
  /// Relative inconsistency |(I - A A+) b| / |b| of the row-scaled rows (0 when consistent).
  double inconsistency = 0;

  /// Well posed, consistent and finite: the accelerations are unique and usable.
  bool ok() const noexcept { return finite && posedness == Posedness::WellPosed; }
};

/// Baumgarte stabilization parameters (units 1/s). The constraint rows are solved as
///     A q'' = b - 2 alpha e_v - beta^2 e_p
/// with e_p the position error (holonomic rows) and e_v the velocity error (phi' for
/// holonomic rows, psi for nonholonomic rows). alpha = beta = 0 is the plain system.
struct Baumgarte {
  double alpha = 0;
  double beta = 0;
  bool active() const noexcept { return alpha != 0 || beta != 0; }
};

/// Constraint violation at a state (max-abs norms; 0 for a system without constraints).
struct ConstraintResiduals {
  double position = 0;  ///< max |phi_i| over holonomic rows
  double velocity = 0;  ///< max |phi'_i| (holonomic) or |psi_i| (nonholonomic)
  int positionRow = -1; ///< row of the largest position error (-1 if none)
  int velocityRow = -1; ///< row of the largest velocity error (-1 if none)
};

/// Outcome of a drift-control projection.
struct ProjectionReport {
  bool converged = true;
  int iterations = 0;
  double correction = 0;      ///< max |dq| (positions) or max |dv| (velocities)
  double residualBefore = 0;  ///< max-abs residual before
  double residualAfter = 0;   ///< max-abs residual after
};

/// Options of a projection: Gauss–Newton iterations and the relative stopping tolerance
/// (converged when the residual is below `tolerance * max(1, |q|_inf)` for positions and
/// `tolerance * max(1, |v|_inf)` for velocities).
struct ProjectionOptions {
  int maxIterations = 6;
  double tolerance = 1e-12;
};

/// A second-order dynamic system as integrators see it. Not thread-safe: an instance owns
/// evaluation buffers; use one per thread.
class DynamicSystem {
 public:
  virtual ~DynamicSystem() = default;

  /// Number of coordinates n (q and q' both have n entries).
  virtual int numCoordinates() const = 0;
  /// Coordinate names (n), e.g. "pendulum.x"; velocities are named with "_dot" appended.
  virtual const std::vector<std::string>& coordinateNames() const = 0;
  /// The state a run starts from when none is given.
  virtual State initialState() const = 0;

  /// Accelerations q'' at `s` into `qdd` (size n), with Baumgarte-modified constraint rows
  /// when `stab.active()`. Never throws for an ill-posed, inconsistent or non-finite state:
  /// the status says so (qdd is then the minimum-norm answer, or garbage when not finite).
  virtual AccelerationStatus calcAccelerations(const State& s, VecRef qdd,
                                               const Baumgarte& stab) = 0;
  /// Same, without stabilization.
  AccelerationStatus calcAccelerations(const State& s, VecRef qdd) {
    return calcAccelerations(s, qdd, Baumgarte{});
  }

  // ---- constraints (defaults: a system without constraints) --------------------------
  /// Number of constraint rows m.
  virtual int numConstraintRows() const { return 0; }
  /// Names of the constraint rows (m), e.g. "rod[0]"; used in messages.
  virtual const std::vector<std::string>& constraintRowNames() const;
  /// Brings coordinates with an internal norm constraint (quaternions) back to it, in place.
  virtual void normalizeCoordinates(VecRef q) { (void)q; }
  /// Moves s.q onto the holonomic constraints phi(q, t) = 0 along the shortest step in the
  /// metric W = M + rho A^T A (rows of A scaled; positive definite exactly when the model is
  /// well posed), by Gauss–Newton iterations. Velocities are untouched.
  virtual ProjectionReport projectPositions(State& s, const ProjectionOptions& opt) {
    (void)s;
    (void)opt;
    return {};
  }
  /// Moves s.v onto the velocity-level constraints (holonomic phi' = 0 and nonholonomic
  /// psi = 0), shortest step in the metric W.
  virtual ProjectionReport projectVelocities(State& s, const ProjectionOptions& opt) {
    (void)s;
    (void)opt;
    return {};
  }
  /// Position and velocity constraint residuals at `s`.
  virtual ConstraintResiduals calcConstraintResiduals(const State& s) {
    (void)s;
    return {};
  }

  // ---- output ----------------------------------------------------------------------
  /// Kinetic plus potential energy, when the system defines one (std::nullopt otherwise).
  virtual std::optional<double> calcEnergy(const State& s) {
    (void)s;
    return std::nullopt;
  }
};

/// Which solver answers ModelSystem::calcAccelerations (ModelSystemOptions::path).
enum class EvaluationPath {
  /// The structured path when the model allows it (every model without non-ideal joints),
  /// else the dense metric path; the dense solver on any failed check.
  Automatic,
  /// Block elimination over the body-joint graph (sparse, linear time on trees and chains,
  /// no allocation), with the dense solver as fallback.
  Structured,
  /// Cholesky of the dense W = M + rho As^T As, dense regularized multipliers (O(n^3)), with
  /// the dense solver as fallback.
  DenseMetric,
  /// The dense reference solver every time (same as fastPath = false).
  Dense
};

/// Options of ModelSystem.
struct ModelSystemOptions {
  /// The solver choice (automatic by default; an override for tests and benchmarks).
  /// `fastPath = false` forces EvaluationPath::Dense.
  EvaluationPath path = EvaluationPath::Automatic;
  /// Evaluate states through a Cholesky factorization of W = M + rho A^T A (rho = max M_ii,
  /// rows of A scaled to unit norm) and regularized multipliers (below), with the
  /// well-posedness checks: W positive definite with a reciprocal condition estimate above
  /// `fastPathRcond`, and |A q'' - b| within the dense solver's consistency tolerance (or
  /// within `singularInconsistency` on released rows). Any state that fails a check, the
  /// first evaluation, and every model with a non-ideal joint go to the dense reference
  /// solver, which decides and explains. false: the dense solver every time (no
  /// regularization: it cannot pass a singular position with an adaptive integrator at tight
  /// tolerances, see docs/integrators.md).
  bool fastPath = true;
  double fastPathRcond = 1e-12;
  /// Fast path: the multipliers of S mu = rhs (S = As W^-1 As^T) by `regularizationIterations`
  /// steps of iterated Tikhonov regularization with lambda = regularization * max S_ii (an
  /// augmented-Lagrangian iteration). Rows whose combination has an eigenvalue s of S well
  /// above lambda are enforced to round-off (error factor (lambda / (s + lambda))^K); a
  /// combination that becomes dependent (s << lambda, i.e. singular values of the scaled rows
  /// below about sqrt(regularization)) is smoothly released instead of being enforced with a
  /// force that amplifies drift without bound near a singular position.
  double regularization = 1e-6;
  int regularizationIterations = 4;
  /// Velocity projection (drift control) uses the same regularized solve with this larger
  /// lambda (position projection keeps `regularization`: it must meet 1e-12 in few iterations). Near a singular position a projection enforcing a nearly dependent
  /// combination of rows turns a residual of 1e-9 into velocity corrections of 1e-4 per step
  /// (amplification 1 / s); summed over the thousands of tiny steps an adaptive integrator
  /// takes there at tight tolerances, that pumped energy into the A02 N-four-bar (+7 J, the
  /// crank stuck at the flat position, exit 0) at rtol = atol = 1e-12. Projection is drift
  /// control, not the equation of motion: releasing those combinations earlier costs nothing
  /// in the accelerations and keeps every tolerance from 1e-10 to 1e-13 within 2e-6 of the
  /// A02 reference (tests/mechanisms "[tight]").
  double projectionRegularization = 1e-3;
  /// At or near a singular position (rows of A becoming dependent) with [M; A] of full rank,
  /// a residual |A q'' - b| up to this fraction of |b| (row-scaled) in the released
  /// combination of rows is drift, not a contradiction: those accelerations are used and the
  /// state counts as well posed (AccelerationStatus::leastSquares). Beyond it the dense solver
  /// decides; it also tolerates this much when it finds rank A < m. 0: never tolerate.
  double singularInconsistency = 1e-3;
};

/// The DynamicSystem of a Model: accelerations with a well-posedness check at every
/// evaluation (ModelSystemOptions::fastPath, else the dense reference solver with the full
/// rank diagnosis), drift control on the model's constraint rows.
///
/// This is the only place in the integration path that knows Model. The evaluation buffers
/// (ModelWorkspace, residual vectors, the metric W, the fast-path factors) are allocated once,
/// in the constructor (the structured path's elimination at the first evaluation); the
/// structured path does not allocate per evaluation, the dense solver and the pseudo-inverses
/// do. Models with more than kDenseLimit entries in M and A get their dense matrices (and the
/// dense metric of the projections) only when first needed.
namespace detail {
struct SparseOutcome;
}

class ModelSystem final : public DynamicSystem {
 public:
  /// `model` must outlive this object.
  explicit ModelSystem(const Model& model, ModelSystemOptions options = {},
                       DenseSolver solver = DenseSolver());
  ModelSystem(Model&&, ModelSystemOptions = {}, DenseSolver = DenseSolver()) = delete;
  ~ModelSystem() override;
  ModelSystem(const ModelSystem&) = delete;
  ModelSystem& operator=(const ModelSystem&) = delete;

  const Model& model() const noexcept { return model_; }

  int numCoordinates() const override;
  const std::vector<std::string>& coordinateNames() const override;
  State initialState() const override;
  AccelerationStatus calcAccelerations(const State& s, VecRef qdd, const Baumgarte& stab) override;
  using DynamicSystem::calcAccelerations;

  int numConstraintRows() const override;
  const std::vector<std::string>& constraintRowNames() const override;
  void normalizeCoordinates(VecRef q) override;
  ProjectionReport projectPositions(State& s, const ProjectionOptions& opt) override;
  ProjectionReport projectVelocities(State& s, const ProjectionOptions& opt) override;
  ConstraintResiduals calcConstraintResiduals(const State& s) override;
  std::optional<double> calcEnergy(const State& s) override;

  const ModelSystemOptions& options() const noexcept { return options_; }
  /// Evaluations answered by the fast path / by the dense solver so far.
  long long fastEvaluations() const noexcept { return fastCount_; }
  long long denseEvaluations() const noexcept { return denseCount_; }
  /// Of the fast evaluations, those answered by the structured (sparse) path.
  long long structuredEvaluations() const noexcept { return structuredCount_; }
  /// True once the dense M and A exist (small models from the start; large ones only when the
  /// dense solver or a dense projection needed the whole model).
  bool hasDenseMatrices() const noexcept;
  /// The path calcAccelerations tries first (Automatic resolved for this model).
  EvaluationPath resolvedPath() const noexcept;
  /// Multipliers of every constraint row at `s` for joint results (joint_results.hpp). When the
  /// last calcAccelerations was at this very state, without stabilization, and answered by the
  /// structured path with no released row, its own multipliers (no solve, no allocation once
  /// `out` is sized); otherwise the dense reference solver at `s` (allocates; every redundant
  /// row flagged, minimum-norm split). Returns true when the last evaluation's multipliers
  /// were used.
  bool calcMultipliers(const State& s, JointMultipliers& out);

 private:
  struct Buffers;
  /// Allocates the dense M and A of the workspace when it was created without them (models
  /// too large for dense matrices get them only when the dense solver or a projection needs
  /// them).
  void ensureDense();
  /// Structured fast path on the blocks of ws_ and buf_->bmod; false when a check fails (and
  /// the whole model goes to the dense solver). In a model of several connected components
  /// only the components that fail go to the dense solver (solveComponentsDense).
  bool solveStructured(const State& s, VecRef qdd, AccelerationStatus& st);
  void solveComponentsDense(const State& s, VecRef qdd, AccelerationStatus& st);
  /// Non-ideal joints on the structured path: C from the ideal solve's multipliers, then the
  /// solve with Q + C on the same factorization. False: the dense solver decides.
  bool addNonidealWork(const State& s, VecRef qdd, const detail::SparseOutcome& ideal, double bsNorm);
  /// Posedness, ranks, inconsistency and message of a dense solution of rows A, right side b.
  void describeDense(const State& s, const Solution& sol, const MatrixXd& A, const VectorXd& b,
                     AccelerationStatus& st) const;
  /// Least-W-norm Gauss-Newton projection of s.q (positions) or s.v (velocities) onto the
  /// holonomic / velocity-level rows.
  ProjectionReport project(State& s, const ProjectionOptions& opt, bool positions);
  /// Scales the rows of ws_.A and factorizes W = M + rho As^T As from ws_.M, ws_.A. False
  /// when W is not positive definite or its reciprocal condition is below fastPathRcond.
  bool factorizeMetric();
  /// Fast path on ws_ (M, Q, A) and buf_->bmod; false when a check fails.
  bool solveFast(VecRef qdd, AccelerationStatus& st);
  void solveDense(const State& s, VecRef qdd, AccelerationStatus& st);

  const Model& model_;
  ModelSystemOptions options_;
  DenseSolver solver_;
  long long fastCount_ = 0, denseCount_ = 0, structuredCount_ = 0;
  ModelWorkspace ws_;
  std::unique_ptr<Buffers> buf_;
  Solution last_;
};

}  // namespace joinery
