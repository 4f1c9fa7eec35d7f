// `joinery simulate` with output channels as a user runs it: the summary against the CSV read
// back, the initial energy after the initial conditions were made consistent, `-o -`, npy,
// a channel that becomes NaN (exit 5, samples kept), reaction and effort channels.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "joinery/core/model_system.hpp"
#include "joinery/core/scene.hpp"
#include "run_command.hpp"

using joinery::test::runCommand;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
const std::string kSource = JOINERY_SOURCE_DIR;
const std::string kExample = kSource + "/examples/scenes/slider_crank_outputs.json";

/// A temporary directory of its own for each test.
std::string tempDir(const std::string& name) {
  const fs::path d = fs::path(joinery_test_tmp_dir()) / ("joinery_outputs_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;  // an empty field is NaN
  std::size_t col(const std::string& n) const {
    const auto it = std::find(columns.begin(), columns.end(), n);
    REQUIRE(it != columns.end());
    return static_cast<std::size_t>(it - columns.begin());
  }
};

Table parseCsv(std::istream& in) {
  Table t;
  std::string line;
  REQUIRE(std::getline(in, line));
  std::stringstream h(line);
  for (std::string c; std::getline(h, c, ',');) t.columns.push_back(c);
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = line.find(',', start);
      const std::string f = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      row.push_back(f.empty() ? std::nan("") : std::stod(f));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    REQUIRE(row.size() == t.columns.size());
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table readCsv(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f);
  return parseCsv(f);
}

json readJson(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f);
  return json::parse(f);
}
}  // namespace

TEST_CASE("outputs cli: the summary holds the statistics of the CSV columns, read back") {
  const std::string dir = tempDir("summary");
  const auto r = runCommand(kExe + " simulate " + kExample + " -o " + dir + "/run.csv --summary " + dir +
                            "/sum.json --accelerations");
  REQUIRE(r.exitCode == 0);
  const Table t = readCsv(dir + "/run.csv");
  const json s = readJson(dir + "/sum.json");
  CHECK(s["outcome"] == "completed");
  CHECK(s["t"].get<double>() == Approx(M_PI / 2).epsilon(1e-15));
  CHECK(s["steps"].get<long>() > 0);
  CHECK(s["evaluations"].get<long>() > s["steps"].get<long>());
  CHECK(s["wall_s"].get<double>() >= 0);
  REQUIRE(s["channels"].size() == t.columns.size() - 1);  // every column but t
  for (std::size_t c = 1; c < t.columns.size(); ++c) {
    const json& st = s["channels"][t.columns[c]];
    double mn = INFINITY, mx = -INFINITY, tmn = 0, tmx = 0, sq = 0;
    for (const auto& row : t.rows) {
      if (row[c] < mn) mn = row[c], tmn = row[0];
      if (row[c] > mx) mx = row[c], tmx = row[0];
      sq += row[c] * row[c];
    }
    INFO(t.columns[c]);
    // the CSV holds every double exactly (shortest round-trip form): equal to the last bit
    CHECK(st["min"].get<double>() == mn);
    CHECK(st["max"].get<double>() == mx);
    CHECK(st["t_min"].get<double>() == tmn);
    CHECK(st["t_max"].get<double>() == tmx);
    CHECK(st["final"].get<double>() == t.rows.back()[c]);
    CHECK(st["rms"].get<double>() == Approx(std::sqrt(sq / static_cast<double>(t.rows.size()))).epsilon(1e-14));
  }
  CHECK(s["energy"]["initial"].get<double>() == t.rows.front()[t.col("energy")]);
  CHECK(s["energy"]["final"].get<double>() == t.rows.back()[t.col("energy")]);
}

