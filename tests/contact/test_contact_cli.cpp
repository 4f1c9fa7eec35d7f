// The one-sided rows as a user meets them: `simulate --summary` lists the events, a `gap`
// channel and the contact's `reaction` in the table, `check --json` gives `one_sided`
// (examples/contact/, docs/contact.md).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.hpp"

using joinery::test::runCommand;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
const std::string kSource = JOINERY_SOURCE_DIR;

std::string tempDir(const std::string& name) {
  const fs::path d = fs::path(joinery_test_tmp_dir()) / ("joinery_contact_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

json readJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

/// Column `name` of a CSV table.
std::vector<double> column(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) head.push_back(c);
  const auto it = std::find(head.begin(), head.end(), name);
  REQUIRE(it != head.end());
  const auto k = static_cast<std::size_t>(it - head.begin());
  std::vector<double> out;
  while (std::getline(in, line)) {
    std::stringstream ls(line);
    std::string c;
    for (std::size_t i = 0; i <= k; ++i) std::getline(ls, c, ',');
    out.push_back(std::stod(c));
  }
  return out;
}
}  // namespace

TEST_CASE("contact cli: the bouncing ball's summary lists impacts and the rest, the gap and the floor force",
          "[contact][cli]") {
  const std::string dir = tempDir("ball");
  const auto r = runCommand(kExe + " simulate " + kSource + "/examples/contact/bouncing_ball.json -o " + dir +
                            "/out.csv --summary " + dir + "/summary.json");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  CHECK(r.output.find("one-sided events:") != std::string::npos);
  const json s = readJson(dir + "/summary.json");
  REQUIRE(s.contains("events"));
  const json& ev = s["events"];
  REQUIRE(ev.size() > 10);
  const double t0 = std::sqrt(2.0 / 9.81);
  CHECK(ev[0]["kind"] == "impact");
  CHECK(ev[0]["joint"] == "floor");
  CHECK(ev[0]["t"].get<double>() == Approx(t0).margin(1e-8));
  CHECK(ev[0]["impulse"].get<double>() == Approx(0.5 * 1.5 * 9.81 * t0).epsilon(1e-7));
  CHECK(ev.back()["kind"] == "rest");
  CHECK(ev.back()["t"].get<double>() == Approx(3 * t0).margin(1e-7));
  // the gap column: the drop height, never below the tolerance; the floor force m g at rest
  const auto gap = column(dir + "/out.csv", "height");
  CHECK(gap.front() == Approx(1.0).margin(1e-12));
  CHECK(*std::min_element(gap.begin(), gap.end()) > -2e-9);
  const auto fy = column(dir + "/out.csv", "floor_force.fy");
  CHECK(fy.back() == Approx(0.5 * 9.81).epsilon(1e-9));
  CHECK(std::abs(fy.front()) < 1e-12);  // inactive in flight
}

TEST_CASE("contact cli: check --json gives one_sided at the initial state; interpenetration is said", "[contact][cli]") {
  const std::string dir = tempDir("check");
  json doc = readJson(kSource + "/examples/contact/bouncing_ball.json");
  doc["bodies"][0]["position"] = {0, 0.1};  // resting on the floor
  { std::ofstream(dir + "/rest.json") << doc.dump(); }
  auto r = runCommand(kExe + " check --json " + dir + "/rest.json");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  json j = json::parse(r.output.substr(r.output.find('{')));
  CHECK(j["one_sided"]["floor"]["active"] == true);
  CHECK(j["one_sided"]["floor"]["gap"].get<double>() == Approx(0).margin(1e-12));
  doc["bodies"][0]["position"] = {0, 0.05};  // 5 cm into the floor
  { std::ofstream(dir + "/deep.json") << doc.dump(); }
  r = runCommand(kExe + " check " + dir + "/deep.json");
  CHECK(r.output.find("starts interpenetrating: gap -0.05 between 'ground' and 'ball'") != std::string::npos);
}

