// The stiff chain of bench/stiff_sim.cpp (`--model chain`) in Simbody 3.7, integrated by
// Simbody's CPodesIntegrator (BDF, Newton: CPodes' own finite-difference Jacobian) or one of
// its explicit integrators, for docs/performance.md "Stiff models".
// N rods (1 kg, 1 m, inertia 1/12 about the centre) in the x-y plane, released horizontally:
// the first on a Pin at its left end at the ground origin, every other one on a Planar
// mobilizer (x, y, angle of its centre), each held to the previous tip by an undamped
// zero-length spring k (a Force::Custom: F = k (p1 - p2), linear, defined at zero length,
// where Simbody's TwoPointLinearSpring divides by the length). Gravity (0, -9.81, 0).
//   stiff_chain_simbody --k 1e6 --ref REF.csv [--N 4] [--T 1] [--integrator cpodes|rkm]
//                       [--accuracy 1e-6]
// REF.csv: `joinery simulate` of the same chain (bench/stiff_sim --write-scene) at a tight
// tolerance, samples every 0.01 s, columns rodI.x, rodI.y, rodI.theta. The error is the
// largest |q - q_ref| over those coordinates at every sample (as stiff_sim's); evaluations
// are realizations of Stage::Acceleration (CPodes' Jacobian columns included).
// Simbody from Debian is built without NDEBUG and its headers change layout with it: never
// define NDEBUG here (it segfaults in realizeTopology).
#undef NDEBUG
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Simbody.h"
#include "../timing.hpp"

namespace {

using namespace SimTK;

/// A zero-length linear spring between two stations: F on b2 = k (p1 - p2), -F on b1.
class ZeroLengthSpring : public Force::Custom::Implementation {
 public:
  ZeroLengthSpring(MobilizedBody b1, Vec3 s1, MobilizedBody b2, Vec3 s2, Real k)
      : b1_(b1), b2_(b2), s1_(s1), s2_(s2), k_(k) {}
  void calcForce(const State& s, Vector_<SpatialVec>& bodyForces, Vector_<Vec3>&, Vector&) const override {
    const Vec3 p1 = b1_.findStationLocationInGround(s, s1_), p2 = b2_.findStationLocationInGround(s, s2_);
    const Vec3 f = k_ * (p1 - p2);
    b2_.applyForceToBodyPoint(s, s2_, f, bodyForces);
    b1_.applyForceToBodyPoint(s, s1_, -f, bodyForces);
  }
  Real calcPotentialEnergy(const State& s) const override {
    const Vec3 d = b1_.findStationLocationInGround(s, s1_) - b2_.findStationLocationInGround(s, s2_);
    return 0.5 * k_ * d.normSqr();
  }

