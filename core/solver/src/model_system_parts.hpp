#pragma once
// Private to joinery::core: the three parts behind ModelSystem (model_system.hpp), each with
// the buffers it needs, sized once for the model:
//   DensePath       the dense metric fast path and the dense reference solver
//                   (model_system_dense.cpp)
//   StructuredPath  the structured (sparse) path over the body-joint graph, its per-component
//                   dense fallback and the cache of its multipliers (model_system_structured.cpp)
//   Projector       drift control of positions and velocities (model_system_projection.cpp)
// ModelSystem (model_system.cpp) owns the model's workspace, chooses the path
// (ModelSystemOptions::path, the one switch) and counts the evaluations.
#include <Eigen/Dense>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "joinery/core/errors.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/nonfinite_source.hpp"
#include "sparse_path.hpp"

namespace joinery {

namespace detail {

/// What every part reads: the model, the options, the dense solver and the model's workspace
/// (ModelSystem's own; the parts write its evaluation buffers).
struct SystemContext {
  const Model& model;
  const ModelSystemOptions& options;
  const DenseSolver& solver;
  ModelWorkspace& ws;
  /// The model's coordinateScales() (n): the dense paths decide and factorize in the scaled
  /// coordinates q = D q~, so that a rigid body's angles and translations compare at any scale.
  const VectorXd& columnScale;
};

/// A non-finite model value met by the dense solver: the status says so, naming the entry and
/// the element of the model it comes from (a cold path: it evaluates each element alone).
inline void reportNonFinite(const Model& model, const State& s, const NonFiniteError& e, AccelerationStatus& st) {
  st.finite = false;
  st.rankA = -1;
  std::ostringstream os;
  os << "non-finite model value at t = " << s.t << ": " << e.what();
  if (const std::string source = describeNonFiniteSource(model, s); !source.empty()) os << "; it comes from " << source;
  st.message = os.str();
}

/// Models with more entries than this in M and A (n^2 + m n) get their dense matrices only when
/// the dense solver or a projection first needs them (80 MB of doubles).
constexpr double kDenseLimit = 1e7;
/// On the structured path (the automatic choice) the dense matrices are allocated up front only
/// below this many entries (about 200 coordinates, under 1 MB): a model that the structure
/// answers never pays for them (a 256-link 3-D chain allocated and zeroed 200 MB, 0.7 s of its
/// start); a larger one allocates them when the dense solver first needs them.
constexpr double kDenseUpFrontStructured = 1e5;

/// The unit factor of row i of A D for the zero-row test (as the dense solver's denseRowUnits):
/// 1 for a row on some coordinate of scale 1 (a length), 1/min D_j over its coordinates for a
/// row only on angles (a driver of an angle, a quaternion's norm). No allocation.
template <typename Row>
double rowUnitFactor(const Row& row, const VectorXd& D) {
  double dmin = 0;
  for (Eigen::Index j = 0; j < row.size(); ++j) {
    if (row(j) == 0) continue;
    if (D(j) == 1.0) return 1.0;
    dmin = dmin == 0 ? D(j) : std::min(dmin, D(j));
  }
  return dmin > 0 ? 1.0 / dmin : 1.0;
}

/// Max |x_i| over the listed rows; `at` receives the row (or -1).
inline double maxAbsRows(const VectorXd& x, const std::vector<int>& rows, int& at) {
  double r = 0;
  at = -1;
  for (int i : rows) {
    const double a = std::abs(x(i));
    if (!(a <= r)) {  // also catches NaN
      r = a;
      at = i;
    }
  }
  return r;
}

inline double maxAbsRows(const VectorXd& x, const std::vector<int>& rows) {
  int at = -1;
  return maxAbsRows(x, rows, at);
}

/// Least-W-norm solution of J x = g for row-scaled J (k x n), given the Cholesky factor of W:
///     x = Y mu,  Y = W^-1 J^T,  S mu = g,  S = J Y,
/// with S mu = g solved by K steps of iterated Tikhonov regularization
///     mu_0 = 0,  mu_{j+1} = mu_j + (S + lambda I)^-1 (g - S mu_j),  lambda = reg * max S_ii.
/// On an eigen-direction of S with eigenvalue s the error factor is (lambda / (s + lambda))^K:
/// exact to round-off where the rows are well conditioned, smoothly released where a
/// combination of rows becomes dependent (s << lambda). Buffers sized once.
class MetricSolve {
 public:
  void resize(Eigen::Index n, Eigen::Index k) {
    Y = MatrixXd::Zero(n, k);
    S = MatrixXd::Zero(k, k);
    Sr = MatrixXd::Zero(k, k);
    mu = VectorXd::Zero(k);
    dmu = VectorXd::Zero(k);
    // (the factorization allocates its k x k storage on first use; Eigen's decompositions are
    // not assigned here: their status members start uninitialized)
  }
  /// Returns false if the regularized factorization fails (non-finite input).
  bool solve(const Eigen::LLT<MatrixXd>& W, const MatrixXd& J, const VectorXd& g, double reg,
             int iterations, VectorXd& x) {
    Y = J.transpose();
    W.solveInPlace(Y);
    S.noalias() = J * Y;
    double smax = 0;
    for (Eigen::Index i = 0; i < S.rows(); ++i) smax = std::max(smax, S(i, i));
    Sr = S;
    Sr.diagonal().array() += reg * (smax > 0 ? smax : 1.0);
    llt.compute(Sr);
    if (llt.info() != Eigen::Success) return false;
    mu.setZero();
    dmu = g;
    for (int j = 0; j < std::max(1, iterations); ++j) {
      llt.solveInPlace(dmu);
      mu += dmu;
      dmu = g;
      dmu.noalias() -= S * mu;
    }
    x.noalias() = Y * mu;
    return x.allFinite();
  }

