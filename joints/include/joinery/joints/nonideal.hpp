#pragma once
/// @file nonideal.hpp
/// Non-ideal constraint laws (generalized D'Alembert principle, docs/theory.md section 3):
/// the work vector C of a joint over its local coordinates.
///
/// Scene JSON, optional key "nonideal" on every joint:
///  - {"C": {"body.coord": expr, ...}}: C entries as expressions of t, the coordinates and
///    velocities of the joint's bodies ("body.coord", "body.coord_dot"), parameters, and `Fi`
///    (the magnitude of the joint's ideal constraint force), and on prismatic2d joints `N` (the
///    normal force, SlidingJoint::calcNormalForce). Coordinates not named get 0.
///  - {"coulomb": mu}: Coulomb friction on joints with a sliding direction (prismatic2d).

#include <memory>
#include <nlohmann/json.hpp>

#include "joinery/core/constraint.hpp"
#include "joinery/core/registry.hpp"

namespace joinery {

/// A joint with one sliding direction (prismatic2d): what Coulomb friction needs.
class SlidingJoint {
 public:
  virtual ~SlidingJoint() = default;
  /// Relative sliding velocity of body2 with respect to body1 along the sliding axis (m/s).
  virtual double calcSlidingVelocity(const LocalState& s) const = 0;
  /// C += generalized force of a force `f` (N) along the sliding axis acting on body2 at its
  /// joint point, and of the opposite reaction on body1 at its joint point.
  virtual void addSlidingForce(const LocalState& s, double f, VecRef C) const = 0;
  /// Magnitude N of the normal force: the component, perpendicular to the sliding axis, of the
  /// force that the generalized force `g` (the joint's ideal A_j^T lambda_j over its local
  /// coordinates) applies to body2 at point2 (body1 at point1 when body2 is the ground).
  virtual double calcNormalForce(const LocalState& s, const double* g) const = 0;
};

/// Coulomb friction: a force of magnitude mu * N on body2 opposing the sliding velocity
/// v_rel, the reaction on body1. N is the normal force (SlidingJoint::calcNormalForce; Fi
/// when only the magnitude of the ideal force is known). C = 0 when |v_rel| <= kStickVelocity (no regularisation
/// beyond this dead band: the sign function is discontinuous at v_rel = 0).
class CoulombFriction final : public NonidealLaw {
 public:
  /// Sliding speeds at or below this (m/s) count as sticking: no friction force.
  static constexpr double kStickVelocity = 1e-12;
  /// @throws ModelError when mu < 0 or not finite.
  CoulombFriction(const SlidingJoint& joint, double mu);
  double coefficient() const noexcept { return mu_; }
  using NonidealLaw::calcWork;
  void calcWork(const Constraint& c, const LocalState& s, const IdealForce& f, VecRef C) const override;
  nlohmann::json toJson() const override;

 private:
  const SlidingJoint& joint_;
  double mu_;
};

/// Reads the "nonideal" object of `joint`. `sliding` is the joint's sliding interface
/// (nullptr when it has none: then "coulomb" is an input error).
/// @throws InputError at the offending field.
std::unique_ptr<NonidealLaw> parseNonideal(const JsonCursor& c, const FactoryContext& ctx,
                                           const Constraint& joint,
                                           const SlidingJoint* sliding = nullptr);

/// Sets joint's non-ideal law from the optional key "nonideal" of its definition `c`.
void attachNonideal(const JsonCursor& c, const FactoryContext& ctx, Constraint& joint,
                    const SlidingJoint* sliding = nullptr);

}  // namespace joinery
