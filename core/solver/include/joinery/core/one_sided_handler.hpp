#pragma once
/// @file one_sided_handler.hpp
/// The one-sided rows of a model (limits, ropes, contacts: one_sided.hpp) during a run: the
/// event functions the simulation loop watches, impacts with Newton's restitution through the
/// singular-mass velocity projection, and the active set from complementarity on the constraint
/// forces at acceleration level (docs/contact.md).

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "joinery/core/joint_results.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/one_sided.hpp"

namespace joinery {

/// Tolerances of the event handling (docs/contact.md, "Tolerances").
struct OneSidedOptions {
  /// An inactive candidate's event is at gap = -gapTolerance (m or rad); a candidate with
  /// gap <= 2 gapTolerance touches.
  double gapTolerance = 1e-9;
  /// A touching candidate approaches when its gap rate is below -speedTolerance (1 + |v|_inf)
  /// (row units: m/s or rad/s for rows written on the gap).
  double speedTolerance = 1e-9;
  /// An impact whose rebound would fly for less than this (s), or separate slower than 10 times
  /// the speed tolerance, is made plastic: an accumulation of impacts (a ball coming to rest) is
  /// passed and the contact persists. (At 1e-9 s the ball of docs/contact.md settled into
  /// rebounds of 1.4e-9 s, kept up by the gap tolerance: 1e-8 is below that regime's reach.)
  double accumulationTime = 1e-8;
  /// Most complementarity iterations at one event, per candidate.
  int iterationsPerCandidate = 3;
  /// The impulses of an impact come from a sparse QR of the rows; when their relative residual
  /// |A^T P - (M dv - F)|_inf / |M dv - F|_inf is over this (nearly dependent rows, which the
  /// sparse QR's fill-reducing order does not pivot for), or they are not finite, the dense
  /// rank-revealing decomposition answers instead (counted: denseImpulseRecoveries). A
  /// negative value sends every impact to the dense recovery (tests compare the two).
  double impulseResidualTolerance = 1e-9;
  /// A sparse answer over impulseResidualTolerance is kept all the same when it is the
  /// least-squares one (the residual's own correction removes at most impulseResidualTolerance
  /// of the jump) and the residual, the jump's part outside the rows' range, is at most this:
  /// the jump of a projection onto ill-conditioned rows carries such a part, some 1e-9 of
  /// itself, and the dense decomposition gives the same impulses (to 1e-15 on the rocking chain).
  double impulseInconsistencyTolerance = 1e-6;
};

/// One one-sided candidate of the model.
struct OneSidedCandidate {
  const Constraint* joint = nullptr;
  const OneSidedRows* rows = nullptr;
  int k = 0;          ///< the candidate within its joint
  int row = 0;        ///< global constraint row
  int columns = 0;    ///< the joint's local coordinates
  int tangent = -1;   ///< global row of the tangential (stick) row; -1: no friction
  double mu = 0;      ///< Coulomb coefficient
  int tangent2 = -1;  ///< spatial contacts: global row of the second tangential row; -1: none
};

/// The one-sided side of a ModelSystem (which must outlive it). Not thread-safe.
class OneSidedHandler final : public OneSidedEvents {
 public:
  explicit OneSidedHandler(ModelSystem& system, OneSidedOptions options = {});
  /// True when the model has no one-sided rows.
  bool empty() const noexcept { return candidates_.empty(); }
  const std::vector<OneSidedCandidate>& candidates() const noexcept { return candidates_; }
  /// "joint" or "joint (label)".
  std::string candidateName(int i) const;
  /// The signed gap of candidate i at `s`.
  double calcGap(const State& s, int i);
  /// The gap rate of candidate i's row at `s` (row units).
  double calcRowRate(const State& s, int i);
  /// The smallest gap over joint `c`'s candidates (the `gap` output channel); NaN for a joint
  /// without one-sided rows.
  double calcJointGap(const State& s, const Constraint& c);

  /// The sliding velocity of candidate i's contact point at `s` (0 without friction; spatial
  /// contacts: along t1).
  double calcSlidingVelocity(const State& s, int i);
  /// The sliding velocity over the tangents (t, 0) planar, (t1, t2) spatial.
  Eigen::Vector2d calcSliding(const State& s, int i);

  /// One per candidate, then one per candidate with friction (docs/contact.md, "Friction").
  int numEventFunctions() const override { return static_cast<int>(candidates_.size() + friction_.size()); }
  void calcEventFunctions(const State& s, VecRef values) override;
  /// The gaps and sliding velocities among `which` alone, without a solve, when none of them
  /// is a contact force or a stick margin (then all of them, as calcEventFunctions).
  void calcSomeEventFunctions(const State& s, VecRef values, const std::vector<int>& which) override;
  void resolve(State& s) override;
  /// Moves a spatial slipping point's reference direction to its sliding direction at `s`.
  bool acceptStep(const State& s, VecRef values) override;
  const std::vector<OneSidedEvent>& events() const override { return events_; }

  /// Decides the active set at `s` by complementarity alone (velocities untouched): what
  /// `check` and `solve` evaluate.
  void decideActiveSet(const State& s);
  /// `{"joint": {"active": bool, "gap": g}}` at `s` (the activity as it stands).
  nlohmann::json toJson(const State& s);

