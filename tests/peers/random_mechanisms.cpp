// Differential test: random mechanisms of rigid3d bodies (trees and closed loops; spherical,
// revolute, universal, prismatic, cylindrical and weld joints; random masses, inertias incl.
// thin rods and flat plates, random joint frames and states) built in Simbody 3.7 and in
// joinery — from a scene file written here and loaded like any user's — and compared: the
// world linear acceleration of every centre of mass, the world angular acceleration of every
// body, and the kinetic energy (docs/validation.md, "Random mechanisms against Simbody").
//
//   random_mechanisms [--seed S] [--count N] [--dir DIR] [--loops 0|1] [--tol T] [--json] [--keep]
//
// Mechanism k uses seed S + k; each is written to DIR/random_<seed>.json (kept when it fails,
// or with --keep; re-run one with --seed <seed> --count 1). JOINERY_PEER_DEBUG=1 prints both
// sides' matrices' diagnostics; JOINERY_PEER_NO_LOOPS=1 leaves Simbody's loop constraints out. Exit 0 when every mechanism agrees within the
// tolerance, 1 otherwise.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "joinery/bodies/quaternion.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/scene.hpp"
#include "random_mechanism.hpp"

namespace joinery::peers {
namespace {

using Rng = std::mt19937_64;
double uniform(Rng& rng, double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
int uniformInt(Rng& rng, int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); }

Eigen::Matrix3d randomRotation(Rng& rng) {
  std::normal_distribution<double> n(0, 1);
  Eigen::Quaterniond e(n(rng), n(rng), n(rng), n(rng));
  return e.normalized().toRotationMatrix();
}
Mat3 toArray(const Eigen::Matrix3d& R) {
  Mat3 a;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a[static_cast<std::size_t>(3 * i + j)] = R(i, j);
  return a;
}
Eigen::Matrix3d toMatrix(const Mat3& a) {
  Eigen::Matrix3d R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R(i, j) = a[static_cast<std::size_t>(3 * i + j)];
  return R;
}
Eigen::Vector3d toVector(const Vec3& a) { return {a[0], a[1], a[2]}; }
Vec3 randomPoint(Rng& rng, double r) { return {uniform(rng, -r, r), uniform(rng, -r, r), uniform(rng, -r, r)}; }

/// A body with the inertia of a solid box of random half-sizes: a block, a thin rod (two
/// sizes 1/100 of the third) or a flat plate (one size 1/100), with random principal axes.
BodyDesc randomBody(Rng& rng) {
  BodyDesc b;
  b.mass = std::exp(uniform(rng, std::log(0.1), std::log(10.0)));
  Eigen::Vector3d h(uniform(rng, 0.05, 1), uniform(rng, 0.05, 1), uniform(rng, 0.05, 1));
  const int kind = uniformInt(rng, 0, 3);
  b.shape = kind == 1 ? "rod" : kind == 2 ? "plate" : "box";
  if (kind == 1) h.tail<2>() *= 1e-2;
  if (kind == 2) h(2) *= 1e-2;
  const Eigen::Vector3d s = h.cwiseAbs2();
  const Eigen::Vector3d principal = b.mass / 3.0 * Eigen::Vector3d(s(1) + s(2), s(0) + s(2), s(0) + s(1));
  const Eigen::Matrix3d Q = randomRotation(rng);
  const Eigen::Matrix3d J = Q * principal.asDiagonal() * Q.transpose();
  b.inertia = toArray(0.5 * (J + J.transpose()));
  return b;
}

JointDesc randomJoint(Rng& rng, int child) {
  JointDesc j;
  j.type = static_cast<JointType>(uniformInt(rng, 0, kNumJointTypes - 1));
  j.parent = uniformInt(rng, -1, child - 1);
  j.child = child;
  j.F = {toArray(randomRotation(rng)), randomPoint(rng, 0.5)};
  j.M = {toArray(randomRotation(rng)), randomPoint(rng, 0.5)};
  const double pi = std::numbers::pi;
  switch (j.type) {
    case JointType::Spherical: {
      const Eigen::Quaterniond e(randomRotation(rng));
      j.q = {e.w(), e.x(), e.y(), e.z()};
      j.u = {uniform(rng, -2, 2), uniform(rng, -2, 2), uniform(rng, -2, 2)};
      break;
    }
    case JointType::Revolute: j.q = {uniform(rng, -pi, pi)}; j.u = {uniform(rng, -2, 2)}; break;
    // Simbody's universal coordinates are singular at a second angle of +-pi/2
    case JointType::Universal:
      j.q = {uniform(rng, -pi, pi), uniform(rng, -1.2, 1.2)};
      j.u = {uniform(rng, -2, 2), uniform(rng, -2, 2)};
      break;
    case JointType::Prismatic: j.q = {uniform(rng, -0.5, 0.5)}; j.u = {uniform(rng, -2, 2)}; break;
    case JointType::Cylindrical:
      j.q = {uniform(rng, -pi, pi), uniform(rng, -0.5, 0.5)};
      j.u = {uniform(rng, -2, 2), uniform(rng, -2, 2)};
      break;
    case JointType::Weld: break;
    case JointType::Screw:
      j.q = {uniform(rng, -pi, pi)};
      j.u = {uniform(rng, -2, 2)};
      j.pitch = uniform(rng, -0.3, 0.3);
      break;
  }
  return j;
}

/// True when the tree path between bodies a and b (-1: ground) has welds only.
bool weldedTogether(const Mechanism& m, int a, int b) {
  auto ancestors = [&](int i) {
    std::vector<int> path{i};
    while (i >= 0) path.push_back(i = m.joints[static_cast<std::size_t>(i)].parent);
    return path;
  };
  const std::vector<int> pa = ancestors(a), pb = ancestors(b);
  for (const auto& path : {pa, pb})
    for (int i : path) {
      if (std::find(pa.begin(), pa.end(), i) != pa.end() && std::find(pb.begin(), pb.end(), i) != pb.end()) break;
      if (m.joints[static_cast<std::size_t>(i)].type != JointType::Weld) return false;
    }
  return true;
}

Mechanism generate(std::uint64_t seed, bool loops) {
  Rng rng(seed);
  Mechanism m;
  m.seed = seed;
  const int n = uniformInt(rng, 1, 6);
  for (int i = 0; i < n; ++i) {
    m.bodies.push_back(randomBody(rng));
    m.joints.push_back(randomJoint(rng, i));
  }
  const Eigen::Vector3d g = Eigen::Vector3d(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)).normalized() * 9.81;
  m.gravity = {g.x(), g.y(), g.z()};
  if (loops && n >= 2 && uniformInt(rng, 0, 1) == 1) {
    LoopDesc l;
    l.body2 = uniformInt(rng, 1, n - 1);
    l.body1 = uniformInt(rng, -1, l.body2 - 1);
    l.point1 = randomPoint(rng, 0.5);
    // a loop closed through welds only has rows that vanish identically: joinery finds them
    // redundant, Simbody 3.7 takes their round-off for rows and returns wrong accelerations
    // (docs/validation.md); such a draw gets no loop
    if (!weldedTogether(m, l.body1, l.body2)) m.loops.push_back(l);
  }
  return m;
}

nlohmann::json jv(const Eigen::Vector3d& a) { return {a.x(), a.y(), a.z()}; }
nlohmann::json jm(const Eigen::Matrix3d& R) {
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < 3; ++i) rows.push_back({R(i, 0), R(i, 1), R(i, 2)});
  return rows;
}
std::string bodyName(int i) { return i < 0 ? "ground" : "b" + std::to_string(i); }