  MatrixXd Y, S, Sr;
  VectorXd mu, dmu;
  Eigen::LLT<MatrixXd> llt;
};

/// Posedness, ranks, inconsistency and message of a dense solution `sol` of rows A, right side
/// b (the dense reference solver's answer, for the whole model or some of its components).
/// `columnScale`: the column scale the solve was given (empty: none).
void describeDenseSolution(const SystemContext& ctx, const State& s, const Solution& sol,
                           const MatrixXd& A, const VectorXd& b, AccelerationStatus& st,
                           const VectorXd& columnScale);

/// The dense paths on the whole model (ws.M, ws.Q, ws.A): the metric fast path
///     W = M + rho As^T As  (As: rows of A scaled to unit norm, rho = max M_ii),
/// positive definite exactly when [M; A] has full column rank, with the multipliers of
/// S = As W^-1 As^T by iterated Tikhonov regularization; and the dense reference solver, which
/// decides and explains every state a fast path does not take.
class DensePath {
 public:
  /// Allocates the dense buffers (n coordinates, m rows): at construction for small models,
  /// when first needed for large ones.
  void allocate(Eigen::Index n, Eigen::Index m, double regularization);
  /// Scales the rows of ws.A and factorizes W from ws.M, ws.A. False when W is not positive
  /// definite or its reciprocal condition is below fastPathRcond.
  bool factorizeMetric(const SystemContext& ctx);
  /// The metric fast path with right side `b`; false when a check fails.
  bool solveMetric(const SystemContext& ctx, const VectorXd& b, VecRef qdd, AccelerationStatus& st);
  /// The dense reference solver with right side `b` (non-ideal joints: two solves).
  void solveReference(const SystemContext& ctx, const State& s, const VectorXd& b, VecRef qdd,
                      AccelerationStatus& st);
  /// Multipliers of every row at `s` by the dense reference solver (its own workspace).
  void referenceMultipliers(const SystemContext& ctx, const State& s, JointMultipliers& out);
  /// The Cholesky factor of W from the last factorizeMetric().
  const Eigen::LLT<MatrixXd>& metric() const noexcept { return llt_; }

