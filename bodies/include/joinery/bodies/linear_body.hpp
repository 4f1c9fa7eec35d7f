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
/// No markers: a linear body has no geometry; it is joined through coordinate couplings and
/// expression joints. Gravity does not act on it (put it into `force`).
#include <string>
#include <vector>

#include "joinery/core/body.hpp"
#include "joinery/core/expression.hpp"

namespace joinery {

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
  double calcKineticEnergy(double t, CVecRef q, CVecRef v) const override;
  double calcPotentialEnergy(double t, CVecRef q) const override;
  nlohmann::json toJson() const override;
  /// The declared potential energy (scene field `potential`, an expression over the
  /// coordinates and t in the slots of the force expressions); it enters the energy column
  /// and energy channels, not the forces (which stay as written).
  void setPotential(Expression potential) { potential_ = std::move(potential); }
  const Expression& potential() const noexcept { return potential_; }

 private:
  Expression potential_;
  std::vector<std::string> coordinates_;
  MatrixXd M_, D_, K_;
  std::vector<Expression> force_;
  VectorXd q0_, v0_;
};

}  // namespace joinery
