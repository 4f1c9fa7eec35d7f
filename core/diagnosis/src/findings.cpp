// The diagnosis in the engineer's words (findings.hpp, docs/diagnosis.md).
#include "joinery/core/findings.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "joinery/core/format.hpp"

namespace joinery {

namespace {

/// The dense M, Q, A, b of a model at a state; `blocks` the row blocks kept (all at
/// acceleration level, velocity- and position-level rows for the other levels), `rows[k]`
/// the global row of local row k.
struct Dense {
  MatrixXd M, A;
  VectorXd Q, b;
  std::vector<const RowBlock*> blocks;
  std::vector<int> rowStart;  ///< first local row of each of `blocks`
};

bool keeps(const RowBlock& rb, ConstraintLevel level) {
  const ConstraintLevel l = rb.constraint ? rb.constraint->level() : ConstraintLevel::Position;
  if (level == ConstraintLevel::Acceleration) return true;
  if (level == ConstraintLevel::Velocity) return l != ConstraintLevel::Acceleration;
  return l == ConstraintLevel::Position;
}

/// At acceleration level the equations of motion's A q'' = b; at velocity level A v = c with
/// c = A v - psi (the velocities that satisfy the rows); at position level the Gauss-Newton
/// step A dq = -phi (M = I, Q = 0 at these levels: only A and its right side matter).
Dense denseAt(const Model& model, const State& s, ConstraintLevel level = ConstraintLevel::Acceleration) {
  ModelWorkspace ws = model.makeWorkspace();
  model.calcMassAndForces(s, ws);
  model.calcConstraints(s, ws);
  const int m = model.numConstraintRows();
  VectorXd rhs = ws.b;
  if (level != ConstraintLevel::Acceleration) {
    VectorXd r(m);
    if (level == ConstraintLevel::Velocity) {
      model.calcVelocityErrors(s, ws, r);
      rhs = ws.A * s.v - r;
    } else {
      model.calcPositionErrors(s, ws, r);
      rhs = -r;
    }
  }
  Dense D;
  int rows = 0;
  for (const RowBlock& rb : model.rowBlocks())
    if (keeps(rb, level)) rows += rb.size;
  D.A.resize(rows, model.numCoordinates());
  D.b.resize(rows);
  int k = 0;
  for (const RowBlock& rb : model.rowBlocks()) {
    if (!keeps(rb, level)) continue;
    D.blocks.push_back(&rb);
    D.rowStart.push_back(k);
    D.A.middleRows(k, rb.size) = ws.A.middleRows(rb.row, rb.size);
    D.b.segment(k, rb.size) = rhs.segment(rb.row, rb.size);
    k += rb.size;
  }
  if (level == ConstraintLevel::Acceleration) {
    D.M = ws.M;
    D.Q = ws.Q;
  } else {
    D.M = MatrixXd::Identity(model.numCoordinates(), model.numCoordinates());
    D.Q = VectorXd::Zero(model.numCoordinates());
  }
  return D;
}

bool withinLimits(const Model& model) {
  return model.numCoordinates() <= kCulpritMaxCoordinates &&
         static_cast<int>(model.rowBlocks().size()) <= kCulpritMaxJoints;
}

/// The diagnosis with local rows [skip, skip + size) removed (size 0: all rows).
Diagnosis without(const Dense& D, int skip, int size) {
  const Eigen::Index m = D.A.rows() - size;
  MatrixXd A(m, D.A.cols());
  VectorXd b(m);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < D.A.rows(); ++i) {
    if (i >= skip && i < skip + size) continue;
    A.row(k) = D.A.row(i);
    b(k++) = D.b(i);
  }
  return DenseSolver().solve(D.M, D.Q, A, b).diagnosis;
}

/// Joint names, "a", "a and b", "a, b and c".
std::string andList(const std::vector<std::string>& v, const char* conj = " and ") {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k == 0 ? "" : k + 1 == v.size() ? conj : ", ") + v[k];
  return s;
}

