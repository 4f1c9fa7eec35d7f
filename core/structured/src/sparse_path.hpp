#pragma once
// Private to joinery::core. The structured ("sparse") fast path of ModelSystem: the
// singular-mass equation of a well-posed model solved through the body-joint graph.
//
// Unknowns: the coordinates' accelerations x (per body) and one multiplier-like variable y per
// constraint row. With the rows of A scaled to unit norm (As, bs) and P the set of
// "penalized" rows (every body's internal rows, and the joint rows of bodies whose own metric
// is singular), the quasi-definite system
//
//     [ W    As^T ] [x]   [ Q  ]      W = M + rho As_P^T As_P   (block sparse, rho = max M_ii)
//     [ As   0    ] [y] = [ bs ]
//
// is factorized once per evaluation by a block LDL^T in an elimination order from the graph
// (minimum degree; a joint once every one of its rows touches an eliminated body; zero
// fill-in on trees and chains). Coordinate pivots must be positive (W positive definite:
// [M; A] of full rank); a row pivot above -tau (tau = regularization / rho: a row dependent,
// or nearly so, on the rows eliminated before it) is replaced by -tau (static pivoting) and
// counted as released. Iterative refinement of the unregularized system on that
// factorization then meets redundant, consistent rows exactly and releases a combination
// that becomes nearly dependent at a singular position (the replaced pivot acts as a local
// Tikhonov term); without a replaced pivot one solve is the answer. Storage and the
// elimination are set up once; an evaluation does not allocate.
#include <vector>

#include "joinery/core/model.hpp"
#include "joinery/core/large_pages.hpp"
#include "joinery/core/types.hpp"

namespace joinery::detail {

/// Weight of |x| in the residual scale |bs| + kResidualScaleX |x| (SparseOutcome::scale).
inline constexpr double kResidualScaleX = 1e-4;

/// Outcome of one structured solve.
struct SparseOutcome {
  bool factorized = false;  ///< false: a pivot had the wrong sign, was tiny or not finite
  int failedComponents = 0; ///< connected components whose factorization failed (failedComponent())
  bool solvable = false;    ///< at least one component factorized (the others are solved)
  bool finite = true;
  int released = 0;         ///< replaced row pivots: redundant or nearly dependent rows, and zero rows
  int dependent = 0;        ///< of them, rows dependent to round-off (|pivot| < 1e-8 / rho)
  int zeroRows = 0;         ///< of them, zero rows (BlockKkt::zeroRows): decoupled, no refinement needed
  /// The released rows that are not zero rows: redundant or nearly dependent rows. A zero row
  /// (an inactive one-sided row) is decoupled with multiplier 0 and changes nothing of the
  /// others; counting it as released sent the velocity projection to a second factorization
  /// and non-ideal models to the dense solver.
  int releasedNonzero() const noexcept { return released - zeroRows; }
  int iterations = 0;
  double residual = 0;      ///< |As x - bs| (2-norm)
  double rhsNorm = 0;       ///< |bs|
  /// |bs| + kResidualScaleX |x|: the scale of the residual. At rest bs = 0, and the round-off
  /// of As x (unit rows) scales with the accelerations |x|; the factor keeps a contradiction in
  /// b from hiding behind large accelerations (it would have to be below 1e-13 |x|).
  double scale = 0;
};

class BlockKkt {
 public:
  /// Sets up the node graph of `model` (bodies, row blocks). Allocates.
  void setup(const Model& model, double zeroRow, double pivotTolerance);
  /// Chooses the penalized rows from the body blocks in `ws` (a body whose mass block plus its
  /// internal rows is not safely positive definite gets its joint rows penalized) and computes
  /// the elimination order and storage. Allocates; done once (first evaluation).
  void analyze(const ModelWorkspace& ws);
  bool analyzed() const noexcept { return analyzed_; }

