#pragma once
/// @file model.hpp
/// The assembled model: bodies, constraints and force elements with a fixed coordinate layout.
/// Immutable once built; evaluated at a State into a pre-sized Workspace with no heap
/// allocation (see ModelWorkspace). The model's graph analysis lives in graph.hpp.

#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "joinery/core/body.hpp"
#include "joinery/core/constraint.hpp"
#include "joinery/core/state.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

namespace detail {
/// Doubles on large pages when large (LargePageAllocator, large_pages.hpp: internal, and with
/// it <sys/mman.h>, so it stays out of this header; made in large_page_doubles.cpp). Zeroed by
/// assign(); copies are deep.
class LargePageDoubles {
 public:
  LargePageDoubles() = default;
  LargePageDoubles(const LargePageDoubles& o);
  LargePageDoubles& operator=(const LargePageDoubles& o);
  LargePageDoubles(LargePageDoubles&& o) noexcept;
  LargePageDoubles& operator=(LargePageDoubles&& o) noexcept;
  ~LargePageDoubles();
  /// n entries, each v (allocates).
  void assign(std::size_t n, double v);
  double* data() noexcept { return p_; }
  const double* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }

 private:
  void release() noexcept;
  double* p_ = nullptr;
  std::size_t n_ = 0;
};
}  // namespace detail

/// Where one body's coordinates sit in the global vectors.
struct BodySlot {
  const Body* body = nullptr;
  int offset = 0;  ///< first global coordinate index
  int size = 0;    ///< number of coordinates
};

/// Where one constraint's rows sit: its own rows, or a body's internal constraints.
struct RowBlock {
  const Constraint* constraint = nullptr;  ///< nullptr for a body's internal constraint
  const Body* body = nullptr;              ///< the body, for internal constraints
  int row = 0;                             ///< first global row
  int size = 0;                            ///< number of rows
  std::string name;                        ///< joint name, or "<body>.norm" for internal ones
};

class Model;

/// Pre-sized evaluation buffers for one model: the dense M, Q, A, b, C and every local block.
/// Create one per thread with Model::makeWorkspace(); reuse it for every evaluation.
class ModelWorkspace {
 public:
  MatrixXd M;  ///< n x n
  VectorXd Q;  ///< n
  MatrixXd A;  ///< m x n
  VectorXd b;  ///< m
  VectorXd C;  ///< n

  /// A block of the block evaluation: column-major, a view into the workspace's one store.
  using BlockView = Eigen::Map<const MatrixXd, Eigen::Aligned16>;
  /// Block evaluation (Model::calcBodyBlocks, Model::calcRowBlocks): the mass block of body i
  /// (Model::bodySlots() order, n_i x n_i) and the local rows of row block r (size x the
  /// concatenated coordinates of Model::rowBlockBodies(r)). Views (valid as long as the
  /// workspace): bind them by value or `auto`; a `const MatrixXd&` would copy.
  BlockView bodyMass(std::size_t i) const { return view(bodyM_[i]); }
  BlockView rowBlockRows(std::size_t r) const { return view(rowA_[r]); }
  /// The Euclidean norm of every constraint row (m) of the row blocks above, computed by the
  /// evaluation that wrote them (calcRowBlocks, calcBlocks, and calcVelocityErrors for the
  /// internal rows it rewrites) while they are in the cache: the structured solver scales the
  /// rows by them without another pass over the blocks.
  const VectorXd& rowNorms() const noexcept { return rowNorm_; }
  /// max_i |M_ii| over the body blocks of the last Model::calcBodyBlocks or calcBlocks (0
  /// without coordinates; a NaN entry is skipped, as std::max skips it; an infinite one makes
  /// it infinite).
  double largestMassDiagonal() const noexcept { return massDiagMax_; }
  /// True when M and A are allocated (Model::makeWorkspace(true)).
  bool hasDenseMatrices() const noexcept { return dense_; }