/// Coordinates that every one of the given row blocks acts on (local rows of D).
std::vector<std::string> sharedCoordinates(const Model& model, const Dense& D, const std::vector<std::size_t>& which) {
  std::vector<std::string> out;
  for (int i = 0; i < model.numCoordinates(); ++i) {
    bool all = !which.empty();
    for (std::size_t w : which) {
      const auto rows = D.A.middleRows(D.rowStart[w], D.blocks[w]->size);
      if (!(rows.col(i).cwiseAbs().maxCoeff() > 1e-12 * rows.cwiseAbs().maxCoeff())) all = false;
    }
    if (all) out.push_back(model.coordinateNames()[static_cast<std::size_t>(i)]);
  }
  return out;
}

/// The removal test over every joint of D: `restores(d)` says whether the diagnosis without
/// it no longer shows the problem of `full`.
template <class Restores>
Culprits removalTest(const Model& model, const Dense& D, const Diagnosis& full, Restores&& restores) {
  Culprits c;
  c.searched = true;
  std::vector<std::size_t> pure;
  for (std::size_t w = 0; w < D.blocks.size(); ++w) {
    const RowBlock& rb = *D.blocks[w];
    if (rb.constraint == nullptr) continue;  // a body's internal rows are not a joint to remove
    const Diagnosis d = without(D, D.rowStart[w], rb.size);
    if (!restores(d)) continue;
    if (d.rankA == full.rankA) {
      c.joints.push_back(rb.name);
      pure.push_back(w);
    } else {
      c.alsoRestoring.push_back(rb.name);
    }
  }
  c.coordinates = sharedCoordinates(model, D, pure);
  std::set<int> rows(full.inconsistentRows.begin(), full.inconsistentRows.end());
  for (std::size_t w : pure)
    for (int k = 0; k < D.blocks[w]->size; ++k)
      if (D.blocks[w]->size == 1 || rows.count(D.rowStart[w] + k))
        c.rows.push_back(model.rowNames()[static_cast<std::size_t>(D.blocks[w]->row + k)]);
  return c;
}

}  // namespace

Culprits findConflictingJoints(const Model& model, const State& s, ConstraintLevel level) {
  if (!withinLimits(model) || model.numConstraintRows() == 0) return {};
  const Dense D = denseAt(model, s, level);
  const Diagnosis d = without(D, 0, 0);
  if (d.consistent) return {};
  Culprits c = removalTest(model, D, d, [](const Diagnosis& x) { return x.consistent; });
  const char* where = level == ConstraintLevel::Velocity ? " at velocity level"
                      : level == ConstraintLevel::Position ? " at position level" : "";
  std::ostringstream os;
  if (c.joints.size() == 1) {
    os << c.joints[0] << " contradicts the other constraints" << where << ": remove or change it";
    if (!c.alsoRestoring.empty())
      os << " (removing " << andList(c.alsoRestoring, " or ")
         << " would also restore consistency, but frees a degree of freedom)";
  } else if (!c.joints.empty()) {
    os << andList(c.joints, c.joints.size() == 2 ? " against " : " and ") << ": they contradict each other"
       << where;
    if (!c.coordinates.empty()) os << " on " << andList(c.coordinates);
    os << "; remove or change one of them";
    if (!c.alsoRestoring.empty())
      os << " (removing " << andList(c.alsoRestoring, " or ")
         << " would also restore consistency, but frees a degree of freedom)";
  } else if (!c.alsoRestoring.empty()) {
    os << "the loop of " << andList(c.alsoRestoring) << " cannot close" << where
       << ": removing any one of them restores consistency";
  } else {
    os << "the constraints contradict each other" << where << ", and no single joint's removal resolves it";
  }
  c.message = os.str();
  return c;
}

Culprits findRedundantJoints(const Model& model, const State& s, const Diagnosis& d) {
  if (!d.consistent || d.redundant == 0 || !withinLimits(model)) return {};
  const Dense D = denseAt(model, s);
  Culprits c = removalTest(model, D, d, [&](const Diagnosis& x) { return x.redundant < d.redundant; });
  c.alsoRestoring.clear();  // removing those changes the motion: not a redundancy to remove
  if (c.joints.empty()) return c;
  std::ostringstream os;
  os << "redundant: " << andList(c.joints)
     << (c.joints.size() == 1 ? " repeats what other joints impose" : " repeat each other");
  if (!c.coordinates.empty()) os << " on " << andList(c.coordinates);
  os << " (legal: the motion is unaffected, but the split of their forces is not unique)";
  c.message = os.str();
  return c;
}

