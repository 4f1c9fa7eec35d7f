// "A newcomer adds a body type in one header + one source + one CMake line": a body type
// defined in this test file alone (nothing in the library knows it) goes through the commands
// a user runs — assemble, check, simulate and view — in this program, which links the joinery
// program's command sources (tests/cli/CMakeLists.txt). docs/architecture.md points here.
//
// The body: a bead sliding on a straight line of the plane, one coordinate s (m) along the
// unit direction (cos a, sin a) from a base point. Two of them, one on the x axis and one on the
// y axis, joined by a rod of length L (a distance joint) make an elliptic trammel; with equal
// masses m its energy is T = 1/2 m L^2 phi'^2, V = m g L sin(phi) for the rod angle phi: a
// pendulum of length L, period 2 pi sqrt(L / g) (1 + phi0^2 / 16) for the amplitude phi0.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iterator>
#include <numbers>
#include <sstream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "joinery/core/registry.hpp"

using namespace joinery;
using nlohmann::json;

namespace {

class LineBead final : public Body, public PointMarker {
 public:
  LineBead(std::string name, double m, double angle, Vector3d base, double s0, double v0)
      : Body(std::move(name)), m_(m), angle_(angle), base_(base), u_(std::cos(angle), std::sin(angle), 0), s0_(s0),
        v0_(v0) {}
  std::string_view typeName() const override { return "test_line_bead"; }
  const std::vector<std::string>& coordinateNames() const override {
    static const std::vector<std::string> names{"s"};
    return names;
  }
  void getInitialState(VecRef q0, VecRef v0) const override {
    q0(0) = s0_;
    v0(0) = v0_;
  }
  void calcMassMatrix(double, CVecRef, MatRef M) const override { M(0, 0) = m_; }
  void calcForces(double, CVecRef, CVecRef, VecRef Q) const override { Q.setZero(); }
  void addGravityForce(CVecRef, const Vector3d& g, VecRef Q) const override { Q(0) += m_ * g.dot(u_); }
  double calcGravityPotential(CVecRef q, const Vector3d& g) const override {
    return -m_ * g.dot(calcPointPosition(q, Vector3d::Zero()));
  }
  const PointMarker* points() const override { return this; }
  bool isPlanar() const override { return true; }
  // capability queries: the coordinate is a length, and the bead writes its initial state
  CoordinateKind coordinateKind(int) const override { return CoordinateKind::Length; }
  void writeInitialState(CVecRef q, CVecRef v, json& definition) const override {
    definition["s"] = q(0);
    definition["s_dot"] = v(0);
  }
  json toJson() const override {
    return {{"name", name()}, {"type", "test_line_bead"}, {"mass", m_}, {"angle", angle_},
            {"base", {base_.x(), base_.y()}}, {"s", s0_}, {"s_dot", v0_}};
  }
  Vector3d calcPointPosition(CVecRef q, const Vector3d& p) const override {
    return base_ + q(0) * u_ + Vector3d(p.x(), p.y(), 0);
  }
  void calcPointJacobian(CVecRef, const Vector3d&, MatRef J) const override { J.col(0) = u_; }
  Vector3d calcPointBias(CVecRef, CVecRef, const Vector3d&) const override { return Vector3d::Zero(); }

 private:
  double m_, angle_;
  Vector3d base_, u_;
  double s0_, v0_;
};

std::unique_ptr<Body> makeLineBead(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "mass", "angle", "base", "s", "s_dot"});
  const double m = ctx.number(c.at("mass"));
  if (!(m >= 0)) c.at("mass").fail("a mass >= 0");
  const Vector3d base = c.has("base") ? ctx.vector3(c.at("base")) : Vector3d::Zero();
  return std::make_unique<LineBead>(c.at("name").string(), m, ctx.numberOr(c, "angle", 0), base,
                                    ctx.numberOr(c, "s", 0), ctx.numberOr(c, "s_dot", 0));
}

const std::string kTmp = std::string(joinery_test_tmp_dir()) + "/joinery_test_newcomer_";

std::string readAll(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), {}};
}

