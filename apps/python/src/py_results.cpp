// Solution, Diagnosis and CheckReport as Python classes; Model.check().
#include <set>

#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/matrix_problem.hpp"
#include "py_results.hpp"

namespace joinery::python {

py::dict named(const Eigen::VectorXd& v, const std::vector<std::string>& names) {
  py::dict d;
  for (Eigen::Index i = 0; i < v.size(); ++i) d[py::str(names[static_cast<std::size_t>(i)])] = v(i);
  return d;
}

PyCheckReport makeCheck(const PyModel& pm) {
  // checkScene is the library call behind `joinery check`. The GIL stays held: the completion
  // analysis of an ill-posed model is symbolic (GiNaC, not thread-safe).
  PyCheckReport r{checkScene(pm.scene()), {}};
  // the check's solve is at the assembled state when the given one violates a joint
  const State at = r.report.atAssembledState ? r.report.assembly.state : pm.model().initialState();
  r.solve = PySolution{r.report.solution, pm.shared(), at, nullptr};
  *r.solve.joints = jointResultsJson(r.report.joints, pm.model().coordinateNames());
  return r;
}

namespace {

/// The joint results of a solve (library: solveJointMultipliers + calcJointResults, as the
/// check report computes them), once; a matrix problem has no joints.
py::object jointsOf(const PySolution& r) {
  if (r.joints->is_null()) {
    if (!r.scene) {
      *r.joints = nlohmann::json::object();
    } else {
      nlohmann::json computed;
      {
        py::gil_scoped_release release;
        const Model& model = r.scene->model;
        ModelWorkspace ws = model.makeWorkspace();
        JointMultipliers mult;
        (void)solveJointMultipliers(model, r.state, ws, mult);
        JointResultsWorkspace jws(model);
        std::vector<JointResult> results = jws.makeResults();
        calcJointResults(model, r.state, mult, jws, results);
        computed = jointResultsJson(results, model.coordinateNames());
      }
      *r.joints = std::move(computed);  // under the GIL: the cache is shared by copies
    }
  }
  return toPython(*r.joints);
}

const Diagnosis& diag(const PySolution& s) { return s.solution.diagnosis; }
const std::vector<std::string>& coords(const PySolution& s) {
  return s.scene ? s.scene->model.coordinateNames() : *s.problemNames;
}
std::string rowName(const PySolution& s, int i) {
  return s.scene ? s.scene->model.rowNames()[static_cast<std::size_t>(i)] : "row[" + std::to_string(i) + "]";
}

py::list coordinateNames(const PySolution& s, const std::vector<int>& idx) {
  py::list l;
  for (int i : idx) l.append(coords(s)[static_cast<std::size_t>(i)]);
  return l;
}

py::list bodyNames(const std::vector<const Body*>& v) {
  py::list l;
  for (const Body* b : v) l.append(b->name());
  return l;
}

void bindDiagnosis(py::module_& m) {
  // The diagnosis shares the solution object (and so the names of the model).
  py::class_<PyDiagnosis> d(m, "Diagnosis", R"doc(
Well-posedness of the singular-mass equation at one state: ranks of A and [M; A],
redundancy, consistency, the coordinates nothing determines. Keys as in `joinery solve --json`.)doc");
  d.def_property_readonly("status", [](const PyDiagnosis& s) { return toString(diag(s).status); },
                          "'well_posed', 'ill_posed' or 'inconsistent'.")
      .def_property_readonly("well_posed", [](const PyDiagnosis& s) { return diag(s).wellPosed; })
      .def_property_readonly("consistent", [](const PyDiagnosis& s) { return diag(s).consistent; })
      .def_property_readonly("n", [](const PyDiagnosis& s) { return diag(s).n; }, "Coordinates.")
      .def_property_readonly("m", [](const PyDiagnosis& s) { return diag(s).m; }, "Constraint rows.")
      .def_property_readonly("rank_A", [](const PyDiagnosis& s) { return diag(s).rankA; })
      .def_property_readonly("rank_MA", [](const PyDiagnosis& s) { return diag(s).rankMA; })
      .def_property_readonly("redundant_constraints", [](const PyDiagnosis& s) { return diag(s).redundant; },
                             "m - rank A: redundant rows (legal).")
      .def_property_readonly("residual", [](const PyDiagnosis& s) { return diag(s).residual; },
                             "|A qdd - b| of the returned qdd.")
      .def_property_readonly("inconsistency", [](const PyDiagnosis& s) { return diag(s).inconsistency; })
      .def_property_readonly("indeterminate",
                             [](const PyDiagnosis& s) { return coordinateNames(s, diag(s).indeterminateCoordinates); },
                             "Names of the coordinates nothing determines (ill posed).")
      .def_property_readonly("indeterminate_directions", [](const PyDiagnosis& s) {
            py::list l;
            for (const auto& dir : diag(s).indeterminate) {
              py::dict w;
              for (int i : dir.coordinates) w[py::str(coords(s)[static_cast<std::size_t>(i)])] = dir.direction(i);
              py::dict e;
              e["direction"] = w;
              e["net_force"] = dir.netForce;
              e["force_balanced"] = dir.forceBalanced;
              l.append(e);
            }
            return l;
          }, "One dict per null direction w of [M; A]: direction {name: w_i}, net_force w^T (Q + C), force_balanced.")
      .def_property_readonly("inconsistent_rows", [](const PyDiagnosis& s) {
            py::list l;
            for (int i : diag(s).inconsistentRows) l.append(rowName(s, i));
            return l;
          }, "Names of the constraint rows most in conflict (inconsistent).")
      .def_property_readonly("null_basis", [](const PyDiagnosis& s) { return diag(s).nullBasis; },
                             "n x d orthonormal basis of the null space of [M; A].")
      .def_property_readonly("messages", [](const PyDiagnosis& s) { return diag(s).messages; },
                             "Readable findings, most important first.")
      .def("__repr__", [](const PyDiagnosis& s) {
        return std::string("<joinery.Diagnosis ") + toString(diag(s).status) + ": rank A " +
               std::to_string(diag(s).rankA) + ", rank [M; A] " + std::to_string(diag(s).rankMA) + " of n = " +
               std::to_string(diag(s).n) + ">";
      });
}

void bindSolution(py::module_& m) {
  py::class_<PySolution> s(m, "Solution", R"doc(
The result of Model.solve(): accelerations and constraint forces at one state, with the
diagnosis. Arrays are in model.coordinates order; the dicts are keyed by coordinate name.)doc");
  s.def_property_readonly("qdd", [](const PySolution& r) { return r.solution.qdd; }, "Accelerations (n).")
      .def_property_readonly("accelerations", [](const PySolution& r) { return named(r.solution.qdd, coords(r)); },
                             "{coordinate: acceleration}.")
      .def_property_readonly("force_ideal", [](const PySolution& r) { return r.solution.forceIdeal; },
                             "Ideal constraint force A^T lambda (n).")
      .def_property_readonly("force_nonideal", [](const PySolution& r) { return r.solution.forceNonideal; },
                             "Non-ideal constraint force (friction, ...) (n).")
      .def_property_readonly("constraint_force",
                             [](const PySolution& r) { return Eigen::VectorXd(r.solution.forceIdeal + r.solution.forceNonideal); },
                             "Total generalized constraint force Qc (n): M qdd = Q + Qc.")
      .def_property_readonly("constraint_forces", [](const PySolution& r) {
            return named(r.solution.forceIdeal + r.solution.forceNonideal, coords(r));
          }, "{coordinate: total generalized constraint force}.")
      .def_property_readonly("diagnosis", [](const PySolution& r) { return PyDiagnosis{r}; })
      .def_property_readonly("joints", &jointsOf, R"doc(
Per-joint results, keys as the "joints" of `joinery solve --json` (docs/results.md): joint
name -> {"force1", "torque1", "force2", "torque2", "unique", ...}: the force and torque the
joint applies to body1 / body2 at its points (world axes; a side on ground is left out),
"tension" for a distance joint, "effort" and "power" for a coupling or driver,
"generalized" for joints without body points. Computed on first access.)doc")
      .def_property_readonly("status", [](const PySolution& r) { return toString(diag(r).status); })
      .def_property_readonly("well_posed", [](const PySolution& r) { return diag(r).wellPosed; })
      .def_property_readonly("t", [](const PySolution& r) { return r.state.t; })
      .def_property_readonly("q", [](const PySolution& r) { return r.state.q; })
      .def_property_readonly("qdot", [](const PySolution& r) { return r.state.v; })
      .def("to_dict", [](const PySolution& r) { return toPython(solutionToJson(r.solution, coords(r))); },
           "The result as `joinery solve --json` prints it (same keys).")
      .def("__repr__", [](const PySolution& r) {
        return std::string("<joinery.Solution ") + toString(diag(r).status) + " at t = " + std::to_string(r.state.t) + ">";
      });
}

void bindCheckReport(py::module_& m) {
  py::class_<PyCheckReport> c(m, "CheckReport", R"doc(
What `joinery check` finds at the initial state: the diagnosis, the body-joint graph
(mobility, loops, components) and, for ill-posed models, the missing force balances of the
massless directions with the expression joint that completes each (docs/completion.md).)doc");
  c.def_property_readonly("diagnosis", [](const PyCheckReport& r) { return PyDiagnosis{r.solve}; })
      .def_property_readonly("solution", [](const PyCheckReport& r) { return r.solve; })
      .def_property_readonly("status", [](const PyCheckReport& r) { return toString(r.report.status()); },
                             "The verdict of `joinery check` (its status): well_posed, ill_posed or inconsistent.")
      .def_property_readonly("verdict", [](const PyCheckReport& r) { return r.report.verdict().kind; },
                             "As `joinery check --json`'s \"verdict\": well_posed, redundant, locked, ill_posed,\n"
                             "cannot_be_assembled or inconsistent.")
      .def_property_readonly("headline", [](const PyCheckReport& r) { return r.report.headline(); },
                             "The first line of `joinery check`: what to change (empty when nothing).")
      .def_property_readonly("well_posed", [](const PyCheckReport& r) { return r.report.status() == Posedness::WellPosed; })
      .def_property_readonly("mobility_count", [](const PyCheckReport& r) { return r.report.graph.calcMobilityCount(); },
                             "Grübler–Kutzbach count n - m.")
      .def_property_readonly("mobility_rank", [](const PyCheckReport& r) { return r.report.graph.calcMobilityFromRank(); },
                             "n - rank A.")
      .def_property_readonly("components", [](const PyCheckReport& r) { return r.report.graph.numComponents(); },
                             "Independent subsystems (connected components).")
      .def_property_readonly("loops", [](const PyCheckReport& r) {
            py::list l;
            for (const auto& loop : r.report.graph.loops) {
              py::list j;
              for (const Constraint* c : loop.joints) j.append(c->name());
              l.append(j);
            }
            return l;
          }, "Independent loops, each a list of joint names.")
      .def_property_readonly("free_floating", [](const PyCheckReport& r) { return bodyNames(r.report.graph.freeFloating); })
      .def_property_readonly("unattached", [](const PyCheckReport& r) { return bodyNames(r.report.graph.unattached); })
      .def_property_readonly("indeterminate", [](const PyCheckReport& r) {
            return coordinateNames(r.solve, diag(r.solve).indeterminateCoordinates);
          }, "Coordinates nothing determines.")
      .def_property_readonly("indeterminate_bodies", [](const PyCheckReport& r) {
            std::set<std::string> seen;
            py::list l;
            for (int i : diag(r.solve).indeterminateCoordinates) {
              const std::string& n = r.solve.scene->model.bodyOfCoordinate(i).name();
              if (seen.insert(n).second) l.append(n);
            }
            return l;
          })
      .def_property_readonly("completion", [](const PyCheckReport& r) { return toPython(completionToJson(r.report.completion)); },
                             "Missing force balances of massless directions (list of dicts, keys as in\n"
                             "`joinery check --json`'s completion.balances; 'joint' is the expression joint to add).")
      .def_property_readonly("completable", [](const PyCheckReport& r) { return r.report.completion.completable(); },
                             "True when every indeterminate direction has a balance (load with complete_massless=True).")
      .def_property_readonly("messages", [](const PyCheckReport& r) { return diag(r.solve).messages; })
      .def_property_readonly("joints", [](const PyCheckReport& r) { return jointsOf(r.solve); },
                             "Per-joint results at the initial state (as Solution.joints).")
      .def("to_dict", [](const PyCheckReport& r) { return toPython(toJson(r.report)); },
           "The report as `joinery check --json` prints it (same keys).")
      .def("__repr__", [](const PyCheckReport& r) {
        return std::string("<joinery.CheckReport ") + toString(r.report.status()) +
               ": mobility " + std::to_string(r.report.graph.calcMobilityCount()) + ", " +
               std::to_string(r.report.graph.numLoops()) + " loop(s)>";
      });
}

PySolution solveProblem(const py::object& source, const std::optional<Eigen::MatrixXd>& M,
                        const std::optional<Eigen::VectorXd>& Q, const std::optional<Eigen::MatrixXd>& A,
                        const std::optional<Eigen::VectorXd>& b, const std::optional<Eigen::VectorXd>& C,
                        const std::optional<std::vector<std::string>>& coordinates) {
  MatrixProblem p;
  if (!source.is_none()) {
    if (M || Q || A || b || C || coordinates)
      throw std::invalid_argument("solve_problem takes either a source or the matrices, not both");
    if (py::isinstance<py::dict>(source))
      p = matrixProblemFromJson(toJson(source), "<dict>");
    else
      p = loadMatrixProblem(fileName(source));
  } else {
    if (!M || !Q) throw std::invalid_argument("solve_problem needs M and Q (or a source)");
    p.M = *M;
    p.Q = *Q;
    const Eigen::Index n = p.M.cols();
    p.A = A ? *A : Eigen::MatrixXd(0, n);
    p.b = b ? *b : Eigen::VectorXd(0);
    if (C) p.C = *C;
    if (coordinates) {
      p.coordinates = *coordinates;
    } else {
      for (Eigen::Index i = 0; i < n; ++i) p.coordinates.push_back("q" + std::to_string(i));
    }
    if (static_cast<Eigen::Index>(p.coordinates.size()) != n)
      throw std::invalid_argument("coordinates has " + std::to_string(p.coordinates.size()) +
                                  " names; M has " + std::to_string(n) + " columns");
  }
  PySolution r;
  r.problemNames = std::make_shared<const std::vector<std::string>>(p.coordinates);
  py::gil_scoped_release release;
  r.solution = solveMatrixProblem(p, DenseSolver(), "<problem>");
  return r;
}

}  // namespace

void bindCheck(py::module_& m) {
  bindDiagnosis(m);
  bindSolution(m);
  bindCheckReport(m);
  m.def("solve_problem", &solveProblem, py::arg("source") = py::none(), py::kw_only(), py::arg("M") = py::none(),
        py::arg("Q") = py::none(), py::arg("A") = py::none(), py::arg("b") = py::none(), py::arg("C") = py::none(),
        py::arg("coordinates") = py::none(), R"doc(
Solves and diagnoses a matrix problem M qdd = Q + A^T lambda + C, A qdd = b, as `joinery solve`
does for a matrix-problem file. Either `source` (a path or a dict with the file's keys
coordinates, M, Q, A, b, C) or the arrays (A, b, C optional; coordinates default q0, q1, ...).
Returns a Solution (rows named row[i]). Invalid matrices raise joinery.ModelError (with
.field, .row, .col); a bad file joinery.InputError.)doc");

  py::object model = m.attr("Model");
  model.attr("check") = py::cpp_function([](const PyModel& p) { return makeCheck(p); }, py::is_method(model),
                                         py::name("check"), R"doc(
The diagnosis at the initial state, as `joinery check`: a CheckReport (status, ranks,
mobility, loops, indeterminate coordinates by name, completion suggestions).)doc");
}

}  // namespace joinery::python