TEST_CASE("outputs cli: reaction and effort channels of the driven slider-crank obey the balances") {
  const std::string dir = tempDir("balances");
  REQUIRE(runCommand(kExe + " simulate " + kExample + " -o " + dir + "/run.csv --accelerations").exitCode == 0);
  const Table t = readCsv(dir + "/run.csv");
  const double g = 9.81;
  struct Rigid {
    std::string name;
    double m, I;
  };
  // masses and inertias of the example (m L^2 / 12 for the bars; the slider's I = 0.01)
  const std::vector<Rigid> bodies{{"crank.rod", 0.5, 0.5 * 0.25 / 12}, {"rod.rod", 1, 2.25 / 12},
                                  {"piston.block", 2, 0.01}};
  double maxPower = 0;
  for (const auto& row : t.rows) {
    const auto v = [&](const std::string& n) { return row[t.col(n)]; };
    // the only horizontal force on the piston is the wrist pin's: m a_x = pin.fx
    CHECK(v("pin.fx") == Approx(2 * v("piston.block.x_ddot")).margin(1e-8));
    // the motor's power is its effort times the crank speed and the rate of change of the
    // mechanical energy (no other force does work): sum m v.a + I w alpha + m g v_y
    CHECK(v("motor.power") == Approx(v("motor") * v("crank.rod.theta_dot")).margin(1e-9));
    double dE = 0;
    for (const auto& b : bodies) {
      const std::string n = b.name;
      dE += b.m * (v(n + ".x_dot") * v(n + ".x_ddot") + v(n + ".y_dot") * v(n + ".y_ddot") + g * v(n + ".y_dot")) +
            b.I * v(n + ".theta_dot") * v(n + ".theta_ddot");
    }
    CHECK(v("motor.power") == Approx(dE).margin(1e-7));
    maxPower = std::max(maxPower, std::abs(dE));
    // the crank is held at constant speed
    CHECK(v("crank.rod.theta_dot") == Approx(-4).margin(1e-9));
    CHECK(v("crank_pin.x") == Approx(0.5 * std::cos(v("crank.rod.theta"))).margin(1e-10));
  }
  CHECK(maxPower > 10);  // not a trivial motion
}

TEST_CASE("outputs cli: the summary's initial energy is taken after the initial conditions were made consistent") {
  // The conservative slider-crank of the examples with a piston velocity that contradicts the
  // crank's: the run projects the velocities at t = 0, and the energy it then conserves is the
  // projected one (the old summary reported the given state's energy: a false drift).
  json doc = json::parse(std::ifstream(kSource + "/examples/scenes/slider_crank.json"));
  doc["include"] = json::array({kSource + "/examples/lib/links.json"});
  doc["instances"][2]["parameters"]["vx"] = "-w1*r + 0.3";
  doc["simulation"]["t_end"] = 1;
  const std::string dir = tempDir("energy");
  std::ofstream(dir + "/sc.json") << doc.dump(1);
  const auto r = runCommand(kExe + " simulate " + dir + "/sc.json -o " + dir + "/run.csv --summary " + dir + "/s.json");
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.output, Catch::Contains("initial conditions projected"));
  const json s = readJson(dir + "/s.json");
  const Table t = readCsv(dir + "/run.csv");
  const double e0 = s["energy"]["initial"].get<double>();
  CHECK(e0 == t.rows.front()[t.col("energy")]);
  // conservative: the drift is the integrator's (rtol 1e-9), not the projection's
  CHECK(s["energy"]["max_abs_drift"].get<double>() < 1e-6);
  CHECK(std::abs(s["energy"]["final"].get<double>() - e0) < 1e-6);
  // the energy of the state as given differs by much more
  const joinery::Scene scene = joinery::loadScene(dir + "/sc.json");
  joinery::ModelSystem system(scene.model);
  const double given = *system.calcEnergy(scene.model.initialState());
  CHECK(std::abs(given - e0) > 1e-2);
}

TEST_CASE("outputs cli: -o - writes the CSV to standard output and no file named '-'") {
  const std::string dir = tempDir("stdout");
  // (runCommand adds 2>&1 to the whole command: the subshell keeps stderr apart)
  const auto r = runCommand("(cd " + dir + " && " + kExe + " simulate " + kSource +
                            "/examples/scenes/pendulum.json --t-end 0.5 -o - 2>/dev/null)");
  REQUIRE(r.exitCode == 0);
  CHECK_FALSE(fs::exists(dir + "/-"));
  std::istringstream in(r.output);
  const Table t = parseCsv(in);
  CHECK(t.columns.front() == "t");
  CHECK(t.columns[1] == "bob.x");
  REQUIRE(t.rows.size() == 51);  // t = 0, 0.01, ..., 0.5: nothing but the CSV on stdout
  CHECK(t.rows.back()[0] == 0.5);
  const auto both = runCommand("(" + kExe + " simulate " + kSource + "/examples/scenes/pendulum.json --t-end 0.1 -o - 2>&1 >/dev/null)");
  CHECK_THAT(both.output, Catch::Contains("outcome: completed"));  // the report went to stderr
}

