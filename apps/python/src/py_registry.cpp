// The type registries (bodies, joints, forces) as Python dictionaries: what ModelBuilder and
// scene dictionaries may use, with each type's summary and example definition.
#include "joinery/core/registry.hpp"
#include "py_common.hpp"

namespace joinery::python {

namespace {

template <class T>
py::dict typesOf() {
  const auto& reg = Registry<T>::instance();
  py::dict d;
  for (const auto& name : reg.names()) {
    const TypeInfo<T>* info = reg.find(name);
    py::dict e;
    e["summary"] = info->summary;
    e["example"] = toPython(info->example);
    d[py::str(name)] = e;
  }
  return d;
}

}  // namespace

void bindRegistry(py::module_& m) {
  m.def("body_types", &typesOf<Body>,
        "Registered body types: {type: {'summary': str, 'example': dict}} (the scene's \"bodies\").");
  m.def("joint_types", &typesOf<Constraint>,
        "Registered joint types: {type: {'summary': str, 'example': dict}} (the scene's \"joints\").");
  m.def("force_types", &typesOf<ForceElement>,
        "Registered force element types: {type: {'summary': str, 'example': dict}} (the scene's \"forces\").");
}

}  // namespace joinery::python