 private:
  MatrixXd As_;                      // m x n: rows of A scaled to unit norm
  VectorXd rowScale_, bs_, g_, res_;  // m
  VectorXd z_, dx_;                  // n
  MatrixXd W_;                       // n x n metric D M D + rho As^T As (As: rows of A D)
  Eigen::LLT<MatrixXd> llt_;
  MetricSolve all_;                  // on all rows
  Eigen::CompleteOrthogonalDecomposition<MatrixXd> rankS_;  // rank report of the metric path
  Solution last_;                    // of the reference solver
  std::optional<ModelWorkspace> multWs_;  // referenceMultipliers' workspace (when needed)
};

/// The structured path (sparse_path.hpp) on the blocks of the workspace; components it cannot
/// answer go to the dense reference solver one by one.
class StructuredPath {
 public:
  /// How solve() ended.
  enum class Outcome {
    Failed,           ///< a check failed: the whole model goes to the dense solver
    Solved,           ///< every component through the structure
    SolvedInPart      ///< some components by the dense reference solver
  };
  /// Sizes the buffers and sets up the block graph of the model (allocates).
  void setup(const SystemContext& ctx);
  /// True once M was validated (validateBlocks, or by the dense solver: markValidated).
  bool validated() const noexcept { return validated_; }
  void markValidated() noexcept { validated_ = true; }
  /// Validates M (symmetric, positive semi-definite), which the fast paths take for granted,
  /// block by block, once. O(n); a failing block leaves it unvalidated (the dense solver names
  /// the entry and throws). Validating through the dense solver instead cost O(n^3) at the
  /// start of every run: 50-80 s for a 256-link chain.
  void validateBlocks(const SystemContext& ctx, const VectorXd& b);
  /// Before the first evaluation (a projection of the initial state): validates M and analyzes
  /// the elimination from the blocks in ctx.ws, so that the projector can use the structure
  /// instead of a dense O(n^3) metric. Allocates once (the analysis).
  void prepare(const SystemContext& ctx, const VectorXd& b);
  /// Accelerations from the blocks in ctx.ws with right side `b`.
  Outcome solve(const SystemContext& ctx, const State& s, const VectorXd& b, VecRef qdd,
                AccelerationStatus& st);
  /// True when elimination is set up and M validated: the projector may use the structure.
  bool serves() const noexcept { return validated_ && kkt_.analyzed(); }
  /// The factorization, for the projector's own solves: the multipliers of the last solve,
  /// still read from it on demand, are copied out first (holdMultipliers).
  BlockKkt& kkt() {
    holdMultipliers();
    return kkt_;
  }

  /// What the factorization in kkt() is of, for reuse (noteFactor is called after every
  /// factorization: solve(), the projector's structured steps). It is reusable when it was
  /// assembled from the blocks of one state `s` (M at (t, q), the rows at (t, q) and, where a
  /// row is not position-level, v: its Jacobian may depend on the velocities) with every row,
  /// and no pivot was replaced at the threshold of regularization `lambda`. An evaluation at
  /// that state with a regularization of at most `lambda` assembles the same matrix and would
  /// compute the same factor bit for bit (the threshold only decides replacements): solve()
  /// skips the assembly and the factorization. This is the velocity projection of a sample or
  /// of a step's end followed by an evaluation at the projected state (an output channel
  /// needing accelerations or joint results; the integrator's first stage after the step).
  /// `allRows`: the factorization holds every row (a projection's mask selected them all), for
  /// chordFits, which needs no particular state.
  void noteFactor(const State& s, bool reusable, bool allRows, const SparseOutcome& out, double lambda);
  /// True when the factorization in kkt() may start a projection's Gauss-Newton steps as a
  /// chord (the projector then checks that the residual falls): it holds every row, factorized
  /// with no pivot replaced and none that a factorization at regularization `lambda` would have
  /// replaced (with a margin of 2: it was made at another, nearby state, usually the step's last
  /// evaluation).
  bool chordFits(double lambda) const;
  /// Factorizations reused so far (tests, benchmarks).
  long long reusedFactorizations() const noexcept { return reused_; }

  /// The multipliers of the last solve, kept for calcMultipliers at the same state.
  void forgetMultipliers() noexcept { multReady_ = multPending_ = false; }
  /// Forgets the factorization and the multipliers kept for a state (the model's rows at that
  /// state changed: a one-sided row joined or left the active set).
  void forgetState() noexcept {
    factorReady_ = chordReady_ = false;
    forgetMultipliers();
  }
  /// After a successful solve at `s`: keeps the state its multipliers belong to (stabilized
  /// evaluations do not count: their multipliers are not the model's).
  void keepMultipliersOf(const State& s, bool stabilized);
  /// True (and `out` filled, no allocation once sized) when the last solve was at `s`.
  bool cachedMultipliers(const State& s, JointMultipliers& out) const;

 private:
  /// Non-ideal joints: C from the ideal solve's multipliers, then the solve with Q + C on the
  /// same factorization. False: the dense solver decides.
  bool addNonidealWork(const SystemContext& ctx, const State& s, const VectorXd& b, VecRef qdd,
                       const SparseOutcome& ideal, double bsNorm);
  /// The components in denseComps_ by the dense reference solver, as a problem of their own.
  void solveComponentsDense(const SystemContext& ctx, const State& s, const VectorXd& b, VecRef qdd,
                            AccelerationStatus& st);

  /// The multipliers of the last solve into lamIdeal_, lamTotal_ when they are still only in
  /// kkt_ (multPending_: a solve leaves them there, and most evaluations are never asked for
  /// them; this pass over the rows and the copy were 2 % of an evaluation of a large chain).
  void holdMultipliers();
  /// True when the factorization in kkt_ can answer an evaluation at `s` (noteFactor).
  bool factorFits(const State& s, double lambda) const;

