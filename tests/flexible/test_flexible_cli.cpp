// The bundled flexible examples (examples/flexible) as a user runs them: joinery modes and
// equilibrium against Euler-Bernoulli's closed forms, the Matrix Market scene, and the boom
// pendulum simulated with the implicit integrator, full against Craig-Bampton reduced.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_command.hpp"

namespace {

const std::string kExe = JOINERY_EXE;
const std::string kDir = std::string(JOINERY_SOURCE_DIR) + "/examples/flexible/";
const double kPi = std::acos(-1.0);
// the examples' bar: steel, 10 mm x 10 mm, 1 m
const double kEI = 2.1e11 * 1e-8 / 12, kRhoA = 7850 * 1e-4, kL = 1.0;

nlohmann::json runJson(const std::string& args) {
  const auto r = joinery::test::runCommand("(" + kExe + " " + args + " 2>/dev/null)");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  return nlohmann::json::parse(r.output);
}

TEST_CASE("joinery modes: the generated cantilever's frequencies converge to the closed forms", "[flexible][cli]") {
  const double beta[3] = {1.8751040687, 4.6940911330, 7.8547574382};
  const double scale = std::sqrt(kEI / (kRhoA * std::pow(kL, 4))) / (2 * kPi);
  double previous = 1;
  for (int n : {4, 16}) {
    const auto j = runJson("modes " + kDir + "cantilever_beam.json --set n=" + std::to_string(n) + " -n 3 --at initial --json");
    double worst = 0;
    for (int k = 0; k < 3; ++k) {
      const double exact = beta[k] * beta[k] * scale;
      worst = std::max(worst, std::abs(j["frequencies_hz"][static_cast<std::size_t>(k)].get<double>() - exact) / exact);
    }
    INFO("n = " << n << ": worst relative error " << worst);
    CHECK(worst < (n == 4 ? 1e-2 : 1e-4));  // measured 7.7e-3 and 4.0e-5 (mode 3)
    CHECK(worst < previous / 100);  // two halvings of h: h^4 gives 256x
    previous = worst;
  }
}

TEST_CASE("joinery equilibrium: tip deflection P L^3 / (3 E I) from generated and from Matrix Market matrices", "[flexible][cli]") {
  const double P = 2.0;
  const auto g = runJson("equilibrium " + kDir + "cantilever_beam.json --json");
  CHECK(g["q"]["bar.n8_y"].get<double>() == Approx(-P * kL * kL * kL / (3 * kEI)).epsilon(1e-9));
  const auto m = runJson("equilibrium " + kDir + "cantilever_mtx.json --json");
  CHECK(m["q"]["bar.n4_y"].get<double>() == Approx(-P * kL * kL * kL / (3 * kEI)).epsilon(1e-9));
  CHECK(m["q"]["bar.n4_rz"].get<double>() == Approx(-P * kL * kL / (2 * kEI)).epsilon(1e-9));
}

std::vector<double> column(const std::string& csv, const std::string& name) {
  std::ifstream in(csv);
  std::string line, cell;
  std::getline(in, line);
  std::istringstream header(line);
  int index = -1;
  for (int i = 0; std::getline(header, cell, ','); ++i)
    if (cell == name) index = i;
  REQUIRE(index >= 0);
  std::vector<double> out;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (int i = 0; std::getline(row, cell, ','); ++i)
      if (i == index) out.push_back(std::stod(cell));
  }
  return out;
}

TEST_CASE("boom pendulum: the Craig-Bampton model follows the full one (implicit integrator)", "[flexible][cli]") {
  const std::string full = "/tmp/joinery_flexible_full.csv", reduced = "/tmp/joinery_flexible_reduced.csv";
  REQUIRE(joinery::test::runCommand(kExe + " simulate " + kDir + "boom_pendulum.json -o " + full + " 2>&1").exitCode == 0);
  REQUIRE(joinery::test::runCommand(kExe + " simulate " + kDir + "boom_pendulum_reduced.json -o " + reduced + " 2>&1").exitCode == 0);
  const auto yf = column(full, "boom.n8_y"), yr = column(reduced, "boom.n8_y");
  const auto tf = column(full, "bob.theta"), tr = column(reduced, "bob.theta");
  REQUIRE(yf.size() == yr.size());
  double worstY = 0, worstT = 0, peak = 0;
  for (std::size_t i = 0; i < yf.size(); ++i) {
    worstY = std::max(worstY, std::abs(yf[i] - yr[i]));
    worstT = std::max(worstT, std::abs(tf[i] - tr[i]));
    peak = std::max(peak, std::abs(yf[i]));
  }
  INFO("tip deflection: peak " << peak << " m, largest difference " << worstY << " m; angle difference " << worstT);
  CHECK(peak > 5e-3);  // the boom does bend: about 1 cm at the bottom of the swing
  // 4 fixed-interface modes keep everything below 1.4 kHz; the difference is at the level of
  // the integrator's tolerances (rtol 1e-6): measured 7e-8 m and 1e-6 rad
  CHECK(worstY < 1e-3 * peak);
  CHECK(worstT < 1e-4);
}

}  // namespace
