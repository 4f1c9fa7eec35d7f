#include "joinery/core/registry.hpp"

#include <cstdlib>
#include <iostream>

namespace joinery {

template <class T>
bool Registry<T>::add(TypeInfo<T> info) {
  if (types_.count(info.name)) {
    // Internal invariant: two types with one name is a programming error, found at start-up.
    std::cerr << "joinery: type '" << info.name << "' registered twice\n";
    std::abort();
  }
  std::string key = info.name;
  types_.emplace(std::move(key), std::move(info));
  return true;
}

template <class T>
const TypeInfo<T>* Registry<T>::find(const std::string& name) const {
  auto it = types_.find(name);
  return it == types_.end() ? nullptr : &it->second;
}

template <class T>
std::vector<std::string> Registry<T>::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : types_) out.push_back(k);
  return out;
}

template <class T>
std::unique_ptr<T> Registry<T>::create(const JsonCursor& c, const FactoryContext& ctx) const {
  c.requireObject();
  const std::string type = c.at("type").string();
  const TypeInfo<T>* info = find(type);
  if (!info) {
    std::string list;
    for (const auto& n : names()) list += (list.empty() ? "" : ", ") + n;
    c.at("type").failWith("unknown type '" + type + "'" + didYouMean(type, names()) +
                          " (known types: " + list + ")");
  }
  return info->factory(c, ctx);
}

template class Registry<Body>;
template class Registry<Constraint>;
template class Registry<ForceElement>;

// ---- FactoryContext conveniences -------------------------------------------------------

Vector3d FactoryContext::vector3(const JsonCursor& c, bool allowTwo) const {
  c.requireArray();
  if (!(c.size() == 3 || (allowTwo && c.size() == 2)))
    c.fail(allowTwo ? "an array of 2 or 3 numbers" : "an array of 3 numbers");
  Vector3d v = Vector3d::Zero();
  for (std::size_t i = 0; i < c.size(); ++i) v(static_cast<int>(i)) = number(c.at(i));
  return v;
}

std::vector<double> FactoryContext::numbers(const JsonCursor& c) const {
  c.requireArray();
  std::vector<double> out;
  for (std::size_t i = 0; i < c.size(); ++i) out.push_back(number(c.at(i)));
  return out;
}

MatrixXd FactoryContext::matrix(const JsonCursor& c, int n, bool allowDiagonal) const {
  c.requireArray();
  const auto un = static_cast<std::size_t>(n);
  if (c.size() != un)
    c.failWith("has " + std::to_string(c.size()) + " rows; expected " + std::to_string(n));
  MatrixXd M = MatrixXd::Zero(n, n);
  if (allowDiagonal && n > 0 && !c.value()[0].is_array()) {
    for (int i = 0; i < n; ++i) M(i, i) = number(c.at(static_cast<std::size_t>(i)));
    return M;
  }
  for (int i = 0; i < n; ++i) {
    JsonCursor row = c.at(static_cast<std::size_t>(i));
    row.requireArray();
    if (row.size() != un)
      row.failWith("has " + std::to_string(row.size()) + " entries; expected " + std::to_string(n));
    for (int j = 0; j < n; ++j) M(i, j) = number(row.at(static_cast<std::size_t>(j)));
  }
  return M;
}

double FactoryContext::numberOr(const JsonCursor& parent, const std::string& key,
                                double fallback) const {
  return parent.has(key) ? number(parent.at(key)) : fallback;
}

Expression FactoryContext::expression(const JsonCursor& c, const SymbolTable& variables) const {
  if (c.value().is_number()) return Expression::constant(c.number());
  if (!c.value().is_string()) c.fail("an expression (a string or a number)");
  SymbolTable table = variables;
  for (const auto& [name, value] : parameters().constants())
    if (table.findVariable(name) < 0) table.setConstant(name, value);
  try {
    return Expression::parse(c.string(), table);
  } catch (const ExpressionError& e) {
    std::string msg = "in expression \"" + e.text() + "\": " + e.detail();
    c.failWith(msg);
  }
}

}  // namespace joinery