 private:
  friend class Model;
  struct Local {
    std::vector<BodyStateView> views;
    MatrixXd A;
    VectorXd b, vec, g;  // g: A_j^T lambda_j of a non-ideal joint (calcNonidealWork)
    MatrixXd jq, jv;     // local force Jacobians (addAnalyticForceJacobians)
  };
  std::vector<Local> constraints_, forces_;
  /// Where a block sits in blocks_ (offset in doubles, a multiple of 8: each block starts on a
  /// cache line).
  struct Span {
    std::size_t offset = 0;
    int rows = 0, cols = 0;
  };
  BlockView view(const Span& b) const { return BlockView(blocks_.data() + b.offset, b.rows, b.cols); }
  Eigen::Map<MatrixXd, Eigen::Aligned16> block(const Span& b) {
    return Eigen::Map<MatrixXd, Eigen::Aligned16>(blocks_.data() + b.offset, b.rows, b.cols);
  }
  std::vector<Span> bodyM_;  // per body slot
  std::vector<Span> rowA_;   // per row block (block evaluation)
  /// Every block, one after another in the order Model::calcBlocks writes them (each body's
  /// mass block, then its internal rows; then the joints' rows), on large pages when large:
  /// an evaluation of a large model streams through them (large_pages.hpp).
  detail::LargePageDoubles blocks_;
  VectorXd rowNorm_;            // |row| of every row of rowA_ (m)
  // per row block: its rowA_ block and norms hold zeros, written for a joint whose rows were
  // absent (Constraint::rowsAbsent) and left so while they stay absent
  std::vector<char> absentRows_;
  double massDiagMax_ = 0;      // max |M_ii| of bodyM_
  MatrixXd jqBody_, jvBody_;    // a body's own force Jacobians (largest body), for the triplet form
  bool dense_ = true;
};

/// Builds a Model. Owns bodies, constraints and forces until build().
class ModelBuilder {
 public:
  ModelBuilder();
  ~ModelBuilder();
  ModelBuilder(ModelBuilder&&) noexcept;
  ModelBuilder& operator=(ModelBuilder&&) noexcept;

  /// The fixed world body (named "ground", no coordinates).
  const Body& ground() const;
  /// Adds a body; its name must be unique (ModelError otherwise). Returns a stable reference.
  const Body& addBody(BodyPtr body);
  const Constraint& addConstraint(ConstraintPtr c);
  const ForceElement& addForce(ForceElementPtr f);
  /// Uniform gravity (m/s^2, world frame), applied through Body::addGravityForce().
  void setGravity(const Vector3d& g);
  /// The body with this name ("ground" included), or nullptr.
  const Body* findBody(const std::string& name) const;
  std::vector<std::string> bodyNames() const;
  /// The constraint with this name added so far, or nullptr.
  const Constraint* findConstraint(const std::string& name) const;
  /// The names of the constraints added so far, in order.
  std::vector<std::string> constraintNames() const;
  /// Checks that every joint and force refers to bodies of this model and assembles the layout.
  /// @throws ModelError
  Model build();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// An assembled, immutable model.
class Model {
 public:
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  int numCoordinates() const noexcept { return n_; }
  int numConstraintRows() const noexcept { return m_; }
  const Body& ground() const;
  /// Bodies in order (ground excluded).
  const std::vector<BodySlot>& bodySlots() const noexcept { return slots_; }
  /// Global slot of a body (ground: offset 0, size 0).
  const BodySlot& slotOf(const Body& b) const;
  const std::vector<RowBlock>& rowBlocks() const noexcept { return rows_; }
  std::vector<const Body*> bodies() const;
  std::vector<const Constraint*> constraints() const;
  std::vector<const ForceElement*> forces() const;
  const Vector3d& gravity() const noexcept { return gravity_; }
  const Body* findBody(const std::string& name) const;

  /// Global coordinate names "body.coord" (n).
  const std::vector<std::string>& coordinateNames() const noexcept { return coordNames_; }
  /// Names of the constraint rows "joint[k]" (m).
  const std::vector<std::string>& rowNames() const noexcept { return rowNames_; }
  /// The body owning global coordinate i.
  const Body& bodyOfCoordinate(int i) const;

  /// Initial state from the bodies' definitions (t = 0).
  State initialState() const;
  ModelWorkspace makeWorkspace() const;
  /// A workspace with (denseMatrices) or without the dense n x n M and m x n A: a block-only
  /// workspace serves calcBodyBlocks/calcRowBlocks and the error evaluations, for models too
  /// large for dense matrices.
  ModelWorkspace makeWorkspace(bool denseMatrices) const;

  /// Slot indices (bodySlots() order, -1 for the ground) of the bodies whose coordinates the
  /// local rows of row block r span, in local column order (internal rows: their body).
  const std::vector<int>& rowBlockBodies(std::size_t r) const { return rowBodies_[r]; }
  /// Block evaluation, no allocation: the mass block of every body into ws.bodyMass(i) and
  /// Q (as calcMassAndForces) into ws.Q.
  void calcBodyBlocks(const State& s, ModelWorkspace& ws) const;
  /// Block evaluation, no allocation: the local rows of every row block into
  /// ws.rowBlockRows(r) and the right-hand side into ws.b.
  void calcRowBlocks(const State& s, ModelWorkspace& ws) const;
  /// calcBodyBlocks and calcRowBlocks in one call, the same blocks bit for bit: each body's
  /// internal rows are evaluated right after its mass block (its coordinates still in the
  /// cache), then the joints' rows. No allocation.
  void calcBlocks(const State& s, ModelWorkspace& ws) const;

