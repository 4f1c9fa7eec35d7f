// The symbolic side of expressions: the GiNaC functions the language needs with
// real-variable semantics, printing a form in the language, and the size limit of a form.
// See docs/expressions.md.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "expression_internal.hpp"

// GiNaC's own abs() differentiates to x/abs(x) (NaN at 0) and it has no sign/min/max, so these
// are defined here. They fold for real numeric arguments and print under their language names.
// `le(a, b)` (1 when a <= b, else 0) appears only in derivatives of min and max.
namespace joinery::detail::gx {

namespace {

bool isRealNumber(const GiNaC::ex& e) {
  return GiNaC::is_exactly_a<GiNaC::numeric>(e) && GiNaC::ex_to<GiNaC::numeric>(e).is_real();
}
const GiNaC::numeric& num(const GiNaC::ex& e) { return GiNaC::ex_to<GiNaC::numeric>(e); }

GiNaC::ex absEval(const GiNaC::ex& x) {
  if (isRealNumber(x)) return GiNaC::abs(num(x));
  return joinery_abs(x).hold();
}
GiNaC::ex absDeriv(const GiNaC::ex& x, unsigned /*param*/) { return joinery_sign(x); }

GiNaC::ex signEval(const GiNaC::ex& x) {
  if (isRealNumber(x)) return num(x).is_zero() ? 0 : (num(x).is_positive() ? 1 : -1);
  return joinery_sign(x).hold();
}
GiNaC::ex signDeriv(const GiNaC::ex& /*x*/, unsigned /*param*/) { return 0; }

// min(a, b) = a when a <= b, else b: the derivative follows the selected branch.
GiNaC::ex minEval(const GiNaC::ex& a, const GiNaC::ex& b) {
  if (isRealNumber(a) && isRealNumber(b)) return num(a) <= num(b) ? a : b;
  if (a.is_equal(b)) return a;
  return joinery_min(a, b).hold();
}
GiNaC::ex minDeriv(const GiNaC::ex& a, const GiNaC::ex& b, unsigned param) {
  return param == 0 ? GiNaC::ex(joinery_le(a, b)) : 1 - joinery_le(a, b);
}
// max(a, b) = a when a >= b, else b.
GiNaC::ex maxEval(const GiNaC::ex& a, const GiNaC::ex& b) {
  if (isRealNumber(a) && isRealNumber(b)) return num(a) >= num(b) ? a : b;
  if (a.is_equal(b)) return a;
  return joinery_max(a, b).hold();
}
GiNaC::ex maxDeriv(const GiNaC::ex& a, const GiNaC::ex& b, unsigned param) {
  return param == 0 ? GiNaC::ex(joinery_le(b, a)) : 1 - joinery_le(b, a);
}

GiNaC::ex leEval(const GiNaC::ex& a, const GiNaC::ex& b) {
  if (isRealNumber(a) && isRealNumber(b)) return num(a) <= num(b) ? 1 : 0;
  return joinery_le(a, b).hold();
}
GiNaC::ex leDeriv(const GiNaC::ex&, const GiNaC::ex&, unsigned) { return 0; }

void print1(const char* name, const GiNaC::ex& x, const GiNaC::print_context& c) {
  c.s << name << '(';
  x.print(c);
  c.s << ')';
}
void print2(const char* name, const GiNaC::ex& a, const GiNaC::ex& b,
            const GiNaC::print_context& c) {
  c.s << name << '(';
  a.print(c);
  c.s << ", ";
  b.print(c);
  c.s << ')';
}
void absPrint(const GiNaC::ex& x, const GiNaC::print_context& c) { print1("abs", x, c); }
void signPrint(const GiNaC::ex& x, const GiNaC::print_context& c) { print1("sign", x, c); }
void minPrint(const GiNaC::ex& a, const GiNaC::ex& b, const GiNaC::print_context& c) {
  print2("min", a, b, c);
}
void maxPrint(const GiNaC::ex& a, const GiNaC::ex& b, const GiNaC::print_context& c) {
  print2("max", a, b, c);
}
void lePrint(const GiNaC::ex& a, const GiNaC::ex& b, const GiNaC::print_context& c) {
  print2("le", a, b, c);
}

}  // namespace

REGISTER_FUNCTION(
    joinery_abs,
    eval_func(absEval).derivative_func(absDeriv).print_func<GiNaC::print_context>(absPrint))
REGISTER_FUNCTION(
    joinery_sign,
    eval_func(signEval).derivative_func(signDeriv).print_func<GiNaC::print_context>(signPrint))
REGISTER_FUNCTION(
    joinery_min,
    eval_func(minEval).derivative_func(minDeriv).print_func<GiNaC::print_context>(minPrint))
REGISTER_FUNCTION(
    joinery_max,
    eval_func(maxEval).derivative_func(maxDeriv).print_func<GiNaC::print_context>(maxPrint))
REGISTER_FUNCTION(
    joinery_le,
    eval_func(leEval).derivative_func(leDeriv).print_func<GiNaC::print_context>(lePrint))

}  // namespace joinery::detail::gx

