// Kinematic analysis without dynamics (kinematics.hpp, docs/kinematics.md).
#include "joinery/core/kinematics.hpp"

#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <sstream>

#include "joinery/core/assembly.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"

namespace joinery {

namespace {

/// The rows of each level: holonomic (Position) rows, and the rows with a velocity level.
struct LevelRows {
  std::vector<int> holonomic, velocity;
};

LevelRows levelRows(const Model& model) {
  LevelRows out;
  for (const RowBlock& rb : model.rowBlocks()) {
    const ConstraintLevel level = rb.constraint ? rb.constraint->level() : ConstraintLevel::Position;
    for (int k = 0; k < rb.size; ++k) {
      if (level == ConstraintLevel::Position) out.holonomic.push_back(rb.row + k);
      if (level != ConstraintLevel::Acceleration) out.velocity.push_back(rb.row + k);
    }
  }
  return out;
}

/// The position system of a solve: the holonomic rows (without the replaced block's) and,
/// when `fixed` >= 0, the row q(fixed) - target.
class PositionSystem {
 public:
  PositionSystem(const Model& model, int replacedBlock, int fixed)
      : model_(model), ws_(model.makeWorkspace()), fixed_(fixed) {
    const LevelRows lr = levelRows(model);
    const RowBlock* skip = replacedBlock >= 0 ? &model.rowBlocks()[static_cast<std::size_t>(replacedBlock)] : nullptr;
    for (int r : lr.holonomic)
      if (skip == nullptr || r < skip->row || r >= skip->row + skip->size) rows_.push_back(r);
    phiAll_ = VectorXd::Zero(model.numConstraintRows());
  }
  int size() const { return static_cast<int>(rows_.size()) + (fixed_ >= 0 ? 1 : 0); }
  const std::vector<int>& rows() const { return rows_; }

  /// The residual at s (target: the fixed coordinate's value).
  VectorXd residual(const State& s, double target) {
    model_.calcPositionErrors(s, ws_, phiAll_);
    VectorXd r(size());
    for (std::size_t i = 0; i < rows_.size(); ++i) r(static_cast<Eigen::Index>(i)) = phiAll_(rows_[i]);
    if (fixed_ >= 0) r(size() - 1) = s.q(fixed_) - target;
    return r;
  }
  /// The Jacobian of the residual at s.
  MatrixXd jacobian(const State& s) {
    model_.calcConstraints(s, ws_);
    MatrixXd J = MatrixXd::Zero(size(), model_.numCoordinates());
    for (std::size_t i = 0; i < rows_.size(); ++i) J.row(static_cast<Eigen::Index>(i)) = ws_.A.row(rows_[i]);
    if (fixed_ >= 0) J(size() - 1, fixed_) = 1.0;
    return J;
  }

