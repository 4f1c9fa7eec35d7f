#pragma once
// Private to the graph concern: the body-joint graph as a Boost.Graph (one vertex per body
// and the ground, one per hub of a constraint on three or more bodies), its BFS forest and
// its fundamental loops. Shared by the analysis (graph.cpp) and the DOT writer (graph_dot.cpp).

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "joinery/core/errors.hpp"
#include "joinery/core/model.hpp"


namespace joinery {

namespace detail {

// ---- the graph ------------------------------------------------------------------------
//
// Vertices: the bodies in Model::bodySlots() order (0 .. nb-1), then the ground (nb), then
// one hub vertex per constraint on three or more distinct bodies (a star: the hyperedge
// contributes k edges and one vertex, i.e. k - 1 to the cyclomatic number, like k - 1
// ordinary edges). Edges: constraints on exactly two distinct bodies, and the spokes of the
// hubs. Constraints on one distinct body are not edges (they close no loop).

struct EdgeInfo {
  int id = 0;          // edge index, 0 .. E-1
  int constraint = 0;  // index into Model::constraints()
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                    boost::no_property, EdgeInfo>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

inline void appendPiece(std::string& s, std::string_view v) { s.append(v); }
inline void appendPiece(std::string& s, int v) { s.append(std::to_string(v)); }

/// Concatenates strings and ints by appending (also avoids GCC 12's false -Wrestrict on
/// `"literal" + std::string&&`).
template <class... Ts>
std::string cat(const Ts&... parts) {
  std::string s;
  (appendPiece(s, parts), ...);
  return s;
}

/// Internal invariant: a failure is a bug in this file, not bad input.
inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "joinery: internal error in graph analysis: %s\n", what);
    std::abort();
  }
}

/// The bodies of a list, duplicates removed, order kept.
inline std::vector<const Body*> distinctBodies(const std::vector<const Body*>& bodies) {
  std::vector<const Body*> out;
  for (const Body* b : bodies)
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  return out;
}

/// Maps bodies of the model to vertex indices.
class VertexMap {
 public:
  explicit VertexMap(const Model& model) : ground_(&model.ground()) {
    const auto& slots = model.bodySlots();
    for (std::size_t i = 0; i < slots.size(); ++i) index_[slots[i].body] = static_cast<int>(i);
    groundVertex_ = static_cast<int>(slots.size());
  }
  int groundVertex() const { return groundVertex_; }
  bool isGround(const Body* b) const { return b == ground_ || b->isGround(); }
  /// @throws ModelError for a body that is not part of the model
  int vertexOf(const Body* b, const std::string& owner) const {
    if (isGround(b)) return groundVertex_;
    auto it = index_.find(b);
    if (it == index_.end())
      throw ModelError(cat("graph analysis: '", owner, "' refers to body '", b->name(),
                           "', which is not part of the model"));
    return it->second;
  }

 private:
  const Body* ground_;
  std::unordered_map<const Body*, int> index_;
  int groundVertex_ = 0;
};

/// The topology of the constraints, shared by analyzeGraph() and toGraphvizDot().
struct Topology {
  int numBodies = 0;
  int groundVertex = 0;
  std::vector<const Body*> vertexBody;        // body (or ground) per vertex; nullptr for hubs
  std::vector<std::vector<int>> constraintVertices;  // distinct body vertices per constraint
  std::vector<int> constraintHub;             // hub vertex per constraint, -1 if none
  Graph graph;
  int numEdges = 0;
};

inline Topology buildTopology(const Model& model, const std::vector<const Constraint*>& constraints) {
  const VertexMap vmap(model);
  Topology t;
  t.numBodies = static_cast<int>(model.bodySlots().size());
  t.groundVertex = vmap.groundVertex();
  for (const BodySlot& s : model.bodySlots()) t.vertexBody.push_back(s.body);
  t.vertexBody.push_back(&model.ground());

  t.graph = Graph(t.vertexBody.size());
  for (std::size_t ci = 0; ci < constraints.size(); ++ci) {
    const Constraint& c = *constraints[ci];
    std::vector<int> verts;
    for (const Body* b : distinctBodies(c.bodies())) verts.push_back(vmap.vertexOf(b, c.name()));
    t.constraintVertices.push_back(verts);
    t.constraintHub.push_back(-1);
    const int cidx = static_cast<int>(ci);
    if (verts.size() == 2) {
      boost::add_edge(verts[0], verts[1], EdgeInfo{t.numEdges++, cidx}, t.graph);
    } else if (verts.size() >= 3) {
      const auto hub = boost::add_vertex(t.graph);
      t.vertexBody.push_back(nullptr);
      t.constraintHub.back() = static_cast<int>(hub);
      for (int v : verts) boost::add_edge(hub, v, EdgeInfo{t.numEdges++, cidx}, t.graph);
    }
  }
  return t;
}

