#include "joinery/core/nonfinite_source.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "joinery/core/body.hpp"
#include "joinery/core/constraint.hpp"

namespace joinery {
namespace {

/// The first non-finite entry of `x` (-1 when all are finite).
Eigen::Index firstNonFinite(const Eigen::Ref<const VectorXd>& x) {
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (!std::isfinite(x(i))) return i;
  return -1;
}

std::string numberText(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

/// The views of `bodies` into the global state (the ground has no coordinates).
std::vector<BodyStateView> viewsOf(const Model& model, const State& s, const std::vector<const Body*>& bodies) {
  std::vector<BodyStateView> views;
  for (const Body* b : bodies) {
    const BodySlot& sl = model.slotOf(*b);
    views.push_back({b, s.q.data() + sl.offset, s.v.data() + sl.offset, sl.size});
  }
  return views;
}

/// The qualified name of local coordinate `k` of the concatenated `bodies`.
std::string localCoordinate(const std::vector<const Body*>& bodies, Eigen::Index k) {
  for (const Body* b : bodies) {
    const auto n = static_cast<Eigen::Index>(b->coordinateNames().size());
    if (k < n) return b->name() + "." + b->coordinateNames()[static_cast<std::size_t>(k)];
    k -= n;
  }
  return "?";
}

std::string bodySource(const Model& model, const State& s) {
  for (const BodySlot& sl : model.bodySlots()) {
    if (sl.size == 0) continue;
    const Body& b = *sl.body;
    const auto q = s.q.segment(sl.offset, sl.size);
    const auto v = s.v.segment(sl.offset, sl.size);
    const std::string what = "body '" + b.name() + "' (" + std::string(b.typeName()) + ")";
    MatrixXd M = MatrixXd::Zero(sl.size, sl.size);
    b.calcMassMatrix(s.t, q, M);
    if (!M.allFinite()) return what + ", whose mass matrix is not finite";
    VectorXd Q = VectorXd::Zero(sl.size);
    b.calcForces(s.t, q, v, Q);
    if (const Eigen::Index k = firstNonFinite(Q); k >= 0)
      return what + ", whose own force on " + localCoordinate({&b}, k) + " is " + numberText(Q(k));
    Q.setZero();
    b.addGravityForce(q, model.gravity(), Q);
    if (const Eigen::Index k = firstNonFinite(Q); k >= 0)
      return what + ", on which gravity gives " + numberText(Q(k)) + " on " + localCoordinate({&b}, k);
  }
  return "";
}

std::string forceSource(const Model& model, const State& s) {
  for (const ForceElement* f : model.forces()) {
    const std::vector<BodyStateView> views = viewsOf(model, s, f->bodies());
    int n = 0;
    for (const BodyStateView& w : views) n += w.n;
    VectorXd Q = VectorXd::Zero(n);
    f->addForces(LocalState{s.t, views}, Q);
    if (const Eigen::Index k = firstNonFinite(Q); k >= 0)
      return "force '" + f->name() + "' (" + std::string(f->typeName()) + "), which gives " + numberText(Q(k)) + " on " +
             localCoordinate(f->bodies(), k);
  }
  return "";
}

std::string jointSource(const Model& model, const State& s) {
  for (const RowBlock& rb : model.rowBlocks()) {
    if (!rb.constraint) continue;  // a body's internal rows: the body's own source is reported
    const Constraint& c = *rb.constraint;
    const std::vector<BodyStateView> views = viewsOf(model, s, c.bodies());
    int n = 0;
    for (const BodyStateView& w : views) n += w.n;
    MatrixXd A = MatrixXd::Zero(rb.size, n);
    VectorXd b = VectorXd::Zero(rb.size);
    c.calcAccelerationRows(LocalState{s.t, views}, A, b);
    const std::string what = "joint '" + c.name() + "' (" + std::string(c.typeName()) + ")";
    if (!A.allFinite()) return what + ", whose constraint rows (A) are not finite";
    if (const Eigen::Index k = firstNonFinite(b); k >= 0)
      return what + ", whose row " + std::to_string(k) + " has a right side (b) of " + numberText(b(k));
  }
  return "";
}

}  // namespace

std::string describeNonFiniteSource(const Model& model, const State& s) {
  if (!std::isfinite(s.t) || !s.q.allFinite() || !s.v.allFinite()) return "the state itself is not finite";
  for (auto source : {bodySource, forceSource, jointSource})
    if (std::string found = source(model, s); !found.empty()) return found;
  return "";
}

}  // namespace joinery
