#pragma once
/// @file joint_results.hpp
/// Per-joint results: the force and torque each joint applies to each of its bodies, the signed
/// tension of a `distance` joint, the effort and power of a `coupling` or coordinate `driver`,
/// the generalized force over the joint's coordinates, the non-ideal (friction) part apart, and
/// whether the split between joints is unique (docs/results.md).
///
/// Two steps:
///  1. JointMultipliers: the constraint multipliers of every row at a state, `A^T lambda` = the
///     ideal constraint force (minimum-norm lambda; rows redundant with others flagged). From the
///     dense reference solver (solveJointMultipliers, allocates) or from a ModelSystem's last
///     evaluation (ModelSystem::lastMultipliers: the structured path's own multipliers, no
///     allocation when no row was released).
///  2. calcJointResults: each joint's multipliers mapped to forces and torques at its points.
///     No heap allocation once the JointResultsWorkspace and the result vector exist (a
///     per-sample call in a simulation).
///
/// Conventions: world axes; the force the joint applies TO body1/body2, acting at point1/point2,
/// the torque about that point. Planar joints: fz = 0, torque [0, 0, tau]. A side on `ground`
/// is not reported (sideN.present = false).

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "joinery/core/dense_solver.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

/// The multipliers of every constraint row (Model::rowBlocks() layout, m entries).
struct JointMultipliers {
  /// Ideal multipliers: A^T ideal = the ideal constraint force (the one with C = 0); the
  /// minimum-norm solution where rows are redundant.
  VectorXd ideal;
  /// Total multipliers: A^T total + C = the total constraint force M q'' - Q (equal to `ideal`
  /// in a model without non-ideal joints).
  VectorXd total;
  /// Per row: 1 when the row's multiplier is not determined by the equations (the row lies in
  /// a redundant set: other rows can carry its force), 0 otherwise.
  std::vector<char> redundant;
  /// False until filled.
  bool valid = false;
  /// Allocates the vectors for m rows (all zero, every row unique).
  void resize(int m);
};

/// The force and torque a joint applies to one of its bodies.
struct JointSide {
  bool present = false;   ///< false for a side on ground, or a joint with one body
  bool hasWrench = false; ///< false when the body has no point markers (expression, linear without interface nodes)
  std::string body;       ///< body name
  Vector3d point = Vector3d::Zero();     ///< world position of the joint's point on this body
  Vector3d force = Vector3d::Zero();     ///< total (ideal + non-ideal), world axes, at `point`
  Vector3d torque = Vector3d::Zero();    ///< total, about `point`
  Vector3d forceNonideal = Vector3d::Zero();   ///< the non-ideal part of `force`
  Vector3d torqueNonideal = Vector3d::Zero();  ///< the non-ideal part of `torque`
  /// The joint's own frame on this body (docs/results.md#the-joints-own-frame): its x, y, z
  /// axes in world components, as the columns. Origin: `point`.
  Matrix3d axes = Matrix3d::Identity();
  Vector3d forceLocal = Vector3d::Zero();   ///< `force` in the joint's frame: axes^T force
  Vector3d torqueLocal = Vector3d::Zero();  ///< `torque` in the joint's frame
};

/// Results of one joint at one state.
struct JointResult {
  std::string name;
  std::string type;
  JointResultKind kind = JointResultKind::Generalized;
  bool unique = true;  ///< false: rows redundant with others, the minimum-norm split is shown
  bool planar = false; ///< every body of the joint is planar (2-D results)
  JointSide side1, side2;  ///< body1 / body2 (Constraint::bodies() order)
  /// Generalized force of the joint on each coordinate of its bodies (ground has none):
  /// global coordinate indices and values (total = ideal + non-ideal), and the non-ideal part.
  std::vector<int> coordinates;
  VectorXd generalized, generalizedNonideal;
  VectorXd multipliers;  ///< the joint's own rows' total multipliers
  double effort = 0;     ///< Effort kind: generalized force on term i = c_i * effort
  double power = 0;      ///< generalized force . q' over the joint's coordinates (every kind)
  double tension = 0;    ///< Tension kind: > 0 when the joint pulls its points together
};

/// Pre-sized buffers for calcJointResults (one per thread).
class JointResultsWorkspace {
 public:
  explicit JointResultsWorkspace(const Model& model);
  /// A result vector with every joint's name, type, coordinates and sizes set (the layout
  /// calcJointResults fills without allocating), in Model::constraints() order.
  std::vector<JointResult> makeResults() const;

 private:
  friend void calcJointResults(const Model&, const State&, const JointMultipliers&,
                               JointResultsWorkspace&, std::vector<JointResult>&,
                               const std::vector<int>*);
  struct Joint {
    const Constraint* c = nullptr;
    int row = 0;                       // first global row
    std::vector<BodySlot> slots;       // per body of the joint (ground: size 0)
    std::vector<BodyStateView> views;
    MatrixXd A;                        // local rows
    VectorXd b, gIdeal, gTotal, C;     // local
  };
  std::vector<Joint> joints_;
};

/// Fills `out` (from JointResultsWorkspace::makeResults()) at state `s` from the multipliers.
/// Non-ideal parts are re-evaluated from the joints' laws with the ideal multipliers. No heap
/// allocation. @throws ModelError when `out` or `mult` does not match the model.
/// `only` (output channels): fill just these joints (indices in Model::constraints() order);
/// the others keep what they held.
void calcJointResults(const Model& model, const State& s, const JointMultipliers& mult,
                      JointResultsWorkspace& ws, std::vector<JointResult>& out,
                      const std::vector<int>* only = nullptr);

/// Dense reference: the forward-dynamics solution at `s` (as solveForwardDynamics) and the
/// minimum-norm multipliers with the redundancy of each row (SVD of the row-scaled A). Allocates,
/// except for the solve itself when `columnScale` (coordinateScales(model), computed once by the
/// caller) is given.
Solution solveJointMultipliers(const Model& model, const State& s, ModelWorkspace& ws,
                               JointMultipliers& mult, const DenseSolver& solver = DenseSolver(),
                               const VectorXd* columnScale = nullptr);

/// Minimum-norm lambda with A^T lambda = f (A: m x n, f in the range of A^T) and the
/// redundancy of each row (1 where the left null space of the row-scaled A touches the row).
/// Allocates. `rankTol` as SolverTolerances::rank.
void minimumNormMultipliers(const MatrixXd& A, const VectorXd& f, VecRef lambda,
                            std::vector<char>* redundant = nullptr, double rankTol = 1e-10);

/// The wrench (F, tau about the point) at body point `local` equivalent to the generalized force
/// `g` on the body's coordinates `q`: J_p^T F + J_w^T tau = g on the body's admissible
/// velocities (the null space of its internal constraint rows), minimum-norm (planar bodies:
/// fz = tx = ty = 0; particles: tau = 0). False (F = tau = 0) for a body without point markers
/// or with more than 8 coordinates. No heap allocation.
bool wrenchAtPoint(const Body& body, double t, CVecRef q, CVecRef v, const Vector3d& local,
                   CVecRef g, Vector3d& F, Vector3d& tau);

/// Results as JSON, the contract's "joints" object: name -> {"force1", "torque1", "force2",
/// "torque2", "unique", ...} (docs/results.md); coordinates named by `coordinateNames`.
nlohmann::json jointResultsJson(const std::vector<JointResult>& results,
                                const std::vector<std::string>& coordinateNames);
}  // namespace joinery