Culprits findOverdrivingJoints(const Model& model, const State& s) {
  Culprits c;
  if (!withinLimits(model) || model.numConstraintRows() == 0) return c;
  const Dense D = denseAt(model, s);
  std::vector<std::size_t> drivers;
  int driverRows = 0;
  for (std::size_t w = 0; w < D.blocks.size(); ++w) {
    const Constraint* k = D.blocks[w]->constraint;
    if (k != nullptr && k->prescribesMotion() && k->level() != ConstraintLevel::Acceleration) {
      drivers.push_back(w);
      driverRows += D.blocks[w]->size;
    }
  }
  if (drivers.size() < 2) return c;
  // the mobility of the mechanism without its drivers, by rank at s
  MatrixXd freeRows(D.A.rows() - driverRows, D.A.cols());
  for (std::size_t w = 0, k = 0; w < D.blocks.size(); ++w) {
    if (std::find(drivers.begin(), drivers.end(), w) != drivers.end()) continue;
    freeRows.middleRows(static_cast<Eigen::Index>(k), D.blocks[w]->size) = D.A.middleRows(D.rowStart[w], D.blocks[w]->size);
    k += static_cast<std::size_t>(D.blocks[w]->size);
  }
  const Eigen::Index rank =
      freeRows.rows() ? Eigen::JacobiSVD<MatrixXd>(freeRows).setThreshold(1e-9).rank() : Eigen::Index{0};
  const int mobility = model.numCoordinates() - static_cast<int>(rank);
  if (driverRows <= mobility) return c;
  c.searched = true;
  c.overdriven = true;
  for (std::size_t w : drivers) c.joints.push_back(D.blocks[w]->name);
  c.coordinates = {};
  std::ostringstream os;
  os << andList(c.joints) << (c.joints.size() == 2 ? " both" : " all") << " drive the mechanism, which has " << mobility
     << " degree" << (mobility == 1 ? "" : "s") << " of freedom without them: " << driverRows
     << " prescribed motions for " << mobility << "; remove " << (driverRows - mobility == 1 ? "one" : "some")
     << " of them (or give it as a force)";
  c.message = os.str();
  return c;
}

