#include "joinery/core/joint_results.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "joinery/core/errors.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "verified_svd.hpp"

namespace joinery {

void JointMultipliers::resize(int m) {
  ideal = VectorXd::Zero(m);
  total = VectorXd::Zero(m);
  redundant.assign(static_cast<std::size_t>(m), 0);
  valid = false;
}

// ---- minimum-norm multipliers ------------------------------------------------------------

void minimumNormMultipliers(const MatrixXd& A, const VectorXd& f, VecRef lambda,
                           std::vector<char>* redundant, double rankTol) {
  const Eigen::Index m = A.rows();
  if (redundant) redundant->assign(static_cast<std::size_t>(m), 0);
  if (m == 0) return;
  // Rank decision on the row-scaled As = D A (as the dense solver's): A^T lambda = f is
  // As^T y = f with lambda = D y; the left null space of A is D times that of As.
  VectorXd d = VectorXd::Zero(m);
  const double big = A.rowwise().norm().maxCoeff();
  for (Eigen::Index i = 0; i < m; ++i) {
    const double rn = A.row(i).norm();
    d(i) = rn > 1e-13 * big && rn > 0 ? 1.0 / rn : 0.0;
  }
  const MatrixXd As = d.asDiagonal() * A;
  // As = W S Z^T from the verified SVD of As^T = Z S W^T (W: m x m, the left singular vectors)
  const detail::Svd svd = detail::computeSvd(As.transpose(), true);
  const MatrixXd& W = svd.matrixV();
  const MatrixXd& Z = svd.matrixU();
  const VectorXd& sv = svd.singularValues();
  Eigen::Index rank = 0;
  const double smax = sv.size() ? sv(0) : 0.0;
  while (rank < sv.size() && sv(rank) > rankTol * smax) ++rank;
  // particular solution y = W_r S_r^-1 Z_r^T f, lambda_p = D y
  const VectorXd y = W.leftCols(rank) * (Z.leftCols(rank).transpose() * f).cwiseQuotient(sv.head(rank));
  VectorXd lam = d.asDiagonal() * y;
  // left null space of A: D W_null plus the zero rows (d = 0); orthonormalize, project out
  const Eigen::Index k = m - rank;
  if (k > 0) {
    MatrixXd N = d.asDiagonal() * W.rightCols(k);
    for (Eigen::Index i = 0; i < m; ++i)
      if (d(i) == 0) N.row(i) = W.row(i).tail(k);  // a zero row is free
    Eigen::HouseholderQR<MatrixXd> qr(N);
    const MatrixXd Q = qr.householderQ() * MatrixXd::Identity(m, k);
    lam -= Q * (Q.transpose() * lam);
    if (redundant)
      for (Eigen::Index i = 0; i < m; ++i) (*redundant)[static_cast<std::size_t>(i)] = Q.row(i).norm() > 1e-8;
  }
  lambda = lam;
}

Solution solveJointMultipliers(const Model& model, const State& s, ModelWorkspace& ws,
                               JointMultipliers& mult, const DenseSolver& solver, const VectorXd* columnScale) {
  model.calcMassAndForces(s, ws);
  model.calcConstraints(s, ws);
  const auto& names = model.coordinateNames();
  const int m = model.numConstraintRows();
  mult.resize(m);
  VectorXd computed;
  if (columnScale == nullptr) computed = coordinateScales(model);
  const VectorXd& scale = columnScale != nullptr ? *columnScale : computed;
  Solution ideal = solver.solve(ws.M, ws.Q, ws.A, ws.b, VectorXd(), names, scale);
  minimumNormMultipliers(ws.A, ideal.forceIdeal, mult.ideal, &mult.redundant,
                         solver.tolerances().rank);
  if (!model.hasNonideal()) {
    mult.total = mult.ideal;
    mult.valid = true;
    return ideal;
  }
  model.calcNonidealWork(s, ws, mult.ideal);
  Solution full = solver.solve(ws.M, ws.Q, ws.A, ws.b, ws.C, names, scale);
  const VectorXd reaction = full.forceIdeal + full.forceNonideal - ws.C;  // in range(A^T)
  minimumNormMultipliers(ws.A, reaction, mult.total, nullptr, solver.tolerances().rank);
  mult.valid = true;
  return full;
}

// ---- wrench at a body point --------------------------------------------------------------

namespace {
// w = (J P J^T)^+ J P g: the min-norm wrench whose generalized force is P g, from the point's
// translational and angular Jacobians already multiplied by P (P = P^T = P^2, so J P J^T =
// (J P)(J P)^T and J P g = (J P) g). One routine for both storage forms below.
template <class JacP, class JacW, class Vec>
void solveWrench(const JacP& Jp, const JacW& Jw, const Vec& g, Vector3d& F, Vector3d& tau) {
  Eigen::Matrix<double, 6, 6> K;
  K.topLeftCorner<3, 3>().noalias() = Jp * Jp.transpose();
  K.topRightCorner<3, 3>().noalias() = Jp * Jw.transpose();
  K.bottomLeftCorner<3, 3>() = K.topRightCorner<3, 3>().transpose();
  K.bottomRightCorner<3, 3>().noalias() = Jw * Jw.transpose();
  Eigen::Matrix<double, 6, 1> rhs;
  rhs.head<3>().noalias() = Jp * g;
  rhs.tail<3>().noalias() = Jw * g;
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 6, 6>> es(K);
  const auto& ev = es.eigenvalues();
  const double cut = 1e-12 * std::max(ev.cwiseAbs().maxCoeff(), 1e-300);
  Eigen::Matrix<double, 6, 1> c = es.eigenvectors().transpose() * rhs;
  for (int i = 0; i < 6; ++i) c(i) = ev(i) > cut ? c(i) / ev(i) : 0.0;
  const Eigen::Matrix<double, 6, 1> w = es.eigenvectors() * c;
  F = w.head<3>();
  tau = w.tail<3>();
}
}  // namespace

bool wrenchAtPoint(const Body& body, double t, CVecRef q, CVecRef v, const Vector3d& local,
                   CVecRef g, Vector3d& F, Vector3d& tau) {
  constexpr int kMax = 8;
  using Jac3 = Eigen::Matrix<double, 3, Eigen::Dynamic, 0, 3, kMax>;
  using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMax, kMax>;
  F.setZero();
  tau.setZero();
  const int n = body.numCoordinates();
  const int k = body.numInternalConstraints();
  if (n == 0 || !body.points()) return false;
  if (n > kMax) {
    // a body of many coordinates (a flexible body's nodes): without internal rows P = I, and
    // J lives in a per-thread buffer grown once (no allocation per sample after the first)
    if (k > 0) return false;
    thread_local Eigen::Matrix<double, 3, Eigen::Dynamic> Jp, Jw;
    if (Jp.cols() != n) {
      Jp.resize(3, n);
      Jw.resize(3, n);
    }
    Jp.setZero();
    Jw.setZero();
    body.points()->calcPointJacobian(q, local, Jp);
    if (body.frames()) body.frames()->calcAngularJacobian(q, Jw);
    solveWrench(Jp, Jw, g, F, tau);
    return true;
  }
  Jac3 Jp = Jac3::Zero(3, n), Jw = Jac3::Zero(3, n);
  body.points()->calcPointJacobian(q, local, Jp);
  if (body.frames()) body.frames()->calcAngularJacobian(q, Jw);
  if (k > 0 && k < n) {
    // P: projector on the admissible velocities (null space of the internal rows)
    Small Ai = Small::Zero(k, n);
    Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMax, 1> bi(k);
    body.calcInternalConstraints(t, q, v, Ai, bi);
    const Small G = Ai * Ai.transpose();
    const Small X = G.ldlt().solve(Ai);  // (A A^T)^-1 A
    Small P = Small::Identity(n, n);
    P.noalias() -= Ai.transpose() * X;
    const Jac3 JpP = Jp * P, JwP = Jw * P;
    solveWrench(JpP, JwP, g, F, tau);
    return true;
  }
  solveWrench(Jp, Jw, g, F, tau);
  return true;
}

// ---- per-joint results ------------------------------------------------------------------

JointResultsWorkspace::JointResultsWorkspace(const Model& model) {
  std::unordered_map<const Constraint*, int> firstRow;  // linear in the model's size
  for (const RowBlock& rb : model.rowBlocks())
    if (rb.constraint) firstRow.emplace(rb.constraint, rb.row);
  for (const Constraint* c : model.constraints()) {
    Joint j;
    j.c = c;
    const auto it = firstRow.find(c);
    j.row = it == firstRow.end() ? -1 : it->second;
    for (const Body* b : c->bodies()) j.slots.push_back(model.slotOf(*b));
    j.views.resize(j.slots.size());
    const int nl = c->numLocalCoordinates();
    j.A = MatrixXd::Zero(c->numRows(), nl);
    j.b = VectorXd::Zero(c->numRows());
    for (VectorXd* v : {&j.gIdeal, &j.gTotal, &j.C}) *v = VectorXd::Zero(nl);
    joints_.push_back(std::move(j));
  }
}

std::vector<JointResult> JointResultsWorkspace::makeResults() const {
  std::vector<JointResult> out(joints_.size());
  for (std::size_t i = 0; i < joints_.size(); ++i) {
    const Joint& j = joints_[i];
    JointResult& r = out[i];
    r.name = j.c->name();
    r.type = std::string(j.c->typeName());
    r.kind = j.c->resultKind();
    r.planar = true;
    for (const Body* b : j.c->bodies()) r.planar = r.planar && b->isPlanar();
    const auto& bodies = j.c->bodies();
    if (bodies.size() > 0) r.side1.body = bodies[0]->name();
    if (bodies.size() > 1) r.side2.body = bodies[1]->name();
    for (const BodySlot& sl : j.slots)
      for (int k = 0; k < sl.size; ++k) r.coordinates.push_back(sl.offset + k);
    const auto nl = static_cast<Eigen::Index>(r.coordinates.size());
    r.generalized = VectorXd::Zero(nl);
    r.generalizedNonideal = VectorXd::Zero(nl);
    r.multipliers = VectorXd::Zero(j.c->numRows());
  }
  return out;
}

namespace {

/// A unit vector perpendicular to unit `z`, as close to `hint` as can be (hint parallel to z:
/// the world axis least aligned with z).
Vector3d perpendicularTo(const Vector3d& z, const Vector3d& hint) {
  Vector3d x = hint - z * z.dot(hint);
  if (x.norm() < 1e-8) {
    Eigen::Index i = 0;
    z.cwiseAbs().minCoeff(&i);
    x = Vector3d::Unit(i) - z * z(i);
  }
  return x.normalized();
}

/// The joint's own frame on side k (columns: world x, y, z axes), docs/results.md:
///  - distance (Tension kind): x along the line from point1 to point2 (both sides);
///  - a joint axis a (Constraint::jointAxis): planar joints x = R a, z = world z; spatial
///    joints z = R a, x = the body's x axis made perpendicular to it;
///  - otherwise the body's frame (world axes for a body without orientation, e.g. a particle).
Matrix3d jointFrame(const Constraint& c, int k, const BodyStateView& v, const Vector3d& p1,
                    const Vector3d& p2, bool planar) {
  Matrix3d R = Matrix3d::Identity();
  if (v.body->frames() && v.n > 0) R = v.body->frames()->calcOrientation(v.coords());
  Vector3d x, z;
  if (c.resultKind() == JointResultKind::Tension) {
    x = p2 - p1;
    if (x.norm() == 0) return R;
    x.normalize();
    z = planar ? Vector3d::UnitZ() : perpendicularTo(x, R.col(2));
  } else {
    const Vector3d a = c.jointAxis(k);
    if (a.norm() == 0) return R;
    if (planar) {
      x = (R * Vector3d(a.x(), a.y(), 0)).normalized();
      z = Vector3d::UnitZ();
    } else {
      z = (R * a).normalized();
      x = perpendicularTo(z, R.col(0));
    }
  }
  Matrix3d F;
  F.col(0) = x;
  F.col(2) = planar ? z : perpendicularTo(x, z);
  F.col(1) = F.col(2).cross(x);
  return (F.array() + 0.0).matrix();  // -0 (from the cross product) as 0
}

/// One side's world point, force and torque (total and non-ideal) from the local forces.
void fillSide(const Constraint& c, int k, double t, const std::vector<BodyStateView>& views,
              int offset, const VectorXd& gTotal, const VectorXd& gIdeal, bool nonideal, JointSide& side) {
  const BodyStateView& v = views[static_cast<std::size_t>(k)];
  const Vector3d local = c.actionPoint(k);
  side.present = !v.body->isGround() && v.n > 0;
  side.point = v.body->points() ? v.body->points()->calcPointPosition(v.coords(), local) : local;
  side.force.setZero();
  side.torque.setZero();
  side.forceNonideal.setZero();
  side.torqueNonideal.setZero();
  side.hasWrench = false;
  side.forceLocal.setZero();
  side.torqueLocal.setZero();
  if (!side.present) return;
  side.hasWrench = wrenchAtPoint(*v.body, t, v.coords(), v.velocities(), local,
                                 gTotal.segment(offset, v.n), side.force, side.torque);
  if (side.hasWrench && nonideal) {
    Vector3d Fi, Ti;
    wrenchAtPoint(*v.body, t, v.coords(), v.velocities(), local, gIdeal.segment(offset, v.n), Fi, Ti);
    side.forceNonideal = side.force - Fi;
    side.torqueNonideal = side.torque - Ti;
  }
}

}  // namespace

void calcJointResults(const Model& model, const State& s, const JointMultipliers& mult,
                      JointResultsWorkspace& ws, std::vector<JointResult>& out, const std::vector<int>* only) {
  if (out.size() != ws.joints_.size() || mult.ideal.size() != model.numConstraintRows() ||
      mult.total.size() != model.numConstraintRows())
    throw ModelError("calcJointResults: results or multipliers do not match the model (use "
                     "JointResultsWorkspace::makeResults() and JointMultipliers::resize())");
  const std::size_t count = only ? only->size() : ws.joints_.size();
  for (std::size_t k0 = 0; k0 < count; ++k0) {
    const std::size_t i = only ? static_cast<std::size_t>(only->at(k0)) : k0;
    auto& j = ws.joints_.at(i);
    JointResult& r = out[i];
    const Constraint& c = *j.c;
    const int rows = c.numRows();
    for (std::size_t k = 0; k < j.slots.size(); ++k) {
      j.views[k] = BodyStateView{j.slots[k].body, s.q.data() + j.slots[k].offset,
                                 s.v.data() + j.slots[k].offset, j.slots[k].size};
    }
    const LocalState ls{s.t, j.views};
    j.A.setZero();
    j.b.setZero();
    if (rows > 0 && j.row >= 0) c.calcAccelerationRows(ls, j.A, j.b);
    const auto lamIdeal = mult.ideal.segment(std::max(j.row, 0), j.row >= 0 ? rows : 0);
    const auto lamTotal = mult.total.segment(std::max(j.row, 0), j.row >= 0 ? rows : 0);
    j.gIdeal.noalias() = j.A.transpose() * lamIdeal;
    j.gTotal.noalias() = j.A.transpose() * lamTotal;
    const bool nonideal = c.nonideal() != nullptr;
    if (nonideal) {
      calcJointNonidealWork(c, ls, j.slots, j.gIdeal, j.C);
      j.gTotal += j.C;
    }
    r.multipliers = lamTotal;
    r.unique = true;
    for (int k = 0; k < rows && j.row >= 0; ++k)
      if (mult.redundant.size() > static_cast<std::size_t>(j.row + k) &&
          mult.redundant[static_cast<std::size_t>(j.row + k)])
        r.unique = false;
    r.generalized = j.gTotal;
    r.generalizedNonideal = j.gTotal - j.gIdeal;
    r.power = 0;
    int off = 0;
    for (const BodyStateView& v : j.views) {
      for (int k = 0; k < v.n; ++k) r.power += j.gTotal(off + k) * v.v[k];
      off += v.n;
    }
    // the effort of a one-row driver: of a coupling or coordinate driver (Effort kind), and of
    // a revolute_driver or prismatic_driver, whose one row theta - value(t) (s - value(t))
    // makes its multiplier the torque about (the force along) the driven axis
    r.effort = (r.kind == JointResultKind::Effort || c.prescribesMotion()) && rows == 1 ? lamTotal(0) : 0.0;
    r.tension = 0;
    if (r.kind != JointResultKind::Points && r.kind != JointResultKind::Tension) continue;
    const int n0 = j.views.empty() ? 0 : j.views[0].n;
    if (!j.views.empty()) fillSide(c, 0, s.t, j.views, 0, j.gTotal, j.gIdeal, nonideal, r.side1);
    if (j.views.size() > 1) fillSide(c, 1, s.t, j.views, n0, j.gTotal, j.gIdeal, nonideal, r.side2);
    for (int k = 0; k < 2 && k < static_cast<int>(j.views.size()); ++k) {
      JointSide& sd = k == 0 ? r.side1 : r.side2;
      const Vector3d p2 = j.views.size() > 1 ? r.side2.point : r.side1.point;
      sd.axes = jointFrame(c, k, j.views[static_cast<std::size_t>(k)], r.side1.point, p2, r.planar);
      sd.forceLocal.noalias() = sd.axes.transpose() * sd.force;
      sd.torqueLocal.noalias() = sd.axes.transpose() * sd.torque;
    }
    if (r.kind == JointResultKind::Tension) {
      const Vector3d d = r.side2.point - r.side1.point;
      const double len = d.norm();
      if (len > 0) {
        // > 0 when the joint pulls body1 towards body2 (and body2 towards body1)
        r.tension = r.side1.hasWrench ? r.side1.force.dot(d) / len
                    : r.side2.hasWrench ? -r.side2.force.dot(d) / len : 0.0;
      }
    }
  }
}

// ---- JSON --------------------------------------------------------------------------------

namespace {
nlohmann::json vec3(const Vector3d& v) { return nlohmann::json::array({v.x(), v.y(), v.z()}); }
}  // namespace

nlohmann::json jointResultsJson(const std::vector<JointResult>& results,
                                const std::vector<std::string>& coordinateNames) {
  nlohmann::json all = nlohmann::json::object();
  for (const JointResult& r : results) {
    nlohmann::json j = nlohmann::json::object();
    const bool points = r.kind == JointResultKind::Points || r.kind == JointResultKind::Tension;
    bool anyNonideal = r.generalizedNonideal.size() > 0 && r.generalizedNonideal.cwiseAbs().maxCoeff() > 0;
    if (points) {
      for (int k = 0; k < 2; ++k) {
        const JointSide& sd = k == 0 ? r.side1 : r.side2;
        if (!sd.present || !sd.hasWrench) continue;
        const std::string idx = std::to_string(k + 1);
        j["force" + idx] = vec3(sd.force);
        j["torque" + idx] = vec3(sd.torque);
      }
    }
    if (points) {
      // the same forces in the joint's own frame on each body (docs/results.md)
      nlohmann::json fr = nlohmann::json::object();
      for (int k = 0; k < 2; ++k) {
        const JointSide& sd = k == 0 ? r.side1 : r.side2;
        if (!sd.present || !sd.hasWrench) continue;
        const std::string idx = std::to_string(k + 1);
        fr["force" + idx] = vec3(sd.forceLocal);
        fr["torque" + idx] = vec3(sd.torqueLocal);
        fr["axes" + idx] = nlohmann::json::array({vec3(sd.axes.col(0)), vec3(sd.axes.col(1)), vec3(sd.axes.col(2))});
      }
      if (!fr.empty()) j["joint_frame"] = fr;
    }
    nlohmann::json gen = nlohmann::json::object();
    for (std::size_t k = 0; k < r.coordinates.size(); ++k)
      gen[coordinateNames[static_cast<std::size_t>(r.coordinates[k])]] = r.generalized(static_cast<Eigen::Index>(k));
    // joints without a force at points report generalized forces (also when a body has no markers)
    const bool wrenches = points && (r.side1.hasWrench || r.side2.hasWrench);
    if (!wrenches) j["generalized"] = gen;
    if (r.kind == JointResultKind::Effort) j["effort"] = r.effort;
    if (r.kind == JointResultKind::Effort) j["power"] = r.power;
    if (r.kind == JointResultKind::Tension) j["tension"] = r.tension;
    if (anyNonideal) {
      nlohmann::json ni = nlohmann::json::object();
      if (wrenches) {
        for (int k = 0; k < 2; ++k) {
          const JointSide& sd = k == 0 ? r.side1 : r.side2;
          if (!sd.present || !sd.hasWrench) continue;
          const std::string idx = std::to_string(k + 1);
          ni["force" + idx] = vec3(sd.forceNonideal);
          ni["torque" + idx] = vec3(sd.torqueNonideal);
        }
      } else {
        nlohmann::json g = nlohmann::json::object();
        for (std::size_t k = 0; k < r.coordinates.size(); ++k)
          g[coordinateNames[static_cast<std::size_t>(r.coordinates[k])]] =
              r.generalizedNonideal(static_cast<Eigen::Index>(k));
        ni["generalized"] = g;
      }
      j["nonideal_force"] = ni;
    }
    j["unique"] = r.unique;
    all[r.name] = j;
  }
  return all;
}

}  // namespace joinery
