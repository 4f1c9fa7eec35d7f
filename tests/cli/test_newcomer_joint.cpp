// "A newcomer adds a joint type, an output channel kind, or a command, in one source": a joint
// type, a channel kind and a command defined in this test file alone (nothing in the library or the program knows them) are used
// by the program's own code, linked into this test (tests/cli/CMakeLists.txt) with the body
// type of test_newcomer_body.cpp. docs/architecture.md ("Where a new piece goes") points here.
//
// The joint: point1 of body1 and point2 of body2 stay at the same height (world y), written
// against the bodies' point markers only. With the beads of test_newcomer_body.cpp — bead a
// (mass ma) on a line at angle alpha, bead b (mass mb) on the vertical line — it holds
// s_b = s_a sin(alpha); under gravity g along -y, Lagrange's equation gives the closed form
//   s_a'' = -(ma + mb) g sin(alpha) / (ma + mb sin^2(alpha)),
// and the joint's force on b is the vertical force that keeps b level with a: F = mb (g + s_b'').
// The channel kind: `{"name": "h", "test_height": "b"}` writes the columns h (the height, world
// y, of b's origin) and h.rate (its time derivative), from the body's point marker alone.
// The command: `joinery test_heights SCENE` prints each body's height at the initial state.
#include <catch2/catch.hpp>
#include <array>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/outputs.hpp"
#include "joinery/core/registry.hpp"
#include "report.hpp"

using namespace joinery;
using nlohmann::json;

namespace {

class SameHeight final : public Constraint {
 public:
  SameHeight(std::string name, const Body& b1, Vector3d p1, const Body& b2, Vector3d p2)
      : Constraint(std::move(name), {&b1, &b2}), p1_(p1), p2_(p2),
        J_{MatrixXd(3, b1.numCoordinates()), MatrixXd(3, b2.numCoordinates())} {}
  std::string_view typeName() const override { return "test_same_height"; }
  int numRows() const override { return 1; }
  void calcPositionError(const LocalState& s, VecRef phi) const override {
    phi(0) = height(s, 1) - height(s, 0);
  }
  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override {
    double bias = 0;
    int col = 0;
    for (int k = 0; k < 2; ++k) {
      const BodyStateView& v = s.bodies[static_cast<std::size_t>(k)];
      const double sign = k == 0 ? -1.0 : 1.0;
      if (v.n > 0) {
        MatrixXd& J = J_[static_cast<std::size_t>(k)];
        marker(k).calcPointJacobian(v.coords(), point(k), J);
        A.block(0, col, 1, v.n) = sign * J.row(1);
        bias += sign * marker(k).calcPointBias(v.coords(), v.velocities(), point(k)).y();
      }
      col += v.n;
    }
    b(0) = -bias;
  }
  JointResultKind resultKind() const override { return JointResultKind::Points; }
  Vector3d actionPoint(int k) const override { return point(k); }
  json toJson() const override {
    return {{"name", name()}, {"type", "test_same_height"}, {"body1", bodies()[0]->name()},
            {"point1", {p1_.x(), p1_.y()}}, {"body2", bodies()[1]->name()}, {"point2", {p2_.x(), p2_.y()}}};
  }

 private:
  const PointMarker& marker(int k) const { return *bodies()[static_cast<std::size_t>(k)]->points(); }
  const Vector3d& point(int k) const { return k == 0 ? p1_ : p2_; }
  double height(const LocalState& s, int k) const {
    return marker(k).calcPointPosition(s.bodies[static_cast<std::size_t>(k)].coords(), point(k)).y();
  }
  Vector3d p1_, p2_;
  mutable std::array<MatrixXd, 2> J_;  // the bodies' point Jacobians, sized once: no allocation per evaluation
};

std::unique_ptr<Constraint> makeSameHeight(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "body2", "point2"});
  const Body& b1 = ctx.body(c.at("body1"));
  const Body& b2 = ctx.body(c.at("body2"));
  for (const char* key : {"body1", "body2"})
    if (ctx.body(c.at(key)).points() == nullptr) c.at(key).failWith("the body has no points; expected one with a point marker");
  const Vector3d p1 = c.has("point1") ? ctx.vector3(c.at("point1")) : Vector3d::Zero();
  const Vector3d p2 = c.has("point2") ? ctx.vector3(c.at("point2")) : Vector3d::Zero();
  return std::make_unique<SameHeight>(c.at("name").string(), b1, p1, b2, p2);
}

/// The `test_height` channel of one body: its origin's height and vertical speed.
class HeightChannel final : public CompiledChannel {
 public:
  HeightChannel(const Body& body, const BodySlot& slot)
      : marker_(*body.points()), offset_(slot.offset), size_(slot.size), J_(3, slot.size) {}
  void evaluate(const State& s, const VectorXd*, const std::vector<JointResult>*, double* out) const override {
    const auto q = s.q.segment(offset_, size_);
    out[0] = marker_.calcPointPosition(q, Vector3d::Zero()).y();
    marker_.calcPointJacobian(q, Vector3d::Zero(), J_);
    out[1] = J_.row(1).dot(s.v.segment(offset_, size_));
  }