TEST_CASE("outputs cli: a channel that becomes NaN stops the run with exit 5, naming it, samples kept") {
  json doc = json::parse(std::ifstream(kSource + "/examples/scenes/pendulum.json"));
  // the bob starts at x = -1 and swings toward x = 0: sqrt(-0.5 - x) is NaN once x > -0.5
  doc["outputs"] = json::array({{{"name", "ok"}, {"value", "bob.y"}}, {{"name", "bad"}, {"value", "sqrt(-0.5 - bob.x)"}}});
  const std::string dir = tempDir("nan");
  std::ofstream(dir + "/p.json") << doc.dump(1);
  const auto r = runCommand(kExe + " simulate " + dir + "/p.json -o " + dir + "/run.csv");
  REQUIRE(r.exitCode == 5);
  CHECK_THAT(r.output, Catch::Contains("output channel 'bad'") && Catch::Contains("NaN at t = "));
  const Table t = readCsv(dir + "/run.csv");
  REQUIRE(t.rows.size() > 10);
  CHECK(t.rows.back()[t.col("bob.x")] <= -0.5);
  CHECK(t.rows.back()[0] < 5);
  for (const auto& row : t.rows) CHECK(std::isfinite(row[t.col("bad")]));
}

TEST_CASE("outputs cli: the npy table holds the CSV's columns and values") {
  const std::string dir = tempDir("npy");
  const std::string base = kExe + " simulate " + kExample + " --t-end 0.3 ";
  REQUIRE(runCommand(base + "-o " + dir + "/run.csv").exitCode == 0);
  REQUIRE(runCommand(base + "-o " + dir + "/run.npy").exitCode == 0);
  const Table t = readCsv(dir + "/run.csv");
  std::ifstream f(dir + "/run.npy", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 10);
  CHECK(bytes.substr(0, 6) == "\x93NUMPY");
  REQUIRE(bytes[6] == 1);
  const std::size_t hlen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  const std::string header = bytes.substr(10, hlen);
  CHECK((10 + hlen) % 64 == 0);
  CHECK_THAT(header, Catch::Contains("'shape': (" + std::to_string(t.rows.size()) + ",)"));
  std::string descr;
  for (const auto& c : t.columns) descr += (descr.empty() ? "" : ", ") + ("('" + c + "', '<f8')");
  CHECK_THAT(header, Catch::Contains("'descr': [" + descr + "]"));
  REQUIRE(bytes.size() == 10 + hlen + t.rows.size() * t.columns.size() * 8);
  const char* data = bytes.data() + 10 + hlen;
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      double x;
      std::memcpy(&x, data + 8 * (i * t.columns.size() + c), 8);
      if (std::isnan(t.rows[i][c])) CHECK(std::isnan(x));
      else CHECK(x == t.rows[i][c]);
    }
}

TEST_CASE("outputs cli: a channel naming an unknown joint is invalid input (exit 2) with its path") {
  json doc = json::parse(std::ifstream(kSource + "/examples/scenes/pendulum.json"));
  doc["outputs"] = json::array({{{"name", "f"}, {"reaction", "rdo"}}});
  const std::string dir = tempDir("unknown");
  std::ofstream(dir + "/p.json") << doc.dump(1);
  const auto r = runCommand(kExe + " simulate " + dir + "/p.json -o " + dir + "/run.csv");
  CHECK(r.exitCode == 2);
  CHECK_THAT(r.output, Catch::Contains("/outputs/0/reaction") && Catch::Contains("did you mean 'rod'"));
}
