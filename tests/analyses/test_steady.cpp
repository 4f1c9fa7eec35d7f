// Linearisation about steady motions (steady.hpp) against what no one here wrote:
//  - the benchmark bicycle of Meijaard, Papadopoulos, Ruina and Schwab (2007), built from
//    rigid bodies, revolute joints and rolling_disk contacts (examples/validation), against
//    the eigenvalues of the paper's published lean-steer matrices M, C1, K0, K2 (Table 2 is
//    computed from them) and its weave and capsize speeds 4.292382536 and 6.024262015 m/s;
//  - a uniform thin disk rolling upright: stable for Omega^2 > g / (3 r), lean-heading
//    frequency w^2 = (12 Omega^2 - 4 g / r) / 5 (the classical linearised rolling coin);
//  - the same disk on a frictionless plane (the no-slip rows removed, only the holonomic
//    contact height kept): w^2 = 4 (Omega^2 - g / r) (the holonomic answer, derived apart):
//    fails if the nonholonomic rows were not in the linearisation, or were wrong;
//  - Watt's flyball governor spinning freely at its operating point (arms' swing frequencies
//    with the angular momentum conserved);
//  - a sleeping top on a ball joint: I1 lambda^2 -+ i I3 w lambda - m g l = 0 about the tip,
//    stable for (I3 w)^2 > 4 I1 m g l.
// Tolerances: the finite differences of the flow are fourth order; the eigenvalues agree to
// ~1e-10, so 1e-8 (the issue's figure) leaves two orders; the speeds found by root-finding
// to 1e-11 agree with the paper's nine-decimal values to their rounding (5e-10) plus that.
#include <catch2/catch.hpp>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <fstream>
#include <iomanip>

#include "joinery/analyses/steady.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {
namespace {

using cd = std::complex<double>;

nlohmann::json bicycleDoc() {
  std::ifstream in(std::string(JOINERY_SOURCE_DIR) + "/examples/validation/benchmark_bicycle.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

SteadyModesResult steadyOf(const nlohmann::json& doc) {
  const Scene scene = sceneFromJson(doc, "steady_test.json");
  return computeSteadyModes(scene.model, scene.model.initialState());
}

SteadyModesResult bicycleAt(double v) {
  nlohmann::json doc = bicycleDoc();
  doc["parameters"]["v"] = v;
  return steadyOf(doc);
}

/// The eigenvalues of the paper's linear equations M q'' + v C1 q' + (g K0 + v^2 K2) q = 0.
std::vector<cd> paperEigenvalues(double v) {
  Eigen::Matrix2d M, C1, K0, K2;
  M << 80.81722, 2.31941332208709, 2.31941332208709, 0.29784188199686;
  C1 << 0, 33.86641391492494, -0.85035641456978, 1.68540397397560;
  K0 << -80.95, -2.59951685249872, -2.59951685249872, -0.80329488458618;
  K2 << 0, 76.59734589573222, 0, 2.65431523794604;
  Eigen::Matrix4d A = Eigen::Matrix4d::Zero();
  A.topRightCorner<2, 2>().setIdentity();
  A.bottomLeftCorner<2, 2>() = -M.inverse() * (9.81 * K0 + v * v * K2);
  A.bottomRightCorner<2, 2>() = -M.inverse() * (v * C1);
  Eigen::EigenSolver<Eigen::Matrix4d> es(A);
  std::vector<cd> out;
  for (int i = 0; i < 4; ++i) out.push_back(es.eigenvalues()(i));
  return out;
}

/// The computed eigenvalues other than the exact zeros (the eliminated directions).
std::vector<cd> nonZero(const SteadyModesResult& r) {
  std::vector<cd> out;
  for (const cd& z : r.eigenvalues)
    if (z != cd(0, 0)) out.push_back(z);
  return out;
}

/// Largest distance from each expected eigenvalue to the nearest computed one (and back).
double matchError(const std::vector<cd>& got, const std::vector<cd>& want) {
  double e = 0;
  for (const cd& w : want) {
    double best = INFINITY;
    for (const cd& g : got) best = std::min(best, std::abs(g - w));
    e = std::max(e, best);
  }
  for (const cd& g : got) {
    double best = INFINITY;
    for (const cd& w : want) best = std::min(best, std::abs(g - w));
    e = std::max(e, best);
  }
  return e;
}

/// A uniform thin disk (axis body z) upright, its axis along world y, spinning at Omega about
/// it; rolling along x at r Omega (rolling) or spinning in place on a frictionless plane.
nlohmann::json diskDoc(double Omega, bool rolling) {
  nlohmann::json doc = nlohmann::json::parse(R"json({
    "joinery": 1, "name": "upright disk",
    "parameters": {"m": 1.5, "R": 0.4, "g": 9.81, "Omega": 3},
    "gravity": [0, 0, "-g"],
    "bodies": [{"name": "disk", "type": "rigid3d", "mass": "m", "inertia": ["m*R^2/4", "m*R^2/4", "m*R^2/2"],
                "position": [0, 0, "R"], "orientation": [0.7071067811865476, -0.7071067811865476, 0, 0],
                "velocity": ["R*Omega", 0, 0], "angular_velocity": [0, "Omega", 0]}],
    "joints": [{"name": "contact", "type": "rolling_disk", "body1": "ground", "normal": [0, 0, 1],
                "body2": "disk", "axis2": [0, 0, 1], "radius": "R"}]})json");
  doc["parameters"]["Omega"] = Omega;
  if (!rolling) {
    doc["bodies"][0]["velocity"] = {0, 0, 0};
    doc["joints"][0] = nlohmann::json::parse(R"json({"name": "height", "type": "expression",
      "position": ["disk.z - R*sqrt(1 - (disk.e0^2 - disk.e1^2 - disk.e2^2 + disk.e3^2)^2)"]})json");
  }
  return doc;
}

}  // namespace

