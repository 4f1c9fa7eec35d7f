#pragma once
/// @file dynamic_system.hpp
/// The generic second-order system that integrators see (docs/integrators.md):
///
///     q'' = f(t, q, q')     subject to   phi(q, t) = 0   (holonomic rows)
///                                        psi(q, q', t) = 0 (velocity-level rows)
///
/// An integrator knows a DynamicSystem only: never a body, a joint or a Model. ModelSystem
/// (model_system.hpp) adapts a Model; tests and users may write their own systems (a closed-form ODE,
/// a reduced model). The defaults of the virtual hooks describe a system without
/// constraints, so an ODE only implements the pure virtuals.

#include <Eigen/SparseCore>
#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/posedness.hpp"
#include "joinery/core/state.hpp"
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
  bool interrupted = false;   ///< stopped early: ProjectionOptions::interrupt was set
  /// Structured steps (ModelSystem): factorizations made, and solves with them (the steps after
  /// the first reuse one factorization while the residual falls fast: chord steps; a step's
  /// refinement solves stop once the rows meet a tenth of the tolerance). 0 on the dense steps.
  int factorizations = 0;
  int solves = 0;
};

/// Options of a projection: Gauss–Newton iterations and the relative stopping tolerance
/// (converged when the residual is below `tolerance * max(1, |q|_inf)` for positions and
/// `tolerance * max(1, |v|_inf)` for velocities).
struct ProjectionOptions {
  int maxIterations = 6;
  double tolerance = 1e-12;
  /// When set and non-zero (a signal handler's flag), the projection stops before its next
  /// iteration and reports `interrupted` (a SIGTERM/SIGINT during a long start-up).
  const volatile std::sig_atomic_t* interrupt = nullptr;
};

/// What an implicit integrator builds its iteration matrix from (docs/integrators.md,
/// "Radau IIA 5"): at a state, the mass matrix M (n x n), the acceleration-level rows A
/// (m x n) and the Jacobians of the applied generalized forces Q (force elements, body forces,
/// gravity) with respect to q and q'. With these the Newton system of the stage equations is
/// the KKT system [c^2 M - c dQdv - dQdq, A^T; A, 0] instead of a dense Jacobian of q''
/// (the derivatives of A and of the constraint forces, non-stiff, are left out).
struct ForceLinearization {
  MatrixXd M, A, dQdq, dQdv;
  /// Set by the caller before DynamicSystem::calcForceLinearization: the sparse form is
  /// wanted (large models). A system may ignore it and fill the dense members.
  bool wantSparse = false;
  /// Set by the system: the linearization is in Ms, As, dQdqS, dQdvS (column-major sparse,
  /// the same matrices) and the dense members are not filled. ModelSystem assembles them
  /// element by element (bodies' mass blocks, joints' row blocks, force elements' local
  /// Jacobians): O(n) on chains and trees, no n x n storage; from the second call on the same
  /// object it keeps their patterns and refills the values in place (no allocation once
  /// every entry that is ever non-zero has been seen; radau5's sparse path relies on it).
  bool sparse = false;
  Eigen::SparseMatrix<double> Ms, As, dQdqS, dQdvS;
  /// Evaluations of Q alone (no acceleration solve) this linearization cost: 1 (M, A), then,
  /// when some force is differenced, 1 + the colour groups of finite-difference columns, and
  /// 1 for the analytic Jacobians of the elements that give them (ModelSystem).
  long long forceEvaluations = 0;
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

  // ---- implicit integration (optional) -------------------------------------------------
  /// Fills `out` at `s` and returns true, or returns false when the system does not provide
  /// it (the implicit integrator then differentiates q'' itself, 2n evaluations).
  virtual bool calcForceLinearization(const State& s, ForceLinearization& out) {
    (void)s;
    (void)out;
    return false;
  }

  // ---- output ----------------------------------------------------------------------
  /// Kinetic plus potential energy, when the system defines one (std::nullopt otherwise).
  virtual std::optional<double> calcEnergy(const State& s) {
    (void)s;
    return std::nullopt;
  }
};

}  // namespace joinery