 private:
  const PointMarker& marker_;
  int offset_, size_;
  mutable MatrixXd J_;  // sized once: no allocation per sample
};

std::unique_ptr<CompiledChannel> compileHeight(const ChannelContext& ctx) {
  if (ctx.body->points() == nullptr || ctx.body->isGround())
    ctx.fail("body '" + ctx.body->name() + "' has no moving points; expected a body with a point marker");
  return std::make_unique<HeightChannel>(*ctx.body, ctx.model.slotOf(*ctx.body));
}

/// `joinery test_heights SCENE`: "NAME HEIGHT" per body with points, at the initial state.
int runTestHeights(const std::vector<std::string>& args) {
  if (args.size() != 1) throw cli::UsageError{"test_heights takes one SCENE"};
  const cli::LoadedScene loaded = cli::loadSceneForCommand(args[0]);
  const Model& model = loaded.scene.model;
  const State s0 = model.initialState();
  for (const BodySlot& slot : model.bodySlots()) {
    if (slot.body->points() == nullptr || slot.size == 0) continue;  // ground is not listed
    const VectorXd qi = s0.q.segment(slot.offset, slot.size);
    std::cout << slot.body->name() << " " << slot.body->points()->calcPointPosition(qi, Vector3d::Zero()).y() << "\n";
  }
  return cli::kOk;
}

