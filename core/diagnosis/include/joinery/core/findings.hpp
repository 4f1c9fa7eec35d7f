#pragma once
/// @file findings.hpp
/// The diagnosis in the engineer's words (docs/diagnosis.md): the joints that contradict or
/// repeat each other, found by removing one joint at a time and re-testing rank and
/// consistency with the dense solver; the joints that lock a mechanism; and what an
/// undetermined motion means physically (a zero principal inertia about a named body axis, a
/// massless body free along a world axis, a coordinate with no mass and no joint).

#include <string>
#include <vector>

#include "joinery/core/assembly.hpp"
#include "joinery/core/dense_solver.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/state.hpp"

namespace joinery {

/// The culprit search runs only where the dense diagnosis is cheap: at most this many
/// coordinates and joints (one dense solve per joint).
inline constexpr int kCulpritMaxCoordinates = 120;
inline constexpr int kCulpritMaxJoints = 80;

/// Joints named by the removal test.
struct Culprits {
  bool searched = false;  ///< false: the model is too large (limits above) or nothing to search
  /// Removing any one of these alone restores consistency (or removes a redundancy) and
  /// costs no degree of freedom: the joints that contradict (repeat) each other.
  std::vector<std::string> joints;
  /// Removing any one of these also restores consistency but frees a degree of freedom.
  std::vector<std::string> alsoRestoring;
  std::vector<std::string> rows;         ///< rows of `joints` in conflict ("motor[0]")
  std::vector<std::string> coordinates;  ///< coordinates every one of `joints` acts on
  std::string message;                   ///< the finding, cause first (empty when none)
  /// The culprits are drivers that outnumber the mechanism's degrees of freedom
  /// (findOverdrivingJoints), not joints found by the removal test.
  bool overdriven = false;
};

/// The joints that contradict each other at `s` at one level: the equations of motion's
/// A q'' = b (Acceleration), the velocity rows A v = c (Velocity: drivers demanding a speed a
/// locked loop forbids), or the linearized closure A dq = -phi (Position). Empty when the
/// rows are consistent at that level or the model is beyond the limits above.
Culprits findConflictingJoints(const Model& model, const State& s,
                               ConstraintLevel level = ConstraintLevel::Acceleration);
/// For a consistent diagnosis with redundant rows: the joints that repeat each other.
Culprits findRedundantJoints(const Model& model, const State& s, const Diagnosis& d);
/// More drivers than the mechanism has degrees of freedom: the drivers (joints that prescribe
/// a motion) by name when their rows outnumber the mobility of the mechanism without them (by
/// rank at `s`), with the message "motor and push both drive the mechanism, which has 1 degree
/// of freedom without them: ...". Empty (no joints) otherwise.
Culprits findOverdrivingJoints(const Model& model, const State& s);
/// The joints whose removal gives a mechanism with no mobility (rank A = n) a degree of
/// freedom, fewest rows first, then last declared first (an added brace).
std::vector<std::string> findLockingJoints(const Model& model, const State& s);

/// When the assembly removed given velocities because the mechanism cannot move at all
/// (rank A = n at the assembled state): "the mechanism is locked by brace (...); the given
/// velocity of crank.theta (10 rad/s) is removed". Empty otherwise.
std::string describeLockedVelocities(const Model& model, const AssemblyReport& assembly);

/// One plain sentence per physical cause of the undetermined motions of `d` at `s`, cause
/// first and then what to change ("rod1 has zero inertia about its own x axis: give it
/// Ixx > 0 or constrain the spin").
std::vector<std::string> describeIndeterminacy(const Model& model, const State& s, const Diagnosis& d);

}  // namespace joinery