TEST_CASE("benchmark bicycle: the eigenvalues of the published matrices at the speeds of Table 2", "[steady]") {
  double worst = 0;
  for (double v : {0.0, 1.0, 2.0, 3.0, 4.0, 4.6, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0}) {
    const SteadyModesResult r = bicycleAt(v);
    INFO("v = " << v);
    // ten states on the constraints (x, y, heading, lean, steer, two wheel angles; lean rate,
    // steer rate, speed), six eliminated: the four physical eigenvalues remain
    CHECK(r.stateDimension == 10);
    // (at rest the speed is not a direction of steady motions: it stays, as a zero)
    CHECK(r.eliminated == (v > 0 ? 6 : 5));
    CHECK(r.speedHeld == (v > 0));
    const std::vector<cd> got = nonZero(r);
    std::vector<cd> want = paperEigenvalues(v);
    if (v == 0) want.push_back(0);
    REQUIRE(got.size() == want.size());
    const double e = matchError(got, want);
    worst = std::max(worst, e);
    CHECK(e < 1e-8);
  }
  WARN("largest difference from the paper's eigenvalues: " << worst);
  // the published values at 5 m/s (7 digits)
  const std::vector<cd> at5 = nonZero(bicycleAt(5));
  CHECK(matchError(at5, {cd(-14.0783896, 0), cd(-0.7753419, 4.4648677), cd(-0.7753419, -4.4648677), cd(-0.3228664, 0)}) <
        1e-7);
}

TEST_CASE("benchmark bicycle: weave and capsize speeds by root-finding on a sweep", "[steady]") {
  std::vector<double> values;
  std::vector<SteadyModesResult> rows;
  for (int i = 0; i <= 8; ++i) {
    values.push_back(3.0 + 0.5 * i);
    rows.push_back(bicycleAt(values.back()));
  }
  const auto b = findStabilityBoundaries(values, rows, bicycleAt, 1e-11);
  REQUIRE(b.size() == 2);
  CHECK(b[0].becomesStable);
  CHECK(!b[1].becomesStable);
  CHECK(std::abs(b[0].value - 4.292382536) < 1e-8);
  CHECK(std::abs(b[1].value - 6.024262015) < 1e-8);
  WARN("weave " << std::setprecision(12) << b[0].value << ", capsize " << b[1].value);
}