  /// Accelerations x (n) from the blocks in `ws` (bodyMass, rowBlockRows, Q) and the
  /// right-hand side `b` (m; Baumgarte-modified). No allocation.
  SparseOutcome solve(const ModelWorkspace& ws, const VectorXd& b, double regularization,
                      int maxIterations, VecRef x);
  /// solve() on the last factorization, which the caller knows to be of the matrix the blocks
  /// in `ws` assemble (every row, no pivot replaced, no component failed): the substitutions,
  /// the refinement and the residuals, without assembly or factorization. The same answer as
  /// solve(), bit for bit (the same operations in the same order). No allocation.
  SparseOutcome solveFactored(const ModelWorkspace& ws, const VectorXd& b, int maxIterations, VecRef x);
  /// The two halves of solve(). factor(): assembles and factorizes from the blocks in `ws`;
  /// rows whose `rowMask` entry is 0 are left out (nullptr: all rows). iterate(): x from the
  /// right-hand sides `q` (n; nullptr: zero) and `b` (m, unscaled) on the last factorization.
  /// With `b` (m, unscaled; `q`: n, nullptr: zero), factor() also forward-substitutes the
  /// right-hand side [q; bs] during the factorization, and iterate(..., forwardDone = true)
  /// starts from it (same q and b).
  SparseOutcome factor(const ModelWorkspace& ws, const std::vector<char>* rowMask,
                       double regularization, const VectorXd* q = nullptr, const VectorXd* b = nullptr);
  /// stopResidual > 0: the refinement also stops once every row's residual |A x - b|_i
  /// (unscaled) is at most stopResidual (a projection step needs no more than its tolerance).
  void iterate(const ModelWorkspace& ws, const VectorXd* q, const VectorXd& b, int maxIterations,
               VecRef x, SparseOutcome& out, bool forwardDone = false, double stopResidual = 0);
  /// The smallest |row pivot| of the last factorization and its rho (max M_ii). With no pivot
  /// replaced, a factorization at a regularization lambda would replace none while this is at
  /// least lambda / rho: the projector's test for reusing a factorization made at a nearby
  /// state (StructuredPath::chordFits). O(nodes); +inf without rows.
  double smallestRowPivot() const;
  double lastRho() const noexcept { return lastRho_; }
  /// max_i |r_i| / |A_i| over the rows of the last factorization (r: m, in the rows' units):
  /// a residual in the unit-norm rows the factorization solves with.
  double scaledMaxAbs(const VectorXd& r) const;
  /// Rows of the last factorization that were zero (scaled to 0: identically zero, e.g. an
  /// inactive one-sided row, or left out by the mask). Each is one of the released pivots
  /// (its pivot is exactly 0) and its multiplier is 0: with no other pivot released the
  /// multipliers of the other rows are unique, and one solve is exact.
  int zeroRows() const noexcept { return zeroRows_; }
  /// Multipliers lambda (m) of the last solve: the constraint force is A^T lambda.
  /// (Minimum-norm only where the rows are independent.)
  void lastMultipliers(VecRef lambda) const;

  /// Connected components of the body-joint graph (joints to the ground do not connect them).
  /// After a solve in which some failed (SparseOutcome::failedComponents), their coordinates are
  /// 0 in x and their rows are left out of the residual; the caller solves them apart.
  int numComponents() const noexcept { return numComps_; }
  bool failedComponent(int c) const { return compFailed_[static_cast<std::size_t>(c)] != 0; }
  /// Component of a body slot (-1: no coordinates) and of a row.
  int bodyComponent(int slot) const {
    const int k = bodyNode_[static_cast<std::size_t>(slot)];
    return k < 0 ? -1 : nodeComp_[static_cast<std::size_t>(k)];
  }
  int rowComponent(int row) const { return rowComp_[static_cast<std::size_t>(row)]; }
  /// |As x - bs| and |bs| of a component after the last solve.
  double componentResidual(int c) const { return compResidual_[static_cast<std::size_t>(c)]; }
  double componentRhsNorm(int c) const { return compRhs_[static_cast<std::size_t>(c)]; }
  /// |bs| + kResidualScaleX |x| of a component (the residual's scale, SparseOutcome::scale).
  double componentScale(int c) const {
    return compRhs_[static_cast<std::size_t>(c)] + kResidualScaleX * compX_[static_cast<std::size_t>(c)];
  }

  /// Figures of the structure (for docs and tests).
  int numNodes() const noexcept { return static_cast<int>(nodes_.size()); }
  long long storedEntries() const noexcept { return static_cast<long long>(val_.size()); }
  long long fillBlocks() const noexcept { return fillBlocks_; }

 private:
  struct Node {
    bool body = false;
    int index = -1;      // body slot index or row block index
    int nq = 0;          // coordinates (body)
    int nr = 0;          // rows (row block, or the body's internal rows)
    int qOffset = 0;     // global coordinate offset (body)
    int rowOffset = 0;   // global first row (row block, or the body's internal rows)
    int internalBlock = -1;  // row block of the body's internal rows
    int size() const { return nq + nr; }
    // numeric layout
    int pos = -1;        // elimination position
    int varOffset = 0;   // offset in the permuted variable vector
    int diag = 0;        // offset of the diagonal block (size x size, packed lower triangle)
    int firstLater = 0, numLater = 0;  // range in later_
  };
  /// nodeComp_ and numComps_ from the body-joint graph's components (analyzeGraph).
  void assignComponents();
  // The steps of analyze():
  /// Rows that enter the metric W (internal rows; joint rows of bodies whose own metric is
  /// nearly singular) into penalized_.
  void markPenalizedRows(const ModelWorkspace& ws);
  /// The block graph, its connected components and the greedy elimination order (order_,
  /// fillBlocks_); returns each node's later neighbours.
  std::vector<std::vector<int>> orderElimination(const ModelWorkspace& ws);
  /// Positions, diagonal and coupling block offsets, storage and the Schur update list.
  void layoutStorage(std::vector<std::vector<int>>& laterOf);
  /// The assembly jobs, in storage order.
  void planAssembly();
  struct Later {
    int node;            // the later neighbour i
    int block;           // offset of block (i, k): size_i x size_k, column-major; after the
                         // factorization B'_i = L_ik D (sparse_kernels.hpp, lowerSolveInPlace)
  };
  struct Update {        // block(i, j) -= B'_i D^-1 B'_j^T for later neighbours i, j of k
    int a, b;            // indices into later_ (a: i, b: j)
    int target;          // offset of the target block (size_i x size_j column-major)
    int ld;              // leading dimension of the target (size_i)
  };

