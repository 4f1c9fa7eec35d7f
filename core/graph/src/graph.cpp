#include "joinery/core/graph.hpp"

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
namespace {

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

void appendPiece(std::string& s, std::string_view v) { s.append(v); }
void appendPiece(std::string& s, int v) { s.append(std::to_string(v)); }

/// Concatenates strings and ints by appending (also avoids GCC 12's false -Wrestrict on
/// `"literal" + std::string&&`).
template <class... Ts>
std::string cat(const Ts&... parts) {
  std::string s;
  (appendPiece(s, parts), ...);
  return s;
}

/// Internal invariant: a failure is a bug in this file, not bad input.
void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "joinery: internal error in graph analysis: %s\n", what);
    std::abort();
  }
}

/// The bodies of a list, duplicates removed, order kept.
std::vector<const Body*> distinctBodies(const std::vector<const Body*>& bodies) {
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

Topology buildTopology(const Model& model, const std::vector<const Constraint*>& constraints) {
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

BfsForest bfsForest(const Topology& t) {
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
std::vector<GraphLoop> findLoops(const Topology& t, const std::vector<const Constraint*>& constraints) {
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

}  // namespace
}  // namespace detail

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

// ---- Graphviz DOT ---------------------------------------------------------------------

namespace detail {
namespace {

/// Escapes text for a DOT quoted string (escString in labels: \" \\ and \n).
std::string dotEscape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': break;
      default: out += ch;
    }
  }
  return out;
}

/// Escapes text for a Graphviz HTML-like label.
std::string htmlEscape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

/// "1 row", "2 rows"; "1 body", "3 bodies".
std::string plural(int n, const char* word, const char* words = nullptr) {
  if (n == 1) return cat(n, " ", word);
  return words ? cat(n, " ", words) : cat(n, " ", word, "s");
}

// Colour-blind friendly, dark enough on white (Dark2 + Paired darks).
constexpr const char* kLoopPalette[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
                                        "#e6ab02", "#a6761d", "#1f78b4", "#e31a1c", "#6a3d9a"};
constexpr int kPaletteSize = static_cast<int>(sizeof(kLoopPalette) / sizeof(kLoopPalette[0]));
constexpr int kMaxLegendRows = 40;

const char* loopColor(int loop) { return kLoopPalette[loop % kPaletteSize]; }

std::string loopList(const std::vector<int>& loops) {
  std::string s = loops.size() == 1 ? "loop " : "loops ";
  for (std::size_t i = 0; i < loops.size(); ++i) s += cat(i ? "," : "", loops[i] + 1);
  return s;
}

/// Edge attributes for a joint edge or spoke that lies on `loops`.
std::string loopAttrs(const std::vector<int>& loops) {
  if (loops.empty()) return "";
  return cat(", color=\"", loopColor(loops.front()), "\", fontcolor=\"", loopColor(loops.front()),
             "\", penwidth=2.5");
}

}  // namespace
}  // namespace detail

