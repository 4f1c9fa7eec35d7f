// joinery modes --at steady as a user runs it on the bundled benchmark bicycle: the contract's
// "eigenvalues" ([re, im], zeros included) and "sweep", --set v, the boundaries printed,
// -o TABLE.csv, and the exit statuses (2 for a malformed sweep, 5 for a state that is not a
// steady motion).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_command.hpp"
#include "test_paths.hpp"

namespace {

const std::string kBike = std::string(JOINERY_SOURCE_DIR) + "/examples/validation/benchmark_bicycle.json";

joinery::test::CommandResult runSteady(const std::string& args) {
  return joinery::test::runCommand("(" + kExe + " modes " + args + " 2>&1)");
}

}  // namespace

TEST_CASE("modes --at steady --json: all ten eigenvalues of the bicycle at 5 m/s", "[steady][cli]") {
  const auto r = joinery::test::runCommand("(" + kExe + " modes " + kBike + " --at steady --json 2>/dev/null)");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.output);
  REQUIRE(j["eigenvalues"].size() == 10);
  int zeros = 0;
  double largestRe = -1e300;
  for (const auto& z : j["eigenvalues"]) {
    REQUIRE(z.size() == 2);
    if (z[0] == 0.0 && z[1] == 0.0) ++zeros;
    else largestRe = std::max(largestRe, z[0].get<double>());
  }
  CHECK(zeros == 6);
  CHECK(largestRe == Approx(-0.3228664290).margin(1e-8));  // the capsize eigenvalue (published -0.3228664)
  CHECK(j["stable"] == true);
  CHECK(j["at"] == "steady");
}

TEST_CASE("modes --at steady --set v=3: the weave is unstable", "[steady][cli]") {
  const auto r = runSteady(kBike + " --at steady --set v=3");
  INFO(r.output);
  CHECK(r.exitCode == 0);
  CHECK(r.output.find("unstable") != std::string::npos);
  CHECK(r.output.find("+1.706756") != std::string::npos);  // 1.70675605663975 from the matrices
}

TEST_CASE("modes --at steady --sweep: the sweep, the boundaries, the CSV table", "[steady][cli]") {
  const auto dir = std::filesystem::path(joinery_test_tmp_dir()) / "joinery_test_steady_cli";
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "sweep.csv").string();
  std::filesystem::remove(csv);
  const auto r = joinery::test::runCommand("(" + kExe + " modes " + kBike + " --at steady --sweep v=2:8:7 --json -o " +
                                           csv + " 2>/dev/null)");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.output);
  REQUIRE(j["sweep"].size() == 7);
  CHECK(j["sweep"][0]["value"] == 2.0);
  CHECK(j["sweep"][6]["value"] == 8.0);
  CHECK(j["sweep"][3]["eigenvalues"].size() == 10);
  REQUIRE(j["boundaries"].size() == 2);
  CHECK(j["boundaries"][0]["value"].get<double>() == Approx(4.292382536).margin(1e-8));
  CHECK(j["boundaries"][0]["becomes"] == "stable");
  CHECK(j["boundaries"][1]["value"].get<double>() == Approx(6.024262015).margin(1e-8));
  CHECK(j["boundaries"][1]["becomes"] == "unstable");
  std::ifstream in(csv);
  REQUIRE(in.good());
  std::string header, line;
  std::getline(in, header);
  CHECK(header.rfind("v,re1,im1,", 0) == 0);
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  CHECK(rows == 7);
  // the text form prints the boundaries
  const auto t = runSteady(kBike + " --at steady --sweep v=2:8:7");
  CHECK(t.output.find("v = 4.2923825") != std::string::npos);
  CHECK(t.output.find("v = 6.0242620") != std::string::npos);
}

TEST_CASE("modes --at steady: bad sweeps are exit 2, a state that is not steady exit 5", "[steady][cli]") {
  CHECK(runSteady(kBike + " --at steady --sweep v=1:2").exitCode == 2);
  CHECK(runSteady(kBike + " --at steady --sweep v=3:1:4").exitCode == 2);
  CHECK(runSteady(kBike + " --at steady --sweep nope=1:2:3").exitCode == 2);
  CHECK(runSteady(kBike + " --sweep v=1:2:3").exitCode == 2);  // needs --at steady
  // a lean-rate kick: the bicycle starts to fall, not a steady motion
  const auto r = runSteady(kBike + " --at steady --set dphi=0.1");
  INFO(r.output);
  CHECK(r.exitCode == 5);
  CHECK(r.output.find("not a steady motion") != std::string::npos);
}
