// Model.simulate(): the library's run loop with a recorder that fills one NumPy array per
// CSV column (output channels and accelerations included, through the CLI's ChannelRecorder),
// the run summary of `simulate --summary` (SummaryRecorder), an optional per-sample Python
// callback that may stop the run.
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>

#include "joinery/study/exit_codes.hpp"
#ifdef JOINERY_HAVE_HDF5
#include "joinery/hdf5_table.hpp"
#endif
#include "joinery/core/model_system.hpp"
#include "joinery/core/one_sided_handler.hpp"
#include "joinery/core/outputs.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/run_outputs.hpp"
#include "joinery/integrators/events.hpp"
#include "joinery/integrators/simulation.hpp"
#include "py_common.hpp"

namespace joinery::python {

namespace {

/// Every sample into one growing vector per column, named as the CSV of `joinery simulate`
/// (tableColumns: with the accelerations and output channels of the layout); an undefined
/// energy is NaN (an empty field in the CSV).
class ArrayRecorder final : public Recorder {
 public:
  ArrayRecorder(py::object callback, TableLayout layout) : callback_(std::move(callback)), layout_(std::move(layout)) {}
  ~ArrayRecorder() override {
    if (error_ || !callback_.is_none()) {
      py::gil_scoped_acquire gil;  // Python objects are released with the GIL held
      error_.reset();
      callback_ = py::object();
    }
  }

  void begin(const std::vector<std::string>& coordinateNames) override {
    columns_ = tableColumns(coordinateNames, layout_);
    data_.assign(columns_.size(), {});
    row_.assign(columns_.size(), 0.0);
  }

  void record(const Sample& s) override {
    fillRow(s, layout_, row_.data());
    for (std::size_t c = 0; c < row_.size(); ++c) data_[c].push_back(row_[c]);
    if (!callback_.is_none() && !stop_) call(s);
  }

  bool stopRequested() const override { return stop_; }

  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<double>>& data() const { return data_; }
  /// Re-raises an exception the callback raised (GIL held).
  void rethrow() {
    if (error_) {
      py::error_already_set e = std::move(*error_);
      error_.reset();
      throw e;
    }
  }

 private:
  void call(const Sample& s) {
    py::gil_scoped_acquire gil;
    try {
      py::object r = callback_(s.state.t, s.state.q, s.state.v);
      if (!r.is_none() && !r.cast<bool>()) stop_ = true;
    } catch (py::error_already_set& e) {
      error_ = std::make_unique<py::error_already_set>(std::move(e));
      stop_ = true;
    }
  }

