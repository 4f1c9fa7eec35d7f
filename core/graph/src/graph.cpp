#include "joinery/core/graph.hpp"

#include "graph_topology.hpp"

namespace joinery {

// ---- GraphAnalysis --------------------------------------------------------------------

std::optional<int> GraphAnalysis::calcMobilityFromRank() const {
  if (!constraintRank) return std::nullopt;
  return numCoordinates - *constraintRank;
}

std::optional<int> GraphAnalysis::calcRedundantRows() const {
  if (!constraintRank) return std::nullopt;
  return numConstraintRows - *constraintRank;
}

void GraphAnalysis::setConstraintRank(int rankA) {
  const int maxRank = std::min(numCoordinates, numConstraintRows);
  if (rankA < 0 || rankA > maxRank)
    throw ModelError(detail::cat("graph analysis: rank of A = ", rankA, " is impossible for a ",
                                 numConstraintRows, " x ", numCoordinates,
                                 " constraint matrix (expected 0 .. ", maxRank, ")"));
  constraintRank = rankA;
}

// long: reads every result (components, loops, loose bodies, counts) off one Boost graph in
// one place, so that Boost.Graph stays inside the graph concern; sections are commented.
GraphAnalysis analyzeGraph(const Model& model) {
  using namespace detail;
  const auto constraints = model.constraints();
  const auto forces = model.forces();
  const auto& slots = model.bodySlots();
  const Topology t = buildTopology(model, constraints);
  const int nb = t.numBodies;

  GraphAnalysis a;
  a.numBodies = nb;

  // Independent subsystems: the same graph with the ground split into one copy per joint,
  // i.e. without the edges that touch the ground.
  std::vector<int> comp(boost::num_vertices(t.graph));
  {
    Graph split(boost::num_vertices(t.graph));
    auto [ei, eend] = boost::edges(t.graph);
    for (; ei != eend; ++ei) {
      const auto u = boost::source(*ei, t.graph), v = boost::target(*ei, t.graph);
      if (static_cast<int>(u) == t.groundVertex || static_cast<int>(v) == t.groundVertex) continue;
      boost::add_edge(u, v, t.graph[*ei], split);
    }
    boost::connected_components(split, comp.data());
  }
  // Renumber by first body in model order.
  std::map<int, int> renumber;
  a.bodyComponent.resize(nb);
  for (int b = 0; b < nb; ++b) {
    auto [it, added] = renumber.emplace(comp[b], static_cast<int>(renumber.size()));
    if (added) a.components.emplace_back();
    a.bodyComponent[b] = it->second;
    GraphComponent& c = a.components[it->second];
    c.bodies.push_back(slots[b].body);
    c.numCoordinates += slots[b].size;
    a.numCoordinates += slots[b].size;
  }

  // Constraints: component, anchoring, constrained bodies.
  std::vector<char> bodyConstrained(nb, 0), bodyForced(nb, 0);
  a.constraintComponent.assign(constraints.size(), -1);
  for (std::size_t ci = 0; ci < constraints.size(); ++ci) {
    const auto& verts = t.constraintVertices[ci];
    int k = -1;
    bool touchesGround = false;
    for (int v : verts) {
      if (v == t.groundVertex) { touchesGround = true; continue; }
      bodyConstrained[v] = 1;
      if (k < 0) k = a.bodyComponent[v];
      check(a.bodyComponent[v] == k, "a constraint spans two components");
    }
    if (k < 0) {
      a.groundOnlyConstraints.push_back(constraints[ci]);
      continue;
    }
    a.constraintComponent[ci] = k;
    GraphComponent& c = a.components[k];
    c.constraints.push_back(constraints[ci]);
    if (touchesGround || verts.size() == 1) c.anchored = true;
  }

  // Rows, from the model's row layout (joint rows and bodies' internal rows).
  {
    std::unordered_map<const Constraint*, int> cindex;
    for (std::size_t ci = 0; ci < constraints.size(); ++ci) cindex[constraints[ci]] = static_cast<int>(ci);
    std::unordered_map<const Body*, int> bindex;
    for (int b = 0; b < nb; ++b) bindex[slots[b].body] = b;
    for (const RowBlock& rb : model.rowBlocks()) {
      a.numConstraintRows += rb.size;
      int k = -1;
      if (rb.constraint) {
        auto it = cindex.find(rb.constraint);
        if (it != cindex.end()) k = a.constraintComponent[it->second];
      } else if (rb.body) {
        auto it = bindex.find(rb.body);
        if (it != bindex.end()) k = a.bodyComponent[it->second];
      }
      if (k >= 0) a.components[k].numConstraintRows += rb.size;
    }
  }

  // Force elements: listed in every component they touch.
  const VertexMap vmap(model);
  for (const ForceElement* f : forces) {
    std::vector<int> touched;
    for (const Body* b : distinctBodies(f->bodies())) {
      const int v = vmap.vertexOf(b, f->name());
      if (v == t.groundVertex) continue;
      bodyForced[v] = 1;
      const int k = a.bodyComponent[v];
      if (std::find(touched.begin(), touched.end(), k) == touched.end()) touched.push_back(k);
    }
    for (int k : touched) a.components[k].forces.push_back(f);
    if (touched.size() > 1) a.couplingForces.push_back(f);
  }

  for (int b = 0; b < nb; ++b) {
    if (bodyConstrained[b]) continue;
    a.freeFloating.push_back(slots[b].body);
    if (!bodyForced[b]) a.unattached.push_back(slots[b].body);
  }

  // Loops, and the component each lies in (a simple cycle passes the ground at most once,
  // so the rest of it is connected without the ground: one component).
  a.loops = findLoops(t, constraints);
  for (std::size_t li = 0; li < a.loops.size(); ++li) {
    int k = -1;
    for (const Body* b : a.loops[li].bodies)
      if (!vmap.isGround(b)) { k = a.bodyComponent[vmap.vertexOf(b, "loop")]; break; }
    check(k >= 0, "a loop without a movable body");
    a.components[k].loops.push_back(static_cast<int>(li));
  }

  // Cross-check the basis against the cyclomatic number E - V + C of the full graph.
  {
    std::vector<int> full(boost::num_vertices(t.graph));
    const int C = static_cast<int>(boost::connected_components(t.graph, full.data()));
    const int E = static_cast<int>(boost::num_edges(t.graph));
    const int V = static_cast<int>(boost::num_vertices(t.graph));
    check(E - V + C == a.numLoops(), "cycle basis size differs from E - V + C");
  }
  return a;
}

}  // namespace joinery
