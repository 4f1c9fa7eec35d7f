// joinery kinematics SCENE [--driver NAME] [--range a:b:n] [--json] [-o TABLE.csv]
// (docs/kinematics.md): position, velocity and acceleration analysis over a driver's range,
// without dynamics, with the configurations where the mechanism cannot follow.
#include <charconv>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/kinematics.hpp"
#include "report.hpp"
#include "run_files.hpp"

namespace joinery::cli {

namespace {
const char* kKinematicsHelp =
    "usage: joinery kinematics SCENE [--driver NAME] [--range a:b:n] [--json] [-o TABLE.csv]\n\n"
    "Position, velocity and acceleration analysis over a coordinate driver's range, without\n"
    "dynamics: at every driver value the positions (continued from the previous value), the\n"
    "velocities at the driver's initial speed and the accelerations at that speed held\n"
    "constant. Reports every configuration where the mechanism cannot follow: a dead point\n"
    "(toggle: the constraint Jacobian with the driver is singular), the end of its range of\n"
    "motion, a change of mobility (the mechanism without the driver loses a constraint rank),\n"
    "with the driver value and the joints involved.\n"
    "Default range: one turn of a rotary driver's coordinate from its initial value, in the\n"
    "direction of its speed (361 values), or its values over [0, t_end] (201 values).\n\n"
    "exit status: 0 the whole range was followed, 4 the mechanism cannot follow the driver\n"
    "             over the range (the first line says where), 2 invalid input\n\noptions:\n";

double number(const std::string& text, const std::string& what) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto res = std::from_chars(text.data(), end, v);
  if (res.ec != std::errc() || res.ptr != end || !std::isfinite(v))
    throw UsageError{"--range: " + what + " must be a number (got '" + text + "'); expected a:b:n"};
  return v;
}

void parseRange(const std::string& text, SweepOptions& o) {
  const auto c1 = text.find(':');
  const auto c2 = c1 == std::string::npos ? std::string::npos : text.find(':', c1 + 1);
  if (c2 == std::string::npos || text.find(':', c2 + 1) != std::string::npos)
    throw UsageError{"--range takes a:b:n (from a to b in n values), got '" + text + "'"};
  o.from = number(text.substr(0, c1), "a");
  o.to = number(text.substr(c1 + 1, c2 - c1 - 1), "b");
  const double n = number(text.substr(c2 + 1), "n");
  if (!(n >= 2 && n <= 1e6 && std::floor(n) == n))
    throw UsageError{"--range: n must be a whole number from 2 to 1000000 (got '" + text.substr(c2 + 1) + "')"};
  o.count = static_cast<int>(n);
}
}  // namespace

int runKinematics(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--driver", "", true, "the coordinate driver to sweep (default: the first that moves)"});
  specs.push_back({"--range", "", true, "a:b:n, the driver's values from a to b in n steps (its own units)"});
  specs.push_back({"--json", "", false, "print the result as JSON (\"singular\", \"completed\", ...)"});
  specs.push_back({"--output", "-o", true, "write the table (every coordinate per driver value) as CSV"});
  specs.push_back(completeMasslessOption());
  specs.push_back(setOption());
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kKinematicsHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  if (args.positional.size() != 1)
    throw UsageError{"kinematics takes exactly one SCENE file (got " + std::to_string(args.positional.size()) + ")"};
  const std::string file = args.positional[0];
  const auto out = args.get("--output");
  if (out && out->empty()) throw UsageError{"-o needs a file name"};
  if (out) refuseOutputOverInput(*out, "-o", {file});
  SweepOptions o;
  if (auto d = args.get("--driver")) o.driver = *d;
  if (auto r = args.get("--range")) parseRange(*r, o);
  SceneOptions options;
  options.completeMassless = args.has("--complete-massless");
  options.overrides = overridesFrom(args);
  const LoadedScene loaded = loadSceneForCommand(file, options);
  const Model& model = loaded.scene.model;
  o.tEnd = loaded.settings.tEnd;
  SweepResult r;
  try {
    r = sweepDriver(model, o);
  } catch (const ModelError& e) {
    throw InputError(e.what(), file);
  }
  if (out) {
    std::ofstream f(*out);
    if (!f) throw InputError("cannot open the table for writing", *out);
    f << sweepToCsv(model, r);
    f.close();
    if (!f) throw InputError("could not write the table", *out);
  }
  if (args.has("--json")) {
    nlohmann::json j = sweepToJson(r);
    j["scene"] = file;
    j["table"] = out ? *out : "";
    std::cout << j.dump(2) << "\n";
  } else {
    for (const auto& c : r.singular) std::cout << (r.completed ? "note: " : "error: ") << c.message << "\n";
    std::cout << "joinery kinematics " << file << ": " << r.driver.name << " drives " << r.coordinateName << " from "
              << r.from << " to " << r.to << (r.unit.empty() ? "" : " " + r.unit) << " (" << r.samples.size()
              << " values" << (r.completed ? "" : ", stopped") << "); mobility without the driver " << r.mobility
              << "\n";
    for (const auto& c : r.singular) {
      std::cout << "  " << c.kind << " at " << r.coordinateName << " = " << c.value << ": joints";
      for (const auto& j : c.joints) std::cout << " " << j;
      std::cout << "\n";
    }
    if (r.singular.empty()) std::cout << "  no dead point, end of range or change of mobility over the range\n";
    const nlohmann::json mu = sweepToJson(r)["transmission"];
    if (!mu.is_null())
      std::cout << "  transmission angle at " << mu["joint"].get<std::string>() << " ("
                << (r.transmission.slider ? "coupler against the normal of " + r.transmission.outputJoint
                                          : "between " + r.transmission.couplerJoint + "-" + r.transmission.joint +
                                                " and " + r.transmission.joint + "-" + r.transmission.outputJoint)
                << "): " << formatNumber(mu["min_deg"].get<double>(), 4) << "° at " << r.coordinateName << " = "
                << formatNumber(mu["min_at"].get<double>(), 4) << " to " << formatNumber(mu["max_deg"].get<double>(), 4)
                << "° at " << formatNumber(mu["max_at"].get<double>(), 4) << "\n";
    if (out) std::cout << "  table: " << *out << "\n";
  }
  return r.completed ? kOk : kInconsistent;
}

JOINERY_REGISTER_COMMAND({"kinematics",
    "kinematics SCENE [--driver NAME] [--range a:b:n] [--json] [-o TABLE.csv]   a driver's sweep: dead points",
    140, runKinematics})

}  // namespace joinery::cli