/// The orientation of body i in one of the accepted forms (by turns: quaternion, matrix,
/// Euler angles "XYZ" as Simbody computes them — a check of the convention).
nlohmann::json orientationJson(const BodyResult& r, int i) {
  const Eigen::Matrix3d R = toMatrix(r.R);
  switch (i % 3) {
    case 0: {
      const Eigen::Quaterniond e(R);
      return {e.w(), e.x(), e.y(), e.z()};
    }
    case 1: return {{"matrix", jm(R)}};
    default: return {{"euler", {{"sequence", "XYZ"}, {"angles", jv(toVector(r.eulerXYZ))}}}};
  }
}

nlohmann::json jointJson(const JointDesc& j, int index) {
  const Eigen::Matrix3d RF = toMatrix(j.F.R), RM = toMatrix(j.M.R);
  nlohmann::json o = {{"name", "j" + std::to_string(index)}, {"body1", bodyName(j.parent)},
                      {"point1", jv(toVector(j.F.p))}, {"body2", bodyName(j.child)}, {"point2", jv(toVector(j.M.p))}};
  switch (j.type) {
    case JointType::Spherical: o["type"] = "spherical"; break;
    case JointType::Revolute:
      o["type"] = "revolute3d", o["axis1"] = jv(RF.col(2)), o["axis2"] = jv(RM.col(2));
      break;
    case JointType::Universal:
      o["type"] = "universal", o["axis1"] = jv(RF.col(0)), o["axis2"] = jv(RM.col(1));
      break;
    case JointType::Prismatic:
      o["type"] = "prismatic3d", o["axis1"] = jv(RF.col(0)), o["orientation"] = {{"matrix", jm(RF * RM.transpose())}};
      break;
    case JointType::Cylindrical:
      o["type"] = "cylindrical", o["axis1"] = jv(RF.col(2)), o["axis2"] = jv(RM.col(2));
      break;
    case JointType::Weld:  // every other weld holds the initial relative orientation (the default)
      o["type"] = "weld3d";
      if (index % 2 == 0) o["orientation"] = {{"matrix", jm(RF * RM.transpose())}};
      break;
    case JointType::Screw:  // theta from F.x to M.x about F.z: Simbody's q; advance per turn
      o["type"] = "screw", o["axis1"] = jv(RF.col(2)), o["axis2"] = jv(RM.col(2)), o["reference1"] = jv(RF.col(0)),
      o["reference2"] = jv(RM.col(0)), o["pitch"] = 2 * std::numbers::pi * j.pitch, o["offset"] = 0.0;
      break;
  }
  return o;
}

