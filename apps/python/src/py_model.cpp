// joinery.load, the Model handle, solve() and matrices().
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <system_error>
#include <stdexcept>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/matrix_problem.hpp"
#include "joinery/core/overrides.hpp"
#include "joinery/core/scene_completion.hpp"
#include "joinery/import/import.hpp"
#include "py_common.hpp"
#include "py_results.hpp"

namespace joinery::python {

PyModel::PyModel(Scene scene)
    : scene_(std::make_shared<const Scene>(std::move(scene))),
      settings_(parseSimulationSettings(scene_->simulation)),
      workspace_(scene_->model.makeWorkspace()) {}

State PyModel::state(const std::optional<Eigen::VectorXd>& q, const std::optional<Eigen::VectorXd>& qdot,
                     double t) const {
  State s = model().initialState();
  s.t = t;
  const auto take = [&](const std::optional<Eigen::VectorXd>& x, Eigen::VectorXd& into, const char* what) {
    if (!x) return;
    if (x->size() != into.size())
      throw std::invalid_argument(std::string(what) + " has " + std::to_string(x->size()) +
                                  " entries; the model has " + std::to_string(into.size()) + " coordinates");
    for (Eigen::Index i = 0; i < x->size(); ++i)
      if (!std::isfinite((*x)(i)))
        throw std::invalid_argument(std::string(what) + "[" + std::to_string(i) + "] (" +
                                    model().coordinateNames()[static_cast<std::size_t>(i)] + ") is not finite");
    into = *x;
  };
  if (!std::isfinite(t)) throw std::invalid_argument("t is not finite");
  take(q, s.q, "q");
  take(qdot, s.v, "qdot");
  return s;
}

namespace {

/// The `parameters` argument of load() as the library's overrides (SceneOptions::overrides,
/// the `--set NAME=VALUE` of the CLI): scene parameters, instance parameters (`l1.L`) and
/// simulation settings (`simulation.t_end`); numbers or expression strings.
std::vector<Override> overridesOf(const py::dict& parameters) {
  std::vector<Override> out;
  for (auto kv : parameters) {
    const std::string name = py::str(kv.first);
    nlohmann::json v = toJson(kv.second);
    if (!v.is_number() && !v.is_string())
      throw std::invalid_argument("parameters['" + name + "'] must be a number or an expression string, got " +
                                  v.dump());
    out.push_back(Override{name, std::move(v)});
  }
  return out;
}

/// Whether `file` belongs to another user than the caller and root (the CLI's default
/// confinement: a scene from someone else's folder).
bool ownedByAnotherUser(const std::string& file) {
  struct stat st {};
  return ::stat(file.c_str(), &st) == 0 && st.st_uid != ::geteuid() && st.st_uid != 0;
}

/// The `confine_includes` argument of load() into `options`, with the semantics of the CLI's
/// --confine-includes[=DIR] / --trust-includes: True confines to the scene's folder (a dict:
/// the working directory), a path to that folder, False never, None (the default) only a scene
/// file owned by another user (to its own folder).
void applyConfinement(const py::object& confine, const std::string& file, bool fromFile, SceneOptions& options) {
  if (confine.is_none()) {
    options.confineIncludes = fromFile && ownedByAnotherUser(file);
    return;
  }
  if (py::isinstance<py::bool_>(confine)) {
    options.confineIncludes = confine.cast<bool>();
    return;
  }
  if (!py::isinstance<py::str>(confine) && !py::hasattr(confine, "__fspath__"))
    throw py::type_error("confine_includes must be None, True, False or a folder (str or os.PathLike), got " +
                         std::string(py::str(py::type::of(confine).attr("__name__"))));
  const std::string dir = fileName(confine);
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec))
    throw std::invalid_argument("confine_includes: '" + dir + "' is not a folder; expected an existing folder");
  options.confineIncludes = true;
  options.includeRoot = std::filesystem::absolute(dir, ec).string();
}

