// The compiled part of the Python package `joinery` (imported as joinery._joinery; the
// package's __init__.py re-exports it). One registration function per area.
#include "py_common.hpp"

PYBIND11_MODULE(_joinery, m) {
  m.doc() =
      "joinery: multibody dynamics with singular mass matrices (compiled core).\n\n"
      "Use the package `joinery` (load, Model, ModelBuilder, ...) rather than this module.";
  m.attr("__version__") = JOINERY_VERSION;
  joinery::python::bindErrors(m);
  joinery::python::bindModel(m);
  joinery::python::bindCheck(m);
  joinery::python::bindSimulate(m);
  joinery::python::bindRegistry(m);
  joinery::python::bindStudy(m);  // joinery.study
}
