// toGraphvizDot: the body-joint graph in Graphviz DOT (docs/graph.md).
#include "joinery/core/graph.hpp"

#include "graph_topology.hpp"

namespace joinery {

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

// long: writes the DOT text top to bottom (title, nodes by component, joint edges, force
// edges, legend), each section commented; they share the vertex map, depths and loop marks.
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