std::shared_ptr<PyModel> load(const py::object& source, const std::optional<py::dict>& parameters,
                              bool completeMassless, const std::string& name, const py::object& confine) {
  SceneOptions options;
  options.completeMassless = completeMassless;
  nlohmann::json doc;
  std::string file;
  if (py::isinstance<py::dict>(source)) {
    doc = toJson(source);
    file = name;
  } else {
    file = fileName(source);
    if (isImportableModel(file)) {  // MJCF or URDF (docs/import.md): what is not converted as warnings
      const ImportResult imported = importModel(file);
      const std::string notes = importNotesText(imported, "");
      if (!notes.empty()) py::module_::import("warnings").attr("warn")(notes, py::module_::import("builtins").attr("UserWarning"), 2);
      doc = imported.scene;
    } else {
      doc = readJsonFile(file);
    }
  }
  applyConfinement(confine, file, !py::isinstance<py::dict>(source), options);
  if (parameters) options.overrides = overridesOf(*parameters);
  // The GIL stays held: the loader's symbolic work (GiNaC: parsing, derivatives) is not
  // thread-safe, and the GIL is what serializes it between Python threads.
  // the same steps as the CLI's loadSceneForCommand: load, complete when asked, settings
  return std::make_shared<PyModel>(completeMasslessPoints(sceneFromJson(doc, file, options)));
}

py::list namesOfBodies(const Model& model) {
  py::list l;
  for (const auto& sl : model.bodySlots()) l.append(sl.body->name());
  return l;
}

py::tuple matrices(const PyModel& pm, const std::optional<Eigen::VectorXd>& q,
                   const std::optional<Eigen::VectorXd>& qdot, double t) {
  const State s = pm.state(q, qdot, t);
  const Model& model = pm.model();
  Eigen::MatrixXd M, A;
  Eigen::VectorXd Q, b, C;
  {
    py::gil_scoped_release release;
    pm.withWorkspace([&](ModelWorkspace& ws) {
      if (model.hasNonideal()) {
        solveForwardDynamics(model, s, ws);  // C needs the ideal force magnitudes
        C = ws.C;
      } else {
        model.calcMassAndForces(s, ws);
        model.calcConstraints(s, ws);
        C = Eigen::VectorXd::Zero(model.numCoordinates());
      }
      M = ws.M, Q = ws.Q, A = ws.A, b = ws.b;
      return 0;
    });
  }
  return py::make_tuple(M, Q, A, b, C);
}

}  // namespace