  struct AsmJob {         // assembly of one stored block (assemble())
    enum Kind : char { BodyDiagonal, RowDiagonal, RowBlockOfBody, BodyBlockOfRow, Zero };
    Kind kind;
    int target;          // offset of the block in val_
    int node;            // diagonal: the node; copies: the row node; Zero: the column's node
    int other;           // copies: the body node; Zero: the later neighbour
    int col;             // copies: first column of the body in the row block's rows
    bool zero = true;    // copies: zero the block first (the first copy of it)
  };

  int blockOf(int k, int i) const;  // offset of stored block (i, k), pos(i) > pos(k)
  void assemble(const ModelWorkspace& ws, const std::vector<char>* rowMask, double rho, double delta);
  /// The parts of assemble(): the row scaling (rowScale_), the jobs [first, last) and the
  /// penalized joint rows.
  void scaleRows(const ModelWorkspace& ws, const std::vector<char>* rowMask);
  void runJobs(const ModelWorkspace& ws, int first, int last, double rho, double delta);
  /// Prefetches the workspace blocks the jobs of position p read (fused assembly: they were
  /// written a whole pass earlier and, on a large model, left the cache since).
  void prefetchJobSources(const ModelWorkspace& ws, std::size_t p) const;
  void addPenalizedRows(const ModelWorkspace& ws, double rho);
  /// Returns the number of components that failed (compFailed_). z: fused forward solve.
  /// fusedWs: run the assembly jobs of each position just before it (fusedAssembly_; the rows
  /// already scaled), instead of a whole assembly before.
  int factorize(double rho, double delta, int& released, int& dependent, double* z,
                const ModelWorkspace* fusedWs = nullptr);
  void solveInPlace(VectorXd& z, bool forwardDone = false) const;
  void loadRhs(const VectorXd* q, const VectorXd& b);  // bs_ and z_ = [q; bs] (elimination order)
  void applyAs(const ModelWorkspace& ws, const VectorXd& x, VectorXd& u) const;  // u = As x
  /// (A x)_g of every row g, unscaled, handed to store(g, value) in row order (applyAs and
  /// the final residual of iterate(): one pass over the row blocks for both).
  template <class Store>
  void forEachRowProduct(const ModelWorkspace& ws, const VectorXd& x, Store&& store) const;
  void residual(const ModelWorkspace& ws, const VectorXd* q);  // of [W As^T; As 0] at (xk_, y_)

  const Model* model_ = nullptr;
  double zeroRow_ = 1e-13, pivotTol_ = 1e-12;
  bool analyzed_ = false;
  std::vector<Node> nodes_;
  std::vector<int> order_;            // node indices in elimination order
  std::vector<int> bodyNode_;         // slot index -> node (-1: no coordinates)
  std::vector<int> rowNode_;          // row block -> node (internal: the body's node)
  std::vector<char> penalized_;       // per row block
  std::vector<Later> later_;
  std::vector<Update> updates_;
  std::vector<int> updFirst_;         // per position: first update
  std::vector<AsmJob> jobs_;          // assembly, by first touch (storage order within a position)
  std::vector<int> jobFirst_;         // per position: first job first touched there (+ end)
  bool anyPenalizedJointRow_ = false; // a joint's rows enter W (addPenalizedRows has work)
  bool fusedAssembly_ = false;        // the jobs run inside factorize() (no penalized joint rows)
  // fused assembly with a right-hand side: the diagonal jobs load each node's part of z_ = [q; bs]
  // (and bs_) just before the forward substitution first reaches it (what loadRhs does at once)
  const VectorXd* jobQ_ = nullptr;
  const VectorXd* jobB_ = nullptr;
  void loadNodeRhs(const Node& nd);
  std::vector<int> nodeComp_, rowComp_;  // connected component of each node / row
  int numComps_ = 0;
  std::vector<char> compFailed_;      // per component: the last factorization failed
  bool anyFailed_ = false;
  std::vector<double> compResidual_, compRhs_, compX_;
  LargePageVector<double> val_;       // all blocks (diagonal ones packed lower)
  std::vector<double> work_;          // scratch of the largest node's size (ldltDiagonal)
  LargePageVector<double> dinv_, dpiv_;  // per variable (permuted): 1 / pivot, pivot
  VectorXd rowScale_, bs_, z_, y_, res_, mu_, rx_, xk_;
  long long fillBlocks_ = 0;
  int totalVars_ = 0;
  int zeroRows_ = 0;
  /// Per node: a row node whose rows are all zero in the last factorization (scaleRows: inactive
  /// one-sided rows, masked rows). Its coupling blocks are zero and stay zero, so the
  /// elimination and the substitutions skip every product with them (exactly: they would add
  /// zeros); a chain with 100 contacts not touching otherwise did half again the work of the
  /// chain without them.
  std::vector<char> zeroNode_;
  double lastRho_ = 1, lastDelta_ = 0;
};

}  // namespace joinery::detail
