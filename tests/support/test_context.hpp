#pragma once
// A FactoryContext for tests: bodies by name, parameters as constants; numeric fields may be
// numbers or expressions over the parameters.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "joinery/core/ground.hpp"
#include "joinery/core/registry.hpp"

namespace joinery::test {

class TestContext : public FactoryContext {
 public:
  TestContext() = default;
  void addBody(const Body& b) { bodies_[b.name()] = &b; }
  void setParameter(const std::string& name, double v) { params_.setConstant(name, v); }
  /// Makes a joint visible to the factories of later joints (findConstraint).
  void addConstraint(const Constraint& c) { constraints_.push_back(&c); }

  double number(const JsonCursor& c) const override {
    if (c.value().is_number()) return c.number();
    if (c.value().is_string()) {
      const double v = expression(c, SymbolTable()).evaluate(nullptr);
      if (!std::isfinite(v)) c.fail("an expression with a finite value");
      return v;
    }
    c.fail("a number or an expression string");
  }
  const Body& body(const JsonCursor& c) const override {
    const std::string n = c.string();
    if (const Body* b = findBody(n)) return *b;
    c.failWith("unknown body '" + n + "'");
  }
  const Body* findBody(const std::string& name) const override {
    if (name == "ground") return &ground_;
    auto it = bodies_.find(name);
    return it == bodies_.end() ? nullptr : it->second;
  }
  const SymbolTable& parameters() const override { return params_; }
  const Constraint* findConstraint(const std::string& name) const override {
    for (const Constraint* c : constraints_)
      if (c->name() == name) return c;
    return nullptr;
  }
  std::vector<std::string> constraintNames() const override {
    std::vector<std::string> out;
    for (const Constraint* c : constraints_) out.push_back(c->name());
    return out;
  }
  const GroundBody& ground() const { return ground_; }

 private:
  GroundBody ground_;
  std::map<std::string, const Body*> bodies_;
  std::vector<const Constraint*> constraints_;
  SymbolTable params_;
};

/// Creates a registered type from JSON (throws what the factory throws).
template <class T>
std::unique_ptr<T> create(const nlohmann::json& j, const FactoryContext& ctx) {
  return Registry<T>::instance().create(JsonCursor(j, "test.json"), ctx);
}

}  // namespace joinery::test