void bindModel(py::module_& m) {
  py::class_<PyModel, std::shared_ptr<PyModel>> cls(m, "Model", R"doc(
An assembled joinery model (from joinery.load or ModelBuilder.build). Immutable; safe to use
from several threads at once (solve, matrices, check and simulate release the GIL).

Coordinates are named "body.coord" (model.coordinates); q and qdot arguments are NumPy
arrays (or sequences) in that order, and default to the scene's initial state.)doc");
  cls.def_property_readonly("name", [](const PyModel& p) { return p.scene().name; }, "The scene's name.")
      .def_property_readonly("file", [](const PyModel& p) { return p.scene().file; },
                             "The file the scene was read from (a pseudo name for dictionaries).")
      .def_property_readonly("coordinates", [](const PyModel& p) { return p.model().coordinateNames(); },
                             "Coordinate names 'body.coord' (n), the order of q, qdot and qdd.")
      .def_property_readonly("constraint_rows", [](const PyModel& p) { return p.model().rowNames(); },
                             "Names of the constraint rows 'joint[k]' (m), the rows of A and b.")
      .def_property_readonly("bodies", [](const PyModel& p) { return namesOfBodies(p.model()); },
                             "Body names in model order (ground excluded).")
      .def_property_readonly("joints", [](const PyModel& p) {
            py::list l;
            for (const Constraint* c : p.model().constraints()) l.append(c->name());
            return l;
          }, "Joint names in model order.")
      .def_property_readonly("forces", [](const PyModel& p) {
            py::list l;
            for (const ForceElement* f : p.model().forces()) l.append(f->name());
            return l;
          }, "Force element names in model order.")
      .def_property_readonly("n", [](const PyModel& p) { return p.model().numCoordinates(); },
                             "Number of coordinates.")
      .def_property_readonly("m", [](const PyModel& p) { return p.model().numConstraintRows(); },
                             "Number of constraint rows (internal rows included).")
      .def_property_readonly("resolved", [](const PyModel& p) { return toPython(p.scene().resolved()); },
                             "The flattened scene as a dictionary (loads into the same model).")
      .def_property_readonly("simulation_settings", [](const PyModel& p) { return toPython(toJson(p.settings())); },
                             "The scene's `simulation` settings (defaults filled in), keys as in the scene file.")
      .def("initial_state", [](const PyModel& p) {
            const State s = p.model().initialState();
            return py::make_tuple(s.q, s.v);
          }, "(q, qdot) of the scene's initial state as NumPy arrays.")
      .def("solve", [](const PyModel& p, const std::optional<Eigen::VectorXd>& q,
                       const std::optional<Eigen::VectorXd>& qdot, double t) {
            const State s = p.state(q, qdot, t);
            PySolution r{{}, p.shared(), s, nullptr};
            {
              py::gil_scoped_release release;
              r.solution = p.withWorkspace([&](ModelWorkspace& ws) { return solveForwardDynamics(p.model(), s, ws); });
            }
            return r;
          }, py::arg("q") = py::none(), py::arg("qdot") = py::none(), py::arg("t") = 0.0, R"doc(
Accelerations, constraint forces and the well-posedness diagnosis at a state (the dense
reference solver, as `joinery solve`). Never raises for an ill-posed or inconsistent state:
the result's diagnosis says so (qdd is then the minimum-norm answer).)doc")
      .def("matrices", &matrices, py::arg("q") = py::none(), py::arg("qdot") = py::none(),
           py::arg("t") = 0.0, R"doc(
(M, Q, A, b, C) at a state, as NumPy arrays: M (n x n), Q (n), A (m x n), b (m), C (n, the
non-ideal joints' work vector; zeros when every joint is ideal). The equations are
M qdd = Q + Qc with Qc = A^T lambda + C and A qdd = b (docs/theory.md).)doc")
      .def("__repr__", [](const PyModel& p) {
        return "<joinery.Model '" + (p.scene().name.empty() ? p.scene().file : p.scene().name) + "': " +
               std::to_string(p.model().bodySlots().size()) + " bodies, " +
               std::to_string(p.model().numCoordinates()) + " coordinates, " +
               std::to_string(p.model().numConstraintRows()) + " constraint rows>";
      });

  m.def("load", &load, py::arg("source"), py::arg("parameters") = py::none(), py::kw_only(),
        py::arg("complete_massless") = false, py::arg("name") = "<dict>", py::arg("confine_includes") = py::none(),
        R"doc(
Loads a scene into a Model.

source: a path (str or os.PathLike) to a scene file, or a dictionary with the same content
  (then `name` is the pseudo file name used in error messages; relative includes are
  resolved against the working directory).
parameters: overrides, as `--set NAME=VALUE` of the command line ({"L": 0.5, "k": "2*k0",
  "l1.m": 2, "simulation.t_end": 4}): scene parameters, instance parameters and simulation
  settings; numbers or expressions; an unknown name raises InputError with a suggestion.
complete_massless: as the scene field "complete_massless": true.
confine_includes: which included files the scene may read, as the command line's options:
  True: only files inside the scene's folder (a dictionary: the working directory), symbolic
  links followed, as --confine-includes; a folder (str or os.PathLike): only files inside it,
  as --confine-includes=DIR; False: any file, as --trust-includes; None (the default): a
  scene file owned by another user (not you, not root) is confined to its folder, any other
  scene is not. The shipped joinery: libraries are always allowed. An include outside raises
  InputError naming it.

Raises joinery.InputError (with .file, .path, .detail) for bad input and joinery.ModelError
when the model cannot be assembled.)doc");
}

}  // namespace joinery::python