nlohmann::json sceneJson(const Mechanism& m, const PeerResult& peer) {
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array();
  for (std::size_t i = 0; i < m.bodies.size(); ++i) {
    const BodyResult& r = peer.bodies[i];
    bodies.push_back({{"name", bodyName(static_cast<int>(i))}, {"type", "rigid3d"}, {"mass", m.bodies[i].mass},
                      {"inertia", jm(toMatrix(m.bodies[i].inertia))}, {"position", jv(toVector(r.x))},
                      {"orientation", orientationJson(r, static_cast<int>(i))}, {"velocity", jv(toVector(r.v))},
                      {"angular_velocity", jv(toVector(r.w))}});
  }
  for (std::size_t i = 0; i < m.joints.size(); ++i) joints.push_back(jointJson(m.joints[i], static_cast<int>(i)));
  for (std::size_t i = 0; i < m.loops.size(); ++i) {
    const LoopDesc& l = m.loops[i];
    joints.push_back({{"name", "loop" + std::to_string(i)}, {"type", "spherical"}, {"body1", bodyName(l.body1)},
                      {"point1", jv(toVector(l.point1))}, {"body2", bodyName(l.body2)}, {"point2", jv(toVector(l.point2))}});
  }
  return {{"joinery", 1},
          {"name", "random mechanism, seed " + std::to_string(m.seed) + " (tests/peers/random_mechanisms)"},
          {"gravity", jv(toVector(m.gravity))}, {"bodies", bodies}, {"joints", joints}};
}

struct Outcome {
  bool ok = false;
  double linear = 0, angular = 0, energy = 0;  ///< relative errors (see the top of the file)
  double reaction = 0;                         ///< joint reactions (trees; see compare())
  bool reactionsCompared = false;
  double condition = 0;                        ///< of Simbody's generalized mass matrix
  double constraintCondition = 1;              ///< of joinery's row-scaled A (nonzero singular values)
  std::string message;
};

double conditionOf(const PeerResult& peer) {
  if (peer.nu == 0) return 1;
  const Eigen::Map<const Eigen::MatrixXd> M(peer.massMatrix.data(), peer.nu, peer.nu);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(M);
  return eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();
}

std::string fmt(const Eigen::Vector3d& v) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "[%.6g, %.6g, %.6g]", v.x(), v.y(), v.z());
  return buf;
}

