#pragma once
/// @file model_system.hpp
/// ModelSystem: the DynamicSystem (dynamic_system.hpp) of an assembled Model, with a
/// well-posedness check at every evaluation and drift control on the model's rows.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/dense_solver.hpp"
#include "joinery/core/dynamic_system.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

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
  /// The dense reference solver every time (no regularization: it cannot pass a singular
  /// position with an adaptive integrator at tight tolerances, see docs/integrators.md).
  Dense
};

/// Options of ModelSystem.
struct ModelSystemOptions {
  /// The one solver switch (automatic by default; an override for tests and benchmarks).
  /// The fast paths (Structured, DenseMetric) evaluate states through W = M + rho A^T A
  /// (rho = max M_ii, rows of A scaled to unit norm) and regularized multipliers (below), with
  /// the well-posedness checks: W positive definite with a reciprocal condition estimate above
  /// `fastPathRcond`, and |A q'' - b| within the dense solver's consistency tolerance (or
  /// within `singularInconsistency` on released rows). Any state that fails a check goes to
  /// the dense reference solver, which decides and explains.
  EvaluationPath path = EvaluationPath::Automatic;
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
  /// lambda (position projection keeps `regularization`: it must meet 1e-12 in few
  /// iterations). Why: docs/integrators.md, "Drift control near a singular position".
  double projectionRegularization = 1e-3;
  /// Structured path: the velocity projection first factorizes at `regularization`; where no row
  /// is released there, its correction is kept unless max |dv| exceeds this multiple of the
  /// largest residual of the unit-norm rows (rows nearly dependent: then the projection goes
  /// on with projectionRegularization). Measured on the benchmark chain far from any singular
  /// position: up to 46 (1 024 links), 146 (4 096 links), growing with the chain as a root
  /// joint's correction moves every link beyond it; the enforcement that pumped energy into the
  /// A02 four-bar amplified 1e-9 into 1e-4 (1e5). docs/integrators.md, "Drift control".
  double projectionAmplification = 1e3;
  /// At or near a singular position (rows of A becoming dependent) with [M; A] of full rank,
  /// a residual |A q'' - b| up to this fraction of |b| (row-scaled) in the released
  /// combination of rows is drift, not a contradiction: those accelerations are used and the
  /// state counts as well posed (AccelerationStatus::leastSquares). Beyond it the dense solver
  /// decides; it also tolerates this much when it finds rank A < m. 0: never tolerate.
  double singularInconsistency = 1e-3;
  /// Structured path: when false, a state it cannot answer is not handed to the dense solver
  /// (O(n^3) time, O(n^2) memory): calcAccelerations returns undecided, `structured` false and
  /// not ok(). For callers that weigh the dense cost first (`check` of a large model).
  bool denseFallback = true;
};

/// The DynamicSystem of a Model: accelerations with a well-posedness check at every
/// evaluation (ModelSystemOptions::path: a fast path, else the dense reference solver with
/// the full rank diagnosis), drift control on the model's constraint rows.
///
/// This is the only place in the integration path that knows Model. The evaluation buffers
/// (ModelWorkspace, residual vectors, the metric W, the fast-path factors) are allocated once,
/// in the constructor (the structured path's elimination at the first evaluation); the
/// structured path does not allocate per evaluation, the dense solver and the pseudo-inverses
/// do. Models with more than kDenseLimit entries in M and A get their dense matrices (and the
/// dense metric of the projections) only when first needed.
namespace detail {
struct SystemContext;
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
  /// M, A and the applied forces' Jacobians dQ/dq, dQ/dq' by forward differences of Q alone,
  /// the columns grouped by a colouring of the body-force graph (coordinates whose bodies share
  /// no force element perturbed together): model_system_linearization.cpp.
  bool calcForceLinearization(const State& s, ForceLinearization& out) override;

  const ModelSystemOptions& options() const noexcept { return options_; }
  /// Evaluations answered by the fast path / by the dense solver so far.
  long long fastEvaluations() const noexcept { return fastCount_; }
  long long denseEvaluations() const noexcept { return denseCount_; }
  /// Of the fast evaluations, those answered by the structured (sparse) path.
  long long structuredEvaluations() const noexcept { return structuredCount_; }
  /// Of the structured evaluations, those that reused the factorization already made at their
  /// state (by the velocity projection of that state, or an evaluation there): the same
  /// factor bit for bit, without assembling and factorizing it again.
  long long reusedFactorizations() const noexcept;
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
  /// The first case of calcMultipliers alone: the last evaluation's own multipliers when they
  /// are those of `s` (returns true), nothing otherwise (false; `out` may have been resized).
  bool lastMultipliers(const State& s, JointMultipliers& out);
  /// Forgets what it keeps for the state of its last evaluation (a factorization, multipliers):
  /// to be called when the rows at a state change, i.e. a one-sided row joined or left the
  /// active set (one_sided_handler.hpp).
  void forgetCachedState();
  /// After projectVelocities: the impulses of its correction, M (v - v0) = A^T P over every
  /// row, when the structured steps made it with no row released (unique: the projection's own
  /// multipliers, no solve; an impact's impulses, one_sided_handler.hpp). False otherwise (the
  /// dense steps, released rows, nothing to project); the caller then recovers them.
  bool lastVelocityCorrectionImpulses(VectorXd& P) const;
  /// The blocks of the last evaluation or projection (after projectVelocities: M and the rows
  /// at the projected state's q).
  const ModelWorkspace& workspace() const noexcept { return ws_; }

 private:
  /// The parts behind this class (model_system_parts.hpp): the structured path, the dense
  /// paths and the projector, with the buffers they share.
  struct Parts;
  detail::SystemContext context();
  /// Allocates the dense M and A of the workspace (and the parts' dense buffers) when it was
  /// created without them (models too large for dense matrices get them only when the dense
  /// solver or a projection needs them).
  void ensureDense();
  /// The Baumgarte-modified right-hand side of the rows into Parts::bmod.
  void modifyRhs(const Baumgarte& stab);
  /// The structured path; a failed check sends the whole model to the dense reference solver
  /// (in a model of several connected components only the components that fail).
  void evaluateStructured(const State& s, VecRef qdd, const Baumgarte& stab, AccelerationStatus& st);
  /// The dense metric path (path DenseMetric) or the dense reference solver (path Dense).
  void evaluateDense(const State& s, VecRef qdd, const Baumgarte& stab, AccelerationStatus& st);
  /// Least-W-norm Gauss-Newton projection of s.q (positions) or s.v (velocities) onto the
  /// holonomic / velocity-level rows: structured steps when the path serves, else dense.
  ProjectionReport project(State& s, const ProjectionOptions& opt, bool positions);

  const Model& model_;
  ModelSystemOptions options_;
  DenseSolver solver_;
  long long fastCount_ = 0, denseCount_ = 0, structuredCount_ = 0;
  ModelWorkspace ws_;
  std::unique_ptr<Parts> parts_;
  struct Linearizer;  // calcForceLinearization's workspace and colouring (built on first use)
  std::shared_ptr<Linearizer> lin_;
};

}  // namespace joinery