std::vector<std::string> findLockingJoints(const Model& model, const State& s) {
  std::vector<std::string> out;
  if (!withinLimits(model) || model.numConstraintRows() == 0) return out;
  const Dense D = denseAt(model, s);
  const Diagnosis full = without(D, 0, 0);
  std::vector<std::pair<int, std::size_t>> found;  // (rows, declaration index)
  for (std::size_t w = 0; w < D.blocks.size(); ++w) {
    if (D.blocks[w]->constraint == nullptr) continue;
    if (without(D, D.rowStart[w], D.blocks[w]->size).rankA < full.rankA) found.push_back({D.blocks[w]->size, w});
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  for (const auto& f : found) out.push_back(D.blocks[f.second]->name);
  return out;
}

std::string describeLockedVelocities(const Model& model, const AssemblyReport& a) {
  std::vector<const VelocityChange*> removed;
  for (const VelocityChange& c : a.velocities)
    if (std::abs(c.after) <= 1e-6 * std::abs(c.before)) removed.push_back(&c);
  if (removed.empty() || !withinLimits(model)) return "";
  const Dense D = denseAt(model, a.state);
  if (without(D, 0, 0).rankA < model.numCoordinates()) return "";
  const std::vector<std::string> locking = findLockingJoints(model, a.state);
  std::stable_sort(removed.begin(), removed.end(), [](const VelocityChange* x, const VelocityChange* y) {
    return std::abs(x->before) > std::abs(y->before);
  });
  std::ostringstream os;
  os << "the mechanism is locked";
  if (!locking.empty()) {
    os << " by " << locking.front();
    if (locking.size() > 1)
      os << " (mobility 0; removing " << andList({locking.begin() + 1, locking.end()}, " or ")
         << " would free it too)";
  } else {
    os << " (mobility 0)";
  }
  os << "; the given velocit" << (removed.size() > 1 ? "ies of " : "y of ");
  for (std::size_t k = 0; k < removed.size() && k < 2; ++k) {
    const std::string u = coordinateUnit(model, removed[k]->coordinate);
    os << (k ? ", " : "") << removed[k]->name << " (" << formatNumber(removed[k]->before, 4)
       << (u.empty() ? "" : " " + u + "/s") << ")";
  }
  if (removed.size() > 2) os << " and " << removed.size() - 2 << " more";
  os << (removed.size() > 1 ? " are" : " is") << " removed";
  return os.str();
}

// ---- undetermined motions in physical terms -------------------------------------------------

namespace {

/// True when the n-vector u lies in the span of the orthonormal columns of N.
bool inNullSpace(const MatrixXd& N, const VectorXd& u) {
  if (N.cols() == 0 || u.norm() == 0) return false;
  const VectorXd r = u - N * (N.transpose() * u);
  return r.norm() <= 1e-6 * u.norm();
}

const char* kAxis[3] = {"x", "y", "z"};

/// Causes on one body; marks the null-space directions they explain in `explained`.
void bodyCauses(const Model& model, const BodySlot& sl, const State& s, const MatrixXd& N, bool forced,
                std::vector<std::string>& out, MatrixXd& explained) {
  const Body& b = *sl.body;
  const int n = model.numCoordinates();
  auto add = [&](const VectorXd& u) {
    explained.conservativeResize(n, explained.cols() + 1);
    explained.col(explained.cols() - 1) = u;
  };
  if (const std::optional<MassProperties> mp = b.massProperties()) {
    const bool planar = mp->rotations == 1;
    VectorXd local(sl.size);
    for (int a = (planar ? 2 : 0); mp->rotations > 0 && a < 3; ++a) {
      if (mp->inertia(a, a) != 0) continue;
      VectorXd u = VectorXd::Zero(n);
      b.calcRotationRates(s.q.segment(sl.offset, sl.size), a, local);
      u.segment(sl.offset, sl.size) = local;
      if (!inNullSpace(N, u)) continue;
      add(u);
      const std::string I = std::string("I") + kAxis[a] + kAxis[a];
      out.push_back(b.name() + " has zero inertia about its own " + kAxis[a] + " axis: give it " +
                    (planar ? std::string("inertia") : I) + " > 0 or constrain " +
                    (planar ? "its rotation" : "the spin"));
    }
    if (mp->rotations > 0 && mp->mass != 0) return;
    const int dims = mp->translations;
    std::vector<std::string> free;
    for (int k = 0; k < dims; ++k) {
      VectorXd u = VectorXd::Zero(n);
      u(sl.offset + k) = 1;
      if (!inNullSpace(N, u)) continue;
      add(u);
      free.push_back(kAxis[k]);
    }
    if (!free.empty())
      out.push_back(b.name() + " has zero mass and nothing holds it along world " + andList(free) +
                    ": give it a mass or a joint along " + (free.size() > 1 ? "those axes" : "that axis") +
                    (forced ? ", or add its force balance (--complete-massless)" : " (no force acts on it either)"));
    return;
  }
  // linear, expression and other bodies: by coordinate, or by the named group (a flexible
  // body's interface node) the free coordinates belong to
  const std::string advice = std::string(" has no mass and no joint acts on it: give it mass or a joint on it") +
                             (forced ? ", or add its force balance (--complete-massless)" : "");
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // label, its free coordinates
  for (int k = 0; k < sl.size; ++k) {
    VectorXd u = VectorXd::Zero(n);
    u(sl.offset + k) = 1;
    if (!inNullSpace(N, u)) continue;
    add(u);
    const std::string coordinate = model.coordinateNames()[static_cast<std::size_t>(sl.offset + k)];
    const std::string label = b.coordinateGroup(k);
    if (label.empty()) {
      out.push_back(coordinate + advice);
      continue;
    }
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& e) { return e.first == label; });
    if (g == groups.end()) g = groups.insert(groups.end(), {label, {}});
    g->second.push_back(coordinate);
  }
  for (const auto& [label, coordinates] : groups) {
    std::string list;
    for (const std::string& c : coordinates) list += (list.empty() ? "" : ", ") + c;
    out.push_back(label + " of body '" + b.name() + "' (" + list + ")" + advice);
  }
}

}  // namespace