TEST_CASE("rolling disk upright: the frequency and the threshold Omega^2 = g / (3 r)", "[steady]") {
  const double R = 0.4, g = 9.81;
  for (double Omega : {3.0, 6.0}) {
    const SteadyModesResult r = steadyOf(diskDoc(Omega, true));
    INFO("Omega = " << Omega);
    CHECK(r.stateDimension == 8);
    CHECK(r.eliminated == 5);  // x, y, heading, spin; the speed
    CHECK(r.speedHeld);
    CHECK(r.stable);
    const double w = std::sqrt((12 * Omega * Omega - 4 * g / R) / 5);
    CHECK(matchError(nonZero(r), {cd(0, w), cd(0, -w), cd(0, 0)}) < 1e-8);
  }
  CHECK(!steadyOf(diskDoc(2.0, true)).stable);  // below sqrt(g/(3R)) = 2.857
  const auto at = [&](double Omega) { return steadyOf(diskDoc(Omega, true)); };
  const std::vector<double> values{2.0, 4.0};
  const auto b = findStabilityBoundaries(values, {at(2.0), at(4.0)}, at, 1e-12);
  REQUIRE(b.size() == 1);
  CHECK(b[0].becomesStable);
  CHECK(std::abs(b[0].value - std::sqrt(g / (3 * R))) < 1e-6);
  WARN("rolling disk threshold " << std::setprecision(12) << b[0].value << " vs " << std::sqrt(g / (3 * R)));
}

TEST_CASE("the disk without its no-slip rows: the holonomic frequency 4 (Omega^2 - g / r)", "[steady]") {
  const double R = 0.4, g = 9.81;
  const double Omega = 6.0;
  const SteadyModesResult r = steadyOf(diskDoc(Omega, false));
  // positions: 5 on the contact height; velocities: 5 (no rolling rows)
  CHECK(r.stateDimension == 10);
  const double w = 2 * std::sqrt(Omega * Omega - g / R);
  const std::vector<cd> got = nonZero(r);
  CHECK(matchError(got, {cd(0, w), cd(0, -w), cd(0, 0), cd(0, 0), cd(0, 0)}) < 1e-7);
  // and differs from the rolling one by O(1)
  const double wr = std::sqrt((12 * Omega * Omega - 4 * g / R) / 5);
  CHECK(std::abs(w - wr) > 1);
  // between the two thresholds sqrt(g/(3R)) and sqrt(g/R) the rolling disk is stable, the sliding one not
  CHECK(steadyOf(diskDoc(4.0, true)).stable);
  CHECK(!steadyOf(diskDoc(4.0, false)).stable);
}

TEST_CASE("sleeping top: eigenvalues and the threshold (I3 w)^2 = 4 I1 m g l", "[steady]") {
  const double m = 2, l = 0.1, Ic = 0.004, I3 = 0.006, g = 9.81;
  const double I1 = Ic + m * l * l;
  auto top = [&](double w) {
    nlohmann::json doc = nlohmann::json::parse(R"json({
      "joinery": 1, "name": "top", "gravity": [0, 0, -9.81],
      "bodies": [{"name": "top", "type": "rigid3d", "mass": 2, "inertia": [0.004, 0.004, 0.006],
                  "position": [0, 0, 0.1], "orientation": [1, 0, 0, 0],
                  "velocity": [0, 0, 0], "angular_velocity": [0, 0, 1]}],
      "joints": [{"name": "tip", "type": "spherical", "body1": "ground", "point1": [0, 0, 0],
                  "body2": "top", "point2": [0, 0, -0.1]}]})json");
    doc["bodies"][0]["angular_velocity"][2] = w;
    return steadyOf(doc);
  };
  const double wc = std::sqrt(4 * I1 * m * g * l) / I3;
  for (double w : {1.5 * wc, 3 * wc}) {
    const SteadyModesResult r = top(w);
    CHECK(r.stateDimension == 6);
    CHECK(r.eliminated == 2);
    CHECK(r.stable);
    const double s = std::sqrt(I3 * I3 * w * w - 4 * I1 * m * g * l);
    const double a = (I3 * w + s) / (2 * I1), b = (I3 * w - s) / (2 * I1);
    CHECK(matchError(nonZero(r), {cd(0, a), cd(0, -a), cd(0, b), cd(0, -b)}) < 1e-7 * a);
  }
  CHECK(!top(0.9 * wc).stable);
  const auto b = findStabilityBoundaries({0.5 * wc, 2 * wc}, {top(0.5 * wc), top(2 * wc)}, top, 1e-12);
  REQUIRE(b.size() == 1);
  CHECK(std::abs(b[0].value - wc) < 1e-6 * wc);
}

