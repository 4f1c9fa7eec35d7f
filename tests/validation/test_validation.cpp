// `joinery validate`: the bundled validation set passes in quick mode (the full set is run by
// scripts/validate.sh and reported in docs/validation.md), and the runner reports failures
// instead of hiding them: a wrong reference fails the case (exit 6), a broken manifest is
// invalid input (exit 2) with its JSON path, a broken case does not stop the others.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_command.hpp"

namespace {
const std::string kSource = JOINERY_SOURCE_DIR;

std::string writeTemp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(joinery_test_tmp_dir()) / "joinery_test_validation";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

// A manifest over the bundled pendulum scene (absolute path, so the temp dir works).
std::string pendulumCase(const std::string& id, double reference, const std::string& extra = "") {
  return R"({"id": ")" + id + R"(", "scene": ")" + kSource +
         R"(/examples/validation/a01_pendulum.json", "t_end": 0.5,
            "checks": [{"kind": "value", "quantity": "bob.x", "t": 0.5, "reference": )" +
         std::to_string(reference) + R"(, "tolerance": 1e-6})" + extra + "]}";
}
}  // namespace

TEST_CASE("the bundled validation set passes in quick mode", "[validate]") {
  const auto r = joinery::test::runCommand(kExe + " validate " + kSource +
                                           "/examples/validation/cases.json --quick");
  INFO(r.output);
  CHECK(r.exitCode == 0);
  CHECK(r.output.find("FAIL") == std::string::npos);
  CHECK(r.output.find("case(s) passed") != std::string::npos);
  // every case of the set appears in the table
  for (const char* id : {"A01", "A02-N2", "A02-N40", "A03-angles", "A04"})
    CHECK(r.output.find(id) != std::string::npos);
  CHECK(r.output.find("A07") != std::string::npos);  // the benchmark bicycle's steady motion
}

TEST_CASE("a wrong reference value fails its case with exit 6; the others still pass", "[validate]") {
  // A01 exact x(0.5) = -0.391048791550546; -0.39 is 1e-3 away, far outside 1e-6.
  const std::string m = writeTemp("wrong.json", R"({"joinery_validation": 1, "cases": [)" +
                                                    pendulumCase("good", -0.391048791550546) + "," +
                                                    pendulumCase("bad", -0.39) + "]}");
  const auto r = joinery::test::runCommand(kExe + " validate " + m);
  INFO(r.output);
  CHECK(r.exitCode == 6);
  CHECK(r.output.find("1 of 2 case(s) passed") != std::string::npos);
  CHECK(r.output.find("FAIL bad") != std::string::npos);
  CHECK(r.output.find("pass good") != std::string::npos);
}

TEST_CASE("a broken manifest is invalid input naming the JSON path", "[validate]") {
  const std::string m = writeTemp(
      "kind.json", R"({"joinery_validation": 1, "cases": [{"id": "x", "scene": "a.json",
         "checks": [{"kind": "energy_drfit", "tolerance": 1}]}]})");
  const auto r = joinery::test::runCommand(kExe + " validate " + m);
  INFO(r.output);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("/cases/0/checks/0/kind") != std::string::npos);
  CHECK(r.output.find("did you mean 'energy_drift'") != std::string::npos);

  const std::string neg = writeTemp(
      "tol.json", R"({"joinery_validation": 1, "cases": [{"id": "x", "scene": "a.json",
         "checks": [{"kind": "position_residual", "tolerance": -1}]}]})");
  const auto r2 = joinery::test::runCommand(kExe + " validate " + neg);
  INFO(r2.output);
  CHECK(r2.exitCode == 2);
  CHECK(r2.output.find("/cases/0/checks/0/tolerance") != std::string::npos);
  CHECK(r2.output.find("a tolerance > 0") != std::string::npos);
}

TEST_CASE("a case whose scene cannot be loaded fails without stopping the others", "[validate]") {
  const std::string m = writeTemp(
      "missing.json", R"({"joinery_validation": 1, "cases": [
        {"id": "gone", "scene": "no_such_scene.json", "checks": [{"kind": "well_posed", "expected": true}]},)" +
                          pendulumCase("good", -0.391048791550546) + "]}");
  const auto r = joinery::test::runCommand(kExe + " validate " + m);
  INFO(r.output);
  CHECK(r.exitCode == 6);
  CHECK(r.output.find("no_such_scene.json") != std::string::npos);
  CHECK(r.output.find("pass good") != std::string::npos);
}

TEST_CASE("an unknown --case id is a usage error with a suggestion", "[validate]") {
  const auto r = joinery::test::runCommand(kExe + " validate " + kSource +
                                           "/examples/validation/cases.json --case A0l");
  INFO(r.output);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("did you mean 'A01'") != std::string::npos);
}
