// joinery's typed errors as Python exceptions, and JSON <-> Python conversion.
#include <cmath>
#include <stdexcept>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "py_common.hpp"

namespace joinery::python {

py::object toPython(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<long long>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<unsigned long long>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& x : j) l.append(toPython(x));
      return l;
    }
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (auto it = j.begin(); it != j.end(); ++it) d[py::str(it.key())] = toPython(it.value());
      return d;
    }
    default: return py::none();
  }
}

namespace {
/// A Python str as UTF-8; one that has none (a lone surrogate such as "\ud800") raises
/// Python's UnicodeEncodeError (a ValueError), not pybind11's generic cast error.
std::string utf8(py::handle s) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(s.ptr(), &size);
  if (data == nullptr) throw py::error_already_set();
  return std::string(data, static_cast<std::size_t>(size));
}
}  // namespace

nlohmann::json toJson(py::handle h, int depth) {
  if (depth > detail::kMaxJsonDepth)
    throw std::invalid_argument("the scene is nested more than " + std::to_string(detail::kMaxJsonDepth) +
                                " levels deep (a dict or list that contains itself?); expected a scene of "
                                "plain, finitely nested dicts and lists");
  if (h.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(h)) return h.cast<bool>();
  if (py::isinstance<py::int_>(h)) {  // past 64 bits a double, as the JSON reader makes of a long integer
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow == 0) return v;
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(h.ptr());
      if (!PyErr_Occurred()) return u;
      PyErr_Clear();
    }
    const double d = PyLong_AsDouble(h.ptr());  // OverflowError past 1.8e308
    if (PyErr_Occurred()) throw py::error_already_set();
    return d;
  }
  if (py::isinstance<py::float_>(h)) return h.cast<double>();
  if (py::isinstance<py::str>(h)) return utf8(h);
  if (py::isinstance<py::dict>(h)) {
    nlohmann::json o = nlohmann::json::object();
    for (auto kv : h.cast<py::dict>()) {
      if (!py::isinstance<py::str>(kv.first))
        throw std::invalid_argument("scene dictionaries need string keys, got " +
                                    py::repr(kv.first).cast<std::string>());
      o[utf8(kv.first)] = toJson(kv.second, depth + 1);
    }
    return o;
  }
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    nlohmann::json a = nlohmann::json::array();
    for (auto x : h) a.push_back(toJson(x, depth + 1));
    return a;
  }
  // NumPy arrays and scalars (and anything else with tolist()/item(), e.g. numpy.float64)
  if (py::hasattr(h, "tolist")) return toJson(h.attr("tolist")(), depth + 1);
  throw std::invalid_argument("cannot put a " + py::str(py::type::handle_of(h)).cast<std::string>() +
                              " into a scene (expected dict, list, str, number, bool or None)");
}

const std::string& checkedFileName(const std::string& name) {
  if (name.find('\0') != std::string::npos)
    throw std::invalid_argument("embedded null byte in the file name '" + name.substr(0, name.find('\0')) +
                                "\\0...'; expected a name without NUL characters");
  return name;
}

std::string fileName(py::handle source) {
  std::string name = py::str(py::module_::import("os").attr("fspath")(source));
  checkedFileName(name);
  return name;
}

namespace {

/// Sets the attributes and raises (for the translator).
void raiseWith(py::handle type, const std::string& message, const py::dict& attrs) {
  py::object exc = type(message);
  for (auto kv : attrs) exc.attr(kv.first) = kv.second;
  PyErr_SetObject(type.ptr(), exc.ptr());
}

}  // namespace

void bindErrors(py::module_& m) {
  // Function-level statics: the types live as long as the interpreter (pybind11 idiom).
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  error.doc() = "Base of every error joinery raises on purpose.";
  static py::exception<InputError> inputError(m, "InputError", error.ptr());
  inputError.doc() =
      "Bad input (scene file, dictionary, settings): .file names the source, .path the JSON\n"
      "path of the offending field (RFC 6901, e.g. '/joints/0/body2'), .detail the message\n"
      "without file and path.";
  static py::exception<ModelError> modelError(m, "ModelError", error.ptr());
  modelError.doc() =
      "The model cannot be assembled or its matrices are not a valid problem (negative mass,\n"
      "non-finite entry, wrong sizes).";
  static py::exception<SimulationError> simulationError(m, "SimulationError", error.ptr());
  simulationError.doc() = "A run failed while it was going (only raised on request: check=True).";

  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const InputError& e) {
      py::dict a;
      a["file"] = e.file();
      a["path"] = e.jsonPath();
      a["detail"] = e.detail();
      raiseWith(inputError, e.what(), a);
    } catch (const InvalidProblemError& e) {
      py::dict a;
      a["field"] = e.field();
      a["row"] = e.row();
      a["col"] = e.col();
      raiseWith(modelError, e.what(), a);
    } catch (const ModelError& e) {
      modelError(e.what());
    } catch (const SimulationError& e) {
      simulationError(e.what());
    } catch (const Error& e) {
      error(e.what());
    }
  });
}

}  // namespace joinery::python
