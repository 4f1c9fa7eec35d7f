// joinery import MODEL.xml|MODEL.urdf -o SCENE.json (docs/import.md): an MJCF or URDF model as a
// scene document with the original names. What is not converted, and the import checks, go to
// standard error; the exit status is 2 when something not converted changes the dynamics.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/import/import.hpp"
#include "report.hpp"

namespace joinery::cli {

namespace {
const char* kImportHelp =
    "usage: joinery import MODEL -o SCENE.json [--no-limits] [--fixed-base] [--component NAME]\n\n"
    "Converts an MJCF (MuJoCo XML: .xml, .mjcf) or URDF (.urdf) model into a scene: rigid3d\n"
    "bodies with their mass, centre of mass and inertia, the joints, joint ranges as `limit`,\n"
    "MJCF equality connect/weld as joints, sites as output channels, geoms and visuals as\n"
    "`visual` shapes. Every item not converted is named on standard error, with the import\n"
    "checks (inertia, centre of mass, axes, connectivity). The scene is written in any case.\n"
    "check, simulate and view also take MODEL directly.\n\n"
    "exit status: 0 written and the dynamics complete, 2 invalid input or an item not converted\n"
    "that changes the dynamics (armature, joint springs and dampers, a mesh's mass, ...)\n\noptions:\n";
}  // namespace

int runImport(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--output", "-o", true, "the scene to write (required; - for standard output)"});
  specs.push_back({"--no-limits", "", false, "leave joint ranges out (named on standard error)"});
  specs.push_back({"--component", "", true, "write a component library with this part (port `base`: the first body's origin) instead of a scene"});
  specs.push_back({"--fixed-base", "", false, "weld free bodies to the ground where they are (URDF: the root link; MJCF: bodies on a free joint)"});
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kImportHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  if (args.positional.size() != 1)
    throw UsageError{"import takes exactly one MODEL file (got " + std::to_string(args.positional.size()) + ")"};
  const std::string file = args.positional[0];
  const auto out = args.get("--output");
  if (!out || out->empty()) throw UsageError{"import needs -o SCENE.json"};
  ImportOptions options;
  options.limits = !args.has("--no-limits");
  options.fixedBase = args.has("--fixed-base");
  if (const auto c = args.get("--component")) options.component = *c;
  const ImportResult r = importModel(file, options);
  std::cerr << importNotesText(r, "joinery import: ");
  if (*out == "-") {
    std::cout << r.scene.dump(2) << "\n";
  } else {
    std::ofstream f(*out);
    if (!f) throw InputError("cannot open the output file for writing", *out);
    f << r.scene.dump(2) << "\n";
    f.close();
    if (!f) throw InputError("could not write the output file", *out);
  }
  if (!options.component.empty()) {  // a library: the scene that instantiates it is the user's
    if (*out != "-")
      std::cout << "joinery import " << file << " -> " << *out << ": " << r.format << ", component '"
                << options.component << "' with port base; " << r.notConverted.size() << " item(s) not converted, "
                << r.warnings.size() << " warning(s)\n";
  } else {
    // the scene must load as written (a loader error is the importer's, reported as such)
    const Scene scene = sceneFromJson(r.scene, *out == "-" ? file : *out);
    if (*out != "-") {
      std::cout << "joinery import " << file << " -> " << *out << ": " << r.format << ", "
                << r.scene["bodies"].size() << " bodies, " << r.scene["joints"].size() << " joints, "
                << scene.model.numCoordinates() << " coordinates; " << r.notConverted.size() << " item(s) not converted, "
                << r.warnings.size() << " warning(s)\n";
    }
  }
  if (!r.dynamicsComplete) {
    std::cerr << "joinery import: the scene's dynamics are not the model's: items above that change them were not "
                 "converted (the scene is written)\n";
    return kInvalidInput;
  }
  return kOk;
}

JOINERY_REGISTER_COMMAND({"import",
    "import MODEL -o SCENE.json       an MJCF (.xml) or URDF (.urdf) model as a scene; check, simulate\n"
    "                                   and view also take MODEL directly",
    150, runImport})

}  // namespace joinery::cli