  py::object callback_;
  TableLayout layout_;
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> data_;
  std::vector<double> row_;
  bool stop_ = false;
  std::unique_ptr<py::error_already_set> error_;
};

/// What Model.simulate returns.
struct PySimulationResult {
  std::vector<std::string> columns;
  py::dict arrays;  // column -> 1-D NumPy array
  SimulationResult run;
  SimulationSettings settings;
  nlohmann::json summary;  // SummaryRecorder::toJson(): the JSON of `simulate --summary`
  std::string sceneName, sceneFile;  // the HDF5 file's attributes (to_hdf5)
};

py::dict statsOf(const SimulationResult& r) {
  py::dict d;
  d["steps"] = r.stats.integrator.steps;
  d["rejected"] = r.stats.integrator.rejected;
  d["evaluations"] = r.stats.integrator.evaluations;
  d["jacobian_evaluations"] = r.stats.integrator.jacobianEvaluations;  // implicit methods
  d["force_evaluations"] = r.stats.integrator.forceEvaluations;
  d["samples"] = r.stats.samples;
  d["projections"] = r.stats.projections;
  d["max_position_residual"] = r.stats.maxPositionResidual;
  d["max_velocity_residual"] = r.stats.maxVelocityResidual;
  d["max_redundant"] = r.stats.integrator.maxRedundant;
  d["min_step"] = r.stats.integrator.minStep;
  d["max_step"] = r.stats.integrator.maxStep;
  d["wall_s"] = r.stats.wallSeconds;
  return d;
}

/// The scene's `simulation` section with the keyword arguments written over it, read by the
/// library's parser: the same rules, defaults, expressions and error paths as the file.
SimulationSettings settingsWith(const PyModel& pm, const std::optional<double>& tEnd, const py::kwargs& kw) {
  SceneSection section = pm.scene().simulation;
  if (!section.json.is_object()) section.json = nlohmann::json::object();
  if (section.path.empty()) section.path = "/simulation";
  if (tEnd) section.json["t_end"] = *tEnd;
  for (auto kv : kw) section.json[py::str(kv.first).cast<std::string>()] = toJson(kv.second);
  return parseSimulationSettings(section);
}

/// The scene with `outputs` (channel dictionaries, as entries of the scene's "outputs")
/// appended to its own: the resolved scene loaded again, so the channels are read and checked
/// by the scene loader (errors at /outputs/K of the resolved scene, K counting the scene's own).
std::shared_ptr<const Scene> sceneWithOutputs(const PyModel& pm, const py::handle& outputs) {
  if (outputs.is_none()) return pm.shared();
  nlohmann::json extra = toJson(outputs);
  if (!extra.is_array()) throw std::invalid_argument("outputs must be a list of channel dictionaries");
  if (extra.empty()) return pm.shared();
  nlohmann::json doc = pm.scene().resolved();
  if (!doc.contains("outputs") || !doc["outputs"].is_array()) doc["outputs"] = nlohmann::json::array();
  for (auto& e : extra) doc["outputs"].push_back(e);
  return std::make_shared<const Scene>(sceneFromJson(doc, pm.scene().file));
}

PySimulationResult simulate(const PyModel& pm, std::optional<double> tEnd, const std::optional<Eigen::VectorXd>& q,
                            const std::optional<Eigen::VectorXd>& qdot, bool strict, const py::object& callback,
                            bool check, const py::object& outputs, bool accelerations, const py::kwargs& settings) {
  const SimulationSettings s = settingsWith(pm, tEnd, settings);
  RunOptions options;
  if (strict) options.initialConditions = InitialConditionMode::Strict;
  const bool given = q || qdot;
  const State initial = given ? pm.state(q, qdot, 0.0) : State{};
  // GIL held: loading (GiNaC) and compiling the channels' expressions
  const std::shared_ptr<const Scene> scene = sceneWithOutputs(pm, outputs);
  const OutputChannels channels(scene->model, scene->outputs);
  const TableLayout layout{accelerations, channels.columns()};

  ArrayRecorder recorder(callback, layout);
  SummaryRecorder summary(layout);
  TeeRecorder both({&recorder, &summary});
  PySimulationResult res;
  res.settings = s;
  {
    py::gil_scoped_release release;
    ModelSystem system(scene->model);
    ChannelRecorder rec(system, channels, accelerations, both);  // forwards the callback's stop
    OneSidedHandler oneSided(system);  // limits, ropes, contacts (docs/contact.md)
    if (oneSided.empty())
      res.run = given ? runSimulation(system, initial, s, rec, {}, options) : runSimulation(system, s, rec, {}, options);
    else
      res.run = given ? runSimulation(system, initial, s, rec, oneSided, {}, options)
                      : runSimulation(system, s, rec, oneSided, {}, options);
  }
  res.summary = summary.toJson();
  res.sceneName = pm.scene().name.empty() ? std::filesystem::path(pm.scene().file).stem().string() : pm.scene().name;
  res.sceneFile = pm.scene().file;
  recorder.rethrow();
  res.columns = recorder.columns();
  for (std::size_t c = 0; c < res.columns.size(); ++c) {
    const auto& v = recorder.data()[c];
    res.arrays[py::str(res.columns[c])] = py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
  }
  if (check && res.run.outcome != RunOutcome::Stopped) res.run.throwIfFailed();
  return res;
}

}  // namespace

void bindSimulate(py::module_& m) {
  py::class_<PySimulationResult> r(m, "SimulationResult", R"doc(
The samples of a run, one NumPy array per column, named exactly as the CSV columns of
`joinery simulate`: t, every coordinate 'body.coord', every velocity 'body.coord_dot', energy
(NaN where undefined), position_residual, velocity_residual. result["bob.x"], result.t,
result.columns; plus how the run ended (outcome, message, exit_code) and its statistics.)doc");
  r.def_property_readonly("columns", [](const PySimulationResult& x) { return x.columns; },
                          "Column names in CSV order.")
      .def("__getitem__", [](const PySimulationResult& x, const std::string& c) -> py::object {
            if (!x.arrays.contains(c)) throw py::key_error("no column '" + c + "'");
            return x.arrays[py::str(c)];
          }, py::arg("column"))
      .def("__contains__", [](const PySimulationResult& x, const std::string& c) { return x.arrays.contains(c); })
      .def("__len__", [](const PySimulationResult& x) { return x.run.stats.samples; }, "Number of samples.")
      .def("keys", [](const PySimulationResult& x) { return x.columns; })
      .def_property_readonly("t", [](const PySimulationResult& x) { return x.arrays["t"]; }, "Sample times.")
      .def("to_dict", [](const PySimulationResult& x) { return py::dict(x.arrays); },
           "{column: array} (the same arrays, e.g. for pandas.DataFrame).")
      .def("to_hdf5", [](const PySimulationResult& x, const std::string& path) {
#ifdef JOINERY_HAVE_HDF5
            std::vector<py::array_t<double>> keep;
            std::vector<const double*> data;
            for (const auto& c : x.columns) {
              keep.push_back(py::array_t<double, py::array::c_style | py::array::forcecast>(x.arrays[py::str(c)]));
              data.push_back(keep.back().data());
            }
            const std::size_t rows = keep.empty() ? 0 : static_cast<std::size_t>(keep.front().size());
            writeHdf5Table(path, x.columns, data, rows, {x.sceneName, x.sceneFile, JOINERY_VERSION}, toString(x.run.outcome));
#else
            (void)x, (void)path;
            throw std::runtime_error("this joinery module was built without HDF5 (Debian: libhdf5-dev)");
#endif
          }, py::arg("path"),
           "Writes the run as HDF5, as `joinery simulate -o RUN.h5` does: one float64 dataset per\n"
           "column named as the CSV column, attributes scene, scene_file, joinery_version, samples,\n"
           "outcome and columns (the names in CSV order).")
      .def("to_array", [](const PySimulationResult& x) {
            py::list cols;
            for (const auto& c : x.columns) cols.append(x.arrays[py::str(c)]);
            return py::module_::import("numpy").attr("column_stack")(cols);
          }, "A (samples x columns) array in CSV column order.")
      .def_property_readonly("outcome", [](const PySimulationResult& x) { return toString(x.run.outcome); },
                             "'completed', 'stopped' (the callback returned False), 'ill_posed',\n"
                             "'inconsistent', 'invalid_initial_conditions' or 'failed'.")
      .def_property_readonly("completed", [](const PySimulationResult& x) { return x.run.completed(); })
      .def_property_readonly("exit_code", [](const PySimulationResult& x) { return study::exitCodeOf(x.run.outcome); },
                             "The exit status `joinery simulate` would give (0, 2, 3, 4, 5).")
      .def_property_readonly("message", [](const PySimulationResult& x) { return x.run.message; },
                             "Empty when completed; otherwise what happened, when and why.")
      .def_property_readonly("t_reached", [](const PySimulationResult& x) { return x.run.t; })
      .def_property_readonly("final_q", [](const PySimulationResult& x) { return x.run.state.q; })
      .def_property_readonly("final_qdot", [](const PySimulationResult& x) { return x.run.state.v; })
      .def_property_readonly("stats", [](const PySimulationResult& x) { return statsOf(x.run); },
                             "steps, rejected, evaluations, samples, projections, residuals, wall_s.")
      .def_property_readonly("summary", [](const PySimulationResult& x) { return toPython(x.summary); },
                             "The run summary of `joinery simulate --summary`: outcome, t, steps,\n"
                             "evaluations, wall_s, energy {initial, final, max_abs_drift} and per column\n"
                             "but t {min, t_min, max, t_max, final, rms} (docs/outputs.md).")
      .def_property_readonly("initial_conditions", [](const PySimulationResult& x) {
            py::dict d;
            d["projected"] = x.run.initial.projected;
            d["position_correction"] = x.run.initial.positionCorrection;
            d["velocity_correction"] = x.run.initial.velocityCorrection;
            d["message"] = x.run.initial.message;
            return d;
          }, "What was done to make the initial state consistent.")
      .def("__repr__", [](const PySimulationResult& x) {
        return std::string("<joinery.SimulationResult ") + toString(x.run.outcome) + " at t = " +
               std::to_string(x.run.t) + ": " + std::to_string(x.run.stats.samples) + " samples x " +
               std::to_string(x.columns.size()) + " columns>";
      });

  py::object model = m.attr("Model");
  model.attr("simulate") = py::cpp_function(
      &simulate, py::is_method(model), py::name("simulate"), py::arg("t_end") = py::none(), py::kw_only(),
      py::arg("q") = py::none(), py::arg("qdot") = py::none(), py::arg("strict") = false,
      py::arg("callback") = py::none(), py::arg("check") = false, py::arg("outputs") = py::none(),
      py::arg("accelerations") = false, R"doc(
simulate(t_end=None, *, q=None, qdot=None, strict=False, callback=None, check=False,
         outputs=None, accelerations=False, **settings)

Runs the simulation as `joinery simulate` does, keeping every sample in NumPy arrays.

Settings default to the scene's `simulation` object; t_end and every other keyword
(**settings) override the key of the same name, read by the same rules as the file:
integrator 'rk4'/'dopri5'/'rkm'/'radau5' (= 'implicit'), rtol, atol, step, output_interval, stabilization
'none'/'baumgarte'/'projection' (numbers may be expressions of the scene's parameters; an
unknown key raises InputError with a suggestion). q, qdot: another initial state.
strict: reject inconsistent initial conditions instead of projecting them.
callback(t, q, qdot): called after every sample; returning False stops the run there
(outcome 'stopped'); an exception it raises stops the run and is re-raised.
check: raise joinery.SimulationError unless the run completed (default: the result says).
outputs: extra output channels, a list of dictionaries written as the entries of the
  scene's "outputs" ({"name": "pin", "reaction": "wrist_pin"}, {"name": "tip", "point":
  {"body": "arm", "point": [0.5, 0]}}, ...), after the scene's own; their columns come after
  the standard ones, as in the CSV (docs/outputs.md). A bad channel raises InputError.
accelerations: also the columns 'body.coord_ddot' (as `simulate --accelerations`).
The result's .summary is the JSON of `simulate --summary`.

Invalid settings raise joinery.InputError with .path '/simulation/<key>'. The GIL is
released during the run (except inside the callback).)doc");
}

}  // namespace joinery::python