  /// Evaluates M, Q (body forces + gravity + force elements) into ws.M, ws.Q. No allocation.
  void calcMassAndForces(const State& s, ModelWorkspace& ws) const;
  /// Implicit integration (docs/integrators.md, "Radau IIA 5"): adds into dQdq, dQdv (n x n)
  /// the exact dQ/dq, dQ/dq' of every body and force element that provides them
  /// (providesForceJacobians()). No allocation.
  void addAnalyticForceJacobians(const State& s, ModelWorkspace& ws, MatRef dQdq, MatRef dQdv) const;
  /// The same Jacobians as triplets (global row, column, value; appended, duplicates to be
  /// summed), element by element: O(elements), no n x n storage. Allocates only when the
  /// vectors grow.
  void addAnalyticForceJacobians(const State& s, ModelWorkspace& ws, std::vector<Eigen::Triplet<double>>& dQdq,
                                 std::vector<Eigen::Triplet<double>>& dQdv) const;
  /// M (body blocks, from calcBodyBlocks) and A (row blocks, from calcRowBlocks) of the state
  /// last evaluated into `ws` as triplets: every entry of a block up to 16 x 16, zeros
  /// included (a pattern that does not change with the state: radau5 keeps it), larger
  /// blocks without their exact zeros. The triplet form of addAnalyticForceJacobians alike.
  void massAndRowTriplets(const ModelWorkspace& ws, std::vector<Eigen::Triplet<double>>& M,
                          std::vector<Eigen::Triplet<double>>& A) const;
  /// Q of only the bodies and force elements that do not provide Jacobians (the part left to
  /// difference) into ws.Q. No allocation.
  void calcDifferencedForces(const State& s, ModelWorkspace& ws) const;
  /// Evaluates the acceleration-level constraint rows into ws.A, ws.b. No allocation.
  void calcConstraints(const State& s, ModelWorkspace& ws) const;
  /// Position-level residual phi (m entries; zero for non-holonomic rows).
  void calcPositionErrors(const State& s, ModelWorkspace& ws, VecRef phi) const;
  /// Velocity-level residual (m entries; zero for acceleration-level rows).
  void calcVelocityErrors(const State& s, ModelWorkspace& ws, VecRef psi) const;
  /// Non-ideal work vector C (n) from the ideal multipliers `lambdaIdeal` (m; A^T lambda = the
  /// ideal constraint force): each non-ideal joint's law gets its own A_j^T lambda_j (local
  /// rows re-evaluated) and its magnitude Fi. Writes ws.C. No allocation.
  void calcNonidealWork(const State& s, ModelWorkspace& ws, const VectorXd& lambdaIdeal) const;
  bool hasNonideal() const noexcept { return hasNonideal_; }
  /// Total energy pieces at a state.
  double calcKineticEnergy(const State& s) const;
  double calcPotentialEnergy(const State& s) const;
  /// Renormalizes coordinates with internal constraints (quaternions) in place.
  void normalizeCoordinates(VecRef q) const;

 private:
  friend class ModelBuilder;
  Model();
  /// Adds the force elements' generalized forces to ws.Q (shared by the dense and block
  /// evaluations; `differencedOnly`: only those without analytic Jacobians).
  void addElementForces(const State& s, ModelWorkspace& ws, bool differencedOnly = false) const;

  struct Owned;
  std::unique_ptr<Owned> owned_;
  /// One body's mass block, forces and gravity (calcBodyBlocks); one row block (calcRowBlocks).
  void calcBodyBlock(std::size_t i, const State& s, ModelWorkspace& ws, double& diagMax) const;
  void calcRowBlock(std::size_t r, const State& s, ModelWorkspace& ws) const;

  std::vector<BodySlot> slots_;
  std::vector<RowBlock> rows_;
  std::vector<std::string> coordNames_, rowNames_;
  std::vector<int> coordBody_;
  std::vector<std::vector<int>> rowBodies_;  // per row block: body slot indices (-1 ground)
  Vector3d gravity_ = Vector3d::Zero();
  int n_ = 0, m_ = 0;
  bool hasNonideal_ = false;
};

/// The non-ideal work C_j of constraint `c` (local coordinates) at `ls` from its ideal force
/// over its local coordinates `gIdeal` = A_j^T lambda_j; `slots` are its bodies' slots (a body
/// listed twice counts once in Fi = |A_j^T lambda_j|). Writes C (zero without a law). No allocation.
void calcJointNonidealWork(const Constraint& c, const LocalState& ls, const std::vector<BodySlot>& slots,
                           const VectorXd& gIdeal, VecRef C);

}  // namespace joinery
