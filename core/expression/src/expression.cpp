// Scalar expressions (docs/expressions.md): the public side. Parsing (expression_parser.cpp)
// builds GiNaC forms, which give exact symbolic derivatives (expression_symbolic.cpp); the
// compiler (expression_compile.cpp) turns a form into a flat postfix program evaluated over a
// fixed-size stack (no allocation, no GiNaC on the hot path).

#include "joinery/core/expression.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <utility>

#include "expression_internal.hpp"

namespace joinery {

// ---- errors and the symbol table ------------------------------------------------------------

namespace {
std::string composeExpressionMessage(const std::string& message, const std::string& text,
                                     std::size_t position) {
  std::string out = message;
  out.append(" (in \"").append(text).append("\"");
  if (position != std::string::npos) out.append(", column ").append(std::to_string(position + 1));
  out.append(")");
  return out;
}
}  // namespace

ExpressionError::ExpressionError(const std::string& message, std::string text, std::size_t position)
    : Error(composeExpressionMessage(message, text, position)),
      text_(std::move(text)),
      detail_(message),
      position_(position) {}

void SymbolTable::setConstant(const std::string& name, double value) {
  const auto [it, added] = constantIndex_.emplace(name, constants_.size());
  if (added) {
    constants_.emplace_back(name, value);
  } else {
    constants_[it->second].second = value;
  }
}

int SymbolTable::addVariable(const std::string& name) {
  const auto [it, added] = variableIndex_.emplace(name, variables_.size());
  if (added) variables_.push_back(name);
  return static_cast<int>(it->second);
}

int SymbolTable::findVariable(const std::string& name) const {
  const auto it = variableIndex_.find(name);
  return it == variableIndex_.end() ? -1 : static_cast<int>(it->second);
}

bool SymbolTable::hasConstant(const std::string& name) const { return constantIndex_.count(name) > 0; }

double SymbolTable::constant(const std::string& name) const {
  const auto it = constantIndex_.find(name);
  if (it == constantIndex_.end()) throw ExpressionError("unknown constant '" + name + "'", name);
  return constants_[it->second].second;
}

std::vector<std::string> SymbolTable::allNames() const {
  std::vector<std::string> names;
  names.reserve(constants_.size() + variables_.size());
  for (const auto& c : constants_) names.push_back(c.first);
  names.insert(names.end(), variables_.begin(), variables_.end());
  return names;
}

namespace detail {

// GiNaC is not thread-safe (reference counts, shared numeric flyweights): every use of it in
// this file, including destruction of GiNaC objects, holds this lock. Evaluation never does.
std::recursive_mutex& ginacMutex() {
  static std::recursive_mutex m;
  return m;
}

}  // namespace detail

// ---- Expression -----------------------------------------------------------------------------

Expression::Expression(std::shared_ptr<const detail::ExpressionImpl> impl)
    : impl_(std::move(impl)) {}

Expression::Expression() {
  // one shared zero, never destroyed (no GiNaC object inside, so no teardown-order issue)
  static const auto* zero =
      new std::shared_ptr<const detail::ExpressionImpl>(detail::makeConstant(0.0));
  impl_ = *zero;
}

Expression Expression::constant(double value) { return Expression(detail::makeConstant(value)); }

Expression Expression::parse(const std::string& text, const SymbolTable& symbols) {
  std::lock_guard<std::recursive_mutex> lock(detail::ginacMutex());
  std::shared_ptr<const detail::SymbolSet> used;
  const GiNaC::ex form = detail::parseForm(text, symbols, used);
  detail::checkSize(form, "expression", text);
  return Expression(detail::makeImpl(form, std::move(used), text));
}

double Expression::evaluate(const double* vars) const {
  const detail::ExpressionImpl& impl = *impl_;
  if (impl.affine) {
    double r = impl.affineConstant;
    for (const detail::AffineTerm& term : impl.affineTerms) r += term.coefficient * vars[term.slot];
    return r;
  }
  if (impl.program.size() == 1 && impl.program.front().op == detail::Op::Const) {
    return impl.program.front().value;
  }
  std::array<double, detail::kMaxStack> stack;
  return detail::run(impl.program.data(), impl.program.data() + impl.program.size(), vars,
                     stack.data());
}

Expression Expression::derivative(int slot) const {
  if (!dependsOn(slot)) return Expression();
  std::lock_guard<std::recursive_mutex> lock(detail::ginacMutex());
  const GiNaC::realsymbol* sym = impl_->symbols->find(slot);
  const std::string text = impl_->text.empty() ? std::string("(a derivative)") : impl_->text;
  detail::checkDerivativeEstimate(*impl_->form, text);
  GiNaC::ex d;
  try {
    d = impl_->form->diff(*sym);
  } catch (const std::exception& ex) {
    throw ExpressionError(std::string("cannot differentiate: ") + ex.what(), toString());
  }
  detail::checkSize(d, "its derivative", text);
  return Expression(detail::makeImpl(d, impl_->symbols, {}));
}

bool Expression::dependsOn(int slot) const {
  if (!impl_->hasVariables) return false;
  return std::any_of(impl_->program.begin(), impl_->program.end(), [slot](const detail::Instr& i) {
    return detail::readsVariable(i, slot);
  });
}

bool Expression::isConstant() const { return !impl_->hasVariables; }

std::string Expression::toString() const {
  if (!impl_->text.empty() || !impl_->form) return impl_->text;
  std::lock_guard<std::recursive_mutex> lock(detail::ginacMutex());
  return detail::printForm(*impl_->form);
}

std::string Expression::print(const std::vector<std::string>& variableNames) const {
  if (!impl_->form) return impl_->text;  // a constant: its shortest double form
  std::lock_guard<std::recursive_mutex> lock(detail::ginacMutex());
  GiNaC::exmap renames;
  if (impl_->symbols) {
    for (const auto& [slot, sym] : impl_->symbols->entries) {
      if (slot < 0 || static_cast<std::size_t>(slot) >= variableNames.size()) continue;
      renames[sym] = GiNaC::symbol(variableNames[static_cast<std::size_t>(slot)]);
    }
  }
  return detail::printForm(renames.empty() ? *impl_->form : impl_->form->subs(renames));
}

}  // namespace joinery