namespace joinery::detail {

namespace {

// Printing only: replaces floating-point numbers by symbols named with their shortest
// double form (GiNaC would print "0.2000000000000000111"), and Pi by a symbol "pi" (GiNaC
// prints "Pi"), so that a printed derivative reads in the language.
struct ForPrinting : GiNaC::map_function {
  GiNaC::ex operator()(const GiNaC::ex& x) override {
    if (GiNaC::is_a<GiNaC::constant>(x) && x.is_equal(GiNaC::Pi)) return GiNaC::symbol("pi");
    if (GiNaC::is_exactly_a<GiNaC::numeric>(x)) {
      const GiNaC::numeric& n = GiNaC::ex_to<GiNaC::numeric>(x);
      if (!n.is_real() || n.is_rational()) return x;
      double v = 0.0;
      try {
        v = numericToDouble(n);
      } catch (const std::exception&) {
        return x;
      }
      const GiNaC::symbol s(formatExact(std::fabs(v)));
      return v < 0 ? -s : GiNaC::ex(s);
    }
    return x.map(*this);
  }
};

}  // namespace

// GiNaC orders the terms of a sum by hash values that depend on where the program is loaded
// (ASLR), so the same expression printed in two runs read "-50+50*b-100*a" once and
// "-50-100*a+50*b" the next (a completed scene's balance, and with it the order of a loop in
// `joinery graph`, changed from run to run). The terms of a sum at the top are listed in a
// fixed order: the constant first, then by their text without the sign.
std::string printForm(const GiNaC::ex& form) {
  ForPrinting forPrinting;
  const GiNaC::ex f = forPrinting(form);
  std::ostringstream os;
  if (!GiNaC::is_exactly_a<GiNaC::add>(f)) {
    os << f;
    return os.str();
  }
  struct Term {
    bool constant;
    std::string text;
  };
  std::vector<Term> terms;
  for (std::size_t i = 0; i < f.nops(); ++i) {
    std::ostringstream t;
    t << f.op(i);
    terms.push_back({GiNaC::is_exactly_a<GiNaC::numeric>(f.op(i)), t.str()});
  }
  const auto unsigned_ = [](const std::string& s) { return s.empty() || s[0] != '-' ? s : s.substr(1); };
  std::stable_sort(terms.begin(), terms.end(), [&](const Term& a, const Term& b) {
    if (a.constant != b.constant) return a.constant;
    const std::string ua = unsigned_(a.text), ub = unsigned_(b.text);
    return ua != ub ? ua < ub : a.text < b.text;
  });
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i > 0 && (terms[i].text.empty() || terms[i].text[0] != '-')) os << '+';
    os << terms[i].text;
  }
  return os.str();
}

namespace {

// Nodes of a form counted as a tree (what the compiler walks), without recursion, stopping
// as soon as the count passes `cap`.
std::size_t countNodes(const GiNaC::ex& form, std::size_t cap) {
  std::vector<GiNaC::ex> todo{form};
  std::size_t count = 0;
  while (!todo.empty() && count <= cap) {
    const GiNaC::ex e = todo.back();
    todo.pop_back();
    ++count;
    for (std::size_t i = 0; i < e.nops(); ++i) todo.push_back(e.op(i));
  }
  return count;
}

/// The tree sizes of a form and of its derivative, estimated bottom-up without recursion:
///   leaf 1 | sum: 1 + sum d_i | product of k factors: sum_i (d_i + size - s_i) + 1 (each
///   term the product with one factor differentiated) | power and function: sum_i (d_i + 2
///   size + 4) (the chain rule repeats the arguments in the outer derivative).
/// Stops with +inf once the derivative estimate passes `cap` or the walk passes `maxWalk`.
double estimateDerivativeNodes(const GiNaC::ex& form, double cap, std::size_t maxWalk) {
  struct Frame {
    GiNaC::ex e;
    std::size_t next = 0;
    double sizes = 0, derivatives = 0;  // sums over the children done
  };
  std::vector<Frame> stack{{form}};
  std::size_t walked = 0;
  double size = 0, derivative = 0;  // of the node just finished
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.e.nops()) {
      if (++walked > maxWalk) return std::numeric_limits<double>::infinity();
      GiNaC::ex child = f.e.op(f.next++);
      stack.push_back({std::move(child)});
      continue;
    }
    const auto k = static_cast<double>(f.e.nops());
    size = 1 + f.sizes;
    if (k == 0)
      derivative = 1;
    else if (GiNaC::is_a<GiNaC::add>(f.e))
      derivative = 1 + f.derivatives;
    else if (GiNaC::is_a<GiNaC::mul>(f.e))
      derivative = 1 + f.derivatives + k * size - f.sizes;
    else
      derivative = f.derivatives + k * (2 * size + 4);
    if (derivative > cap) return std::numeric_limits<double>::infinity();
    stack.pop_back();
    if (!stack.empty()) {
      stack.back().sizes += size;
      stack.back().derivatives += derivative;
    }
  }
  return derivative;
}

}  // namespace

void checkDerivativeEstimate(const GiNaC::ex& form, const std::string& text) {
  const double limit = static_cast<double>(ExpressionLimits::maxNodes);
  const double cap = kDerivativeEstimateFactor * limit;
  if (!(estimateDerivativeNodes(form, cap, 4 * ExpressionLimits::maxNodes) <= cap)) {
    throw ExpressionError("its derivative has more than " + std::to_string(ExpressionLimits::maxNodes) +
                              " terms and operations (estimated before differentiating: over " +
                              std::to_string(static_cast<long long>(cap)) +
                              "); simplify it or split it with parameters",
                          text);
  }
}

void checkSize(const GiNaC::ex& form, const std::string& what, const std::string& text) {
  if (countNodes(form, ExpressionLimits::maxNodes) > ExpressionLimits::maxNodes) {
    throw ExpressionError(what + " has more than " + std::to_string(ExpressionLimits::maxNodes) +
                              " terms and operations; simplify it or split it with parameters",
                          text);
  }
}

}  // namespace joinery::detail
