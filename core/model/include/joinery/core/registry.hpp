#pragma once
/// @file registry.hpp
/// Type registries: each body, joint and force type registers its name and JSON factory from
/// its own source file (JOINERY_REGISTER below); adding a type never edits a list elsewhere.
/// Factories receive a FactoryContext that evaluates numeric fields (numbers or parameter
/// expressions), resolves body names, and builds expressions.

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "joinery/core/body.hpp"
#include "joinery/core/constraint.hpp"
#include "joinery/core/expression.hpp"
#include "joinery/core/json_input.hpp"

namespace joinery {

/// What a factory may ask of the loader that calls it.
class FactoryContext {
 public:
  virtual ~FactoryContext() = default;
  /// A numeric field: a JSON number or a string expression over the parameters in scope.
  virtual double number(const JsonCursor& c) const = 0;
  /// The body a string field names ("ground" is the world body).
  /// @throws InputError for unknown names (with a suggestion).
  virtual const Body& body(const JsonCursor& c) const = 0;
  /// The body with this (fully qualified) name, or nullptr.
  virtual const Body* findBody(const std::string& name) const = 0;
  /// The parameters in scope, as constants.
  virtual const SymbolTable& parameters() const = 0;
  /// The joint with this (fully qualified) name among those built before the one being read
  /// (the scene loader builds joints in the order they are written), or nullptr. Joints that
  /// refer to other joints (a `gear` between the turns of two hinges) read their geometry
  /// from it. Contexts that hold no joints answer nullptr.
  virtual const Constraint* findConstraint(const std::string& name) const {
    (void)name;
    return nullptr;
  }
  /// The names of those joints (for suggestions); empty for contexts that hold no joints.
  virtual std::vector<std::string> constraintNames() const { return {}; }

  // ---- conveniences built on the above ----
  /// A fixed-size vector of numeric fields; `dim` 2 or 3 (a 2-vector gets z = 0 when
  /// `allowShorter`). @throws InputError on wrong length.
  Vector3d vector3(const JsonCursor& c, bool allowTwo = true) const;
  /// A list of numbers.
  std::vector<double> numbers(const JsonCursor& c) const;
  /// A square matrix of numbers (n x n), or a list of n numbers meaning a diagonal when `allowDiagonal`.
  MatrixXd matrix(const JsonCursor& c, int n, bool allowDiagonal = false) const;
  /// A numeric field if present, else `fallback`.
  double numberOr(const JsonCursor& parent, const std::string& key, double fallback) const;
  /// Parses an expression field (a string or a number) at `c` with the parameters in scope
  /// plus the variables of `variables` (their slots as numbered there).
  /// @throws InputError with the path and text.
  Expression expression(const JsonCursor& c, const SymbolTable& variables) const;
};

/// A registered type: its factory, a one-line summary and an example definition (used by the
/// conformance test and the docs; joints' examples name bodies "body1" and "body2").
template <class T>
struct TypeInfo {
  using Factory = std::function<std::unique_ptr<T>(const JsonCursor&, const FactoryContext&)>;
  std::string name;
  Factory factory;
  std::string summary;
  nlohmann::json example;
};

/// Registry of one kind of type (bodies, constraints, force elements).
template <class T>
class Registry {
 public:
  static Registry& instance() {
    static Registry r;
    return r;
  }
  /// Registers a type; returns true (for static initialisers). A duplicate name is a bug: abort.
  bool add(TypeInfo<T> info);
  const TypeInfo<T>* find(const std::string& name) const;
  std::vector<std::string> names() const;
  /// Dispatches on the field "type" of `c`. @throws InputError for a missing or unknown type
  /// (with "did you mean" and the list of known types).
  std::unique_ptr<T> create(const JsonCursor& c, const FactoryContext& ctx) const;

 private:
  std::map<std::string, TypeInfo<T>> types_;
};

using BodyRegistry = Registry<Body>;
using ConstraintRegistry = Registry<Constraint>;
using ForceRegistry = Registry<ForceElement>;

extern template class Registry<Body>;
extern template class Registry<Constraint>;
extern template class Registry<ForceElement>;

}  // namespace joinery

#define JOINERY_REGISTRY_CONCAT_(a, b) a##b
#define JOINERY_REGISTRY_CONCAT(a, b) JOINERY_REGISTRY_CONCAT_(a, b)
/// Registers a type from its own .cpp file: JOINERY_REGISTER(BodyRegistry, {"particle", factory, "summary", example});
#define JOINERY_REGISTER(RegistryType, ...)                                        \
  namespace {                                                                      \
  const bool JOINERY_REGISTRY_CONCAT(joinery_registered_, __COUNTER__) =          \
      ::joinery::RegistryType::instance().add(__VA_ARGS__);                        \
  }
