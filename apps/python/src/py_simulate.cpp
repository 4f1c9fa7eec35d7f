// Model.simulate(): the library's run loop with a recorder that fills one NumPy array per
// CSV column, an optional per-sample Python callback that may stop the run.
#include <cmath>
#include <limits>
#include <memory>

#include "exit_status.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/simulation.hpp"
#include "py_common.hpp"

namespace joinery::python {

namespace {

/// Every sample into one growing vector per column, named as the CSV of `joinery simulate`
/// (CsvRecorder::columns); an undefined energy is NaN (an empty field in the CSV).
class ArrayRecorder final : public Recorder {
 public:
  explicit ArrayRecorder(py::object callback) : callback_(std::move(callback)) {}
  ~ArrayRecorder() override {
    if (error_ || !callback_.is_none()) {
      py::gil_scoped_acquire gil;  // Python objects are released with the GIL held
      error_.reset();
      callback_ = py::object();
    }
  }

  void begin(const std::vector<std::string>& coordinateNames) override {
    columns_ = CsvRecorder::columns(coordinateNames);
    data_.assign(columns_.size(), {});
    n_ = coordinateNames.size();
  }

  void record(const Sample& s) override {
    std::size_t c = 0;
    data_[c++].push_back(s.state.t);
    for (Eigen::Index i = 0; i < s.state.q.size(); ++i) data_[c++].push_back(s.state.q(i));
    for (Eigen::Index i = 0; i < s.state.v.size(); ++i) data_[c++].push_back(s.state.v(i));
    data_[c++].push_back(s.energy && std::isfinite(*s.energy) ? *s.energy
                                                               : std::numeric_limits<double>::quiet_NaN());
    data_[c++].push_back(s.residuals.position);
    data_[c++].push_back(s.residuals.velocity);
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
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> data_;
  std::size_t n_ = 0;
  bool stop_ = false;
  std::unique_ptr<py::error_already_set> error_;
};

/// What Model.simulate returns.
struct PySimulationResult {
  std::vector<std::string> columns;
  py::dict arrays;  // column -> 1-D NumPy array
  SimulationResult run;
  SimulationSettings settings;
};

py::dict statsOf(const SimulationResult& r) {
  py::dict d;
  d["steps"] = r.stats.integrator.steps;
  d["rejected"] = r.stats.integrator.rejected;
  d["evaluations"] = r.stats.integrator.evaluations;
  d["jacobian_evaluations"] = r.stats.integrator.jacobianEvaluations;  // implicit methods (issue 18)
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

PySimulationResult simulate(const PyModel& pm, std::optional<double> tEnd, const std::optional<Eigen::VectorXd>& q,
                            const std::optional<Eigen::VectorXd>& qdot, bool strict, const py::object& callback,
                            bool check, const py::kwargs& settings) {
  const SimulationSettings s = settingsWith(pm, tEnd, settings);
  RunOptions options;
  if (strict) options.initialConditions = InitialConditionMode::Strict;
  const bool given = q || qdot;
  const State initial = given ? pm.state(q, qdot, 0.0) : State{};

  ArrayRecorder recorder(callback);
  PySimulationResult res;
  res.settings = s;
  {
    py::gil_scoped_release release;
    ModelSystem system(pm.model());
    res.run = given ? runSimulation(system, initial, s, recorder, {}, options)
                    : runSimulation(system, s, recorder, {}, options);
  }
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
      .def("to_array", [](const PySimulationResult& x) {
            py::list cols;
            for (const auto& c : x.columns) cols.append(x.arrays[py::str(c)]);
            return py::module_::import("numpy").attr("column_stack")(cols);
          }, "A (samples x columns) array in CSV column order.")
      .def_property_readonly("outcome", [](const PySimulationResult& x) { return toString(x.run.outcome); },
                             "'completed', 'stopped' (the callback returned False), 'ill_posed',\n"
                             "'inconsistent', 'invalid_initial_conditions' or 'failed'.")
      .def_property_readonly("completed", [](const PySimulationResult& x) { return x.run.completed(); })
      .def_property_readonly("exit_code", [](const PySimulationResult& x) { return cli::exitCode(x.run.outcome); },
                             "The exit status `joinery simulate` would give (0, 2, 3, 4, 5).")
      .def_property_readonly("message", [](const PySimulationResult& x) { return x.run.message; },
                             "Empty when completed; otherwise what happened, when and why.")
      .def_property_readonly("t_reached", [](const PySimulationResult& x) { return x.run.t; })
      .def_property_readonly("final_q", [](const PySimulationResult& x) { return x.run.state.q; })
      .def_property_readonly("final_qdot", [](const PySimulationResult& x) { return x.run.state.v; })
      .def_property_readonly("stats", [](const PySimulationResult& x) { return statsOf(x.run); },
                             "steps, rejected, evaluations, samples, projections, residuals, wall_s.")
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
      py::arg("callback") = py::none(), py::arg("check") = false, R"doc(
simulate(t_end=None, *, q=None, qdot=None, strict=False, callback=None, check=False, **settings)

Runs the simulation as `joinery simulate` does, keeping every sample in NumPy arrays.

Settings default to the scene's `simulation` object; t_end and every other keyword
(**settings) override the key of the same name, read by the same rules as the file:
integrator 'rk4'/'dopri5', rtol, atol, step, output_interval, stabilization
'none'/'baumgarte'/'projection' (numbers may be expressions of the scene's parameters; an
unknown key raises InputError with a suggestion). q, qdot: another initial state.
strict: reject inconsistent initial conditions instead of projecting them.
callback(t, q, qdot): called after every sample; returning False stops the run there
(outcome 'stopped'); an exception it raises stops the run and is re-raised.
check: raise joinery.SimulationError unless the run completed (default: the result says).

Invalid settings raise joinery.InputError with .path '/simulation/<key>'. The GIL is
released during the run (except inside the callback).)doc");
}

}  // namespace joinery::python
