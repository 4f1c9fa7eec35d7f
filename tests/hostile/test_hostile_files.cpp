// Files and run settings an attacker writes: one strict JSON reader for scenes
// and matrix problems, bounded includes that are never quoted, bounded runs, escaped output.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/core/expression.hpp"
#include "joinery/core/scene.hpp"
#include "run_command.hpp"
#include "temp_files.hpp"

using joinery::test::runCommand;
namespace fs = std::filesystem;

namespace {

fs::path tempDir() {
  const fs::path d = joinery::test::tempFolder("joinery_test_hostile");
  fs::create_directories(d / "inner");
  return d;
}

using joinery::test::writeText;

const char* kParticle = R"("bodies": [{"name": "p", "type": "particle", "dim": 1, "mass": 1}])";
}  // namespace

TEST_CASE("hostile: a matrix problem with a duplicate key is invalid input, like a scene", "[hostile]") {
  const auto file = writeText(tempDir() / "dup.json", R"({"joinery": 1, "joinery": 1, "coordinates": ["x"],
      "M": [[1]], "Q": [0]})");
  const auto r = runCommand(kExe + " solve " + file);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("joinery") != std::string::npos);
  CHECK(r.output.find("/joinery") != std::string::npos);  // the JSON path of the second key
}

TEST_CASE("hostile: a sample interval that would never end is refused before the run", "[hostile]") {
  for (const char* interval : {"1e-9", "5e-324"}) {
    INFO(interval);
    const auto file = writeText(tempDir() / "interval.json", std::string(R"({"joinery": 1, )") + kParticle +
                                                            R"(, "simulation": {"t_end": 1, "output_interval": )" +
                                                            interval + "}}");
    const fs::path out = tempDir() / "interval.csv";
    const auto r = runCommand(kExe + " simulate " + file + " -o " + out.string());
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("/simulation/output_interval") != std::string::npos);
    CHECK(r.output.find("the limit is") != std::string::npos);
  }
}

TEST_CASE("hostile: includes are bounded, must be regular files, and are never quoted", "[hostile]") {
  const fs::path d = tempDir();
  // a device: reading /dev/zero never ends
  auto scene = writeText(d / "dev.json", std::string(R"({"joinery": 1, "include": ["/dev/zero"], )") + kParticle + "}");
  auto r = runCommand(kExe + " check " + scene);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("not a regular file") != std::string::npos);
  // a file that is not JSON: the error names the file and position, not what it holds
  writeText(d / "secret.txt", "root:SECRET-PASSWORD-HASH:19000:0:99999:7:::\n");
  scene = writeText(d / "secret.json", std::string(R"({"joinery": 1, "include": ["secret.txt"], )") + kParticle + "}");
  r = runCommand(kExe + " check " + scene);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("secret.txt") != std::string::npos);
  CHECK(r.output.find("SECRET") == std::string::npos);
  CHECK(r.output.find("root") == std::string::npos);
  // larger than the include limit (16 MiB): refused without parsing
  {
    std::ofstream big(d / "big.json", std::ios::binary);
    big << R"({"joinery": 1, "components": {}, "description": ")" << std::string(17u << 20, 'a') << "\"}";
  }
  scene = writeText(d / "big_scene.json", std::string(R"({"joinery": 1, "include": ["big.json"], )") + kParticle + "}");
  r = runCommand(kExe + " check " + scene);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find("the limit is 16777216 bytes") != std::string::npos);
  fs::remove(d / "big.json");
}

TEST_CASE("hostile: includes can be confined to the scene's folder", "[hostile]") {
  const fs::path d = tempDir();
  writeText(d / "lib.json", R"({"joinery": 1, "components": {}})");
  const auto scene = nlohmann::json::parse(std::string(R"({"joinery": 1, "include": ["../lib.json"], )") + kParticle + "}");
  const std::string file = (d / "inner" / "scene.json").string();
  CHECK_NOTHROW(joinery::sceneFromJson(scene, file));  // the format allows ../ by default
  joinery::SceneOptions confined;
  confined.confineIncludes = true;
  try {
    (void)joinery::sceneFromJson(scene, file, confined);
    FAIL("no error");
  } catch (const joinery::InputError& e) {
    CHECK(e.jsonPath() == "/include/0");
    CHECK(e.detail().find("outside") != std::string::npos);
  }
  // a symbolic link inside the folder that points out of it is followed, and refused
  std::error_code ec;
  fs::remove(d / "inner" / "link.json", ec);
  fs::create_symlink(d / "lib.json", d / "inner" / "link.json", ec);
  if (!ec) {
    const auto viaLink = nlohmann::json::parse(std::string(R"({"joinery": 1, "include": ["link.json"], )") + kParticle + "}");
    CHECK_THROWS_AS(joinery::sceneFromJson(viaLink, file, confined), joinery::InputError);
  }
}

