#pragma once
/// @file linear_body.hpp
/// A linear substructure (scene type "linear"): `M q'' + D q' + K q = f(q, q', t)`, e.g. a
/// reduced finite-element part or a lumped model, in coordinates the user names.
///
/// Coordinates: the names listed in `coordinates`, units as the user chooses (the matrices
/// must agree). Mass matrix `M` (constant, symmetric positive semi-definite, singular allowed).
/// Generalized force `Q = f(t, q, q') - D q' - K q`, with `D` and `K` constant and not
/// necessarily symmetric (a skew part of `D` is gyroscopic, of `K` circulatory). Potential
/// energy `1/2 q^T K q` (the symmetric part of K; the force expressions are not included).
/// Markers: none, unless the body declares interface nodes (setInterface(), scene field
/// `interface`, docs/flexible.md): then the point of the body's frame at a node's reference
/// position is that node, at `position + (its translation coordinates)`; the body's frame is
/// the world frame (small displacements about a reference configuration fixed in the world).
/// Otherwise it is joined through coordinate couplings and expression joints. Gravity acts
/// only through the optional gravity load G (n x 3, scene field `gravity_load`; generated for
/// beams: the consistent load M r of the rigid translations r): generalized force G g.
#include <string>
#include <vector>

#include "joinery/core/body.hpp"
#include "joinery/core/expression.hpp"

namespace joinery {

/// A named point of a linear body whose displacement is given coordinates of the body.
struct InterfaceNode {
  std::string name;
  Vector3d position = Vector3d::Zero();  ///< reference position (world frame, m); z = 0 when planar
  std::vector<int> translation;          ///< indices of its x, y (and z) coordinates: 2 (planar) or 3
  std::vector<int> rotation;             ///< indices of its rotation coordinates (planar: 1, about z; spatial: 3), or none
};

class LinearBody final : public Body {
 public:
  /// @param coordinates unique identifiers (not `t`, `pi`, or `<other>_dot`).
  /// @param M, D, K n x n; M symmetric PSD. @param force empty (zero) or n expressions parsed
  /// over forceSymbols(coordinates). @throws ModelError on invalid values.
  LinearBody(std::string name, std::vector<std::string> coordinates, MatrixXd M, MatrixXd D,
             MatrixXd K, std::vector<Expression> force, VectorXd q0, VectorXd v0);

  /// The variables of the force expressions, in slot order: `t`, the coordinates, then their
  /// velocities `<name>_dot`.
  static SymbolTable forceSymbols(const std::vector<std::string>& coordinates);

  const MatrixXd& massMatrix() const noexcept { return M_; }
  const MatrixXd& dampingMatrix() const noexcept { return D_; }
  const MatrixXd& stiffnessMatrix() const noexcept { return K_; }

  std::string_view typeName() const override { return "linear"; }
  const std::vector<std::string>& coordinateNames() const override { return coordinates_; }
  void getInitialState(VecRef q0, VecRef v0) const override;
  void calcMassMatrix(double t, CVecRef q, MatRef M) const override;
  void calcForces(double t, CVecRef q, CVecRef v, VecRef Q) const override;
  /// Without force expressions: dQ/dq = -K, dQ/dq' = -D.
  bool providesForceJacobians() const override { return force_.empty(); }
  void addForceJacobians(double t, CVecRef q, CVecRef v, const Vector3d& g, MatRef dQdq,
                         MatRef dQdv) const override;
  SymbolicVector symbolicForces(const SymbolicNames& names) const override;
  SymbolicVector symbolicGravityForce(const Vector3d& g, const SymbolicNames& names) const override;
  void addGravityForce(CVecRef q, const Vector3d& g, VecRef Q) const override;
  double calcGravityPotential(CVecRef q, const Vector3d& g) const override;
  /// The gravity load G (n x 3): generalized force G g for gravity g. Empty: none.
  /// @throws ModelError on a wrong size or non-finite entries.
  void setGravityLoad(MatrixXd G);
  const MatrixXd& gravityLoad() const noexcept { return gravityLoad_; }
  double calcKineticEnergy(double t, CVecRef q, CVecRef v) const override;
  double calcPotentialEnergy(double t, CVecRef q) const override;
  /// Fields `q0` and `v0`.
  void writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const override;
  /// The interface nodes' reference positions, in their order (none without an interface).
  std::vector<Vector3d> drawingCurve() const override;
  nlohmann::json toJson() const override;
  /// The declared potential energy (scene field `potential`, an expression over the
  /// coordinates and t in the slots of the force expressions); it enters the energy column
  /// and energy channels, not the forces (which stay as written).
  void setPotential(Expression potential) { potential_ = std::move(potential); }
  const Expression& potential() const noexcept { return potential_; }

  /// Declares the interface nodes (indices into the coordinates, checked); they become the
  /// body's point markers. @throws ModelError on bad indices or two nodes at one position.
  void setInterface(std::vector<InterfaceNode> nodes);
  const std::vector<InterfaceNode>& interfaceNodes() const noexcept { return interface_; }
  /// The node at `local` (within 1e-9 m relative to its distance from the origin; z ignored for
  /// planar nodes), or nullptr.
  const InterfaceNode* nodeAt(const Vector3d& local) const;
  const PointMarker* points() const override;
  /// True when the body has interface nodes and all of them are planar (2 translations).
  bool isPlanar() const override;
  /// "interface node 'NAME'" for a translation or rotation coordinate of a declared interface
  /// node; empty for the other coordinates (modal and interior ones).
  std::string coordinateGroup(int k) const override;

 private:
  class NodeMarker final : public PointMarker {
   public:
    explicit NodeMarker(const LinearBody& b) : body_(b) {}
    Vector3d calcPointPosition(CVecRef q, const Vector3d& local) const override;
    void calcPointJacobian(CVecRef q, const Vector3d& local, MatRef J) const override;
    Vector3d calcPointBias(CVecRef q, CVecRef v, const Vector3d& local) const override;
    SymbolicPoint symbolicPointPosition(const Vector3d& local, const std::vector<std::string>& q) const override;

   private:
    const InterfaceNode& node(const Vector3d& local) const;
    const LinearBody& body_;
  };
  std::vector<InterfaceNode> interface_;
  MatrixXd gravityLoad_;
  NodeMarker marker_{*this};

  Expression potential_;
  std::vector<std::string> coordinates_;
  MatrixXd M_, D_, K_;
  std::vector<Expression> force_;
  VectorXd q0_, v0_;
};

}  // namespace joinery
