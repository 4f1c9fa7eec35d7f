// An MJCF model imported by joinery against MuJoCo 2.2.2 compiling the same file
// (docs/import.md, "Validation"). MuJoCo's contacts, joint limits, friction loss, actuation and
// armature are switched off, and so are the passive forces that the importer does not convert
// (a ball or free joint's spring and damper, tendons'); the imported scene carries none of them
// either (--no-limits). The hinge and slide joints' stiffness and damping stay on both sides
// (MuJoCo's qfrc_passive, joinery's joint_spring elements). At qpos0 and at random configurations:
//   - total mass and centre of mass (MuJoCo's subtree_com of the world);
//   - the test's own kinematics (the frames of the massless intermediate bodies that a body with
//     several joints becomes) against MuJoCo's xpos/xquat and its COM Jacobians (mj_jacBodyCom);
//   - the joint velocities mapped to joinery's coordinates satisfy joinery's constraints, A J = 0;
//   - the joint-space mass matrix J^T M J from joinery's M against mj_fullM;
//   - the accelerations under gravity and the joint springs at rest: joinery's q'' against
//     J qacc of mj_forward, and the joint accelerations recovered from q'' against qacc;
//   - at random joint velocities, the joint springs' and dampers' generalized forces J^T dQ
//     (joinery's Q with the springs minus without) against MuJoCo's qfrc_passive;
//   - mobility: n - rank(A) equals MuJoCo's nv.
// Every comparison is relative to the largest entry of MuJoCo's quantity (or 1) and must be
// below --tol (default 1e-9). Exit 0 when all pass, 1 otherwise.
#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "joinery/bodies/quaternion.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/import/import.hpp"