TEST_CASE("the steady turn of a tilted disk: rolling_disk and the same contact as expression rows agree", "[steady]") {
  // examples/scenes: the seeds' rolling thin disk (tilt 0.2 rad, precession 1 rad/s) once with
  // the rolling_disk joint (its contact height taken from the joint's normal row) and once
  // with the contact written as an expression position row and two velocity rows
  auto load = [](const std::string& name) {
    std::ifstream in(std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/" + name);
    REQUIRE(in.good());
    return steadyOf(nlohmann::json::parse(in));
  };
  const SteadyModesResult a = load("spatial_rolling_disk.json"), b = load("nh_rolling_disk.json");
  CHECK(a.stateDimension == 8);
  CHECK(b.stateDimension == 8);
  CHECK(a.eliminated == 4);  // x, y, the turn about the vertical, the spin; not the speed
  CHECK(!a.speedHeld);       // a tilted disk turning faster is not steady at the same tilt
  REQUIRE(a.eigenvalues.size() == b.eigenvalues.size());
  CHECK(matchError(nonZero(a), nonZero(b)) < 1e-8);
  double wobble = 0;
  for (const cd& z : a.eigenvalues) wobble = std::max(wobble, z.imag());
  CHECK(wobble > 1);  // the wobble of the steady turn, 1.75928671 rad/s
  WARN("steady turn: wobble " << std::setprecision(10) << wobble << " rad/s");
}

TEST_CASE("Watt's flyball governor at its operating point: cos theta = g / (w^2 L), the two swing frequencies", "[steady]") {
  // A shaft (mass 1 kg, Js about its axis) on a revolute3d about the vertical, two arms hinged
  // at its top (revolute3d about the arm's own horizontal axis), each a point mass m at
  // distance L (a rigid3d of zero inertia: a singular mass block), spinning freely at w with
  // the arms at theta from the vertical, cos theta = g / (w^2 L). Per arm
  // m L^2 theta'' = m L^2 (sin cos phi'^2 - (g / L) sin), the angular momentum
  // (Js + 2 m L^2 sin^2) phi' conserved: antisymmetric swing w sin theta, symmetric
  // w sqrt(sin^2 + 8 m L^2 sin^2 cos^2 / I), I = Js + 2 m L^2 sin^2; and a zero (the momentum).
  const double m = 5, L = 0.5, g = 9.81, Js = 0.2, H = 1;
  for (double theta : {0.6, 1.1}) {
    const double w = std::sqrt(g / (L * std::cos(theta))), sn = std::sin(theta), cs = std::cos(theta);
    nlohmann::json doc = {{"joinery", 1}, {"name", "governor"}, {"gravity", {0, 0, -g}}};
    doc["bodies"] = nlohmann::json::array();
    doc["bodies"].push_back({{"name", "shaft"}, {"type", "rigid3d"}, {"mass", 1}, {"inertia", {0.1, 0.1, Js}},
                             {"position", {0, 0, H / 2}}, {"orientation", {1, 0, 0, 0}}, {"velocity", {0, 0, 0}},
                             {"angular_velocity", {0, 0, w}}});
    doc["joints"] = nlohmann::json::array();
    doc["joints"].push_back({{"name", "bearing"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", {0, 0, 0}},
                             {"axis1", {0, 0, 1}}, {"body2", "shaft"}, {"point2", {0, 0, -H / 2}}, {"axis2", {0, 0, 1}}});
    for (int side : {1, -1}) {
      const std::string name = side > 0 ? "arm_right" : "arm_left";
      doc["bodies"].push_back({{"name", name}, {"type", "rigid3d"}, {"mass", m}, {"inertia", {0, 0, 0}},
                               {"position", {side * L * sn, 0, H - L * cs}}, {"orientation", {1, 0, 0, 0}},
                               {"velocity", {0, side * w * L * sn, 0}}, {"angular_velocity", {0, 0, w}}});
      doc["joints"].push_back({{"name", name + "_hinge"}, {"type", "revolute3d"}, {"body1", "shaft"},
                               {"point1", {0, 0, H / 2}}, {"axis1", {0, 1, 0}}, {"body2", name},
                               {"point2", {-side * L * sn, 0, L * cs}}, {"axis2", {0, 1, 0}}});
    }
    const SteadyModesResult r = steadyOf(doc);
    INFO("theta = " << theta);
    CHECK(r.stateDimension == 6);
    CHECK(r.eliminated == 1);  // the turn about the vertical; the speed is not held
    const double I = Js + 2 * m * L * L * sn * sn;
    const double wa = w * sn, ws = w * std::sqrt(sn * sn + 8 * m * L * L * sn * sn * cs * cs / I);
    CHECK(matchError(nonZero(r), {cd(0, wa), cd(0, -wa), cd(0, ws), cd(0, -ws), cd(0, 0)}) < 1e-7 * ws);
    CHECK(r.stable);
  }
}

TEST_CASE("a state that is not a steady motion is refused with the residual named", "[steady]") {
  nlohmann::json doc = diskDoc(3.0, true);
  doc["bodies"][0]["orientation"] = {0.7, -0.7141428428542850, 0, 0};  // tilted: it falls
  doc["bodies"][0]["position"][2] = 0.4 * std::sqrt(1 - std::pow(0.49 - 0.51, 2));
  const Scene scene = sceneFromJson(doc, "tilted.json");
  CHECK_THROWS_WITH(computeSteadyModes(scene.model, scene.model.initialState()),
                    Catch::Contains("not a steady motion") && Catch::Contains("disk."));
}

TEST_CASE("benchmark bicycle: nonlinear runs decay at 4.6 m/s and grow at 3 m/s at the eigenvalues' rates", "[steady][long]") {
  // A lean-rate kick of 1e-3 rad/s (the scene's dphi), a dopri5 run at rtol 1e-10; the rates
  // fitted from the run by Prony's method: the lean signal rear_frame.e1 (half the lean angle
  // to first order) sampled every 0.01 s obeys a linear recurrence of order 4 whose roots are
  // exp(lambda dt); its least-squares fit over the run gives lambda = log(z) / dt. The dominant
  // root (largest real part) must be the weave eigenvalue of modes --at steady: to 1e-3 1/s
  // (the lean stays below 0.02 rad: nonlinear terms ~4e-4 relative; integration error ~1e-9).
  for (double v : {4.6, 3.0}) {
    nlohmann::json doc = bicycleDoc();
    doc["parameters"]["v"] = v;
    doc["parameters"]["dphi"] = 1e-3;
    doc["simulation"]["t_end"] = v > 4 ? 5.0 : 2.0;
    const Scene scene = sceneFromJson(doc, "bicycle.json");
    SimulationSettings set = parseSimulationSettings(scene.simulation);
    ModelSystem sys(scene.model);
    MemoryRecorder rec;
    const SimulationResult res = runSimulation(sys, set, rec);
    INFO(res.message);
    REQUIRE(res.completed());
    int col = -1;
    for (std::size_t i = 0; i < rec.names.size(); ++i)
      if (rec.names[i] == "rear_frame.e1") col = static_cast<int>(i);
    REQUIRE(col >= 0);
    std::vector<double> y;
    for (std::size_t k = 0; k < rec.size(); ++k) y.push_back(rec.q[k](col));
    const int p = 4, K = static_cast<int>(y.size());
    REQUIRE(K > 100);
    Eigen::MatrixXd X(K - p, p);
    Eigen::VectorXd Y(K - p);
    for (int k = p; k < K; ++k) {
      Y(k - p) = y[static_cast<std::size_t>(k)];
      for (int j = 1; j <= p; ++j) X(k - p, j - 1) = y[static_cast<std::size_t>(k - j)];
    }
    const Eigen::VectorXd a = X.colPivHouseholderQr().solve(Y);
    Eigen::MatrixXd companion = Eigen::MatrixXd::Zero(p, p);
    companion.row(0) = a.transpose();
    companion.bottomLeftCorner(p - 1, p - 1).setIdentity();
    Eigen::EigenSolver<Eigen::MatrixXd> es(companion);
    const double dt = rec.t[1] - rec.t[0];
    cd fitted(-INFINITY, 0);
    for (int i = 0; i < p; ++i) {
      const cd lam = std::log(cd(es.eigenvalues()(i))) / dt;
      if (lam.real() > fitted.real() || (lam.real() == fitted.real() && lam.imag() > fitted.imag())) fitted = lam;
    }
    fitted = cd(fitted.real(), std::abs(fitted.imag()));
    const SteadyModesResult r = bicycleAt(v);
    const cd weave = nonZero(r).front();  // the largest real part, positive imaginary part first
    INFO("v = " << v << ": fitted " << fitted << ", eigenvalue " << weave);
    CHECK(std::abs(fitted - weave) < 1e-3);
    CHECK((v > 4 ? fitted.real() < 0 : fitted.real() > 0));
    double peak = 0;
    for (double e : y) peak = std::max(peak, std::abs(e));
    WARN("v = " << v << ": rate fitted from the run " << fitted << ", eigenvalue " << weave << ", largest |e1| " << peak);
  }
}

}  // namespace joinery