/// Trees only (with a loop the split of the force between the joints is not unique and each
/// engine picks its own): the force and torque of each tree joint j<i> on its child (joinery's
/// side 2, at point2 = the origin of M) against Simbody's mobilizer reaction. Errors relative
/// to the largest force (torque) component of Simbody's, or to 1 N (N m) when smaller.
void compareReactions(const Model& model, const State& s, const PeerResult& peer, Outcome& out) {
  if (!peer.hasReactions) return;
  ModelWorkspace ws = model.makeWorkspace();
  JointMultipliers mult;
  const Solution msol = solveJointMultipliers(model, s, ws, mult);
  if (std::getenv("JOINERY_PEER_DEBUG") != nullptr)
    std::fprintf(stderr, "multipliers: |A^T lambda - (M q'' - Q)| = %.3g, |A^T lambda - forceIdeal| = %.3g, |M q'' - Q| = %.3g\n",
                 (ws.A.transpose() * mult.ideal - (ws.M * msol.qdd - ws.Q)).norm(),
                 (ws.A.transpose() * mult.ideal - msol.forceIdeal).norm(), (ws.M * msol.qdd - ws.Q).norm());
  JointResultsWorkspace rws(model);
  std::vector<JointResult> results = rws.makeResults();
  calcJointResults(model, s, mult, rws, results);
  double dF = 0, dT = 0, sF = 1, sT = 1;
  for (const JointResult& r : results) {
    if (r.name.rfind("loop", 0) == 0) return;  // a closed loop: not compared
    if (!r.unique) return;
    const BodyResult& b = peer.bodies[static_cast<std::size_t>(std::stoi(r.name.substr(1)))];
    if (std::getenv("JOINERY_PEER_DEBUG") != nullptr)
      std::fprintf(stderr, "%s %s: joinery F %s T %s; Simbody F %s T %s\n", r.name.c_str(), r.type.c_str(),
                   fmt(r.side2.force).c_str(), fmt(r.side2.torque).c_str(), fmt(toVector(b.reactionForce)).c_str(),
                   fmt(toVector(b.reactionTorque)).c_str());
    dF = std::max(dF, (r.side2.force - toVector(b.reactionForce)).lpNorm<Eigen::Infinity>());
    dT = std::max(dT, (r.side2.torque - toVector(b.reactionTorque)).lpNorm<Eigen::Infinity>());
    sF = std::max(sF, toVector(b.reactionForce).lpNorm<Eigen::Infinity>());
    sT = std::max(sT, toVector(b.reactionTorque).lpNorm<Eigen::Infinity>());
  }
  out.reaction = std::max(dF / sF, dT / sT);
  out.reactionsCompared = true;
}