/// The trammel: bead a on the x axis, bead b on the y axis, rod length L; phi0 from the
/// downward vertical. b starts 1 cm off the rod's circle, so that the initial state needs assembly.
json trammel(double L, double phi0) {
  return json::parse(R"({"joinery": 1, "gravity": [0, -9.81, 0],
    "bodies": [
      {"name": "a", "type": "test_line_bead", "mass": 1, "angle": 0, "s": )" + std::to_string(L * std::sin(phi0)) + R"(},
      {"name": "b", "type": "test_line_bead", "mass": 1, "angle": 1.5707963267948966,
       "s": )" + std::to_string(-L * std::cos(phi0) + 0.01) + R"(}],
    "joints": [{"name": "rod", "type": "distance", "body1": "a", "body2": "b", "length": )" + std::to_string(L) + R"(}],
    "simulation": {"t_end": 4, "integrator": "dopri5", "rtol": 1e-10, "atol": 1e-12, "output_interval": 0.001}})");
}

}  // namespace

JOINERY_REGISTER(BodyRegistry, {"test_line_bead", makeLineBead, "test only: a bead sliding on a line of the plane",
                                {{"name", "bead"}, {"type", "test_line_bead"}, {"mass", 1}, {"s", 0.5}}})

TEST_CASE("newcomer: a body type defined in a test file is assembled, checked, simulated and drawn") {
  const double L = 1.0, phi0 = 0.05, g = 9.81;
  const std::string scene = kTmp + "trammel.json";
  std::ofstream(scene) << trammel(L, phi0).dump(2);

  // assemble: the rod's 1 cm error is closed and the bead writes its own initial state
  const std::string assembled = kTmp + "assembled.json";
  REQUIRE(cli::runAssemble({scene, "-o", assembled}) == 0);
  // assemble keeps the scene as written and records the assembled state beside it
  // (docs/diagnosis.md): the bead's own fields, as its writeInitialState wrote them
  const json a = json::parse(readAll(assembled));
  const double sa = a["assembled"]["bodies"]["a"]["s"].get<double>(), sb = a["assembled"]["bodies"]["b"]["s"].get<double>();
  CHECK(std::hypot(sa, sb) == Approx(L).epsilon(1e-10));  // the projection's tolerance

  // check: well posed (exit 0) on the assembled scene
  CHECK(cli::runCheck({assembled}) == 0);

  // simulate: the trammel swings as a pendulum of length L
  const std::string csv = kTmp + "run.csv";
  REQUIRE(cli::runSimulate({assembled, "-o", csv}) == 0);
  std::istringstream rows(readAll(csv));
  std::string line;
  std::getline(rows, line);
  REQUIRE(line.rfind("t,a.s,b.s", 0) == 0);
  std::vector<double> t, x;
  while (std::getline(rows, line)) {
    std::istringstream fields(line);
    std::string f0, f1;
    std::getline(fields, f0, ',');
    std::getline(fields, f1, ',');
    t.push_back(std::stod(f0));
    x.push_back(std::stod(f1));
  }
  std::vector<double> up;  // upward zero crossings of bead a
  for (std::size_t i = 1; i < x.size(); ++i)
    if (x[i - 1] < 0 && x[i] >= 0) up.push_back(t[i - 1] + (t[i] - t[i - 1]) * -x[i - 1] / (x[i] - x[i - 1]));
  REQUIRE(up.size() >= 2);
  const double period = (up.back() - up.front()) / static_cast<double>(up.size() - 1);
  // the amplitude after assembly differs from phi0 by < 0.01 rad: its effect phi^2 / 16 on the
  // period changes by < 1e-4 (relative); the crossings are resolved to ~1e-7 s (1 ms samples)
  CHECK(period == Approx(2 * std::numbers::pi * std::sqrt(L / g) * (1 + phi0 * phi0 / 16)).epsilon(2e-4));

#ifdef JOINERY_HAVE_VIEWER
  // view: the page draws both beads, with their coordinate columns
  const std::string page = kTmp + "page.html";
  REQUIRE(cli::runView({assembled, "--results", csv, "-o", page}) == 0);
  const std::string html = readAll(page);
  CHECK(html.find("test_line_bead") != std::string::npos);
  CHECK(html.find("\"b.s\"") != std::string::npos);
#endif
}