std::vector<std::string> describeIndeterminacy(const Model& model, const State& s, const Diagnosis& d) {
  std::vector<std::string> out;
  const MatrixXd& N = d.nullBasis;
  if (N.cols() == 0 || N.rows() != model.numCoordinates()) return out;
  MatrixXd explained(model.numCoordinates(), 0);
  std::vector<bool> forced(static_cast<std::size_t>(model.numCoordinates()), false);
  for (const auto& dir : d.indeterminate)
    if (!dir.noForce)
      for (int i : dir.coordinates) forced[static_cast<std::size_t>(i)] = true;
  for (const BodySlot& sl : model.bodySlots()) {
    bool touched = false, anyForced = false;
    for (int k = 0; k < sl.size; ++k) {
      touched = touched || N.row(sl.offset + k).norm() > 1e-9;
      anyForced = anyForced || forced[static_cast<std::size_t>(sl.offset + k)];
    }
    if (touched) bodyCauses(model, sl, s, N, anyForced, out, explained);
  }
  // a massless body that turns (or slides) about the joints that hold it: a motion of that
  // body alone, about its joints rather than about its own axes (a flag on a pin)
  const auto rankOf = [](const MatrixXd& X) {
    return X.cols() ? static_cast<Eigen::Index>(Eigen::FullPivLU<MatrixXd>(X).setThreshold(1e-9).rank()) : 0;
  };
  for (const BodySlot& sl : model.bodySlots()) {
    if (sl.size == 0 || rankOf(explained) >= N.cols()) break;
    const std::optional<MassProperties> mp = sl.body->massProperties();
    if (!mp || mp->mass != 0) continue;
    // combinations of N's columns that vanish off this body: the body's own null motions
    MatrixXd off(model.numCoordinates() - sl.size, N.cols());
    for (int i = 0, k = 0; i < model.numCoordinates(); ++i)
      if (i < sl.offset || i >= sl.offset + sl.size) off.row(k++) = N.row(i);
    // (N's columns are orthonormal: singular values of `off` at most 1, an absolute threshold)
    MatrixXd Z = MatrixXd::Identity(N.cols(), N.cols());
    if (off.rows()) {
      Eigen::JacobiSVD<MatrixXd> svd(off, Eigen::ComputeFullV);
      Eigen::Index kept = 0;
      for (Eigen::Index i = 0; i < svd.singularValues().size(); ++i)
        if (svd.singularValues()(i) > 1e-9) ++kept;
      Z = svd.matrixV().rightCols(N.cols() - kept);
    }
    if (Z.cols() == 0) continue;
    const MatrixXd W = N * Z;
    MatrixXd both(explained.rows(), explained.cols() + W.cols());
    both.leftCols(explained.cols()) = explained;
    both.rightCols(W.cols()) = W;
    if (rankOf(both) <= rankOf(explained)) continue;
    std::vector<std::string> holding;
    for (const Constraint* c : model.constraints())
      if (std::find(c->bodies().begin(), c->bodies().end(), sl.body) != c->bodies().end()) holding.push_back(c->name());
    if (holding.empty()) continue;  // free: said above, along the world axes
    explained = both;
    const bool planar = mp->rotations == 1;
    out.push_back(sl.body->name() + " has zero inertia about " + andList(holding) +
                  ": give it inertia or fix it with a weld (a " + (planar ? "weld2d" : "weld3d") + " in place of " +
                  (holding.size() > 1 ? "one of them" : holding.front()) + ")");
  }
  // what the named causes do not explain: massless motions spanning several bodies
  const Eigen::Index covered = explained.cols() ? Eigen::FullPivLU<MatrixXd>(explained).rank() : 0;
  if (covered < N.cols()) {
    std::vector<std::string> bodies;
    std::set<std::string> seen;
    for (const auto& dir : d.indeterminate)
      for (int i : dir.coordinates)
        if (seen.insert(model.bodyOfCoordinate(i).name()).second) bodies.push_back(model.bodyOfCoordinate(i).name());
    out.push_back("a massless motion of " + andList(bodies) +
                  " has no mass and no joint (direction w below): give one of them mass, a joint "
                  "along w, or the force balance along w (--complete-massless)");
  }
  return out;
}

}  // namespace joinery
