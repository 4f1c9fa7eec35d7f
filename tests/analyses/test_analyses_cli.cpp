// joinery equilibrium / modes as a user runs them: the --json keys of the contract, exit
// statuses, -n and --at, on the bundled examples/analyses scenes.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace {

const std::string kDir = std::string(JOINERY_SOURCE_DIR) + "/examples/analyses/";

nlohmann::json runJson(const std::string& args, int expectedExit) {
  const auto r = joinery::test::runCommand("(" + kExe + " " + args + " 2>/dev/null)");
  INFO(r.output);
  REQUIRE(r.exitCode == expectedExit);
  return nlohmann::json::parse(r.output);
}

TEST_CASE("joinery equilibrium --json: the contract's keys, mg/k of a spring-hung mass", "[analyses][cli]") {
  const auto j = runJson("equilibrium " + kDir + "spring_hung_mass.json --json", 0);
  for (const char* key : {"converged", "q", "stable", "residual"}) CHECK(j.contains(key));
  CHECK(j["converged"] == true);
  CHECK(j["stable"] == true);
  CHECK(j["q"]["bob.y"].get<double>() == Approx(-(1 + 2 * 9.81 / 200)).epsilon(1e-10));
  CHECK(std::abs(j["q"]["bob.x"].get<double>()) < 1e-9);
  CHECK(j["residual"].get<double>() < 1e-8);
}

TEST_CASE("joinery equilibrium --json: joint reactions balance the loads", "[analyses][cli]") {
  // two bars (2 kg each) hanging from 'hinge', 15 N in +x at the tip: the hinge holds the whole
  // weight and the load, force on 'upper' = (-15, 2 * 2 * 9.81); the knee carries the lower
  // bar: force on 'lower' = (-15, 2 * 9.81)
  const auto j = runJson("equilibrium " + kDir + "two_bar_linkage.json --json", 0);
  REQUIRE(j.contains("joints"));
  const auto& h = j["joints"]["hinge"]["force2"];
  CHECK(h[0].get<double>() == Approx(-15).epsilon(1e-8));
  CHECK(h[1].get<double>() == Approx(4 * 9.81).epsilon(1e-8));
  const auto& k = j["joints"]["knee"]["force2"];
  CHECK(k[0].get<double>() == Approx(-15).epsilon(1e-8));
  CHECK(k[1].get<double>() == Approx(2 * 9.81).epsilon(1e-8));
  CHECK(j["joints"]["hinge"]["unique"] == true);
}

TEST_CASE("joinery equilibrium: no equilibrium exits 5 and names the direction", "[analyses][cli]") {
  const auto j = runJson("equilibrium " + kDir + "sliding_block.json --json", 5);
  CHECK(j["converged"] == false);
  CHECK(std::abs(j["direction"]["block.x"].get<double>()) == Approx(1.0));
  const auto r = joinery::test::runCommand(kExe + " equilibrium " + kDir + "sliding_block.json");
  CHECK(r.exitCode == 5);
  CHECK(r.output.find("block.x") != std::string::npos);
  // modes about an equilibrium that does not exist: exit 5; about the initial state: a zero mode
  CHECK(joinery::test::runCommand(kExe + " modes " + kDir + "sliding_block.json").exitCode == 5);
  const auto m = runJson("modes " + kDir + "sliding_block.json --at initial --json", 0);
  CHECK(m["zero_modes"] == 1);
  CHECK(m["frequencies_hz"][0] == 0.0);
}

TEST_CASE("joinery modes --json: keys, ascending frequencies, -n", "[analyses][cli]") {
  const auto j = runJson("modes " + kDir + "spring_hung_mass.json --json", 0);
  for (const char* key : {"frequencies_hz", "damping_ratios", "zero_modes", "massless_excluded", "shapes"})
    CHECK(j.contains(key));
  REQUIRE(j["frequencies_hz"].size() == 2);
  const double pi = std::acos(-1.0), Leq = 1 + 2 * 9.81 / 200;
  CHECK(j["frequencies_hz"][0].get<double>() == Approx(std::sqrt(9.81 / Leq) / (2 * pi)).epsilon(1e-7));
  CHECK(j["frequencies_hz"][1].get<double>() == Approx(std::sqrt(200.0 / 2) / (2 * pi)).epsilon(1e-7));
  // the spring's damper (0.5 N s/m) acts on the radial mode only: zeta = c / (2 m w)
  CHECK(j["damping_ratios"][0].get<double>() == 0.0);
  CHECK(j["damping_ratios"][1].get<double>() == Approx(0.5 / (2 * 2 * std::sqrt(100.0))).epsilon(1e-6));
  CHECK(j["shapes"][1]["bob.y"].get<double>() == Approx(1.0));
  const auto one = runJson("modes " + kDir + "two_bar_linkage.json --json -n 1", 0);
  CHECK(one["frequencies_hz"].size() == 1);
  CHECK(one["shapes"].size() == 1);
}

