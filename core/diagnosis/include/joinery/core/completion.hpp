#pragma once
/// @file completion.hpp
/// Completing massless points (Udwadia & Phohomsiri 2006, seed 002, Example 3).
///
/// When `[M; A]` is rank deficient, each direction `w` of its null space is a motion with no
/// mass and no constraint. Because `M w = 0` and `A w = 0`, the equation of motion projected
/// on `w` reads `0 = w^T (Q + C)`: the massless motion must be in force balance at every
/// instant, and that balance is exactly the constraint the model lacks. This module writes
/// it as an expression of the scene language from the symbolic forms of the generalized
/// forces (Body::symbolicForces, ForceElement::symbolicForces, symbolic.hpp), as a
/// ready-to-paste `expression` joint: at `position` level when it depends on coordinates
/// only (holonomic, differentiated twice by the joint), at `velocity` level when it depends
/// on velocities (differentiated once). Nothing is guessed: a direction on which some force
/// has no symbolic form, no force acts at all, or a net force acts whatever the state, is
/// reported as not completable, with the reason. See docs/completion.md.

#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/dense_solver.hpp"
#include "joinery/core/massless_balance.hpp"
#include "joinery/core/model.hpp"

namespace joinery {

/// Force balances along the indeterminate directions of `d` (the diagnosis of
/// solveForwardDynamics() at `s`). Joint names are `balance_<coordinate>` ('.' -> '_'),
/// made unique against the model's joints. Never throws for a model it cannot complete:
/// the reason is in MasslessBalance::reason. Not for hot paths.
CompletionAnalysis analyzeMasslessBalances(const Model& model, const State& s, const Diagnosis& d,
                                           const SolverTolerances& tol = {});

/// The generalized force of coordinate `i` (all bodies' own forces, gravity and force
/// elements) as an expression text in qualified names, or an empty string with `why` set
/// when some contribution has no symbolic form.
std::string symbolicGeneralizedForce(const Model& model, int i, std::string& why);

/// The analysis as JSON (for `check --json`): direction, expression, level, completable,
/// reason, joint.
nlohmann::json completionToJson(const CompletionAnalysis& a);

}  // namespace joinery