/// Records the BFS tree: parent vertex, parent edge id and depth of every discovered vertex.
struct TreeRecorder : boost::default_bfs_visitor {
  std::vector<int>* parent;
  std::vector<int>* parentEdge;
  std::vector<int>* depth;
  std::vector<char>* isTreeEdge;
  void tree_edge(Edge e, const Graph& g) const {
    const auto u = boost::source(e, g), v = boost::target(e, g);
    (*parent)[v] = static_cast<int>(u);
    (*parentEdge)[v] = g[e].id;
    (*depth)[v] = (*depth)[u] + 1;
    (*isTreeEdge)[g[e].id] = 1;
  }
};

/// A BFS spanning forest of the constraint graph, the ground's tree first.
struct BfsForest {
  std::vector<int> parent, parentEdge, depth;  // per vertex (-1 at roots)
  std::vector<char> isTreeEdge;                // per edge id
};

inline BfsForest bfsForest(const Topology& t) {
  const Graph& g = t.graph;
  const std::size_t nv = boost::num_vertices(g);
  BfsForest f;
  f.parent.assign(nv, -1);
  f.parentEdge.assign(nv, -1);
  f.depth.assign(nv, 0);
  f.isTreeEdge.assign(t.numEdges, 0);
  std::vector<boost::default_color_type> colors(nv, boost::white_color);
  auto colorMap = boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, g));
  TreeRecorder rec;
  rec.parent = &f.parent;
  rec.parentEdge = &f.parentEdge;
  rec.depth = &f.depth;
  rec.isTreeEdge = &f.isTreeEdge;

  // Ground first, so that loops through the ground close there; then every other tree.
  std::vector<Vertex> roots{static_cast<Vertex>(t.groundVertex)};
  for (Vertex v = 0; v < nv; ++v) roots.push_back(v);
  for (Vertex r : roots) {
    if (colors[r] != boost::white_color) continue;
    boost::breadth_first_visit(g, r, boost::visitor(rec).color_map(colorMap));
  }
  return f;
}

/// A fundamental cycle basis from the BFS spanning forest: one cycle per non-tree edge, hub
/// vertices collapsed into their constraint.
inline std::vector<GraphLoop> findLoops(const Topology& t, const std::vector<const Constraint*>& constraints) {
  const Graph& g = t.graph;
  const BfsForest f = bfsForest(t);
  const auto& parent = f.parent;
  const auto& parentEdge = f.parentEdge;
  const auto& depth = f.depth;
  const auto& isTree = f.isTreeEdge;

  std::vector<int> edgeConstraint(t.numEdges);
  {
    auto [ei, eend] = boost::edges(g);
    for (; ei != eend; ++ei) edgeConstraint[g[*ei].id] = g[*ei].constraint;
  }

  std::vector<GraphLoop> loops;
  auto [ei, eend] = boost::edges(g);
  for (; ei != eend; ++ei) {
    if (isTree[g[*ei].id]) continue;
    int u = static_cast<int>(boost::source(*ei, g)), v = static_cast<int>(boost::target(*ei, g));
    // Walk both ends up to their lowest common ancestor.
    std::vector<int> upV, upE;      // from u: vertices u .. lca, edges between them
    std::vector<int> downV, downE;  // from v: vertices v .. (child of lca), edges up
    while (depth[u] > depth[v]) { upV.push_back(u); upE.push_back(parentEdge[u]); u = parent[u]; }
    while (depth[v] > depth[u]) { downV.push_back(v); downE.push_back(parentEdge[v]); v = parent[v]; }
    while (u != v) {
      upV.push_back(u); upE.push_back(parentEdge[u]); u = parent[u];
      downV.push_back(v); downE.push_back(parentEdge[v]); v = parent[v];
      check(u >= 0 && v >= 0, "BFS trees of a non-tree edge's ends differ");
    }
    upV.push_back(u);  // the lca
    // Cycle: vertex[i] -edge[i]- vertex[i+1], closing from the last vertex to the first.
    std::vector<int> cycV = upV, cycE = upE;
    for (std::size_t k = downV.size(); k-- > 0;) {
      cycE.push_back(downE[k]);
      cycV.push_back(downV[k]);
    }
    cycE.push_back(g[*ei].id);
    check(cycV.size() == cycE.size() && cycV.size() >= 2, "malformed cycle");

    // Start at the ground when the loop passes through it, else at its first body.
    const std::size_t L = cycV.size();
    std::size_t start = L;
    for (std::size_t k = 0; k < L; ++k)
      if (cycV[k] == t.groundVertex) start = k;
    if (start == L) {
      int best = -1;
      for (std::size_t k = 0; k < L; ++k)
        if (t.vertexBody[cycV[k]] && (best < 0 || cycV[k] < best)) { best = cycV[k]; start = k; }
    }
    check(start < L, "cycle without a body");

    // Collapse hubs: a body, the edge leaving it (a joint or a spoke), maybe a hub and its
    // second spoke, then the next body.
    GraphLoop loop;
    for (std::size_t k = 0; k < L; ++k) {
      const std::size_t i = (start + k) % L;
      if (!t.vertexBody[cycV[i]]) continue;  // a hub: already accounted for
      loop.bodies.push_back(t.vertexBody[cycV[i]]);
      loop.joints.push_back(constraints[edgeConstraint[cycE[i]]]);
    }
    loops.push_back(std::move(loop));
  }
  return loops;
}

}  // namespace detail

}  // namespace joinery