TEST_CASE("joinery modes / equilibrium: usage errors exit 2", "[analyses][cli]") {
  CHECK(joinery::test::runCommand(kExe + " modes " + kDir + "spring_hung_mass.json --at somewhere").exitCode == 2);
  CHECK(joinery::test::runCommand(kExe + " modes " + kDir + "spring_hung_mass.json -n 0").exitCode == 2);
  CHECK(joinery::test::runCommand(kExe + " equilibrium").exitCode == 2);
  CHECK(joinery::test::runCommand(kExe + " equilibrium /nonexistent.json").exitCode == 2);
}

}  // namespace

TEST_CASE("joinery equilibrium / modes --set: parameters overridden as on every scene command", "[analyses][cli]") {
  // k = 800 instead of 200: the static stretch m g / k is a quarter, the radial frequency doubles
  const auto eq = runJson("equilibrium " + kDir + "spring_hung_mass.json --json --set k=800", 0);
  CHECK(eq["q"]["bob.y"].get<double>() == Approx(-(1 + 2 * 9.81 / 800)).epsilon(1e-10));
  const auto m200 = runJson("modes " + kDir + "spring_hung_mass.json --json", 0);
  const auto m800 = runJson("modes " + kDir + "spring_hung_mass.json --json --set k=2*400", 0);
  const double radial200 = m200["frequencies_hz"].back().get<double>();
  const double radial800 = m800["frequencies_hz"].back().get<double>();
  CHECK(radial800 == Approx(2 * radial200).epsilon(1e-3));  // damping 0.5 N s/m shifts it slightly
  CHECK(joinery::test::runCommand(kExe + " modes " + kDir + "spring_hung_mass.json --set kk=1").exitCode == 2);
}

namespace {

/// The rows of a CSV file (header first), split at commas.
std::vector<std::vector<std::string>> readCsv(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(f, line);) {
    std::vector<std::string> row;
    std::stringstream ls(line);
    for (std::string cell; std::getline(ls, cell, ',');) row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

TEST_CASE("joinery equilibrium -o: the scene at rest in equilibrium, simulated it stays there", "[analyses][cli]") {
  // two bars hanging from a pin, 15 N at the free tip: tan th1 = F / (1.5 m g), tan th2 = 2 F / (m g)
  // from the vertical (the scene's closed form); the written scene must start there, at rest,
  // and a 1 s simulation from it must not move (accelerations zero to round-off)
  const std::string dir = joinery_test_tmp_dir();
  const std::string out = dir + "/joinery_test_eq_two_bar.json", csv = dir + "/joinery_test_eq_two_bar.csv";
  const auto eq = runJson("equilibrium " + kDir + "two_bar_linkage.json --json -o " + out, 0);
  std::ifstream f(out);
  REQUIRE(f.good());
  const auto doc = nlohmann::json::parse(f);
  const double pi = std::acos(-1.0), F = 15, m = 2, g = 9.81;
  const auto& bodies = doc["bodies"];
  REQUIRE(bodies.size() == 2);
  CHECK(bodies[0]["angle"].get<double>() == Approx(-pi / 2 + std::atan(F / (1.5 * m * g))).epsilon(1e-9));
  CHECK(bodies[1]["angle"].get<double>() == Approx(-pi / 2 + std::atan(2 * F / (m * g))).epsilon(1e-9));
  CHECK(bodies[1]["angular_velocity"].get<double>() == 0.0);
  CHECK(bodies[0]["angle"].get<double>() == Approx(eq["q"]["upper.theta"].get<double>()).epsilon(1e-14));
  // loaded again: already in equilibrium
  const auto again = runJson("equilibrium " + out + " --json", 0);
  CHECK(again["residual"].get<double>() < 1e-8);
  CHECK(again["q"]["lower.theta"].get<double>() == Approx(eq["q"]["lower.theta"].get<double>()).margin(1e-10));
  const auto r = joinery::test::runCommand(kExe + " simulate " + out + " -o " + csv + " --t-end 1 --accelerations");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  const auto rows = readCsv(csv);
  REQUIRE(rows.size() > 2);
  const auto& head = rows.front();
  for (std::size_t c = 0; c < head.size(); ++c) {
    const std::string& name = head[c];
    const bool rate = name.size() > 4 && (name.ends_with("_dot") || name.ends_with("_ddot"));
    for (std::size_t i : {std::size_t{1}, rows.size() - 1}) {
      const double x = std::stod(rows[i][c]);
      INFO(name << " at row " << i << " = " << x);
      if (rate) CHECK(std::abs(x) < 1e-8);  // at rest, nothing accelerates
      else if (name.find('.') != std::string::npos) CHECK(x == Approx(eq["q"][name].get<double>()).margin(1e-9));
    }
  }
}