  /// Impulse recoveries at impacts so far, one per trial set (the projection's own multipliers,
  /// or a sparse solve of the active rows: normal equations or QR; no dense M or A).
  long long impulseRecoveries() const noexcept { return impulseRecoveries_; }
  /// Of those, the ones the velocity projection's own multipliers answered (no row released,
  /// no friction impulse, residual within OneSidedOptions::impulseResidualTolerance), so far.
  long long projectionImpulses() const noexcept { return projectionImpulses_; }
  /// Of those, the ones the sparse forms could not answer (relative residual over
  /// OneSidedOptions::impulseResidualTolerance: nearly dependent rows), recovered by the dense
  /// complete orthogonal decomposition instead.
  long long denseImpulseRecoveries() const noexcept { return denseImpulseRecoveries_; }
  /// Of the sparse answers, the ones over OneSidedOptions::impulseResidualTolerance kept as the
  /// least-squares answer (OneSidedOptions::impulseInconsistencyTolerance), so far.
  long long leastSquaresImpulses() const noexcept { return leastSquaresImpulses_; }
  /// Multipliers the structured solve could not give (rows released: redundant, e.g. a chain
  /// lying on all its circles) and the sparse minimum-norm solve from its constraint force
  /// M q'' - Q did, so far.
  long long sparseMultiplierSolves() const noexcept { return sparseMultipliers_; }
  /// Multipliers the dense reference solver computed (neither of the above could), so far.
  long long denseMultiplierSolves() const noexcept { return denseMultipliers_; }
  /// Active-set iterations (an impact's, or the acceleration-level one) that reached their
  /// bound (OneSidedOptions::iterationsPerCandidate) without settling, so far: a degenerate
  /// set, answered by the last trial (docs/contact.md).
  long long iterationBoundHits() const noexcept { return boundHits_; }
  /// True when the handler's own workspace holds dense M and A (it never does: tests).
  bool hasDenseMatrices() const noexcept { return haveWs_ && ws_.hasDenseMatrices(); }

 private:
  struct Local;
  /// Candidate i's event function while inactive: its gap plus the gap tolerance.
  double gapFunction(const State& s, int i);
  /// The friction event function of candidate i (with friction) without the forces: a slipping
  /// point's sliding velocity along its direction; 1 otherwise (a sticking point's margin needs
  /// the forces: calcEventFunctions).
  double slidingFunction(const State& s, int i);
  const VectorXd& row(const State& s, int i, double& b);
  void setActive(int i, bool on, double target = 0);
  void setFriction(int i, int mode, double target = 0);
  int frictionMode(int i) const;
  /// The tangential row of candidate i (aT_), its b.
  const VectorXd& tangentRow(const State& s, int i, double& b);
  /// The second tangential row of candidate i (spatial contacts; aT2_), its b.
  const VectorXd& tangentRow2(const State& s, int i, double& b);
  /// Sets candidate i slipping: planar along sign(d(0)), spatial along d (unit).
  void setSlip(int i, const Eigen::Vector2d& d);
  /// The tangential components (row tangent, row tangent2 or 0) of a global vector of row values.
  Eigen::Vector2d tangentPair(int i, const VectorXd& x) const;
  /// Stick or slip for the active touching candidates with friction (modes set for them).
  bool frictionActiveSet(const State& s, const std::vector<int>& touching);
  void normalActiveSet(const State& s, const std::vector<int>& touching);
  /// The acceleration-level complementarity over the touching candidates `touching`.
  void complementarity(const State& s, const std::vector<int>& touching);
  /// The impact of the candidates `approaching` (rates before: `rate`); returns the impulses.
  void impact(State& s, const std::vector<int>& touching, const std::vector<int>& approaching,
              const std::vector<double>& rate);
  double speedScale(const State& s) const;
  /// Half the speed tolerance: a slipping point's event function is its sliding speed along
  /// its direction plus this (the stop is located within the tolerance, past zero).
  double slidingStopMargin(const State& s) const { return 0.5 * speedScale(s); }
  /// P (every row) from the jump s.v - v0 and the friction impulses F (n, or empty) at `s`.
  void recoverImpulses(const State& s, const VectorXd& v0, const VectorXd& F, VectorXd& P);
  /// mult_ at `s`, right after calcAccelerations(s, qdd_) returned `st` (counts the sparse and
  /// the dense ones).
  void calcMultipliers(const State& s, const AccelerationStatus& st);

  ModelSystem& system_;
  const Model& model_;
  OneSidedOptions opt_;
  std::vector<OneSidedCandidate> candidates_;
  std::vector<int> friction_;  ///< the candidates with friction (event functions after the candidates')
  std::vector<OneSidedEvent> events_;
  std::vector<BodyStateView> views_;
  VectorXd local_, aRow_, aT_, aT2_, qdd_, lambda_;
  std::vector<int> joining_;  ///< (impact: the rows that join its set in one trial)
  JointMultipliers mult_;
  ModelWorkspace ws_;
  bool haveWs_ = false;
  long long impulseRecoveries_ = 0, denseMultipliers_ = 0, sparseMultipliers_ = 0, denseImpulseRecoveries_ = 0;
  long long boundHits_ = 0, projectionImpulses_ = 0, leastSquaresImpulses_ = 0;
};

}  // namespace joinery
