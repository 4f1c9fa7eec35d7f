// joinery assemble SCENE -o OUT.json [--json] (docs/diagnosis.md): the scene with a
// consistent initial state; exit 4 when it cannot be assembled, naming the joints that cannot close.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/assembled_state.hpp"
#include "joinery/core/assembly.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/findings.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/overrides.hpp"
#include "report.hpp"
#include "run_files.hpp"

namespace joinery::cli {

namespace {
const char* kAssembleHelp =
    "usage: joinery assemble SCENE -o OUT.json [--json]\n\n"
    "Tests the initial positions and velocities against the constraints, corrects them by least\n"
    "squares (the projection simulate applies before its first step) and writes the scene\n"
    "as written (parameters, expressions, components and instances kept; --set values written\n"
    "in), with the consistent initial state recorded under \"assembled\": loading the file starts\n"
    "there while the model is the one assembled; a changed parameter or --set makes the commands\n"
    "say so and assemble the written state again. Prints each violated joint\n"
    "with its residual in the joint's units and how far each body moved. A mechanism that cannot\n"
    "be assembled is reported with the joints that stay open and by how much; nothing is written.\n\n"
    "exit status: 0 written, 2 invalid input, 4 cannot be assembled\n\noptions:\n";

void writeScene(const std::string& path, const nlohmann::json& j) {
  writeFileAtomically(path, j.dump(2) + "\n", "output file");  // a temporary file renamed into place
}
/// The scene as written (parameters, expressions, components, instances), its --set values
/// written in, its includes relative to `out`, and the assembled state recorded under
/// "assembled" (assembled_state.hpp): loading it starts there while the model is the same.
nlohmann::json assembledScene(const std::string& file, const std::string& out, const Args& args, const Scene& scene,
                              const AssemblyReport& a) {
  nlohmann::json doc = readJsonFile(file);
  for (const Override& o : overridesFrom(args)) {
    const auto dot = o.name.find('.');
    if (dot == std::string::npos) {
      doc["parameters"][o.name] = o.value;
    } else if (o.name.rfind("simulation.", 0) == 0) {
      doc["simulation"][o.name.substr(11)] = o.value;
    } else {
      const std::string inst = o.name.substr(0, dot), param = o.name.substr(dot + 1);
      bool done = false;
      if (param.find('.') == std::string::npos && doc.contains("instances") && doc["instances"].is_array())
        for (auto& i : doc["instances"])
          if (i.is_object() && i.value("name", "") == inst) i["parameters"][param] = o.value, done = true;
      if (!done)
        throw UsageError{"assemble --set " + o.name + ": only the scene's parameters, simulation settings and its own "
                         "instances' parameters can be written into the assembled scene; write this one in the file"};
    }
  }
  // includes stay valid from the output's folder
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path from = fs::absolute(fs::path(file).parent_path(), ec), to = fs::absolute(fs::path(out).parent_path(), ec);
  if (doc.contains("include") && doc["include"].is_array())
    for (auto& inc : doc["include"])
      if (inc.is_string() && fs::path(inc.get<std::string>()).is_relative() &&
          inc.get<std::string>().rfind("joinery:", 0) != 0)
        inc = (from / inc.get<std::string>()).lexically_normal().lexically_relative(to.lexically_normal()).generic_string();
  doc.erase("assembled");
  doc["assembled"] = assembledRecord(withInitialState(scene.resolved(), scene.model, a.state), scene.model);
  return doc;
}

}  // namespace

int runAssemble(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--output", "-o", true, "the assembled scene to write (required)"});
  specs.push_back({"--json", "", false, "print the assembly report as JSON"});
  specs.push_back(completeMasslessOption());
  specs.push_back(setOption());
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kAssembleHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  if (args.positional.size() != 1)
    throw UsageError{"assemble takes exactly one SCENE file (got " + std::to_string(args.positional.size()) + ")"};
  const std::string file = args.positional[0];
  const auto out = args.get("--output");
  if (!out || out->empty()) throw UsageError{"assemble needs -o OUT.json"};
  refuseOutputOverInput(*out, "-o", {file});
  SceneOptions options;
  options.completeMassless = args.has("--complete-massless");
  options.overrides = overridesFrom(args);
  const LoadedScene loaded = loadSceneForCommand(file, options);
  refuseOutputOverInput(*out, "-o", loaded.scene.filesRead);  // an included library
  const Model& model = loaded.scene.model;
  const AssemblyReport a = assembleInitialState(model);
  Culprits conflict;
  if (!a.assembled)
    conflict = findConflictingJoints(model, a.state,
                                     a.positionAfter.empty() ? ConstraintLevel::Velocity : ConstraintLevel::Position);
  if (args.has("--json")) {
    nlohmann::json j = assemblyToJson(a);
    j["conflict"] = conflict.message;
    j["output"] = a.assembled ? *out : "";
    std::cout << j.dump(2) << "\n";
  }
  if (!a.assembled) {
    std::cerr << "joinery assemble: error: " << assemblySummary(a) << "\n";
    for (const auto& j : a.positionAfter) std::cerr << "  " << describe(j) << "  still open\n";
    for (const auto& j : a.velocityAfter) std::cerr << "  " << describe(j) << "  still violated\n";
    if (!conflict.message.empty()) std::cerr << "  " << conflict.message << "\n";
    std::cerr << "  nothing written\n";
    return kInconsistent;
  }
  writeScene(*out, assembledScene(file, *out, args, loaded.scene, a));
  if (args.has("--json")) return kOk;
  std::cout << "joinery assemble " << file << " -> " << *out << "\n";
  if (!a.needed()) {
    std::cout << "  the initial state already satisfies every joint; written unchanged\n";
    return kOk;
  }
  for (const auto& j : a.positionBefore) std::cout << "  initial positions violated " << describe(j) << "\n";
  for (const auto& j : a.velocityBefore) std::cout << "  initial velocities violated " << describe(j) << "\n";
  for (const BodyMotion& m : a.moved) {
    std::cout << "  " << m.body << " moved " << formatNumber(m.translation, 4) << " m";
    if (m.rotation > 0) std::cout << ", turned " << formatNumber(m.rotation, 4) << " rad";
    if (m.other > 0) std::cout << ", max |dq| " << formatNumber(m.other, 4);
    std::cout << "\n";
  }
  for (const VelocityChange& c : a.velocities)
    std::cout << "  " << c.name << "' " << formatNumber(c.before, 4) << " -> " << formatNumber(c.after, 4) << "\n";
  return kOk;
}

JOINERY_REGISTER_COMMAND({"assemble",
    "assemble SCENE -o OUT.json [--json]   the scene with a consistent initial state (exit 4: cannot close)",
    120, runAssemble})

}  // namespace joinery::cli
