// joinery._run_study: the study runner of `joinery study` (joinery::study::runStudy: the
// study file, its design, pre-forked worker processes, the table sorted by case). The
// package's joinery.study() (_study.py) calls it and reads the table back into arrays.
#include <optional>
#include <string>

#include "joinery/study/study.hpp"
#include "py_common.hpp"

namespace joinery::python {

namespace {

py::dict runStudyFile(const std::string& path, const std::string& table, int jobs, bool resume,
                      std::optional<double> timeLimit) {
  if (jobs < 1) throw std::invalid_argument("jobs must be >= 1, got " + std::to_string(jobs));
  if (timeLimit && !(*timeLimit >= 0)) throw std::invalid_argument("time_limit must be >= 0 (s)");
  // GIL held while reading the study: it loads the base scene (GiNaC is not thread-safe)
  checkedFileName(table);
  const study::Study st = study::loadStudy(checkedFileName(path));
  study::RunOptions o;
  o.table = table;
  o.jobs = jobs;
  o.resume = resume;
  if (timeLimit) o.timeLimit = *timeLimit;
  study::Outcome out;
  {
    // the cases run in forked worker processes that never call into Python
    py::gil_scoped_release release;
    out = study::runStudy(st, o);
  }
  py::dict d;
  d["table"] = table;
  d["columns"] = study::tableColumns(st);
  d["parameters"] = st.parameters;
  d["total"] = out.total;
  d["ran"] = out.ran;
  d["skipped"] = out.skipped;
  d["failed"] = out.failed;
  return d;
}

}  // namespace

void bindStudy(py::module_& m) {
  m.def("_run_study", &runStudyFile, py::arg("path"), py::arg("table"), py::arg("jobs") = 1,
        py::arg("resume") = false, py::arg("time_limit") = py::none(),
        "Runs a study file into the CSV table `table` (use joinery.study).");
}

}  // namespace joinery::python