 private:
  MobilizedBody b1_, b2_;
  Vec3 s1_, s2_;
  Real k_;
};

/// The reference samples: one row per sample, the columns of `names`.
std::vector<std::vector<double>> readReference(const std::string& path, const std::vector<std::string>& names) {
  std::ifstream f(path);
  std::string line;
  if (!std::getline(f, line)) return {};
  std::map<std::string, std::size_t> col;
  {
    std::stringstream ls(line);
    std::size_t i = 0;
    for (std::string c; std::getline(ls, c, ','); ++i) col[c] = i;
  }
  std::vector<std::vector<double>> rows;
  while (std::getline(f, line)) {
    std::vector<double> all;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) all.push_back(c.empty() ? NAN : std::stod(c));
    std::vector<double> r;
    for (const auto& n : names) r.push_back(col.count(n) ? all.at(col[n]) : NAN);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  namespace bt = joinery::benchtiming;
  const auto num = bt::jsonNumber;
  const int N = std::stoi(bt::arg(argc, argv, "--N", "4"));
  const double k = std::stod(bt::arg(argc, argv, "--k", "1e6"));
  const double T = std::stod(bt::arg(argc, argv, "--T", "1"));
  const double accuracy = std::stod(bt::arg(argc, argv, "--accuracy", "1e-6"));
  const std::string integName = bt::arg(argc, argv, "--integrator", "cpodes");
  const std::string refPath = bt::arg(argc, argv, "--ref", "");
  const double dtOut = 0.01, pi = std::acos(-1.0);

  MultibodySystem system;
  SimbodyMatterSubsystem matter(system);
  GeneralForceSubsystem forces(system);
  Force::UniformGravity gravity(forces, matter, Vec3(0, -9.81, 0));
  const Body::Rigid rod(MassProperties(1.0, Vec3(0), Inertia(1e-4, 1.0 / 12, 1.0 / 12)));
  std::vector<MobilizedBody> bodies;
  std::vector<std::string> names;
  for (int i = 0; i < N; ++i) {
    if (i == 0)
      bodies.push_back(MobilizedBody::Pin(matter.Ground(), Transform(Vec3(0)), rod, Transform(Vec3(-0.5, 0, 0))));
    else
      bodies.push_back(MobilizedBody::Planar(matter.Ground(), Transform(), rod, Transform()));
    for (const char* c : {".x", ".y", ".theta"}) names.push_back("rod" + std::to_string(i) + c);
  }
  for (int i = 1; i < N; ++i)
    Force::Custom(forces, new ZeroLengthSpring(bodies[static_cast<std::size_t>(i - 1)], Vec3(0.5, 0, 0),
                                               bodies[static_cast<std::size_t>(i)], Vec3(-0.5, 0, 0), k));
  State s = system.realizeTopology();
  for (int i = 1; i < N; ++i) {  // Planar q = (angle, x, y)
    bodies[static_cast<std::size_t>(i)].setOneQ(s, 1, i + 0.5);
  }
  system.realize(s, Stage::Acceleration);
  const auto ref = readReference(refPath, names);
  if (ref.empty()) {
    std::fprintf(stderr, "stiff_chain_simbody: --ref: no reference samples in '%s'\n", refPath.c_str());
    return 2;
  }

  std::unique_ptr<Integrator> integ;
  if (integName == "cpodes") integ = std::make_unique<CPodesIntegrator>(system, CPodes::BDF, CPodes::Newton);
  else if (integName == "rkm") integ = std::make_unique<RungeKuttaMersonIntegrator>(system);
  else {
    std::fprintf(stderr, "stiff_chain_simbody: unknown --integrator '%s'\n", integName.c_str());
    return 2;
  }
  integ->setAccuracy(accuracy);
  integ->setFinalTime(T);
  const long realize0 = system.getNumRealizationsOfThisStage(Stage::Acceleration);
  const double cpu0 = bt::threadCpuSeconds();
  double err = 0;
  std::string status = "completed";
  auto compare = [&](const State& st, std::size_t row) {
    if (row >= ref.size()) return;
    system.realize(st, Stage::Position);
    for (int i = 0; i < N; ++i) {
      const MobilizedBody& b = bodies[static_cast<std::size_t>(i)];
      const Vec3 p = b.getBodyOriginLocation(st);
      const Rotation& R = b.getBodyRotation(st);
      double a = std::atan2(R[1][0], R[0][0]);
      const double ra = ref[row][static_cast<std::size_t>(3 * i + 2)];
      a += 2 * pi * std::round((ra - a) / (2 * pi));  // joinery's angle is not wrapped
      const double e[3] = {p[0] - ref[row][static_cast<std::size_t>(3 * i)], p[1] - ref[row][static_cast<std::size_t>(3 * i + 1)], a - ra};
      for (double x : e) err = std::max(err, std::isfinite(x) ? std::abs(x) : INFINITY);
    }
  };
  try {
    integ->initialize(s);
    compare(integ->getState(), 0);
    const int samples = static_cast<int>(std::lround(T / dtOut));
    for (int j = 1; j <= samples; ++j) {
      const double tj = std::min(T, j * dtOut);
      Integrator::SuccessfulStepStatus st;
      do st = integ->stepTo(tj);
      while (st != Integrator::ReachedReportTime && st != Integrator::EndOfSimulation && integ->getTime() < tj);
      if (st == Integrator::EndOfSimulation && integ->getTerminationReason() != Integrator::ReachedFinalTime) {
        status = "failed";
        break;
      }
      compare(integ->getState(), static_cast<std::size_t>(j));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stiff_chain_simbody: %s\n", e.what());
    status = "failed";
  }
  const double cpu = bt::threadCpuSeconds() - cpu0;
  const long evaluations = system.getNumRealizationsOfThisStage(Stage::Acceleration) - realize0;
  std::printf("{\"engine\": \"simbody\", \"model\": \"chain\", \"integrator\": \"%s\", \"k\": %s, \"N\": %d, "
              "\"accuracy\": %s, \"error\": %s, \"evaluations\": %ld, \"steps\": %d, \"rejected\": %d, "
              "\"cpu_s\": %s, \"outcome\": \"%s\"}\n",
              integName.c_str(), num(k).c_str(), N, num(accuracy).c_str(), num(err).c_str(), evaluations,
              integ->getNumStepsTaken(), integ->getNumErrorTestFailures(), num(cpu).c_str(), status.c_str());
  return status == "completed" ? 0 : 1;
}