/// Runs the program's dispatch (as main() does) with standard output captured.
std::pair<int, std::string> runProgramCapturing(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::streambuf* old = std::cout.rdbuf(out.rdbuf());
  int code = -1;
  try {
    code = cli::runProgram(args);
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return {code, out.str()};
}

const std::string kTmpJoint = std::string(joinery_test_tmp_dir()) + "/joinery_test_newcomer_joint_";

json levelBeads(double ma, double mb, double alpha, double sa) {
  return {{"joinery", 1}, {"gravity", {0, -9.81, 0}},
          {"bodies", {{{"name", "a"}, {"type", "test_line_bead"}, {"mass", ma}, {"angle", alpha}, {"s", sa}},
                      {{"name", "b"}, {"type", "test_line_bead"}, {"mass", mb}, {"angle", std::acos(-1.0) / 2},
                       {"base", {0.7, 0}}, {"s", sa * std::sin(alpha)}}}},
          {"joints", {{{"name", "level"}, {"type", "test_same_height"}, {"body1", "a"}, {"body2", "b"}}}}};
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry, {"test_same_height", makeSameHeight,
                                      "test only: two points at the same height", {{"name", "level"},
                                      {"type", "test_same_height"}, {"body1", "body1"}, {"body2", "body2"}}})

JOINERY_REGISTER_CHANNEL_KIND({"test_height", ChannelTarget::Body,
                               "test only: a body origin's height and its rate", {"", ".rate"}, compileHeight})

namespace joinery::cli {
JOINERY_REGISTER_COMMAND({"test_heights", "test_heights SCENE   (test only) each body's height at the initial state",
                          900, runTestHeights})
}

TEST_CASE("newcomer: a joint type defined in a test file is checked and solved against its closed form") {
  const double ma = 2, mb = 3, alpha = 0.4, g = 9.81;
  const std::string scene = kTmpJoint + "level.json";
  std::ofstream(scene) << levelBeads(ma, mb, alpha, 0.5).dump(2);
  CHECK(cli::runCheck({scene}) == 0);  // well posed: 2 coordinates, 1 row

  const auto [code, out] = runProgramCapturing({"solve", scene, "--json"});
  REQUIRE(code == 0);
  const json j = json::parse(out);
  const json& qdd = j.contains("qdd") ? j["qdd"] : j["solution"]["qdd"];
  const double sa = -(ma + mb) * g * std::sin(alpha) / (ma + mb * std::sin(alpha) * std::sin(alpha));
  // the dense singular-mass solve of a 2 x 2 system: round-off only
  CHECK(qdd["a.s"].get<double>() == Approx(sa).epsilon(1e-12));
  CHECK(qdd["b.s"].get<double>() == Approx(sa * std::sin(alpha)).epsilon(1e-12));
  // the joint's force on b (its point): vertical, mb (g + s_b'')
  const json& level = j["joints"]["level"];
  INFO(level.dump());
  const double F = mb * (g + sa * std::sin(alpha));
  CHECK(level["force2"][0].get<double>() == Approx(0).margin(1e-12));
  CHECK(level["force2"][1].get<double>() == Approx(F).epsilon(1e-12));
  // on a, whose point moves along the line only, the joint's generalized force -F sin(alpha)
  // on s_a is reported as the smallest force that gives it: along the line, -F sin(alpha) u
  CHECK(level["force1"][0].get<double>() == Approx(-F * std::sin(alpha) * std::cos(alpha)).epsilon(1e-12));
  CHECK(level["force1"][1].get<double>() == Approx(-F * std::sin(alpha) * std::sin(alpha)).epsilon(1e-12));
}

TEST_CASE("newcomer: a command defined in a test file is dispatched and listed by the program") {
  const std::string scene = kTmpJoint + "heights.json";
  std::ofstream(scene) << levelBeads(1, 1, 0.4, 0.5).dump(2);
  const auto [code, out] = runProgramCapturing({"test_heights", scene});
  REQUIRE(code == 0);
  std::istringstream lines(out);
  std::string name;
  double ya = 0, yb = 0;
  lines >> name >> ya;
  CHECK(name == "a");
  lines >> name >> yb;
  CHECK(name == "b");
  CHECK(ya == Approx(0.5 * std::sin(0.4)).epsilon(1e-5));  // printed with 6 significant digits
  CHECK(yb == Approx(ya).epsilon(1e-5));

  const auto [helpCode, help] = runProgramCapturing({"--help"});
  CHECK(helpCode == 0);
  CHECK_THAT(help, Catch::Contains("test_heights SCENE"));
  CHECK(help.find("check SCENE") < help.find("test_heights"));  // the shipped commands first
  // an unknown command gets a suggestion and exit 2
  CHECK(runProgramCapturing({"test_height", scene}).first == 2);
  // a usage error in the new command is the program's exit 2 with its message
  CHECK(runProgramCapturing({"test_heights"}).first == 2);
}

TEST_CASE("newcomer: an output channel kind defined in a test file is read, checked, written and flattened") {
  json scene = levelBeads(2, 3, 0.4, 0.5);
  scene["simulation"] = {{"t_end", 0.2}, {"integrator", "dopri5"}, {"rtol", 1e-10}, {"atol", 1e-12},
                         {"output_interval", 0.05}};
  scene["outputs"] = {{{"name", "hb"}, {"test_height", "b"}}, {{"name", "pb"}, {"point", {{"body", "b"}}}}};
  const std::string path = kTmpJoint + "channel.json";
  std::ofstream(path) << scene.dump(2);
  const std::string csv = kTmpJoint + "channel.csv";
  REQUIRE(runProgramCapturing({"simulate", path, "-o", csv}).first == 0);

  std::ifstream in(csv);
  std::string header;
  REQUIRE(std::getline(in, header));
  std::vector<std::string> cols;
  std::stringstream hs(header);
  for (std::string c; std::getline(hs, c, ',');) cols.push_back(c);
  const auto col = [&](const std::string& n) {
    const auto it = std::find(cols.begin(), cols.end(), n);
    REQUIRE(it != cols.end());
    return static_cast<std::size_t>(it - cols.begin());
  };
  const std::size_t h = col("hb"), rate = col("hb.rate"), py = col("pb.y"), pvy = col("pb.vy"), sb = col("b.s");
  int rows = 0;
  double lastRate = 0;
  for (std::string line; std::getline(in, line); ++rows) {
    std::vector<double> v;
    std::stringstream ls(line);
    for (std::string f; std::getline(ls, f, ',');) v.push_back(std::stod(f));
    REQUIRE(v.size() == cols.size());
    // the same marker as the built-in point channel: equal to the last bit; b is on the
    // vertical line through (0.7, 0), so its height is its coordinate s
    CHECK(v[h] == v[py]);
    CHECK(v[rate] == v[pvy]);
    CHECK(v[h] == Approx(v[sb]).margin(1e-15));
    lastRate = v[rate];
  }
  CHECK(rows == 5);
  CHECK(lastRate < -0.1);  // b falls: the rate column is read from the state, not left at zero

  // a wrong body is named with a suggestion at the key's JSON path, exit 2
  scene["outputs"][0]["test_height"] = "bb";
  std::ofstream(path) << scene.dump(2);
  std::ostringstream err;
  std::streambuf* old = std::cerr.rdbuf(err.rdbuf());
  const int code = runProgramCapturing({"check", path}).first;
  std::cerr.rdbuf(old);
  CHECK(code == 2);
  CHECK_THAT(err.str(), Catch::Contains("/outputs/0/test_height") && Catch::Contains("did you mean 'b'"));

  // the flattened scene writes the kind back under its key
  scene["outputs"][0]["test_height"] = "b";
  std::ofstream(path) << scene.dump(2);
  const std::string flat = kTmpJoint + "channel_flat.json";
  REQUIRE(runProgramCapturing({"assemble", path, "-o", flat}).first == 0);
  const json f = json::parse(std::ifstream(flat));
  CHECK(f["outputs"][0]["test_height"] == "b");
  CHECK_FALSE(f["outputs"][0].contains("point"));
}