TEST_CASE("contact cli: the simulation's max_step bounds the adaptive step; a negative one is refused", "[contact][cli]") {
  const std::string dir = tempDir("max_step");
  json doc = readJson(kSource + "/examples/contact/bouncing_ball.json");
  doc["simulation"]["t_end"] = 0.4;  // free flight: the motion is a parabola, dopri5's step grows
  { std::ofstream(dir + "/free.json") << doc.dump(); }
  doc["simulation"]["max_step"] = 0.001;
  { std::ofstream(dir + "/bounded.json") << doc.dump(); }
  for (const char* name : {"free", "bounded"}) {
    const auto r = runCommand(kExe + " simulate " + dir + "/" + name + ".json -o " + dir + "/" + name + ".csv --summary " +
                              dir + "/" + name + "_s.json");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
  }
  const long free = readJson(dir + "/free_s.json")["steps"].get<long>();
  const long bounded = readJson(dir + "/bounded_s.json")["steps"].get<long>();
  CHECK(free < 40);        // a parabola: few steps
  CHECK(bounded >= 400);   // 0.4 s in steps of at most 1 ms
  doc["simulation"]["max_step"] = -1;
  { std::ofstream(dir + "/bad.json") << doc.dump(); }
  const auto bad = runCommand(kExe + " simulate " + dir + "/bad.json -o " + dir + "/bad.csv");
  CHECK(bad.exitCode == 2);
  CHECK_THAT(bad.output, Catch::Contains("/simulation/max_step"));
  CHECK_THAT(bad.output, Catch::Contains("max_step >= 0"));
}

TEST_CASE("contact cli: check says when no motion the joints allow can close a contact's gap", "[contact][cli]") {
  const std::string dir = tempDir("never");
  // a cart on a horizontal slider 1 m above the floor, its wheel 0.1 m: the gap stays 1 m
  json doc = json::parse(R"({"joinery": 1, "gravity": [0, -9.81, 0],
    "bodies": [{"name": "cart", "type": "rigid2d", "mass": 1, "inertia": 0.1, "position": [0, 1.1]}],
    "joints": [
      {"name": "rail", "type": "prismatic2d", "body1": "ground", "point1": [0, 1.1], "body2": "cart", "axis": [1, 0]},
      {"name": "floor", "type": "contact", "body1": "ground", "shape1": {"plane": {"point": [0, 0], "normal": [0, 1]}},
       "body2": "cart", "shape2": {"sphere": {"center": [0, 0], "radius": 0.1}}}]})");
  { std::ofstream(dir + "/rail.json") << doc.dump(); }
  auto r = runCommand(kExe + " check --json " + dir + "/rail.json");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);  // a warning: the model itself is well posed
  CHECK_THAT(r.output, Catch::Contains("contact 'floor' can never close its gap: no motion the other joints allow changes "
                                       "it, 1 between 'ground' and 'cart'"));
  json j = json::parse(r.output.substr(r.output.find('{')));
  REQUIRE(j["one_sided_warnings"].size() == 1);
  // the same slider tilted by 0.2 rad: the cart runs down into the floor, nothing to say
  doc["joints"][0]["axis"] = {std::cos(0.2), -std::sin(0.2)};
  { std::ofstream(dir + "/tilted.json") << doc.dump(); }
  r = runCommand(kExe + " check --json " + dir + "/tilted.json");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  CHECK(r.output.find("can never") == std::string::npos);
  // a weld holds the cart: every gap is fixed, the floor's too
  doc["joints"][0] = json::parse(R"({"name": "rail", "type": "weld2d", "body1": "ground", "point1": [0, 1.1], "body2": "cart"})");
  { std::ofstream(dir + "/weld.json") << doc.dump(); }
  r = runCommand(kExe + " check " + dir + "/weld.json");
  INFO(r.output);
  CHECK_THAT(r.output, Catch::Contains("contact 'floor' can never close its gap"));
}

TEST_CASE("contact cli: every scene of examples/contact checks well posed and simulates to its end", "[contact][cli]") {
  const std::string dir = tempDir("examples");
  for (const char* name : {"bouncing_ball", "door", "slider_crank_stop", "incline_friction", "rocking_block"}) {
    const std::string scene = kSource + "/examples/contact/" + name + ".json";
    const auto check = runCommand(kExe + " check " + scene);
    INFO(scene << "\n" << check.output);
    CHECK(check.exitCode == 0);
    CHECK(check.output.find("can never") == std::string::npos);  // no false alarm on a working scene
    const auto sim = runCommand(kExe + " simulate " + scene + " -o " + dir + "/" + name + ".csv --summary " + dir + "/" +
                                name + ".json");
    INFO(sim.output);
    CHECK(sim.exitCode == 0);
    CHECK(!readJson(dir + "/" + name + ".json")["events"].empty());
  }
}