TEST_CASE("hostile: the command line confines includes for every command", "[hostile]") {
  const fs::path d = tempDir();
  writeText(d / "lib.json", R"({"joinery": 1, "components": {}})");
  const std::string scene =
      writeText(d / "inner" / "up.json", std::string(R"({"joinery": 1, "include": ["../lib.json"], )") + kParticle + "}");
  CHECK(runCommand(kExe + " check " + scene).exitCode == 0);  // ../ is allowed by default
  const auto refused = runCommand(kExe + " --confine-includes check " + scene);
  CHECK(refused.exitCode == 2);
  CHECK(refused.output.find("outside") != std::string::npos);
  CHECK(refused.output.find("/include/0") != std::string::npos);
  CHECK(runCommand(kExe + " --confine-includes solve " + scene).exitCode == 2);  // every command
  // a study's cases too (the option is handed to the study, no environment variable)
  writeText(d / "inner" / "st.json", R"({"joinery": 1, "scene": "up.json", "design": {"type": "list", "parameters": {"simulation.t_end": [0.01]}},
      "collect": ["steps"]})");
  const auto study = runCommand(kExe + " --confine-includes study " + (d / "inner" / "st.json").string() + " -o " +
                                (d / "inner" / "st.csv").string());
  INFO(study.output);
  CHECK(study.exitCode == 0);  // a study whose cases fail still writes its table
  CHECK(joinery::test::readText(d / "inner" / "st.csv").find("outside") != std::string::npos);  // the case's message
  // a wider root given explicitly admits the parent folder
  CHECK(runCommand(kExe + " --confine-includes=" + d.string() + " check " + scene).exitCode == 0);
  const auto noFolder = runCommand(kExe + " --confine-includes=" + (d / "missing").string() + " check " + scene);
  CHECK(noFolder.exitCode == 2);
  CHECK(noFolder.output.find("is not a folder") != std::string::npos);
}

TEST_CASE("hostile: escape sequences in a scene never reach the terminal raw", "[hostile]") {
  const auto scene = writeText(tempDir() / "escape.json", R"({"joinery": 1, "bodies": [{"name": "p", "type": "particle",
      "dim": 1, "mass": 1}], "joints": [{"name": "j", "type": "revolute2d", "body1": "\u001b[2J\u001b[31mevil",
      "point1": [0, 0], "body2": "p", "point2": [0, 0]}]})");
  const auto r = runCommand(kExe + " check " + scene);
  CHECK(r.exitCode == 2);
  CHECK(r.output.find('\x1b') == std::string::npos);
  CHECK(r.output.find("\\x1b[2J") != std::string::npos);
}

TEST_CASE("hostile: a 26 000-character name in an expression is an error at its path, not a stack overflow",
          "[hostile]") {
  // std::regex scanned an expression for qualified names ('body.coord') recursing once
  // per character, and overflowed the stack on a force whose expression named a 26 000-character
  // body. Now: a linear scan, after the length limit.
  for (const std::size_t length : {std::size_t{26000}, std::size_t{9000}}) {
    INFO(length);
    const std::string name(length, 'a');
    const auto file = writeText(tempDir() / "long_name.json",
                            std::string(R"({"joinery": 1, )") + kParticle +
                                R"(, "forces": [{"name": "f", "type": "generalized", "coordinate": "p.x", "value": ")" +
                                name + R"(.x"}]})");
    for (const char* command : {"check", "solve"}) {
      INFO(command);
      const auto r = runCommand(kExe + " " + command + " " + file);
      CHECK(r.exitCode == 2);
      CHECK(r.output.find("/forces/0/value") != std::string::npos);
      if (length > joinery::ExpressionLimits::maxLength)
        CHECK(r.output.find("the limit is " + std::to_string(joinery::ExpressionLimits::maxLength)) != std::string::npos);
      else
        CHECK(r.output.find("expected the name of a body of the scene") != std::string::npos);
      CHECK(r.output.size() < 4000);  // the echoed name is truncated
    }
  }
}

TEST_CASE("hostile: the sample and step limits are settable from the command line", "[hostile]") {
  // the limits were settable only through the C++ RunOptions; an adaptive run had no
  // step limit at all. 1 s at 0.01 s is 100 samples.
  const auto file = writeText(tempDir() / "limits.json", std::string(R"({"joinery": 1, )") + kParticle +
                                                        R"(, "simulation": {"t_end": 1, "output_interval": 0.01,
                                                           "integrator": "dopri5", "rtol": 1e-10, "atol": 1e-12}})");
  const fs::path out = tempDir() / "limits.csv";
  fs::remove(out);
  const auto tooMany = runCommand(kExe + " simulate " + file + " -o " + out.string() + " --max-samples 50");
  CHECK(tooMany.exitCode == 2);
  CHECK(tooMany.output.find("/simulation/output_interval") != std::string::npos);
  CHECK(tooMany.output.find("the limit is 50 (--max-samples") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  CHECK(runCommand(kExe + " simulate " + file + " -o " + out.string() + " --max-samples 100").exitCode == 0);
  // an adaptive run past its step limit fails with the samples so far kept
  const auto steps = runCommand(kExe + " simulate " + file + " -o " + out.string() + " --max-steps 3");
  CHECK(steps.exitCode == 5);
  CHECK(steps.output.find("step limit of 3 steps (--max-steps)") != std::string::npos);
  CHECK(fs::exists(out));
  CHECK(runCommand(kExe + " simulate " + file + " -o " + out.string() + " --max-steps 2.5").exitCode == 2);
}
