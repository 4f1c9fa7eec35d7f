// One-sided rows at the initial state: interpenetration, and gaps no motion can change.
#include "joinery/core/one_sided_findings.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "joinery/core/format.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/one_sided_handler.hpp"

namespace joinery {

namespace {

std::string bodiesOf(const Constraint& c) {
  return "'" + c.bodies()[0]->name() + "' and '" + c.bodies()[1]->name() + "'";
}

/// The largest change of each candidate's gap over the walk; empty when the walk could not be made.
std::vector<double> walkGapChanges(ModelSystem& system, OneSidedHandler& h, const State& s0,
                                   const std::vector<double>& g0, const OneSidedFindingOptions& o) {
  const int n = system.numCoordinates();
  std::vector<double> change(g0.size(), 0.0);
  std::mt19937 rng(o.seed);
  std::normal_distribution<double> normal;
  ProjectionOptions popt;
  popt.maxIterations = 20;
  State s = s0;
  for (int step = 0; step < o.steps; ++step) {
    State x = s;
    for (int j = 0; j < n; ++j) x.v(j) = normal(rng);
    system.projectVelocities(x, popt);
    const double vmax = n > 0 ? x.v.cwiseAbs().maxCoeff() : 0.0;
    if (!(vmax > 1e-12)) break;  // the joints allow no motion: the gaps cannot change
    x.q = s.q + (o.step / vmax) * x.v;
    system.normalizeCoordinates(x.q);
    const ProjectionReport r = system.projectPositions(x, popt);
    if (!r.converged || !x.q.allFinite()) return {};
    s = x;
    for (std::size_t i = 0; i < g0.size(); ++i)
      change[i] = std::max(change[i], std::abs(h.calcGap(s, static_cast<int>(i)) - g0[i]));
  }
  return change;
}

}  // namespace

std::vector<OneSidedFinding> findOneSidedProblems(const Model& model, const State& s, const OneSidedFindingOptions& o) {
  std::vector<OneSidedFinding> out;
  ModelSystem system(model);
  OneSidedHandler h(system);
  if (h.empty()) return out;
  const auto& candidates = h.candidates();
  std::vector<char> wasActive;
  for (const OneSidedCandidate& c : candidates) {
    wasActive.push_back(c.rows->active(c.k) ? 1 : 0);
    c.rows->setActive(c.k, false);  // the walk moves under the bilateral joints only
  }
  std::vector<double> g0;
  for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
    g0.push_back(h.calcGap(s, i));
    const Constraint& c = *candidates[static_cast<std::size_t>(i)].joint;
    if (g0.back() < -o.gapTolerance)
      out.push_back({OneSidedFinding::Kind::Interpenetrating, &c, h.candidateName(i), g0.back(),
                     std::string(c.typeName()) + " '" + h.candidateName(i) + "' starts interpenetrating: gap " +
                         formatNumber(g0.back()) + " between " + bodiesOf(c) + " (not corrected)"});
  }
  bool rheonomic = false;
  for (const Constraint* c : model.constraints()) rheonomic = rheonomic || c->prescribesMotion();
  if (!rheonomic && model.numCoordinates() <= o.maxCoordinates) {
    std::vector<double> change;
    try {
      change = walkGapChanges(system, h, s, g0, o);
    } catch (const std::exception&) {
      change.clear();  // a model the projection cannot handle: the check reports it
    }
    for (std::size_t i = 0; i < change.size(); ++i) {
      if (!(g0[i] > 2 * o.gapTolerance) || change[i] > o.tolerance * std::max(1.0, std::abs(g0[i]))) continue;
      const Constraint& c = *candidates[i].joint;
      const std::string name = h.candidateName(static_cast<int>(i));
      out.push_back({OneSidedFinding::Kind::NeverActive, &c, name, g0[i],
                     std::string(c.typeName()) + " '" + name + "' can never close its gap: no motion the other joints allow changes it, " +
                         formatNumber(g0[i]) + " between " + bodiesOf(c) +
                         " (check the shapes' positions and the joints that hold these bodies)"});
    }
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) candidates[i].rows->setActive(candidates[i].k, wasActive[i] != 0);
  return out;
}

}  // namespace joinery
