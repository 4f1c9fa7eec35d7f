#pragma once
/// @file expression_body.hpp
/// A body defined by expressions (scene type "expression"): `M(q, t) q'' = f(q, q', t)` in
/// coordinates the user names.
///
/// Coordinates: the names listed in `coordinates`. Mass matrix: n x n expressions in the
/// coordinates and `t` (not velocities), symmetric and positive semi-definite (checked at
/// the initial state; evaluated as (M + M^T)/2, so it is symmetric to the last bit);
/// singular allowed. Generalized force `Q = f(q, q', t)` exactly as written: when M depends
/// on q or t, the velocity-product terms of Lagrange's equations (`dT/dq - M' q'`, with
/// `T = 1/2 q'^T M q'`) are part of `f` and are the user's to write. No markers (no geometry),
/// no gravity (put it into `force`).
#include <string>
#include <vector>

#include "joinery/core/body.hpp"
#include "joinery/core/expression.hpp"

namespace joinery {

class ExpressionBody final : public Body {
 public:
  /// @param massMatrix n*n expressions, row-major, parsed over variables(coordinates) and not
  /// depending on velocities; @param force n expressions over variables(coordinates).
  /// @throws ModelError on invalid sizes or names.
  ExpressionBody(std::string name, std::vector<std::string> coordinates,
                 std::vector<Expression> massMatrix, std::vector<Expression> force, VectorXd q0,
                 VectorXd v0);

  /// Expression variables in slot order: `t`, the coordinates, their velocities `<name>_dot`.
  static SymbolTable variables(const std::vector<std::string>& coordinates);

  std::string_view typeName() const override { return "expression"; }
  const std::vector<std::string>& coordinateNames() const override { return coordinates_; }
  void getInitialState(VecRef q0, VecRef v0) const override;
  void calcMassMatrix(double t, CVecRef q, MatRef M) const override;
  void calcForces(double t, CVecRef q, CVecRef v, VecRef Q) const override;
  SymbolicVector symbolicForces(const SymbolicNames& names) const override;
  SymbolicVector symbolicGravityForce(const Vector3d& g, const SymbolicNames& names) const override;
  double calcPotentialEnergy(double t, CVecRef q) const override;
  /// Fields `q0` and `v0`.
  void writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const override;
  nlohmann::json toJson() const override;
  /// The declared potential energy (scene field `potential`, an expression over the
  /// coordinates and t in the slots of the force expressions); it enters the energy column
  /// and energy channels, not the forces (which stay as written).
  void setPotential(Expression potential) { potential_ = std::move(potential); }
  const Expression& potential() const noexcept { return potential_; }

 private:
  Expression potential_;
  /// Fills the thread's variable buffer with (t, q, v) and returns it.
  const double* fillVariables(double t, CVecRef q, CVecRef v) const;

  std::vector<std::string> coordinates_;
  std::vector<Expression> mass_, force_;
  VectorXd q0_, v0_;
};

}  // namespace joinery