TEST_CASE("contact cli: the incline example's box slides, the puck stops at v0 / (g (sin a + mu cos a))",
          "[contact][cli][friction]") {
  const std::string dir = tempDir("incline");
  const auto r = runCommand(kExe + " simulate " + kSource + "/examples/contact/incline_friction.json -o " + dir +
                            "/out.csv --summary " + dir + "/summary.json");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  const json ev = readJson(dir + "/summary.json")["events"];
  const double pi = std::acos(-1.0), a = pi / 6, g = 9.81;
  int stick = 0;
  for (const json& e : ev)
    if (e["kind"] == "stick") {
      ++stick;
      CHECK(e["joint"] == "slope_puck");
      CHECK(e["t"].get<double>() == Approx(2.0 / (g * (std::sin(a) + 0.7 * std::cos(a)))).margin(1e-9));
    }
  CHECK(stick == 1);
  // the slider at t = 1 s: g (sin a - mu cos a) / 2 down the slope from its start
  const auto x = column(dir + "/out.csv", "slider.x"), y = column(dir + "/out.csv", "slider.y");
  const double along = (x.back() - x.front()) * std::cos(a) + (y.back() - y.front()) * std::sin(a);
  CHECK(along == Approx(-0.5 * g * (std::sin(a) - 0.3 * std::cos(a))).epsilon(1e-8));
}

TEST_CASE("contact cli: a sphere thrown onto a floor with friction (3-D): the impacts' tangent_impulse, then rolling",
          "[contact][cli][friction3d]") {
  // examples/contact/sphere_throw.json: 7 kg, r = 0.109 m, thrown at (4, 3, 0) m/s from 0.3 m,
  // e = 0.2, mu = 0.15 (docs/contact.md, "Examples")
  const std::string dir = tempDir("sphere_throw");
  const auto r = runCommand(kExe + " simulate " + kSource + "/examples/contact/sphere_throw.json -o " + dir +
                            "/out.csv --summary " + dir + "/summary.json");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  const json s = readJson(dir + "/summary.json");
  const json& ev = s["events"];
  REQUIRE(ev.size() > 3);
  const double g = 9.81, m = 7.0, e = 0.2, mu = 0.15, t0 = std::sqrt(0.6 / g), vn = g * t0;
  CHECK(ev[0]["kind"] == "impact");
  CHECK(ev[0]["t"].get<double>() == Approx(t0).margin(1e-8));
  const double Pn = m * (1 + e) * vn;
  CHECK(ev[0]["impulse"].get<double>() == Approx(Pn).epsilon(1e-7));
  // slip: mu P_n against the sliding direction (0.8, 0.6), over t1 = ex, t2 = ey
  REQUIRE(ev[0]["tangent_impulse"].is_array());
  CHECK(ev[0]["tangent_impulse"][0].get<double>() == Approx(-0.8 * mu * Pn).epsilon(1e-7));
  CHECK(ev[0]["tangent_impulse"][1].get<double>() == Approx(-0.6 * mu * Pn).epsilon(1e-7));
  // the bounces take mu m (1 + e) vn / (1 - e) of tangential impulse; the slip speed left,
  // 5 - 7/2 dv, is stopped at 7/2 mu g: rolling from then on at 5/7 of the throw
  const double dv = mu * (1 + e) * vn / (1 - e), tRest = t0 + 2 * e * vn / (g * (1 - e));
  CHECK(ev.back()["kind"] == "stick");
  CHECK(ev.back()["t"].get<double>() == Approx(tRest + (5 - 3.5 * dv) / (3.5 * mu * g)).margin(1e-7));
  const auto vx = column(dir + "/out.csv", "ball.x_dot"), vy = column(dir + "/out.csv", "ball.y_dot");
  CHECK(vx.back() == Approx(5.0 / 7 * 4).epsilon(1e-8));
  CHECK(vy.back() == Approx(5.0 / 7 * 3).epsilon(1e-8));
}
