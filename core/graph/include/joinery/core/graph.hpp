#pragma once
/// @file graph.hpp
/// Topology of a model: the body–joint graph (bodies are vertices, constraints and force
/// elements are edges). analyzeGraph() finds the independent subsystems, the independent
/// loops, the Grübler–Kutzbach mobility count and the loose bodies; toGraphvizDot() draws it.
/// The conventions (ground handling, multi-body constraints, one-body constraints) are
/// explained in docs/graph.md. Boost.Graph is used in graph.cpp only.
///
/// Every pointer in a GraphAnalysis points into the Model it was computed from: keep the
/// model alive as long as the analysis.

#include <optional>
#include <string>
#include <vector>

namespace joinery {

class Body;
class Constraint;
class ForceElement;
class Model;

/// One independent loop: a closed chain bodies[0] -joints[0]- bodies[1] -joints[1]- ...
/// -joints[k-1]- bodies[0]. `joints[i]` connects `bodies[i]` and `bodies[(i + 1) % k]`; the
/// ground appears in `bodies` when the loop closes through it. A loop of two parallel joints
/// between the same pair of bodies has k = 2.
struct GraphLoop {
  std::vector<const Body*> bodies;
  std::vector<const Constraint*> joints;
};

/// An independent subsystem: bodies linked by constraints, not counting links through the
/// ground (the ground is fixed, so two mechanisms that only share the ground are solved
/// apart). Every body belongs to exactly one component; a body without constraints is a
/// component of its own.
struct GraphComponent {
  std::vector<const Body*> bodies;               ///< in model order
  std::vector<const Constraint*> constraints;    ///< every constraint touching these bodies
  std::vector<const ForceElement*> forces;       ///< every force element touching these bodies
  std::vector<int> loops;                        ///< indices into GraphAnalysis::loops
  /// True when a constraint ties a body of the component to the world: a joint to the
  /// ground, or a one-body constraint (coordinates are absolute, so it constrains them
  /// against the world frame).
  bool anchored = false;
  int numCoordinates = 0;       ///< sum of the bodies' coordinate counts
  int numConstraintRows = 0;    ///< rows of its constraints plus its bodies' internal rows
  /// Grübler–Kutzbach count n - m of the component (a lower bound of its mobility).
  int calcMobilityCount() const { return numCoordinates - numConstraintRows; }
};

/// The result of analyzeGraph().
struct GraphAnalysis {
  /// Independent subsystems, ordered by their first body in model order.
  std::vector<GraphComponent> components;
  /// For each body in Model::bodySlots() order, the index of its component.
  std::vector<int> bodyComponent;
  /// For each constraint in Model::constraints() order, the index of its component
  /// (-1 for a constraint that touches only the ground).
  std::vector<int> constraintComponent;

  /// A fundamental cycle basis of the constraint graph with the ground as one vertex
  /// (force elements excluded). Its size is the cyclomatic number E - V + C.
  std::vector<GraphLoop> loops;

  /// Bodies touched by no constraint (they may be touched by force elements).
  std::vector<const Body*> freeFloating;
  /// Bodies touched by no constraint and no force element (a subset of freeFloating).
  std::vector<const Body*> unattached;
  /// Force elements whose bodies lie in more than one component. They do not couple the
  /// acceleration solve (forces are evaluated before it), only the dynamics over time.
  std::vector<const ForceElement*> couplingForces;
  /// Constraints whose only body is the ground (no coordinates: they constrain nothing).
  std::vector<const Constraint*> groundOnlyConstraints;

  int numBodies = 0;            ///< ground excluded
  int numCoordinates = 0;       ///< n: sum of the bodies' coordinate counts
  int numConstraintRows = 0;    ///< m: joint rows plus internal rows (quaternion norms)
  /// Rank of the constraint matrix A, when the caller has set it (setConstraintRank()).
  std::optional<int> constraintRank;

  int numLoops() const noexcept { return static_cast<int>(loops.size()); }
  int numComponents() const noexcept { return static_cast<int>(components.size()); }
  /// Grübler–Kutzbach count n - m. The true mobility is n - rank(A) >= n - m; the two
  /// differ by the number of redundant rows.
  int calcMobilityCount() const noexcept { return numCoordinates - numConstraintRows; }
  /// Mobility n - rank(A), once the solver's rank is known (setConstraintRank()).
  std::optional<int> calcMobilityFromRank() const;
  /// Redundant rows m - rank(A), once the solver's rank is known.
  std::optional<int> calcRedundantRows() const;
  /// Records rank(A) as found by a solver at some state.
  /// @throws ModelError if rankA < 0 or rankA > min(n, m)
  void setConstraintRank(int rankA);
};

/// Analyses the body–joint graph of a model: components, loops, mobility count, loose
/// bodies. Cost O(V + E) plus the total length of the loops.
GraphAnalysis analyzeGraph(const Model& model);

/// The body–joint graph in Graphviz DOT (undirected): bodies as ellipses "name\n(type, n
/// coords)", the ground as a bold filled box, joints as edges "name\n(type, rows)", force
/// elements as dashed grey edges, constraints and forces on three or more bodies as small
/// diamond nodes joined to their bodies, one-body ones as self-loops; the edges of each
/// independent loop coloured (one colour per loop, "loop i" in the label, and a legend).
/// Components are drawn as clusters when there is more than one.
std::string toGraphvizDot(const Model& model, const GraphAnalysis& analysis);

}  // namespace joinery