namespace {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

struct Frame {
  Matrix3d R = Matrix3d::Identity();
  Vector3d p = Vector3d::Zero();
  Frame operator*(const Frame& o) const { return {R * o.R, p + R * o.p}; }
};

Matrix3d quatMat(const double* q) { return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix(); }
Vector3d v3(const double* p) { return {p[0], p[1], p[2]}; }

/// The frames of one MuJoCo body after each of its joints (the last is the body's own), and the
/// twist Jacobians (omega; velocity of the point at the world origin) of each.
struct BodyFrames {
  std::vector<Frame> frames;
  std::vector<MatrixXd> twists;  // 6 x nv
};

double relErr(const MatrixXd& a, const MatrixXd& ref) {
  return (a - ref).cwiseAbs().maxCoeff() / std::max(1.0, ref.cwiseAbs().maxCoeff());
}

struct Checker {
  double tol;
  bool ok = true;
  void check(const char* what, double err, const std::string& where) {
    const bool pass = err <= tol;
    std::printf("  %-48s %-10s %.3g%s\n", what, where.c_str(), err, pass ? "" : "  FAIL");
    if (!pass) ok = false;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: import_mujoco MODEL.xml [--configs N] [--tol T]\n");
    return 2;
  }
  const std::string path = argv[1];
  int configs = 4;
  double tol = 1e-9;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--configs") == 0) configs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--tol") == 0) tol = std::atof(argv[i + 1]);
  }
  char err[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, err, sizeof err);
  if (!m) {
    std::fprintf(stderr, "MuJoCo cannot load %s: %s\n", path.c_str(), err);
    return 2;
  }
  m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_FRICTIONLOSS | mjDSBL_ACTUATION | mjDSBL_EQUALITY;
  for (int i = 0; i < m->nv; ++i) m->dof_armature[i] = 0;
  // passive forces the importer does not convert: off in MuJoCo too
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE) continue;
    m->jnt_stiffness[j] = 0;
    const int dofs = m->jnt_type[j] == mjJNT_FREE ? 6 : 3;
    for (int k = 0; k < dofs; ++k) m->dof_damping[m->jnt_dofadr[j] + k] = 0;
  }
  for (int t = 0; t < m->ntendon; ++t) m->tendon_stiffness[t] = m->tendon_damping[t] = 0;
  m->opt.viscosity = 0;
  m->opt.density = 0;
  int springs = 0;
  for (int j = 0; j < m->njnt; ++j)
    if (m->jnt_stiffness[j] != 0 || m->dof_damping[m->jnt_dofadr[j]] != 0) ++springs;
  mjData* d = mj_makeData(m);

  joinery::ImportOptions options;
  options.limits = false;
  const joinery::ImportResult imported = joinery::importModel(path, options);
  const nlohmann::json base = imported.scene;
  const std::size_t forces = base.contains("forces") ? base["forces"].size() : 0;
  std::printf("%s: MuJoCo nbody %d nv %d, %d joints with a spring or damper; joinery %zu bodies, %zu joints, %zu "
              "joint springs\n",
              path.c_str(), m->nbody, m->nv, springs, base["bodies"].size(), base["joints"].size(), forces);
  if (forces != static_cast<std::size_t>(springs)) {
    std::printf("FAIL: %d MuJoCo joints have a stiffness or a damping, %zu joint_spring elements imported\n", springs,
                forces);
    return 1;
  }
  // joinery's bodies in MuJoCo's order: each body, then its intermediate frames (one per joint but the last)
  std::vector<std::pair<int, int>> jb;  // (MuJoCo body, frame index: -1 the body itself, k after joint k)
  for (int b = 1; b < m->nbody; ++b) {
    jb.emplace_back(b, -1);
    const bool free = m->body_jntnum[b] == 1 && m->jnt_type[m->body_jntadr[b]] == mjJNT_FREE;
    for (int k = 0; !free && k + 1 < m->body_jntnum[b]; ++k) jb.emplace_back(b, k);
  }
  if (jb.size() != base["bodies"].size()) {
    std::printf("FAIL: %zu joinery bodies expected from MuJoCo's bodies and joints, %zu imported\n", jb.size(),
                base["bodies"].size());
    return 1;
  }
  Checker c{tol};
  {  // total mass and centre of mass at qpos0
    mju_copy(d->qpos, m->qpos0, m->nq);
    mj_forward(m, d);
    double mass = 0, mjMass = 0;
    Vector3d com = Vector3d::Zero();
    for (const auto& b : base["bodies"]) {
      mass += b["mass"].get<double>();
      com += b["mass"].get<double>() * Vector3d(b["position"][0], b["position"][1], b["position"][2]);
    }
    for (int b = 1; b < m->nbody; ++b) mjMass += m->body_mass[b];
    c.check("total mass", std::abs(mass - mjMass) / mjMass, "qpos0");
    c.check("centre of mass", (com / mass - v3(d->subtree_com)).cwiseAbs().maxCoeff() / std::max(1.0, v3(d->subtree_com).norm()), "qpos0");
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int config = 0; config < configs; ++config) {
    const std::string where = config == 0 ? "qpos0" : "random " + std::to_string(config);
    mju_copy(d->qpos, m->qpos0, m->nq);
    if (config > 0) {
      for (int j = 0; j < m->njnt; ++j) {
        double* q = d->qpos + m->jnt_qposadr[j];
        switch (m->jnt_type[j]) {
          case mjJNT_HINGE:
          case mjJNT_SLIDE: q[0] += U(rng); break;
          case mjJNT_BALL:
          case mjJNT_FREE: {
            double* e = m->jnt_type[j] == mjJNT_FREE ? q + 3 : q;
            if (m->jnt_type[j] == mjJNT_FREE)
              for (int k = 0; k < 3; ++k) q[k] += U(rng);
            Eigen::Vector4d r(U(rng), U(rng), U(rng), U(rng));
            r.normalize();
            for (int k = 0; k < 4; ++k) e[k] = r[k];
            break;
          }
        }
      }
    }
    mju_zero(d->qvel, m->nv);
    mj_forward(m, d);
    // the test's kinematics: frames and twist Jacobians of every body and intermediate frame
    std::vector<BodyFrames> bf(static_cast<std::size_t>(m->nbody));
    bf[0].frames = {Frame{}};
    bf[0].twists = {MatrixXd::Zero(6, m->nv)};
    double kinErr = 0, jacErr = 0;
    for (int b = 1; b < m->nbody; ++b) {
      const int parent = m->body_parentid[b];
      Frame F = bf[static_cast<std::size_t>(parent)].frames.back() * Frame{quatMat(m->body_quat + 4 * b), v3(m->body_pos + 3 * b)};
      MatrixXd S = bf[static_cast<std::size_t>(parent)].twists.back();
      BodyFrames& out = bf[static_cast<std::size_t>(b)];
      for (int k = 0; k < m->body_jntnum[b]; ++k) {
        const int j = m->body_jntadr[b] + k;
        const double* q = d->qpos + m->jnt_qposadr[j];
        const double* q0 = m->qpos0 + m->jnt_qposadr[j];
        const int dof = m->jnt_dofadr[j];
        const Vector3d anchor = v3(m->jnt_pos + 3 * j), axis = v3(m->jnt_axis + 3 * j);
        const Vector3d pw = F.p + F.R * anchor, aw = F.R * axis;
        switch (m->jnt_type[j]) {
          case mjJNT_HINGE: {
            const Matrix3d R = Eigen::AngleAxisd(q[0] - q0[0], axis).toRotationMatrix();
            F = F * Frame{R, anchor - R * anchor};
            S.col(dof) << aw, pw.cross(aw);
            break;
          }
          case mjJNT_SLIDE:
            F = F * Frame{Matrix3d::Identity(), axis * (q[0] - q0[0])};
            S.col(dof) << Vector3d::Zero(), aw;
            break;
          case mjJNT_BALL: {
            const Matrix3d R = quatMat(q);
            F = F * Frame{R, anchor - R * anchor};
            for (int e = 0; e < 3; ++e) S.col(dof + e) << F.R.col(e), pw.cross(F.R.col(e));
            break;
          }
          case mjJNT_FREE: {
            F = Frame{quatMat(q + 3), v3(q)};
            S.setZero();
            for (int e = 0; e < 3; ++e) {
              S.col(dof + e) << Vector3d::Zero(), Vector3d::Unit(e);
              S.col(dof + 3 + e) << F.R.col(e), F.p.cross(F.R.col(e));
            }
            break;
          }
        }
        out.frames.push_back(F);
        out.twists.push_back(S);
      }
      if (m->body_jntnum[b] == 0) {
        out.frames.push_back(F);
        out.twists.push_back(S);
      }
      kinErr = std::max(kinErr, (F.p - v3(d->xpos + 3 * b)).cwiseAbs().maxCoeff());
      kinErr = std::max(kinErr, (F.R - quatMat(d->xquat + 4 * b)).cwiseAbs().maxCoeff());
      std::vector<double> jacp(3 * static_cast<std::size_t>(m->nv)), jacr(3 * static_cast<std::size_t>(m->nv));
      mj_jacBodyCom(m, d, jacp.data(), jacr.data(), b);
      const Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor>> Jp(jacp.data(), 3, m->nv),
          Jr(jacr.data(), 3, m->nv);
      const Vector3d comW = v3(d->xipos + 3 * b);
      MatrixXd mine(6, m->nv);
      for (int i = 0; i < m->nv; ++i) {
        const Vector3d w = S.col(i).head<3>(), vO = S.col(i).tail<3>();
        mine.col(i) << w, vO + w.cross(comW);
      }
      MatrixXd theirs(6, m->nv);
      theirs << Jr, Jp;
      jacErr = std::max(jacErr, relErr(mine, theirs));
    }
    c.check("test kinematics vs xpos/xquat", kinErr, where);
    c.check("test Jacobians vs mj_jacBodyCom", jacErr, where);
    // the joinery scene at this configuration
    nlohmann::json scene = base;
    std::vector<Frame> jointFrames(jb.size());
    std::vector<MatrixXd> jointTwists(jb.size());
    for (std::size_t k = 0; k < jb.size(); ++k) {
      const auto [b, f] = jb[k];
      const BodyFrames& B = bf[static_cast<std::size_t>(b)];
      const std::size_t idx = f < 0 ? B.frames.size() - 1 : static_cast<std::size_t>(f);
      jointFrames[k] = B.frames[idx];
      jointTwists[k] = B.twists[idx];
    }
    // centres of mass in the body frames, from the imported (qpos0) scene and MuJoCo's qpos0 frames
    // (the scene's body frame is the MJCF body frame, its origin moved to the centre of mass)
    static std::vector<Vector3d> localCom;
    if (config == 0) {
      localCom.resize(jb.size());
      for (std::size_t k = 0; k < jb.size(); ++k) {
        const nlohmann::json& body = base["bodies"][k];
        const Vector3d p(body["position"][0], body["position"][1], body["position"][2]);
        localCom[k] = jointFrames[k].R.transpose() * (p - jointFrames[k].p);
      }
    }
    for (std::size_t k = 0; k < jb.size(); ++k) {
      const Frame& F = jointFrames[k];
      const Vector3d com = F.p + F.R * localCom[k];
      const Eigen::Quaterniond e(F.R);
      scene["bodies"][k]["position"] = {com.x(), com.y(), com.z()};
      scene["bodies"][k]["orientation"] = {e.w(), e.x(), e.y(), e.z()};
    }
    // a joint's turn and travel are zero at the scene's initial state (the contract), here this
    // configuration: the springs' rest moves by the joint's displacement from qpos0
    if (scene.contains("forces"))
      for (auto& f : scene["forces"]) {
        const int j = mj_name2id(m, mjOBJ_JOINT, f["joint"].get<std::string>().c_str());
        if (j < 0) {
          std::printf("FAIL: joint_spring %s names no MuJoCo joint\n", f["name"].get<std::string>().c_str());
          return 1;
        }
        const int a = m->jnt_qposadr[j];
        f["rest"] = f.value("rest", 0.0) - (d->qpos[a] - m->qpos0[a]);
      }
    const joinery::Scene sc = joinery::sceneFromJson(scene, path);
    const joinery::Model& model = sc.model;
    const joinery::State s = model.initialState();
    joinery::ModelWorkspace ws = model.makeWorkspace(true);
    // J: joint velocities -> joinery coordinate rates
    const auto& names = model.coordinateNames();
    MatrixXd J = MatrixXd::Zero(model.numCoordinates(), m->nv);
    for (std::size_t k = 0; k < jb.size(); ++k) {
      const std::string name = scene["bodies"][k]["name"];
      const int at = static_cast<int>(std::find(names.begin(), names.end(), name + ".x") - names.begin());
      const Vector3d com = jointFrames[k].p + jointFrames[k].R * localCom[k];
      const Eigen::Vector4d e = s.q.segment<4>(at + 3);
      for (int i = 0; i < m->nv; ++i) {
        const Vector3d w = jointTwists[k].col(i).head<3>(), vO = jointTwists[k].col(i).tail<3>();
        J.block<3, 1>(at, i) = vO + w.cross(com);
        J.block<4, 1>(at + 3, i) = 0.5 * joinery::quaternion::worldH(e).transpose() * w;
      }
    }
    model.calcMassAndForces(s, ws);
    model.calcConstraints(s, ws);
    c.check("A J = 0 (joint motions admissible)", (ws.A * J).cwiseAbs().maxCoeff() / std::max(1.0, ws.A.cwiseAbs().maxCoeff() * J.cwiseAbs().maxCoeff()), where);
    std::vector<double> full(static_cast<std::size_t>(m->nv) * static_cast<std::size_t>(m->nv));
    mj_fullM(m, full.data(), d->qM);
    const MatrixXd Mmj = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(full.data(), m->nv, m->nv);
    const MatrixXd Mj = J.transpose() * ws.M * J;
    c.check("joint-space mass matrix vs mj_fullM", relErr(Mj, Mmj), where);
    const joinery::Solution sol = joinery::solveForwardDynamics(model, s, ws);
    const int mobility = model.numCoordinates() - sol.diagnosis.rankA;
    if (mobility != m->nv || !sol.diagnosis.wellPosed) {
      std::printf("  FAIL %s: mobility %d (n %d - rank A %d), MuJoCo nv %d, well posed %d\n", where.c_str(), mobility,
                  model.numCoordinates(), sol.diagnosis.rankA, m->nv, static_cast<int>(sol.diagnosis.wellPosed));
      c.ok = false;
    } else {
      std::printf("  %-48s %-10s %d = nv\n", "mobility n - rank A", where.c_str(), mobility);
    }
    const VectorXd qacc = Eigen::Map<const VectorXd>(d->qacc, m->nv);
    const VectorXd expected = J * qacc;
    c.check("accelerations q'' vs J qacc (gravity, at rest)", relErr(sol.qdd, expected), where);
    const VectorXd recovered = J.colPivHouseholderQr().solve(sol.qdd);
    c.check("joint accelerations vs mj_forward qacc", relErr(recovered, qacc), where);
    if (forces > 0) {
      // the springs and dampers at random joint velocities: J^T (Q - Q without them) against
      // MuJoCo's qfrc_passive (the same state; the velocity-product terms cancel in the difference)
      for (int i = 0; i < m->nv; ++i) d->qvel[i] = 2 * U(rng);
      mj_forward(m, d);
      const VectorXd qvel = Eigen::Map<const VectorXd>(d->qvel, m->nv);
      joinery::State sv = s;
      sv.v = J * qvel;
      nlohmann::json bare = scene;
      bare.erase("forces");
      const joinery::Scene noSprings = joinery::sceneFromJson(bare, path);
      joinery::ModelWorkspace ws2 = noSprings.model.makeWorkspace(true);
      model.calcMassAndForces(sv, ws);
      noSprings.model.calcMassAndForces(sv, ws2);
      const VectorXd passive = J.transpose() * (ws.Q - ws2.Q);
      const VectorXd theirs = Eigen::Map<const VectorXd>(d->qfrc_passive, m->nv);
      c.check("joint springs J^T dQ vs qfrc_passive (moving)", relErr(passive, theirs), where);
      mju_zero(d->qvel, m->nv);
    }
  }
  std::printf("%s\n", c.ok ? "PASS" : "FAIL");
  mj_deleteData(d);
  mj_deleteModel(m);
  return c.ok ? 0 : 1;
}