/// Loads the scene file, solves at its initial state, compares with the peer. The errors are
/// |joinery - Simbody| (largest component over the bodies) relative to the largest
/// component of Simbody's values, or to 1 (m/s^2, rad/s^2, J) when that is smaller.
Outcome compare(const PeerResult& peer, const std::string& path) {
  Outcome out;
  out.condition = conditionOf(peer);
  const Scene scene = loadScene(path);
  const Model& model = scene.model;
  const State s = model.initialState();
  ModelWorkspace ws = model.makeWorkspace();
  const Solution sol = solveForwardDynamics(model, s, ws);
  if (std::getenv("JOINERY_PEER_DEBUG") != nullptr) {  // the joinery side of a draw
    Eigen::MatrixXd As = ws.A;
    for (int i = 0; i < As.rows(); ++i) As.row(i) *= 1.0 / ws.A.row(i).norm();
    Eigen::VectorXd psi(model.numConstraintRows()), phi(model.numConstraintRows());
    model.calcVelocityErrors(s, ws, psi);
    model.calcPositionErrors(s, ws, phi);
    std::fprintf(stderr, "joinery: |phi| %.3g |psi| %.3g |A q'' - b| %.3g; singular values of row-scaled A:\n",
                 phi.norm(), psi.norm(), (ws.A * sol.qdd - ws.b).norm());
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(As);
    for (int i = 0; i < svd.singularValues().size(); ++i) std::fprintf(stderr, " %.3g", svd.singularValues()(i));
    std::fprintf(stderr, "\n");
    Eigen::VectorXd bs = ws.b;
    for (int i = 0; i < As.rows(); ++i) bs(i) *= 1.0 / ws.A.row(i).norm();
    const int r = static_cast<int>(svd.rank());
    const Eigen::JacobiSVD<Eigen::MatrixXd> jac(As, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Eigen::BDCSVD<Eigen::MatrixXd> bdc(As, Eigen::ComputeThinU | Eigen::ComputeFullV);
    const Eigen::MatrixXd Uj = jac.matrixU().leftCols(r), Ub = bdc.matrixU().leftCols(r);
    const Solution again = DenseSolver().solve(ws.M, ws.Q, ws.A, ws.b);
    std::fprintf(stderr, "DenseSolver: inconsistency %.3g rank %d residual %.3g; solve: %.3g\n", again.diagnosis.inconsistency,
                 again.diagnosis.rankA, again.diagnosis.residual, sol.diagnosis.inconsistency);
    std::fprintf(stderr, "rank %d; b outside range(A): Jacobi U %.3g, BDC U %.3g; |U^T U - I| BDC %.3g; |A - U S V^T| BDC %.3g\n", r,
                 (bs - Uj * (Uj.transpose() * bs)).norm(), (bs - Ub * (Ub.transpose() * bs)).norm(),
                 (bdc.matrixU().transpose() * bdc.matrixU() - Eigen::MatrixXd::Identity(bdc.matrixU().cols(), bdc.matrixU().cols())).norm(),
                 (As - bdc.matrixU() * bdc.singularValues().asDiagonal() * bdc.matrixV().leftCols(As.rows()).transpose()).norm());
  }
  {  // conditioning of the constraint rows: largest over smallest non-zero singular value of
     // the row-scaled A (non-zero: above joinery's rank tolerance 1e-10)
    Eigen::MatrixXd As = ws.A;
    for (int i = 0; i < As.rows(); ++i) As.row(i) *= 1.0 / std::max(ws.A.row(i).norm(), 1e-300);
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(As);
    const Eigen::VectorXd& sv = svd.singularValues();
    double smallest = sv.size() ? sv(0) : 1.0;
    for (int i = 0; i < sv.size(); ++i)
      if (sv(i) > 1e-10 * sv(0)) smallest = sv(i);
    out.constraintCondition = sv.size() ? sv(0) / smallest : 1.0;
  }
  if (!sol.diagnosis.wellPosed) {
    out.message = "joinery finds the model not well posed";
    return out;
  }
  const auto& names = model.coordinateNames();
  double dLin = 0, dAng = 0, sLin = 1, sAng = 1;
  for (std::size_t i = 0; i < peer.bodies.size(); ++i) {
    const auto it = std::find(names.begin(), names.end(), bodyName(static_cast<int>(i)) + ".x");
    const int k = static_cast<int>(it - names.begin());
    const Eigen::Vector3d a = sol.qdd.segment<3>(k);
    const Eigen::Vector4d e = s.q.segment<4>(k + 3);
    const Eigen::Vector3d alpha = 2.0 * quaternion::worldH(e) * sol.qdd.segment<4>(k + 3);
    const BodyResult& r = peer.bodies[i];
    dLin = std::max(dLin, (a - toVector(r.a)).lpNorm<Eigen::Infinity>());
    dAng = std::max(dAng, (alpha - toVector(r.alpha)).lpNorm<Eigen::Infinity>());
    sLin = std::max(sLin, toVector(r.a).lpNorm<Eigen::Infinity>());
    sAng = std::max(sAng, toVector(r.alpha).lpNorm<Eigen::Infinity>());
  }
  out.linear = dLin / sLin;
  out.angular = dAng / sAng;
  out.energy = std::abs(model.calcKineticEnergy(s) - peer.kineticEnergy) / std::max(1.0, peer.kineticEnergy);
  compareReactions(model, s, peer, out);
  out.ok = true;
  return out;
}

/// Largest condition number of the row-scaled constraint rows of a "well-conditioned" draw.
constexpr double kWellConditioned = 1e3;

struct Stats {
  int count = 0;
  double worst = 0;
  std::uint64_t worstSeed = 0;
  void add(double err, std::uint64_t seed) {
    ++count;
    if (err >= worst) worst = err, worstSeed = seed;
  }
};

#ifdef JOINERY_PEER_DART
/// The same tree in DART, against the same scene file: false (after printing why) when they
/// differ beyond `tol` (accelerations) or `energyTol`; a tree with a cylindrical joint is skipped.
bool compareWithDart(const Mechanism& m, const PeerResult& simbody, const std::string& path, double tol,
                     double energyTol, Stats& dart, int& skipped, const std::string& rerun) {
  const PeerResult dp = runDart(m, simbody);
  if (!dp.ok && dp.error.rfind("cylindrical", 0) == 0) {
    ++skipped;
    return true;
  }
  Outcome od;
  try {
    if (!dp.ok) throw std::runtime_error("DART: " + dp.error);
    od = compare(dp, path);
  } catch (const std::exception& e) {
    od.message = e.what();
  }
  const double err = std::max(od.linear, od.angular);
  if (!od.ok || !(err <= tol) || !(od.energy <= energyTol)) {
    std::printf("FAIL seed %llu (DART): %s linear %.3g angular %.3g energy %.3g (tolerance %.3g)%s\n",
                static_cast<unsigned long long>(m.seed), od.message.c_str(), od.linear, od.angular, od.energy, tol,
                rerun.c_str());
    return false;
  }
  dart.add(std::max(err, od.energy), m.seed);
  return true;
}
#endif

struct Options {
  std::uint64_t seed = 1;
  int count = 50;
  std::string dir = "/tmp/joinery_random_mechanisms";
  bool loops = true;
  double tol = 1e-9;
  bool json = false;
  bool keep = false;  ///< keep the scene files of passing draws too
};

Options parseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("missing value after " + a);
      return argv[++i];
    };
    if (a == "--seed") o.seed = std::stoull(next());
    else if (a == "--count") o.count = std::stoi(next());
    else if (a == "--dir") o.dir = next();
    else if (a == "--loops") o.loops = next() != "0";
    else if (a == "--tol") o.tol = std::stod(next());
    else if (a == "--json") o.json = true;
    else if (a == "--keep") o.keep = true;
    else throw std::runtime_error("unknown option " + a +
                                  " (usage: random_mechanisms [--seed S] [--count N] [--dir DIR] [--loops 0|1] [--tol T] [--json] [--keep])");
  }
  return o;
}

}  // namespace
}  // namespace joinery::peers