  BlockKkt kkt_;
  bool validated_ = false;
  // the state of the reusable factorization (noteFactor); v only when a row's Jacobian may
  // depend on it
  VectorXd factorQ_, factorV_;
  double factorT_ = 0, factorLambda_ = 0;
  bool factorReady_ = false, rowsNeedV_ = true;
  bool chordReady_ = false;  // the factorization in kkt_ holds every row, none replaced (chordFits)
  long long reused_ = 0;
  std::vector<int> denseComps_;         // components handed to the dense solver
  VectorXd lambda_, qc_;                // non-ideal joints
  // multipliers of the last solve (calcMultipliers), at state (t, q, v)
  VectorXd lamIdeal_, lamTotal_, lastQ_, lastV_;
  double lastT_ = 0;
  bool multReady_ = false;
  bool multPending_ = false;  // multReady_ with the multipliers still in kkt_ (holdMultipliers)
};

/// Drift control: least-W-norm Gauss-Newton projection of positions onto the holonomic rows
/// and of velocities onto the velocity-level rows, through the structured path when it serves
/// the model, the dense metric otherwise. Also the rows' residuals.
class Projector {
 public:
  /// Sorts the rows by level and sizes the buffers (allocates).
  void setup(const SystemContext& ctx);
  /// Allocates the dense buffers (see DensePath::allocate).
  void allocate(Eigen::Index n);
  const std::vector<int>& holonomicRows() const noexcept { return holonomic_; }
  const std::vector<int>& velocityRows() const noexcept { return velocity_; }

  /// One projection (positions or velocities) of a state; r: the model's phi or psi buffer.
  struct Run {
    Run(State& state, bool positions_, VectorXd& errors) : s(state), positions(positions_), r(errors) {}
    State& s;
    bool positions;
    VectorXd& r;
    double tol = 0;
    double best = 0;
    double lambda = 0;    // regularization of the steps
    int iterations = 0;   // of the regularized solve per step
    ProjectionReport rep;
  };
  /// Residual at the start, tolerance, regularization. False: nothing to do (rep is final).
  bool begin(const SystemContext& ctx, const ProjectionOptions& opt, Run& run);
  /// Gauss-Newton steps on the structure. False when the first step failed (the state is
  /// restored: the dense steps take over).
  /// Every factorization is noted in `sp` (StructuredPath::noteFactor).
  bool structuredSteps(const SystemContext& ctx, const ProjectionOptions& opt, StructuredPath& sp, Run& run);
  /// Gauss-Newton steps on the dense metric W (factorized at the starting point).
  void denseSteps(const SystemContext& ctx, const ProjectionOptions& opt,
                  const Eigen::LLT<MatrixXd>& metric, Run& run);
  /// The best iterate into the state; the report.
  ProjectionReport finish(Run& run);
  /// After a velocity projection by the structured steps whose factorizations released no
  /// row (zero rows aside): the multipliers P of its correction, M (v - v0) = A^T P (an
  /// impact's impulses), summed over the steps up to the best iterate. False otherwise.
  bool correctionMultipliers(VectorXd& P) const;
  /// Forgets them (every projection starts so).
  void forgetCorrectionMultipliers() noexcept { impulsesValid_ = false; }

 private:
  double residual(const SystemContext& ctx, Run& run);

  std::vector<int> holonomic_;     // rows with a position-level residual (phi)
  std::vector<int> velocity_;      // rows with a velocity-level residual (phi' or psi)
  std::vector<char> maskH_, maskV_;  // the same as masks (structured steps)
  VectorXd x0_, best_, dx_;        // n
  VectorXd rhsRows_;               // m
  MatrixXd rowsH_, rowsV_;         // mh x n, mv x n (scaled rows, dense steps)
  VectorXd rhsH_, rhsV_;           // mh, mv
  MetricSolve hol_, vel_;          // on the holonomic / velocity-level rows
  // the multipliers of a velocity projection's steps (correctionMultipliers): their sum, the
  // sum up to the best iterate, one step's
  VectorXd impulseSum_, impulseBest_, stepImpulse_;  // m
  bool impulsesValid_ = false;
};

}  // namespace detail

/// ModelSystem's parts and the buffers they share: the constraint errors (Baumgarte, drift
/// control) and the right-hand side of the evaluation.
struct ModelSystem::Parts {
  VectorXd phi, psi, bmod;  // m
  VectorXd columnScale;     // n: coordinateScales(model)
  detail::DensePath dense;
  detail::StructuredPath structured;
  detail::Projector projector;
};

}  // namespace joinery