std::string toGraphvizDot(const Model& model, const GraphAnalysis& a) {
  using namespace detail;
  const auto constraints = model.constraints();
  const auto forces = model.forces();
  const auto& slots = model.bodySlots();
  const VertexMap vmap(model);
  const int nb = static_cast<int>(slots.size());
  if (static_cast<int>(a.bodyComponent.size()) != nb ||
      a.constraintComponent.size() != constraints.size())
    throw ModelError("toGraphvizDot: the graph analysis belongs to another model");

  auto nodeId = [&](int v) { return v == vmap.groundVertex() ? std::string("ground") : cat("b", v); };
  auto hubId = [](std::size_t ci) { return cat("c", static_cast<int>(ci)); };
  // Edges are written from the vertex nearer the ground (BFS depth) to the farther one, so
  // that dot ranks the mechanism downwards from the ground, level by level.
  const Topology topo = buildTopology(model, constraints);
  const std::vector<int> depth = bfsForest(topo).depth;
  auto nearerFirst = [&](int u, int v) { return depth[v] < depth[u] ? std::pair(v, u) : std::pair(u, v); };

  // Which loops each joint edge / spoke lies on: key (constraint, body vertex a, body vertex b)
  // with a <= b for a joint between two bodies; for a hub spoke (constraint, body, -1).
  std::map<std::tuple<int, int, int>, std::vector<int>> onLoops;
  std::unordered_map<const Constraint*, int> cindex;
  for (std::size_t ci = 0; ci < constraints.size(); ++ci) cindex[constraints[ci]] = static_cast<int>(ci);
  const std::vector<std::vector<int>>& cverts = topo.constraintVertices;
  for (std::size_t li = 0; li < a.loops.size(); ++li) {
    const GraphLoop& loop = a.loops[li];
    const std::size_t L = loop.bodies.size();
    for (std::size_t i = 0; i < L; ++i) {
      const int ci = cindex.at(loop.joints[i]);
      const int u = vmap.vertexOf(loop.bodies[i], "loop"), v = vmap.vertexOf(loop.bodies[(i + 1) % L], "loop");
      if (cverts[ci].size() >= 3) {
        onLoops[{ci, u, -1}].push_back(static_cast<int>(li));
        onLoops[{ci, v, -1}].push_back(static_cast<int>(li));
      } else {
        onLoops[{ci, std::min(u, v), std::max(u, v)}].push_back(static_cast<int>(li));
      }
    }
  }
  auto loopsOf = [&](int ci, int u, int v) -> const std::vector<int>& {
    static const std::vector<int> none;
    auto it = onLoops.find({ci, u, v});
    return it == onLoops.end() ? none : it->second;
  };

  std::ostringstream os;
  os << "graph joinery {\n";
  {
    std::string title = cat(plural(a.numBodies, "body", "bodies"), ", ", plural(a.numCoordinates, "coordinate"),
                            ", ", plural(a.numConstraintRows, "constraint row"),
                            "\nmobility count n - m = ", a.calcMobilityCount());
    if (auto mr = a.calcMobilityFromRank())
      title += cat(", n - rank A = ", *mr, " (", plural(*a.calcRedundantRows(), "redundant row"), ")");
    title += cat("\n", plural(a.numLoops(), "independent loop"), ", ",
                 plural(a.numComponents(), "independent subsystem"));
    os << "  graph [label=\"" << dotEscape(title)
       << "\", labelloc=t, fontname=\"Helvetica\", fontsize=12, splines=true, nodesep=0.4];\n";
  }
  os << "  node [fontname=\"Helvetica\", fontsize=11];\n";
  os << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  os << "  ground [label=\"ground\", shape=box, style=\"filled,bold\", fillcolor=\"gray80\", "
        "penwidth=2.5, fontname=\"Helvetica-Bold\"];\n";

  // Nodes: bodies and hubs, clustered by component when there are several.
  std::vector<std::vector<std::string>> compNodes(a.components.size());
  for (int b = 0; b < nb; ++b) {
    const Body& body = *slots[b].body;
    std::string label = cat(body.name(), "\n(", body.typeName(), ", ", plural(slots[b].size, "coord"));
    if (body.numInternalConstraints() > 0)
      label += cat(", ", body.numInternalConstraints(), " internal");
    label += ")";
    compNodes[a.bodyComponent[b]].push_back(cat(nodeId(b), " [label=\"", dotEscape(label), "\", shape=ellipse];"));
  }
  for (std::size_t ci = 0; ci < constraints.size(); ++ci) {
    if (cverts[ci].size() < 3) continue;
    const Constraint& c = *constraints[ci];
    std::vector<int> hubLoops;
    for (int v : cverts[ci])
      for (int l : loopsOf(static_cast<int>(ci), v, -1))
        if (std::find(hubLoops.begin(), hubLoops.end(), l) == hubLoops.end()) hubLoops.push_back(l);
    std::sort(hubLoops.begin(), hubLoops.end());
    std::string label = cat(c.name(), "\n(", c.typeName(), ", ", plural(c.numRows(), "row"), ")");
    if (!hubLoops.empty()) label += cat("\n", loopList(hubLoops));
    std::string node = cat(hubId(ci), " [label=\"", dotEscape(label),
                           "\", shape=diamond, style=filled, fillcolor=\"white\", fontsize=9, margin=0.02");
    if (!hubLoops.empty())
      node += cat(", color=\"", loopColor(hubLoops.front()), "\", penwidth=2.5");
    node += "];";
    const int k = a.constraintComponent[ci];
    if (k >= 0) compNodes[k].push_back(node);
    else os << "  " << node << "\n";
  }
  for (std::size_t fi = 0; fi < forces.size(); ++fi) {
    const ForceElement& f = *forces[fi];
    const auto bodies = distinctBodies(f.bodies());
    if (bodies.size() < 3) continue;
    const std::string label = cat(f.name(), "\n(", f.typeName(), ")");
    const std::string node = cat("f", static_cast<int>(fi), " [label=\"", dotEscape(label),
                                 "\", shape=diamond, style=dashed, color=\"gray40\", fontcolor=\"gray30\", "
                                 "fontsize=9, margin=0.02];");
    // Inside a cluster when all its bodies lie in one subsystem.
    int k = -1;
    for (const Body* b : bodies) {
      const int v = vmap.vertexOf(b, f.name());
      if (v == vmap.groundVertex()) continue;
      if (k == -1) k = a.bodyComponent[v];
      else if (k != a.bodyComponent[v]) k = -2;
    }
    if (k >= 0) compNodes[k].push_back(node);
    else os << "  " << node << "\n";
  }
  const bool clusters = a.components.size() > 1;
  for (std::size_t k = 0; k < a.components.size(); ++k) {
    const GraphComponent& c = a.components[k];
    const char* indent = clusters ? "    " : "  ";
    if (clusters) {
      const std::string label =
          cat("subsystem ", static_cast<int>(k) + 1, ": n - m = ", c.calcMobilityCount(), ", ",
              plural(static_cast<int>(c.loops.size()), "loop"), c.anchored ? ", anchored" : ", not anchored");
      os << "  subgraph cluster_" << k << " {\n    label=\"" << dotEscape(label)
         << "\"; style=\"rounded,dashed\"; color=\"gray60\"; fontsize=10;\n";
    }
    for (const auto& n : compNodes[k]) os << indent << n << "\n";
    if (clusters) os << "  }\n";
  }

  // Joint edges, nearer the ground first.
  for (std::size_t ci = 0; ci < constraints.size(); ++ci) {
    const Constraint& c = *constraints[ci];
    const auto& vs = cverts[ci];
    const int cidx = static_cast<int>(ci);
    const std::string label = cat(c.name(), "\n(", c.typeName(), ", ", plural(c.numRows(), "row"), ")");
    if (vs.size() == 1) {
      os << "  " << nodeId(vs[0]) << " -- " << nodeId(vs[0]) << " [label=\"" << dotEscape(label) << "\"];\n";
    } else if (vs.size() == 2) {
      const auto [u, v] = nearerFirst(vs[0], vs[1]);
      const auto& ls = loopsOf(cidx, std::min(u, v), std::max(u, v));
      std::string full = label;
      if (!ls.empty()) full += cat("\n", loopList(ls));
      os << "  " << nodeId(u) << " -- " << nodeId(v) << " [label=\"" << dotEscape(full) << "\""
         << loopAttrs(ls) << "];\n";
    } else if (vs.size() >= 3) {
      const int hub = topo.constraintHub[ci];
      for (int v : vs) {
        const auto& ls = loopsOf(cidx, v, -1);
        const bool bodyFirst = depth[v] < depth[hub];
        os << "  " << (bodyFirst ? nodeId(v) : hubId(ci)) << " -- "
           << (bodyFirst ? hubId(ci) : nodeId(v)) << " ["
           << loopAttrs(ls).substr(ls.empty() ? 0 : 2) << "];\n";
      }
    }
  }

  // Force elements: dashed grey.
  std::vector<char> freeVertex(depth.size(), 0);
  for (const Body* b : a.freeFloating) freeVertex[vmap.vertexOf(b, "freeFloating")] = 1;
  auto isFree = [&](int v) { return freeVertex[v] != 0; };
  for (std::size_t fi = 0; fi < forces.size(); ++fi) {
    const ForceElement& f = *forces[fi];
    std::vector<int> vs;
    for (const Body* b : distinctBodies(f.bodies())) vs.push_back(vmap.vertexOf(b, f.name()));
    const std::string label = cat(f.name(), "\n(", f.typeName(), ")");
    const char* style = "style=dashed, color=\"gray40\", fontcolor=\"gray30\"";
    if (vs.size() == 1) {
      os << "  " << nodeId(vs[0]) << " -- " << nodeId(vs[0]) << " [label=\"" << dotEscape(label)
         << "\", " << style << "];\n";
    } else if (vs.size() == 2) {
      const auto [u, v] = nearerFirst(vs[0], vs[1]);
      // A force between bodies placed by their joints must not drag them out of their ranks.
      const bool ranks = isFree(u) || isFree(v);
      os << "  " << nodeId(u) << " -- " << nodeId(v) << " [label=\"" << dotEscape(label) << "\", "
         << style << (ranks ? "" : ", constraint=false") << "];\n";
    } else if (vs.size() >= 3) {
      for (int v : vs) os << "  " << nodeId(v) << " -- f" << fi << " [" << style << "];\n";
    }
  }

  // Legend: one row per loop, in its colour.
  if (!a.loops.empty()) {
    os << "  legend [shape=plaintext, fontsize=10, label=<<TABLE BORDER=\"1\" CELLBORDER=\"0\" "
          "CELLSPACING=\"2\" COLOR=\"gray60\"><TR><TD ALIGN=\"LEFT\"><B>independent loops</B></TD></TR>";
    const int shown = std::min(a.numLoops(), kMaxLegendRows);
    for (int li = 0; li < shown; ++li) {
      std::string row = cat("loop ", li + 1, ": ");
      const auto& js = a.loops[li].joints;
      for (std::size_t i = 0; i < js.size(); ++i) row += cat(i ? " - " : "", js[i]->name());
      os << "<TR><TD ALIGN=\"LEFT\"><FONT COLOR=\"" << loopColor(li) << "\">" << htmlEscape(row)
         << "</FONT></TD></TR>";
    }
    if (a.numLoops() > shown)
      os << "<TR><TD ALIGN=\"LEFT\">... and " << (a.numLoops() - shown) << " more</TD></TR>";
    os << "</TABLE>>];\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace joinery