 private:
  const Model& model_;
  ModelWorkspace ws_;
  int fixed_;
  std::vector<int> rows_;
  VectorXd phiAll_;
};

double maxAbs(const VectorXd& x) { return x.size() ? x.cwiseAbs().maxCoeff() : 0.0; }

/// Damped minimum-norm Gauss-Newton from s.q; true when max |r| <= tolerance.
bool newton(const Model& model, PositionSystem& sys, State& s, double target, const KinematicSolveOptions& o) {
  if (sys.size() == 0) return true;
  VectorXd r = sys.residual(s, target);
  double norm = r.norm();
  for (int it = 0; it < o.maxIterations; ++it) {
    if (!std::isfinite(norm)) return false;
    if (maxAbs(r) <= o.tolerance) return true;
    const MatrixXd J = sys.jacobian(s);
    if (!J.allFinite()) return false;
    Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod(J);
    cod.setThreshold(1e-12);
    const VectorXd dq = cod.solve(r);
    // backtracking on |r|: a full step first, halved while it does not decrease the residual
    double step = 1.0;
    const VectorXd q0 = s.q;
    bool improved = false;
    for (int k = 0; k < 12; ++k, step *= 0.5) {
      s.q = q0 - step * dq;
      model.normalizeCoordinates(s.q);
      const VectorXd rn = sys.residual(s, target);
      if (std::isfinite(rn.norm()) && rn.norm() < norm) {
        r = rn;
        norm = rn.norm();
        improved = true;
        break;
      }
    }
    if (!improved) {
      s.q = q0;
      return maxAbs(r) <= o.tolerance;
    }
  }
  return maxAbs(r) <= o.tolerance;
}

double scaledTolerance(const State& s, const KinematicSolveOptions& o) {
  return o.tolerance * std::max(1.0, maxAbs(s.q));
}

}  // namespace

bool solveKinematicPositions(const Model& model, State& s, const KinematicSolveOptions& options, int replacedBlock,
                             int fixed) {
  PositionSystem sys(model, replacedBlock, fixed);
  KinematicSolveOptions o = options;
  o.tolerance = scaledTolerance(s, options);
  const double target = fixed >= 0 ? s.q(fixed) : 0.0;
  model.normalizeCoordinates(s.q);
  return newton(model, sys, s, target, o);
}

bool solveKinematicVelocities(const Model& model, State& s, double tolerance) {
  const LevelRows lr = levelRows(model);
  if (lr.velocity.empty()) return true;
  ModelWorkspace ws = model.makeWorkspace();
  VectorXd psi = VectorXd::Zero(model.numConstraintRows());
  model.calcConstraints(s, ws);
  const auto mv = static_cast<Eigen::Index>(lr.velocity.size());
  MatrixXd A(mv, model.numCoordinates());
  for (Eigen::Index i = 0; i < mv; ++i) A.row(i) = ws.A.row(lr.velocity[static_cast<std::size_t>(i)]);
  const double tol = tolerance * std::max(1.0, maxAbs(s.v));
  for (int it = 0; it < 3; ++it) {
    model.calcVelocityErrors(s, ws, psi);
    VectorXd r(mv);
    for (Eigen::Index i = 0; i < mv; ++i) r(i) = psi(lr.velocity[static_cast<std::size_t>(i)]);
    if (!r.allFinite()) return false;
    if (maxAbs(r) <= tol) return true;
    Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod(A);
    cod.setThreshold(1e-12);
    s.v -= cod.solve(r);
  }
  model.calcVelocityErrors(s, ws, psi);
  double worst = 0;
  for (int row : lr.velocity) worst = std::max(worst, std::abs(psi(row)));
  return worst <= tol;
}

bool searchAssembly(const Model& model, State& s, int starts, const KinematicSolveOptions& options) {
  const State given = s;
  State trial = given;
  if (solveKinematicPositions(model, trial, options)) {
    s = trial;
    return true;
  }
  // the model's extent: the largest length coordinate (at least 1 m ... of the scene's scale)
  const int n = model.numCoordinates();
  double extent = 0;
  for (int i = 0; i < n; ++i)
    if (coordinateUnit(model, i) == "m") extent = std::max(extent, std::abs(given.q(i)));
  if (!(extent > 0)) extent = 1.0;
  std::mt19937 gen(20261201u);  // deterministic: the same scene gives the same assembly
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  bool found = false;
  double best = 0;
  for (int k = 0; k < starts; ++k) {
    trial = given;
    for (int i = 0; i < n; ++i) {
      const std::string u = coordinateUnit(model, i);
      if (u == "rad")
        trial.q(i) += std::numbers::pi * unit(gen);
      else if (u == "m")
        trial.q(i) += 2.0 * extent * unit(gen);
      else
        trial.q(i) += std::max(1.0, std::abs(given.q(i))) * unit(gen);
    }
    if (!solveKinematicPositions(model, trial, options)) continue;
    const double d = (trial.q - given.q).norm();
    if (!found || d < best) {
      found = true;
      best = d;
      s.q = trial.q;
    }
  }
  return found;
}

namespace {

/// |phi| of row block `block` at s, each row in the joint's own measure.
double blockGap(const Model& model, ModelWorkspace& ws, VectorXd& phi, const State& s, int block) {
  model.calcPositionErrors(s, ws, phi);
  const RowBlock& rb = model.rowBlocks()[static_cast<std::size_t>(block)];
  double sq = 0;
  for (int k = 0; k < rb.size; ++k) {
    const double v = rb.constraint ? rb.constraint->measuredResidual(k, phi(rb.row + k), false) : phi(rb.row + k);
    sq += v * v;
  }
  return std::sqrt(sq);
}

/// From s on the other rows' manifold: Gauss-Newton steps on block's rows within the null space
/// of the others' Jacobian, each step projected back onto the others (newton); s keeps the
/// least |phi_block|.
double descendGap(const Model& model, PositionSystem& rest, int block, State& s, const KinematicSolveOptions& o) {
  ModelWorkspace ws = model.makeWorkspace();
  VectorXd phi = VectorXd::Zero(model.numConstraintRows());
  const RowBlock& rb = model.rowBlocks()[static_cast<std::size_t>(block)];
  double gap = blockGap(model, ws, phi, s, block);
  for (int it = 0; it < 40 && gap > o.tolerance; ++it) {
    model.calcConstraints(s, ws);
    const MatrixXd Jb = ws.A.middleRows(rb.row, rb.size);
    const VectorXd pb = phi.segment(rb.row, rb.size);
    const MatrixXd Jr = rest.jacobian(s);
    MatrixXd Z;
    if (Jr.rows() == 0) {
      Z = MatrixXd::Identity(model.numCoordinates(), model.numCoordinates());
    } else {
      Eigen::JacobiSVD<MatrixXd> svd(Jr, Eigen::ComputeFullV);
      svd.setThreshold(1e-10);
      const Eigen::Index r = svd.rank();
      Z = svd.matrixV().rightCols(model.numCoordinates() - r);
    }
    if (Z.cols() == 0) break;
    Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod(Jb * Z);
    cod.setThreshold(1e-12);
    const VectorXd dq = Z * cod.solve(pb);
    const State s0 = s;
    bool improved = false;
    double step = 1.0;
    for (int k = 0; k < 12; ++k, step *= 0.5) {
      State t = s0;
      t.q = s0.q - step * dq;
      model.normalizeCoordinates(t.q);
      if (!newton(model, rest, t, 0.0, o)) continue;
      const double g = blockGap(model, ws, phi, t, block);
      if (std::isfinite(g) && g < gap * (1 - 1e-12)) {
        s = t;
        improved = gap - g > 1e-12 * std::max(1.0, gap);
        gap = g;
        break;
      }
    }
    if (!improved) break;
    blockGap(model, ws, phi, s, block);
  }
  return gap;
}

}  // namespace

bool minimizeJointGap(const Model& model, int block, State& s, double& gap, int starts,
                      const KinematicSolveOptions& options) {
  PositionSystem rest(model, block, -1);
  KinematicSolveOptions o = options;
  o.tolerance = scaledTolerance(s, options);
  const State given = s;
  const int n = model.numCoordinates();
  double extent = 0;
  for (int i = 0; i < n; ++i)
    if (coordinateUnit(model, i) == "m") extent = std::max(extent, std::abs(given.q(i)));
  if (!(extent > 0)) extent = 1.0;
  std::mt19937 gen(20261202u);  // deterministic
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  bool found = false;
  for (int k = 0; k <= starts; ++k) {
    State trial = given;
    if (k > 0)
      for (int i = 0; i < n; ++i) {
        const std::string u = coordinateUnit(model, i);
        trial.q(i) += u == "rad" ? std::numbers::pi * unit(gen)
                      : u == "m" ? 2.0 * extent * unit(gen)
                                 : std::max(1.0, std::abs(given.q(i))) * unit(gen);
      }
    model.normalizeCoordinates(trial.q);
    if (!newton(model, rest, trial, 0.0, o)) continue;
    const double g = descendGap(model, rest, block, trial, o);
    if (!found || g < gap) {
      found = true;
      gap = g;
      s = trial;
    }
    if (gap <= o.tolerance) break;
  }
  return found;
}

std::vector<CoordinateDriverInfo> coordinateDrivers(const Model& model) {
  std::vector<CoordinateDriverInfo> out;
  if (model.numConstraintRows() == 0) return out;
  const State s0 = model.initialState();
  ModelWorkspace ws = model.makeWorkspace();
  model.calcConstraints(s0, ws);
  State still = s0;
  still.v.setZero();
  VectorXd psi = VectorXd::Zero(model.numConstraintRows());
  model.calcVelocityErrors(still, ws, psi);
  for (std::size_t bi = 0; bi < model.rowBlocks().size(); ++bi) {
    const RowBlock& rb = model.rowBlocks()[bi];
    if (rb.constraint == nullptr || rb.size != 1 || rb.constraint->level() != ConstraintLevel::Position) continue;
    const auto row = ws.A.row(rb.row);
    int nonzero = 0, col = -1;
    for (Eigen::Index i = 0; i < row.size(); ++i)
      if (row(i) != 0.0) ++nonzero, col = static_cast<int>(i);
    if (nonzero != 1 || row(col) != 1.0) continue;
    CoordinateDriverInfo d;
    d.block = static_cast<int>(bi);
    d.coordinate = col;
    d.name = rb.name;
    d.rotary = coordinateUnit(model, col) == "rad";
    d.rate = -psi(rb.row);  // psi = q' - f'(t): at rest, -f'(0)
    out.push_back(d);
  }
  // drivers that move first: they are what a sweep means by default
  std::stable_sort(out.begin(), out.end(), [](const CoordinateDriverInfo& a, const CoordinateDriverInfo& b) {
    return (a.rate != 0.0) > (b.rate != 0.0);
  });
  return out;
}

namespace {

/// Singular values of J, largest first.
VectorXd singularValues(const MatrixXd& J) {
  if (J.rows() == 0 || J.cols() == 0) return VectorXd();
  return Eigen::JacobiSVD<MatrixXd>(J).singularValues();
}

int rankOf(const VectorXd& sv, double rel = 1e-8) {
  int r = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i)
    if (sv(i) > rel * sv(0)) ++r;
  return r;
}

/// The joints (row blocks) weighted by the left singular vector of J's smallest singular
/// value: the rows that become dependent. `rows`: J's rows' global rows (-1: the driver).
std::vector<std::string> involvedJoints(const Model& model, const MatrixXd& J, const std::vector<int>& rows,
                                        const std::string& driverName) {
  Eigen::JacobiSVD<MatrixXd> svd(J, Eigen::ComputeFullU);
  const VectorXd u = svd.matrixU().col(std::min<Eigen::Index>(J.rows(), J.cols()) - 1);
  std::vector<std::pair<double, std::string>> w;
  auto add = [&](const std::string& name, double x) {
    for (auto& p : w)
      if (p.second == name) {
        p.first = std::hypot(p.first, x);
        return;
      }
    w.emplace_back(std::abs(x), name);
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double x = u(static_cast<Eigen::Index>(i));
    if (rows[i] < 0) {
      add(driverName, x);
      continue;
    }
    for (const RowBlock& rb : model.rowBlocks())
      if (rows[i] >= rb.row && rows[i] < rb.row + rb.size) add(rb.name, x);
  }
  std::stable_sort(w.begin(), w.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  const double top = w.empty() ? 0.0 : w.front().first;
  for (const auto& p : w)
    if (p.first > 0.1 * top) out.push_back(p.second);
  return out;
}

}  // namespace

namespace {

/// The world position of the point `local` of body b at q (the ground: `local` itself).
Vector3d pointAt(const Model& model, const Body& b, const Vector3d& local, const VectorXd& q) {
  const PointMarker* pm = b.points();
  if (b.isGround() || pm == nullptr) return local;
  const BodySlot& sl = model.slotOf(b);
  return pm->calcPointPosition(q.segment(sl.offset, sl.size), local);
}

/// The world position of joint c's point on its k-th body at q.
Vector3d jointPointAt(const Model& model, const Constraint& c, int k, const VectorXd& q) {
  const Body& b = *c.bodies()[static_cast<std::size_t>(k)];
  return pointAt(model, b, c.actionPoint(k), q);
}

int bodyIndexIn(const Constraint& c, const Body* b) {
  for (std::size_t k = 0; k < c.bodies().size(); ++k)
    if (c.bodies()[k] == b) return static_cast<int>(k);
  return -1;
}

const Body* otherBody(const Constraint& c, const Body* b) {
  if (c.bodies().size() != 2) return nullptr;
  return c.bodies()[0] == b ? c.bodies()[1] : c.bodies()[1] == b ? c.bodies()[0] : nullptr;
}

}  // namespace

TransmissionSpec findTransmission(const Model& model, const Body& input) {
  const auto& cs = model.constraints();
  auto isPin = [](const Constraint* c) { return c->planarPair() == PlanarPair::Pin && c->bodies().size() == 2; };
  for (std::size_t ci = 0; ci < cs.size(); ++ci) {
    const Constraint* C = cs[ci];
    if (!isPin(C) || C->bodies()[0]->isGround() || C->bodies()[1]->isGround()) continue;
    for (int side = 0; side < 2; ++side) {
      const Body* coupler = C->bodies()[static_cast<std::size_t>(side)];
      const Body* output = C->bodies()[static_cast<std::size_t>(1 - side)];
      if (coupler == &input || output == &input) continue;
      int d = -1, b = -1;
      bool slider = false;
      for (std::size_t k = 0; k < cs.size(); ++k) {
        const Body* o = otherBody(*cs[k], output);
        if (k == ci || o == nullptr || !o->isGround()) continue;
        if (isPin(cs[k])) d = static_cast<int>(k), slider = false;
        else if (cs[k]->planarPair() == PlanarPair::Slider && cs[k]->bodies().size() == 2 && d < 0) d = static_cast<int>(k), slider = true;
      }
      for (std::size_t k = 0; k < cs.size() && d >= 0; ++k) {
        const Body* o = otherBody(*cs[k], coupler);
        if (k == ci || !isPin(cs[k]) || o == nullptr || o == output) continue;
        if (b < 0 || o == &input) b = static_cast<int>(k);  // the pin to the input first
      }
      if (d < 0 || b < 0) continue;
      TransmissionSpec t;
      t.joint = C->name();
      t.couplerJoint = cs[static_cast<std::size_t>(b)]->name();
      t.outputJoint = cs[static_cast<std::size_t>(d)]->name();
      t.slider = slider;
      t.c = static_cast<int>(ci);
      t.b = b;
      t.d = d;
      return t;
    }
  }
  return {};
}

double transmissionAngle(const Model& model, const TransmissionSpec& t, const VectorXd& q) {
  const auto& cs = model.constraints();
  const Constraint& C = *cs[static_cast<std::size_t>(t.c)];
  const Constraint& B = *cs[static_cast<std::size_t>(t.b)];
  const Constraint& D = *cs[static_cast<std::size_t>(t.d)];
  // the coupler: the body C and B share
  const Body* coupler = bodyIndexIn(B, C.bodies()[0]) >= 0 ? C.bodies()[0] : C.bodies()[1];
  const Body* output = coupler == C.bodies()[0] ? C.bodies()[1] : C.bodies()[0];
  const Vector3d pc = jointPointAt(model, C, bodyIndexIn(C, coupler), q);
  const Vector3d pb = jointPointAt(model, B, bodyIndexIn(B, coupler), q);
  const Eigen::Vector2d u = (pb - pc).head<2>();
  if (t.slider) {
    // the guide's axis in the world: the image of its axis on the output body
    const int k = bodyIndexIn(D, output);
    const Vector3d p0 = jointPointAt(model, D, k, q);
    const Vector3d p1 = pointAt(model, *output, D.actionPoint(k) + D.jointAxis(k), q);
    const Eigen::Vector2d axis = (p1 - p0).head<2>().normalized();
    const Eigen::Vector2d normal(-axis.y(), axis.x());
    return std::acos(std::min(1.0, std::abs(u.dot(normal)) / u.norm()));
  }
  const Vector3d pd = jointPointAt(model, D, bodyIndexIn(D, output), q);
  const Eigen::Vector2d w = (pd - pc).head<2>();
  return std::acos(std::clamp(u.dot(w) / (u.norm() * w.norm()), -1.0, 1.0));
}

SweepResult sweepDriver(const Model& model, const SweepOptions& options) {
  const std::vector<CoordinateDriverInfo> drivers = coordinateDrivers(model);
  SweepResult r;
  if (drivers.empty())
    throw ModelError("the model has no coordinate driver to sweep (a 'driver' joint on one coordinate)");
  if (options.driver.empty()) {
    r.driver = drivers.front();
  } else {
    auto it = std::find_if(drivers.begin(), drivers.end(),
                           [&](const CoordinateDriverInfo& d) { return d.name == options.driver; });
    if (it == drivers.end()) {
      std::string names;
      for (const auto& d : drivers) names += (names.empty() ? "" : ", ") + d.name;
      throw ModelError("'" + options.driver + "' is not a coordinate driver of the model (its coordinate drivers: " +
                       names + ")");
    }
    r.driver = *it;
  }
  const int k = r.driver.coordinate;
  r.coordinateName = model.coordinateNames()[static_cast<std::size_t>(k)];
  r.unit = coordinateUnit(model, k);
  r.rate = r.driver.rate != 0.0 ? r.driver.rate : 1.0;
  const RowBlock& drb = model.rowBlocks()[static_cast<std::size_t>(r.driver.block)];
  // the driver's value f(t) = q_k - phi(q, t)
  ModelWorkspace ws = model.makeWorkspace();
  VectorXd phi = VectorXd::Zero(model.numConstraintRows());
  State s = model.initialState();
  s.t = 0;
  auto valueAt = [&](double t) {
    State st = s;
    st.t = t;
    model.calcPositionErrors(st, ws, phi);
    return st.q(k) - phi(drb.row);
  };
  const double f0 = valueAt(0.0);
  r.from = options.from.value_or(f0);
  if (options.to) {
    r.to = *options.to;
  } else if (r.driver.rotary) {
    r.to = r.from + (r.driver.rate < 0 ? -2.0 : 2.0) * std::numbers::pi;
  } else {
    r.to = valueAt(options.tEnd > 0 ? options.tEnd : 1.0);
  }
  const int count = options.count > 0 ? options.count : (r.driver.rotary && !options.to ? 361 : 201);
  if (count < 2) throw ModelError("a sweep needs at least 2 values (got " + std::to_string(count) + ")");

  PositionSystem pos(model, r.driver.block, k);
  KinematicSolveOptions so;
  s.q(k) = r.from;
  State start = s;
  so.tolerance = scaledTolerance(s, {});
  if (!newton(model, pos, s, r.from, so)) {
    s = start;
    searchAssembly(model, s, 48);  // an assembly of the free mechanism, then the driver held
    s.q(k) = r.from;
    if (!newton(model, pos, s, r.from, so))
      throw ModelError("the mechanism cannot be assembled with " + r.coordinateName + " = " + formatNumber(r.from) +
                       ": no sweep from there");
  }
  // the Jacobian of the free mechanism (the driver's row left out)
  PositionSystem freeSys(model, r.driver.block, -1);
  const int n = model.numCoordinates();
  const VectorXd svFree0 = singularValues(freeSys.jacobian(s));
  const int rankFree0 = rankOf(svFree0);
  r.mobility = n - rankFree0;

  // velocities and accelerations at the driver's speed, constant: all velocity-level rows
  // with the driver's replaced by q_k' = rate, q_k'' = 0
  const LevelRows lr = levelRows(model);
  std::vector<int> vrows;
  for (int row : lr.velocity)
    if (row < drb.row || row >= drb.row + drb.size) vrows.push_back(row);
  auto motion = [&](State& st, VectorXd& a, VectorXd& dqds) {
    const auto mv = static_cast<Eigen::Index>(vrows.size());
    MatrixXd A = MatrixXd::Zero(mv + 1, n);
    VectorXd c(mv + 1), b(mv + 1);
    State still = st;
    still.v.setZero();
    model.calcVelocityErrors(still, ws, phi);
    model.calcConstraints(still, ws);
    for (Eigen::Index i = 0; i < mv; ++i) {
      A.row(i) = ws.A.row(vrows[static_cast<std::size_t>(i)]);
      c(i) = -phi(vrows[static_cast<std::size_t>(i)]);
    }
    A(mv, k) = 1.0;
    c(mv) = 0.0;
    Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod(A);
    VectorXd unitRate = c;
    unitRate(mv) = 1.0;
    dqds = cod.solve(unitRate);  // d q / d value (time-dependent rows at t = 0)
    c(mv) = r.rate;
    st.v = cod.solve(c);
    model.calcConstraints(st, ws);
    for (Eigen::Index i = 0; i < mv; ++i) b(i) = ws.b(vrows[static_cast<std::size_t>(i)]);
    b(mv) = 0.0;
    a = cod.solve(b);
  };

  if (r.driver.rotary && model.numCoordinates() > 0)
    r.transmission = findTransmission(model, model.bodyOfCoordinate(k));
  auto record = [&](double value, State& st) {
    SweepSample smp;
    smp.value = value;
    VectorXd dqds;
    motion(st, smp.a, dqds);
    smp.q = st.q;
    smp.v = st.v;
    if (!r.transmission.joint.empty()) smp.transmission = transmissionAngle(model, r.transmission, st.q);
    r.samples.push_back(std::move(smp));
    return dqds;
  };

  auto classify = [&](double value, const State& st, bool stopped) {
    SingularConfiguration c;
    c.value = value;
    const MatrixXd Jfull = pos.jacobian(st);
    const MatrixXd Jfree = freeSys.jacobian(st);
    const VectorXd svFull = singularValues(Jfull), svFree = singularValues(Jfree);
    std::vector<int> rowsFull = pos.rows();
    rowsFull.push_back(-1);
    const bool freeDrops = rankOf(svFree, 1e-5) < rankFree0;
    const double full = svFull.size() ? svFull(svFull.size() - 1) / svFull(0) : 1.0;
    if (freeDrops) {
      c.kind = "mobility_change";
      c.joints = involvedJoints(model, Jfree, pos.rows(), r.driver.name);
    } else if (full < 1e-3) {
      c.kind = "dead_point";
      c.joints = involvedJoints(model, Jfull, rowsFull, r.driver.name);
    } else {
      c.kind = "end_of_range";
      c.joints = {r.driver.name};
    }
    (void)stopped;
    c.message = describe(r, c);
    return c;
  };

  VectorXd dqds = record(r.from, s);
  double prev = r.from;
  double prevFreeSigma = svFree0.size() && rankFree0 > 0 ? svFree0(rankFree0 - 1) / svFree0(0) : 1.0;
  double prevPrevFreeSigma = 1.0;
  const double span = std::abs(r.to - r.from);
  for (int i = 1; i < count; ++i) {
    const double value = r.from + (r.to - r.from) * i / (count - 1);
    auto attempt = [&](const State& from, const VectorXd& tangent, double fromValue, double target, State& out) {
      out = from;
      out.q = from.q + tangent * (target - fromValue);
      out.q(k) = target;
      model.normalizeCoordinates(out.q);
      if (newton(model, pos, out, target, so)) return true;
      out = from;  // the tangent grows without bound near a dead point: from the last state
      out.q(k) = target;
      return newton(model, pos, out, target, so);
    };
    State next;
    if (!attempt(s, dqds, prev, value, next)) {
      // bisection for the last value the mechanism reaches
      double lo = prev, hi = value;
      State slo = s;
      VectorXd tlo = dqds;
      for (int it = 0; it < 80 && std::abs(hi - lo) > 1e-12 * std::max(1.0, span); ++it) {
        const double mid = 0.5 * (lo + hi);
        State sm;
        if (attempt(slo, tlo, lo, mid, sm)) {
          lo = mid;
          slo = sm;
          VectorXd a;
          motion(sm, a, tlo);
        } else {
          hi = mid;
        }
      }
      record(lo, slo);
      r.singular.push_back(classify(lo, slo, true));
      r.completed = false;
      break;
    }
    s = next;
    dqds = record(value, s);
    // a change of mobility the mechanism passes through: a minimum of the free Jacobian's
    // smallest kept singular value that reaches zero
    const VectorXd svFree = singularValues(freeSys.jacobian(s));
    const double sigma = rankFree0 > 0 && svFree.size() >= rankFree0 ? svFree(rankFree0 - 1) / svFree(0) : 1.0;
    if (i >= 2 && prevFreeSigma < prevPrevFreeSigma && prevFreeSigma < sigma && prevFreeSigma < 1e-2) {
      // refine between the samples around the minimum (golden section on the value)
      const SweepSample& before = r.samples[r.samples.size() - 3];
      double a = before.value, b = value;
      State sa;
      sa = s;
      sa.q = before.q;
      const double g = (std::sqrt(5.0) - 1) / 2;
      double bestV = r.samples[r.samples.size() - 2].value, bestS = prevFreeSigma;
      State best = sa;
      best.q = r.samples[r.samples.size() - 2].q;
      for (int it = 0; it < 50 && std::abs(b - a) > 1e-12 * std::max(1.0, span); ++it) {
        const double x1 = b - g * (b - a), x2 = a + g * (b - a);
        auto sigmaAt = [&](double x, State& out) {
          out = best;
          out.q(k) = x;
          if (!newton(model, pos, out, x, so)) return 1.0;
          const VectorXd sv = singularValues(freeSys.jacobian(out));
          return sv.size() >= rankFree0 ? sv(rankFree0 - 1) / sv(0) : 1.0;
        };
        State s1, s2;
        const double f1 = sigmaAt(x1, s1), f2 = sigmaAt(x2, s2);
        if (f1 < f2) {
          b = x2;
          if (f1 < bestS) bestS = f1, bestV = x1, best = s1;
        } else {
          a = x1;
          if (f2 < bestS) bestS = f2, bestV = x2, best = s2;
        }
      }
      if (bestS < 1e-5) r.singular.push_back(classify(bestV, best, false));
    }
    prevPrevFreeSigma = prevFreeSigma;
    prevFreeSigma = sigma;
    prev = value;
  }
  return r;
}

namespace {
std::string valueText(const SweepResult& r, double v) {
  std::string s = r.coordinateName + " = " + formatNumber(v, 4) + (r.unit.empty() ? "" : " " + r.unit);
  if (r.unit == "rad") s += " (" + formatNumber(v * 180.0 / std::numbers::pi, 4) + "°)";
  return s;
}
}  // namespace

std::string describe(const SweepResult& r, const SingularConfiguration& c) {
  std::ostringstream os;
  if (c.kind == "dead_point") {
    os << "the mechanism cannot pass " << valueText(r, c.value) << ": a dead point where " << joinNames(c.joints)
       << " line up (the constraint Jacobian is singular there); driven by " << r.driver.name
       << " it locks: change the lengths so that it can pass, or drive another link";
  } else if (c.kind == "mobility_change") {
    os << "the mechanism changes its mobility at " << valueText(r, c.value) << ": " << joinNames(c.joints)
       << " become dependent there (a branch point: it may leave the intended assembly mode)";
  } else {
    os << "the mechanism cannot follow " << r.driver.name << " beyond " << valueText(r, c.value)
       << ": the end of its range of motion";
  }
  return os.str();
}

namespace {
/// The transmission angle's joints and extremes over the sweep (degrees), null when none.
nlohmann::json transmissionJson(const SweepResult& r) {
  if (r.transmission.joint.empty() || r.samples.empty()) return nullptr;
  const SweepSample* lo = &r.samples.front();
  const SweepSample* hi = lo;
  for (const SweepSample& s : r.samples) {
    if (s.transmission < lo->transmission) lo = &s;
    if (s.transmission > hi->transmission) hi = &s;
  }
  const double deg = 180.0 / std::numbers::pi;
  return {{"joint", r.transmission.joint},
          {"coupler_joint", r.transmission.couplerJoint},
          {"output_joint", r.transmission.outputJoint},
          {"kind", r.transmission.slider ? "slider" : "four_bar"},
          {"min_deg", lo->transmission * deg},
          {"min_at", lo->value},
          {"max_deg", hi->transmission * deg},
          {"max_at", hi->value}};
}
}  // namespace

nlohmann::json sweepToJson(const SweepResult& r) {
  nlohmann::json singular = nlohmann::json::array();
  for (const auto& c : r.singular)
    singular.push_back({{"value", c.value}, {"kind", c.kind}, {"joints", c.joints}, {"message", c.message}});
  return {{"driver", r.driver.name},
          {"coordinate", r.coordinateName},
          {"unit", r.unit},
          {"from", r.from},
          {"to", r.to},
          {"rate", r.rate},
          {"mobility", r.mobility},
          {"samples", r.samples.size()},
          {"singular", singular},
          {"completed", r.completed},
          {"transmission", transmissionJson(r)}};
}

std::string sweepToCsv(const Model& model, const SweepResult& r) {
  std::ostringstream os;
  os.precision(12);
  os << r.driver.name;
  const auto& names = model.coordinateNames();
  for (const auto& nm : names) os << "," << nm;
  for (const auto& nm : names) os << "," << nm << "'";
  for (const auto& nm : names) os << "," << nm << "''";
  const bool mu = !r.transmission.joint.empty();
  if (mu) os << ",transmission_angle_deg(" << r.transmission.joint << ")";
  os << "\n";
  for (const SweepSample& s : r.samples) {
    os << s.value;
    for (const VectorXd* x : {&s.q, &s.v, &s.a})
      for (Eigen::Index i = 0; i < x->size(); ++i) os << "," << (*x)(i);
    if (mu) os << "," << s.transmission * 180.0 / std::numbers::pi;
    os << "\n";
  }
  return os.str();
}

}  // namespace joinery