int main(int argc, char** argv) {
  using namespace joinery::peers;
  Options opt;
  try {
    opt = parseOptions(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  std::filesystem::create_directories(opt.dir);
  std::map<std::string, Stats> perType;
  Stats all, energy, loops, trees, illConditioned, reactions;
  [[maybe_unused]] Stats dart;  // only used when the DART peer is built
  [[maybe_unused]] int dartSkipped = 0;
  double worstConstraintCondition = 0;
  int failures = 0;
  double worstCondition = 0;
  for (int k = 0; k < opt.count; ++k) {
    const std::uint64_t seed = opt.seed + static_cast<std::uint64_t>(k);
    Mechanism m = generate(seed, opt.loops);
    const PeerResult peer = runSimbody(m);
    const std::string path = opt.dir + "/random_" + std::to_string(seed) + ".json";
    const std::string rerun = " (scene " + path + "; re-run: random_mechanisms --seed " + std::to_string(seed) + " --count 1)";
    if (!peer.ok) {
      std::printf("FAIL seed %llu: Simbody: %s%s\n", static_cast<unsigned long long>(seed), peer.error.c_str(), rerun.c_str());
      ++failures;
      continue;
    }
    std::ofstream(path) << sceneJson(m, peer).dump(1) << "\n";
    Outcome out;
    try {
      out = compare(peer, path);
    } catch (const std::exception& e) {
      out.message = std::string("joinery: ") + e.what();
    }
    const double err = std::max({out.linear, out.angular, out.reaction});
    // well conditioned: the constraint rows far from singular (kA <= 1e3); closer to a
    // singular position the error bound of the constrained solve grows like kA^2
    const bool wellConditioned = out.constraintCondition <= kWellConditioned;
    const double tol = wellConditioned ? opt.tol : opt.tol * std::pow(out.constraintCondition / kWellConditioned, 2);
    if (!out.ok || !(err <= tol) || !(out.energy <= opt.tol)) {
      std::printf("FAIL seed %llu: %s linear %.3g angular %.3g reactions %.3g energy %.3g (tolerance %.3g) cond(M) %.3g cond(A) %.3g%s\n",
                  static_cast<unsigned long long>(seed), out.message.c_str(), out.linear, out.angular, out.reaction, out.energy, tol,
                  out.condition, out.constraintCondition, rerun.c_str());
      ++failures;
      continue;
    }
#ifdef JOINERY_PEER_DART
    if (wellConditioned && m.loops.empty() && !compareWithDart(m, peer, path, tol, opt.tol, dart, dartSkipped, rerun)) {
      ++failures;
      continue;
    }
#endif
    if (!opt.keep) std::filesystem::remove(path);
    if (!wellConditioned) {
      illConditioned.add(err, seed);
      worstConstraintCondition = std::max(worstConstraintCondition, out.constraintCondition);
      continue;
    }
    all.add(err, seed);
    energy.add(out.energy, seed);
    if (out.reactionsCompared) reactions.add(out.reaction, seed);
    (m.loops.empty() ? trees : loops).add(err, seed);
    worstCondition = std::max(worstCondition, out.condition);
    std::map<std::string, bool> seen;
    for (const JointDesc& j : m.joints) seen[jointTypeName(j.type)] = true;
    for (const auto& [type, unused] : seen) perType[type].add(err, seed);
  }
  const auto line = [](const char* what, const Stats& s) {
    std::printf("  %-12s %6d mechanisms  worst relative error %.2e (seed %llu)\n", what, s.count, s.worst,
                static_cast<unsigned long long>(s.worstSeed));
  };
  std::printf("random mechanisms against Simbody: %d compared, %d failed (tolerance %.0e; seeds %llu..%llu)\n",
              all.count + illConditioned.count, failures, opt.tol, static_cast<unsigned long long>(opt.seed),
              static_cast<unsigned long long>(opt.seed + static_cast<std::uint64_t>(opt.count) - 1));
  line("all", all);
  std::printf("  (well conditioned: cond(A) <= %.0e; %d more near singular positions, cond(A) up to %.2e, worst error %.2e,\n"
              "   each within tolerance * (cond(A) / %.0e)^2)\n",
              kWellConditioned, illConditioned.count, worstConstraintCondition, illConditioned.worst, kWellConditioned);
  line("trees", trees);
  line("closed loops", loops);
  for (const auto& [type, s] : perType) line(type.c_str(), s);
  std::printf("  kinetic energy: worst relative error %.2e; largest cond(M) %.2e\n", energy.worst, worstCondition);
  std::printf("  joint reactions (trees, %d mechanisms): worst relative error %.2e (seed %llu)\n", reactions.count,
              reactions.worst, static_cast<unsigned long long>(reactions.worstSeed));
#ifdef JOINERY_PEER_DART
  std::printf("  DART 6 (well-conditioned trees without a cylindrical joint, %d more skipped): %d mechanisms, worst relative\n"
              "    error %.2e (seed %llu; accelerations and kinetic energy against joinery's)\n",
              dartSkipped, dart.count, dart.worst, static_cast<unsigned long long>(dart.worstSeed));
#endif
  if (opt.json) {
    nlohmann::json j = {{"compared", all.count}, {"failed", failures}, {"tolerance", opt.tol},
                        {"worst", all.worst}, {"worst_energy", energy.worst},
                        {"reactions_compared", reactions.count}, {"worst_reaction", reactions.worst},
                        {"ill_conditioned", illConditioned.count}, {"worst_ill_conditioned", illConditioned.worst}, {"per_type", nlohmann::json::object()}};
    for (const auto& [type, s] : perType) j["per_type"][type] = {{"count", s.count}, {"worst", s.worst}};
#ifdef JOINERY_PEER_DART
    j["dart"] = {{"count", dart.count}, {"worst", dart.worst}, {"skipped", dartSkipped}};
#endif
    std::printf("%s\n", j.dump().c_str());
  }
  return failures == 0 ? 0 : 1;
}
