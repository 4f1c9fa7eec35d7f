// Scalar expressions: a hand-written recursive-descent parser that builds GiNaC expressions
// (exact symbolic differentiation), and a compiler from GiNaC trees to a flat postfix program
// evaluated over a fixed-size stack (no allocation, no GiNaC on the hot path).
// See docs/expressions.md for the language and the design.

#include "joinery/core/expression.hpp"

#include <ginac/ginac.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>

#include "joinery/core/json_input.hpp"

// ---- GiNaC functions the language needs with real-variable semantics ------------------------
// GiNaC's own abs() differentiates to x/abs(x) (NaN at 0) and it has no sign/min/max, so these
// are defined here. They fold for real numeric arguments and print under their language names.
// `le(a, b)` (1 when a <= b, else 0) appears only in derivatives of min and max.
namespace joinery::detail::gx {

DECLARE_FUNCTION_1P(joinery_abs)
DECLARE_FUNCTION_1P(joinery_sign)
DECLARE_FUNCTION_2P(joinery_min)
DECLARE_FUNCTION_2P(joinery_max)
DECLARE_FUNCTION_2P(joinery_le)

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

// ---- the compiled form ----------------------------------------------------------------------

namespace detail {

namespace {

// GiNaC is not thread-safe (reference counts, shared numeric flyweights): every use of it in
// this file, including destruction of GiNaC objects, holds this lock. Evaluation never does.
std::recursive_mutex& ginacMutex() {
  static std::recursive_mutex m;
  return m;
}

constexpr int kMaxStack = 64;

enum class Op : std::uint8_t {
  Const,
  Var,
  Add,
  Sub,
  Mul,
  Div,
  Pow,  // binary: a op b, a pushed first
  Atan2,
  Min,
  Max,
  Le,  // binary functions, arguments in order
  Neg,
  Recip,
  PowInt,
  Sqrt,  // unary
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Tanh,
  Exp,
  Log,
  Abs,
  Sign,
  // fused forms made by fuseOperands(): the right operand of a binary operation read from the
  // instruction (a constant in `value`, or the variable of slot `arg`) instead of the stack
  AddC,
  SubC,
  MulC,
  DivC,
  AddV,
  SubV,
  MulV,
  DivV,
};

struct Instr {
  Op op;
  int arg = 0;         // variable slot (Var) or exponent (PowInt)
  double value = 0.0;  // Const
};

double powInt(double x, int n) {
  if (n == 2) return x * x;
  unsigned m = n < 0 ? 0u - static_cast<unsigned>(n) : static_cast<unsigned>(n);
  double r = 1.0;
  while (m != 0) {
    if (m & 1u) r *= x;
    x *= x;
    m >>= 1;
  }
  return n < 0 ? 1.0 / r : r;
}

// Runs a program whose stack need is at most the size of `stack`. Never allocates.
double run(const Instr* pc, const Instr* end, const double* vars, double* stack) {
  double* sp = stack;  // one past the top
  // clang-format off
  for (; pc != end; ++pc) {
    switch (pc->op) {
      case Op::Const: *sp++ = pc->value; break;
      case Op::Var: *sp++ = vars[pc->arg]; break;
      case Op::Add: sp[-2] += sp[-1]; --sp; break;
      case Op::Sub: sp[-2] -= sp[-1]; --sp; break;
      case Op::Mul: sp[-2] *= sp[-1]; --sp; break;
      case Op::Div: sp[-2] /= sp[-1]; --sp; break;
      case Op::Pow: sp[-2] = std::pow(sp[-2], sp[-1]); --sp; break;
      case Op::Atan2: sp[-2] = std::atan2(sp[-2], sp[-1]); --sp; break;
      // min/max select the first argument on ties; a NaN argument gives NaN
      case Op::Min: sp[-2] = (sp[-2] <= sp[-1] || std::isnan(sp[-2])) ? sp[-2] : sp[-1]; --sp; break;
      case Op::Max: sp[-2] = (sp[-2] >= sp[-1] || std::isnan(sp[-2])) ? sp[-2] : sp[-1]; --sp; break;
      case Op::Le: sp[-2] = sp[-2] <= sp[-1] ? 1.0 : 0.0; --sp; break;
      case Op::Neg: sp[-1] = -sp[-1]; break;
      case Op::Recip: sp[-1] = 1.0 / sp[-1]; break;
      case Op::PowInt: sp[-1] = powInt(sp[-1], pc->arg); break;
      case Op::Sqrt: sp[-1] = std::sqrt(sp[-1]); break;
      case Op::Sin: sp[-1] = std::sin(sp[-1]); break;
      case Op::Cos: sp[-1] = std::cos(sp[-1]); break;
      case Op::Tan: sp[-1] = std::tan(sp[-1]); break;
      case Op::Asin: sp[-1] = std::asin(sp[-1]); break;
      case Op::Acos: sp[-1] = std::acos(sp[-1]); break;
      case Op::Atan: sp[-1] = std::atan(sp[-1]); break;
      case Op::Sinh: sp[-1] = std::sinh(sp[-1]); break;
      case Op::Cosh: sp[-1] = std::cosh(sp[-1]); break;
      case Op::Tanh: sp[-1] = std::tanh(sp[-1]); break;
      case Op::Exp: sp[-1] = std::exp(sp[-1]); break;
      case Op::Log: sp[-1] = std::log(sp[-1]); break;
      case Op::Abs: sp[-1] = std::fabs(sp[-1]); break;
      case Op::Sign: sp[-1] = sp[-1] > 0.0 ? 1.0 : (sp[-1] < 0.0 ? -1.0 : sp[-1]); break;
      case Op::AddC: sp[-1] += pc->value; break;
      case Op::SubC: sp[-1] -= pc->value; break;
      case Op::MulC: sp[-1] *= pc->value; break;
      case Op::DivC: sp[-1] /= pc->value; break;
      case Op::AddV: sp[-1] += vars[pc->arg]; break;
      case Op::SubV: sp[-1] -= vars[pc->arg]; break;
      case Op::MulV: sp[-1] *= vars[pc->arg]; break;
      case Op::DivV: sp[-1] /= vars[pc->arg]; break;
    }
  }
  // clang-format on
  return sp[-1];
}

// Peephole pass over a finished program: a binary + - * / whose right operand is a single
// pushed constant or variable (the instruction just before it) becomes one fused instruction
// reading that operand directly. Same operations in the same order (bit-identical results),
// about half the dispatches for typical expressions, and never a deeper stack.
void fuseOperands(std::vector<Instr>& program) {
  std::vector<Instr> out;
  out.reserve(program.size());
  for (const Instr& in : program) {
    const bool binary = in.op == Op::Add || in.op == Op::Sub || in.op == Op::Mul || in.op == Op::Div;
    // the previous instruction must be a plain push that is the right operand: any plain
    // Const/Var directly before a binary operation is (postfix order)
    if (binary && out.size() >= 2 && (out.back().op == Op::Const || out.back().op == Op::Var)) {
      const Instr leaf = out.back();
      out.pop_back();
      const int k = in.op == Op::Add ? 0 : in.op == Op::Sub ? 1 : in.op == Op::Mul ? 2 : 3;
      static constexpr std::array<Op, 4> kConst{Op::AddC, Op::SubC, Op::MulC, Op::DivC};
      static constexpr std::array<Op, 4> kVar{Op::AddV, Op::SubV, Op::MulV, Op::DivV};
      Instr f = leaf;
      f.op = leaf.op == Op::Const ? kConst[static_cast<std::size_t>(k)] : kVar[static_cast<std::size_t>(k)];
      out.push_back(f);
      continue;
    }
    out.push_back(in);
  }
  program = std::move(out);
}

bool readsVariable(const Instr& i, int slot) {
  switch (i.op) {
    case Op::Var:
    case Op::AddV:
    case Op::SubV:
    case Op::MulV:
    case Op::DivV:
      return i.arg == slot;
    default:
      return false;
  }
}

// The variables an expression uses, as GiNaC symbols named after them. Shared by an
// expression and its derivatives.
struct SymbolSet {
  std::vector<std::pair<int, GiNaC::realsymbol>> entries;  // (slot, symbol)

  SymbolSet() = default;
  SymbolSet(const SymbolSet&) = delete;
  SymbolSet& operator=(const SymbolSet&) = delete;
  ~SymbolSet() {
    std::lock_guard<std::recursive_mutex> lock(ginacMutex());
    entries.clear();
  }
  const GiNaC::realsymbol* find(int slot) const {
    for (const auto& [s, sym] : entries) {
      if (s == slot) return &sym;
    }
    return nullptr;
  }
};

std::string formatDouble(double v) {
  std::array<char, 32> buf{};
  const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), res.ptr);
}

}  // namespace

/// One term c * x of an affine expression.
struct AffineTerm {
  int slot = 0;
  double coefficient = 0.0;
};

struct ExpressionImpl {
  std::vector<Instr> program;
  int stackDepth = 1;
  bool hasVariables = false;
  // Affine expressions c0 + sum c_i x_i (springs, dampers, linear forces and couplings) skip
  // the program: a direct loop is several times faster for these short, frequent forms.
  bool affine = false;
  double affineConstant = 0.0;
  std::vector<AffineTerm> affineTerms;
  std::optional<GiNaC::ex> form;  // empty for Expression::constant()
  std::shared_ptr<const SymbolSet> symbols;
  std::string text;  // source, or the printed form of a constant; empty: print `form`

  ExpressionImpl() = default;
  ExpressionImpl(const ExpressionImpl&) = delete;
  ExpressionImpl& operator=(const ExpressionImpl&) = delete;
  ~ExpressionImpl() {
    if (form) {
      std::lock_guard<std::recursive_mutex> lock(ginacMutex());
      form.reset();
    }
  }
};

namespace {

// ---- compiler: GiNaC tree -> postfix program ------------------------------------------------

struct Code {
  std::vector<Instr> ins;
  int depth = 0;  // stack slots needed
  bool hasVar = false;
};

class Compiler {
 public:
  explicit Compiler(const SymbolSet* symbols) : symbols_(symbols) {}

  Code compile(const GiNaC::ex& e) {
    Code c = compileNode(e);
    fold(c);
    return c;
  }

 private:
  static double toDouble(const GiNaC::numeric& n) {
    if (!n.is_real()) return std::numeric_limits<double>::quiet_NaN();
    try {
      return n.to_double();
    } catch (const std::exception&) {
      // cln refuses out-of-range conversions: |n| beyond the double range or below it
      if (GiNaC::abs(n) > 1) return n.is_positive() ? HUGE_VAL : -HUGE_VAL;
      return 0.0;
    }
  }

  static Code leaf(Instr i) {
    Code c;
    c.hasVar = i.op == Op::Var;
    c.ins.push_back(i);
    c.depth = 1;
    return c;
  }
  static Code constant(double v) { return leaf(Instr{Op::Const, 0, v}); }

  // Replaces a variable-free program by its value.
  static void fold(Code& c) {
    if (c.hasVar || c.ins.size() <= 1) return;
    std::vector<double> stack(static_cast<std::size_t>(c.depth));
    const double v = run(c.ins.data(), c.ins.data() + c.ins.size(), nullptr, stack.data());
    c = constant(v);
  }

  static Code unary(Code c, Op op, int arg = 0) {
    c.ins.push_back(Instr{op, arg, 0.0});
    fold(c);
    return c;
  }

  static Code binary(Code a, const Code& b, Op op) {
    a.depth = std::max(a.depth, b.depth + 1);
    a.hasVar = a.hasVar || b.hasVar;
    a.ins.insert(a.ins.end(), b.ins.begin(), b.ins.end());
    a.ins.push_back(Instr{op, 0, 0.0});
    fold(a);
    return a;
  }

  // A chain a0 op1 a1 op2 a2 ...: `first` is applied to a0 (Neg, Recip or Const for none).
  static Code chain(std::vector<std::pair<Code, Op>>& items, Op first) {
    Code out = std::move(items.front().first);
    if (first != Op::Const) out.ins.push_back(Instr{first, 0, 0.0});
    for (std::size_t i = 1; i < items.size(); ++i)
      out = binary(std::move(out), items[i].first, items[i].second);
    fold(out);
    return out;
  }

  static bool isNegativeReal(const GiNaC::ex& e) {
    return GiNaC::is_exactly_a<GiNaC::numeric>(e) && GiNaC::ex_to<GiNaC::numeric>(e).is_real() &&
           GiNaC::ex_to<GiNaC::numeric>(e).is_negative();
  }

  static void sortByDepth(std::vector<std::pair<Code, Op>>& v) {
    // deepest first keeps the stack need minimal (Sethi-Ullman)
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.first.depth > b.first.depth; });
  }

  Code compileAdd(const GiNaC::ex& e) {
    std::vector<std::pair<Code, Op>> pos, neg;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      const GiNaC::ex term = e.op(i);
      bool negative = isNegativeReal(term);
      if (GiNaC::is_exactly_a<GiNaC::mul>(term) && isNegativeReal(term.op(term.nops() - 1)))
        negative = true;
      if (negative) {
        neg.emplace_back(compileNode(-term), Op::Sub);
      } else {
        pos.emplace_back(compileNode(term), Op::Add);
      }
    }
    sortByDepth(pos);
    sortByDepth(neg);
    Op first = Op::Const;
    if (pos.empty()) first = Op::Neg;
    for (auto& n : neg) pos.push_back(std::move(n));
    return chain(pos, first);
  }

  Code compileMul(const GiNaC::ex& e) {
    std::vector<std::pair<Code, Op>> num, den;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      const GiNaC::ex f = e.op(i);
      if (GiNaC::is_exactly_a<GiNaC::power>(f) && isNegativeReal(f.op(1))) {
        den.emplace_back(compileNode(GiNaC::pow(f.op(0), -f.op(1))), Op::Div);
      } else {
        num.emplace_back(compileNode(f), Op::Mul);
      }
    }
    sortByDepth(num);
    sortByDepth(den);
    Op first = Op::Const;
    if (num.empty()) first = Op::Recip;
    for (auto& d : den) num.push_back(std::move(d));
    return chain(num, first);
  }

  Code compilePower(const GiNaC::ex& e) {
    const GiNaC::ex base = e.op(0);
    const GiNaC::ex expo = e.op(1);
    if (GiNaC::is_exactly_a<GiNaC::numeric>(expo) && GiNaC::ex_to<GiNaC::numeric>(expo).is_real()) {
      const GiNaC::numeric& n = GiNaC::ex_to<GiNaC::numeric>(expo);
      const double v = toDouble(n);
      constexpr double kMaxIntExponent = 1 << 20;
      if (v == std::floor(v) && std::fabs(v) <= kMaxIntExponent) {
        const int k = static_cast<int>(v);
        if (k == 1) return compileNode(base);
        if (k == -1) return unary(compileNode(base), Op::Recip);
        return unary(compileNode(base), Op::PowInt, k);
      }
      if (v == 0.5) return unary(compileNode(base), Op::Sqrt);
      if (v == -0.5) return unary(unary(compileNode(base), Op::Sqrt), Op::Recip);
    }
    return binary(compileNode(base), compileNode(expo), Op::Pow);
  }

  Code compileFunction(const GiNaC::ex& e) {
    const GiNaC::function& f = GiNaC::ex_to<GiNaC::function>(e);
    const std::string name = f.get_name();
    struct Entry {
      const char* name;
      Op op;
    };
    static constexpr std::array<Entry, 15> kUnary{{
        {"sin", Op::Sin},
        {"cos", Op::Cos},
        {"tan", Op::Tan},
        {"asin", Op::Asin},
        {"acos", Op::Acos},
        {"atan", Op::Atan},
        {"sinh", Op::Sinh},
        {"cosh", Op::Cosh},
        {"tanh", Op::Tanh},
        {"exp", Op::Exp},
        {"log", Op::Log},
        {"abs", Op::Abs},
        {"joinery_abs", Op::Abs},
        {"joinery_sign", Op::Sign},
        {"csgn", Op::Sign},
    }};
    static constexpr std::array<Entry, 4> kBinary{{
        {"atan2", Op::Atan2},
        {"joinery_min", Op::Min},
        {"joinery_max", Op::Max},
        {"joinery_le", Op::Le},
    }};
    for (const Entry& u : kUnary) {
      if (name == u.name && e.nops() == 1) return unary(compileNode(e.op(0)), u.op);
    }
    for (const Entry& b : kBinary) {
      if (name == b.name && e.nops() == 2) {
        return binary(compileNode(e.op(0)), compileNode(e.op(1)), b.op);
      }
    }
    throw std::logic_error("cannot compile the function '" + name + "'");
  }

  Code compileNode(const GiNaC::ex& e) {
    if (GiNaC::is_exactly_a<GiNaC::numeric>(e))
      return constant(toDouble(GiNaC::ex_to<GiNaC::numeric>(e)));
    if (GiNaC::is_a<GiNaC::symbol>(e)) {
      for (const auto& [slot, sym] : symbols_->entries) {
        if (e.is_equal(sym)) return leaf(Instr{Op::Var, slot, 0.0});
      }
      throw std::logic_error("unknown symbol '" + GiNaC::ex_to<GiNaC::symbol>(e).get_name() + "'");
    }
    if (GiNaC::is_a<GiNaC::constant>(e)) {  // pi
      return constant(toDouble(GiNaC::ex_to<GiNaC::numeric>(e.evalf())));
    }
    if (GiNaC::is_exactly_a<GiNaC::add>(e)) return compileAdd(e);
    if (GiNaC::is_exactly_a<GiNaC::mul>(e)) return compileMul(e);
    if (GiNaC::is_exactly_a<GiNaC::power>(e)) return compilePower(e);
    if (GiNaC::is_a<GiNaC::function>(e)) return compileFunction(e);
    std::ostringstream os;
    os << e;
    throw std::logic_error("cannot compile '" + os.str() + "'");
  }

  const SymbolSet* symbols_;
};

std::string printForm(const GiNaC::ex& form);

// Recognizes c0 + sum c_i x_i with real numeric c's (GiNaC distributes numeric factors over
// sums, so "-k*(x - L0) - c*x_dot" arrives as 20 - 40*x - 0.3*x_dot). Fills impl's affine
// fields and returns true, or leaves them and returns false.
bool collectAffine(const GiNaC::ex& form, const SymbolSet& symbols, ExpressionImpl& impl) {
  double c0 = 0.0;
  std::vector<AffineTerm> terms;
  auto realValue = [](const GiNaC::ex& e, double& v) {
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(e)) return false;
    const GiNaC::numeric& n = GiNaC::ex_to<GiNaC::numeric>(e);
    if (!n.is_real()) return false;
    try {
      v = n.to_double();
    } catch (const std::exception&) {
      return false;
    }
    return std::isfinite(v);
  };
  auto slotOf = [&](const GiNaC::ex& e, int& slot) {
    if (!GiNaC::is_a<GiNaC::symbol>(e)) return false;
    for (const auto& [s, sym] : symbols.entries) {
      if (e.is_equal(sym)) {
        slot = s;
        return true;
      }
    }
    return false;
  };
  auto term = [&](const GiNaC::ex& e, bool constantAllowed) {
    double v = 0.0;
    int slot = 0;
    if (realValue(e, v)) {
      if (!constantAllowed) return false;
      c0 += v;
      return true;
    }
    if (slotOf(e, slot)) {
      terms.push_back({slot, 1.0});
      return true;
    }
    if (GiNaC::is_exactly_a<GiNaC::mul>(e) && e.nops() == 2) {
      for (int k = 0; k < 2; ++k) {
        if (slotOf(e.op(static_cast<std::size_t>(k)), slot) && realValue(e.op(static_cast<std::size_t>(1 - k)), v)) {
          terms.push_back({slot, v});
          return true;
        }
      }
    }
    return false;
  };
  if (GiNaC::is_exactly_a<GiNaC::add>(form)) {
    for (std::size_t i = 0; i < form.nops(); ++i) {
      if (!term(form.op(i), true)) return false;
    }
  } else if (!term(form, false)) {
    return false;
  }
  if (terms.empty()) return false;
  impl.affine = true;
  impl.affineConstant = c0;
  impl.affineTerms = std::move(terms);
  return true;
}

// Builds the impl for a GiNaC form (caller holds the GiNaC lock). `text` is the source (empty
// for a derivative, whose printed form then appears in errors).
std::shared_ptr<const ExpressionImpl> makeImpl(const GiNaC::ex& form,
                                               std::shared_ptr<const SymbolSet> symbols,
                                               std::string text) {
  auto impl = std::make_shared<ExpressionImpl>();
  Code code;
  const auto what = [&] { return text.empty() ? printForm(form) : text; };
  try {
    code = Compiler(symbols.get()).compile(form);
  } catch (const std::exception& ex) {
    throw ExpressionError(std::string("internal error: ") + ex.what(), what());
  }
  if (code.depth > kMaxStack) {
    throw ExpressionError("expression is nested too deeply: it needs " +
                              std::to_string(code.depth) +
                              " evaluation stack slots, the limit is " + std::to_string(kMaxStack),
                          what());
  }
  impl->program = std::move(code.ins);
  fuseOperands(impl->program);
  if (symbols) collectAffine(form, *symbols, *impl);
  impl->stackDepth = code.depth;
  impl->hasVariables = code.hasVar;
  impl->form = form;
  impl->symbols = std::move(symbols);
  impl->text = std::move(text);
  return impl;
}

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
        v = n.to_double();
      } catch (const std::exception&) {
        return x;
      }
      const GiNaC::symbol s(formatDouble(std::fabs(v)));
      return v < 0 ? -s : GiNaC::ex(s);
    }
    return x.map(*this);
  }
};

std::string printForm(const GiNaC::ex& form) {
  std::ostringstream os;
  ForPrinting forPrinting;
  os << forPrinting(form);
  return os.str();
}

// ---- parser ---------------------------------------------------------------------------------

enum class Tok { Number, Name, Op, End };

struct Token {
  Tok kind;
  std::size_t pos;
  std::string text;  // the name or number; the operator character for Op
};

bool isNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

std::string quoteChar(char c) {
  if (std::isprint(static_cast<unsigned char>(c))) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
  return std::string("byte ") + buf;
}

class Parser {
 public:
  Parser(const std::string& text, const SymbolTable& table)
      : text_(text), table_(table), symbols_(std::make_shared<SymbolSet>()) {}

  GiNaC::ex parse() {
    if (text_.size() > ExpressionLimits::maxLength) {
      fail("expression is " + std::to_string(text_.size()) + " characters long; the limit is " +
               std::to_string(ExpressionLimits::maxLength),
           std::string::npos);
    }
    tokenize();
    if (tokens_.front().kind == Tok::End) fail("empty expression", std::string::npos);
    GiNaC::ex e = parseSum();
    const Token& t = peek();
    if (t.kind != Tok::End) {
      if (t.kind == Tok::Op && t.text == ")") fail("syntax error: unmatched ')'", t.pos);
      if (t.kind == Tok::Op && t.text == ",")
        fail("syntax error: ',' outside a function call", t.pos);
      fail("syntax error: expected an operator before " + describe(t) + " (write '*' to multiply)",
           t.pos);
    }
    return e;
  }

  std::shared_ptr<const SymbolSet> symbols() const { return symbols_; }

 private:
  [[noreturn]] void fail(const std::string& detail, std::size_t pos) const {
    throw ExpressionError(detail, text_, pos);
  }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::End:
        return "the end of the text";
      case Tok::Number:
        return "the number " + t.text;
      case Tok::Name:
        return "the name '" + t.text + "'";
      case Tok::Op:
        return "'" + t.text + "'";
    }
    return {};
  }

  void tokenize() {
    const std::string& s = text_;
    std::size_t i = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      if (isDigit(c) || (c == '.' && i + 1 < s.size() && isDigit(s[i + 1]))) {
        const std::size_t start = i;
        while (i < s.size() && isDigit(s[i])) ++i;
        if (i < s.size() && s[i] == '.') {
          ++i;
          while (i < s.size() && isDigit(s[i])) ++i;
        }
        if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
          std::size_t j = i + 1;
          if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
          if (j >= s.size() || !isDigit(s[j])) {
            fail("malformed number '" + s.substr(start, j - start) + "': an exponent needs digits",
                 start);
          }
          i = j;
          while (i < s.size() && isDigit(s[i])) ++i;
        }
        tokens_.push_back(Token{Tok::Number, start, s.substr(start, i - start)});
        continue;
      }
      if (isNameStart(c)) {
        const std::size_t start = i;
        while (i < s.size() && isNameChar(s[i])) ++i;
        // qualified names: body.coordinate (each part an identifier)
        while (i + 1 < s.size() && s[i] == '.' && isNameStart(s[i + 1])) {
          ++i;
          while (i < s.size() && isNameChar(s[i])) ++i;
        }
        tokens_.push_back(Token{Tok::Name, start, s.substr(start, i - start)});
        continue;
      }
      switch (c) {
        case '*':
          if (i + 1 < s.size() && s[i + 1] == '*') {
            fail("syntax error: '**' is not an operator; write '^' for a power", i);
          }
          [[fallthrough]];
        case '+':
        case '-':
        case '/':
        case '^':
        case '(':
        case ')':
        case ',':
          tokens_.push_back(Token{Tok::Op, i, std::string(1, c)});
          ++i;
          continue;
        case '=':
        case '<':
        case '>':
        case '!':
          fail("syntax error: " + quoteChar(c) +
                   " is not allowed: an expression is a value (operators are + - * / ^)",
               i);
        default:
          fail("syntax error: unexpected character " + quoteChar(c), i);
      }
    }
    tokens_.push_back(Token{Tok::End, s.size(), {}});
  }

  // Every rule that can nest (parentheses, calls, unary signs, powers) holds a Nest while it
  // recurses, so the recursion depth, and GiNaC's on the result, stay bounded by the input.
  class Nest {
   public:
    Nest(Parser& p, std::size_t pos) : p_(p) {
      if (++p_.depth_ > ExpressionLimits::maxDepth) {
        p_.fail("expression is nested more than " + std::to_string(ExpressionLimits::maxDepth) +
                    " levels deep (parentheses, function calls, signs and powers)",
                pos);
      }
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser& p_;
  };

  const Token& peek() const { return tokens_[next_]; }
  const Token& take() { return tokens_[next_++]; }
  bool isOp(const Token& t, char c) const { return t.kind == Tok::Op && t.text[0] == c; }

  // Runs GiNaC construction, turning its failures (1/0, log(0), 0^0) into input errors.
  template <typename F>
  GiNaC::ex build(std::size_t pos, F&& f) const {
    try {
      return boundNumber(f(), pos);
    } catch (const ExpressionError&) {
      throw;
    } catch (const std::exception& ex) {
      std::string why = ex.what();
      const auto colon = why.find("): ");
      if (colon != std::string::npos) why = why.substr(colon + 3);
      fail("undefined constant subexpression (" + why + ")", pos);
    }
  }

  // sum := product (('+' | '-') product)*
  GiNaC::ex parseSum() {
    GiNaC::ex lhs = parseProduct();
    while (isOp(peek(), '+') || isOp(peek(), '-')) {
      const Token& op = take();
      GiNaC::ex rhs = parseProduct();
      lhs = build(op.pos, [&] { return op.text == "+" ? lhs + rhs : lhs - rhs; });
    }
    return lhs;
  }

  // product := unary (('*' | '/') unary)*
  GiNaC::ex parseProduct() {
    GiNaC::ex lhs = parseUnary();
    while (isOp(peek(), '*') || isOp(peek(), '/')) {
      const Token& op = take();
      GiNaC::ex rhs = parseUnary();
      lhs = build(op.pos, [&] { return op.text == "*" ? lhs * rhs : lhs / rhs; });
    }
    return lhs;
  }

  // unary := ('-' | '+') unary | power       (so -2^2 = -(2^2))
  GiNaC::ex parseUnary() {
    if (isOp(peek(), '-')) {
      const Token& op = take();
      const Nest nest(*this, op.pos);
      GiNaC::ex e = parseUnary();
      return build(op.pos, [&] { return -e; });
    }
    if (isOp(peek(), '+')) {
      const Nest nest(*this, take().pos);
      return parseUnary();
    }
    return parsePower();
  }

  // power := primary ('^' unary)?            (right-associative: 2^3^2 = 2^9; 2^-1 allowed)
  GiNaC::ex parsePower() {
    GiNaC::ex base = parsePrimary();
    if (isOp(peek(), '^')) {
      const Token& op = take();
      const Nest nest(*this, op.pos);
      GiNaC::ex expo = parseUnary();
      // checked here: GiNaC throws for 0^0 but leaks the power object it was building
      if (base.is_zero() && expo.is_zero()) fail("undefined constant subexpression (0^0)", op.pos);
      // a power of two numbers is folded in floating point: exact arithmetic on inputs like
      // 9^9^9 or (1+1/1000)^(10^12) would take hours and gigabytes
      if (GiNaC::is_exactly_a<GiNaC::numeric>(base) && GiNaC::is_exactly_a<GiNaC::numeric>(expo)) {
        return foldPower(GiNaC::ex_to<GiNaC::numeric>(base), GiNaC::ex_to<GiNaC::numeric>(expo), op.pos);
      }
      return build(op.pos, [&] { return GiNaC::pow(base, expo); });
    }
    return base;
  }

  // primary := number | name | function '(' sum (',' sum)* ')' | '(' sum ')'
  GiNaC::ex parsePrimary() {
    const Token& t = take();
    switch (t.kind) {
      case Tok::Number:
        return number(t);
      case Tok::Name:
        if (isOp(peek(), '(')) return call(t);
        return name(t);
      case Tok::Op:
        if (t.text == "(") {
          const Nest nest(*this, t.pos);
          GiNaC::ex e = parseSum();
          expectClose(t, "'('");
          return e;
        }
        break;
      case Tok::End:
        break;
    }
    fail("syntax error: expected a number, a name or '(', found " + describe(t), t.pos);
  }

  void expectClose(const Token& open, const std::string& what) {
    const Token& t = peek();
    if (isOp(t, ')')) {
      take();
      return;
    }
    fail("syntax error: expected ')' to close " + what + " at column " +
             std::to_string(open.pos + 1) + ", found " + describe(t),
         t.pos);
  }

  GiNaC::ex number(const Token& t) const {
    const std::string& s = t.text;
    if (std::all_of(s.begin(), s.end(), isDigit)) {
      return build(t.pos, [&] { return GiNaC::ex(GiNaC::numeric(s.c_str())); });  // exact
    }
    double v = 0.0;
    const auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    if (res.ec == std::errc::result_out_of_range) {
      // underflow to zero is harmless; overflow is an error
      std::size_t e = s.find_first_of("eE");
      if (e != std::string::npos && s.find('-', e) != std::string::npos) return 0;
      fail("number " + s + " is out of range", t.pos);
    }
    if (res.ec != std::errc() || res.ptr != s.data() + s.size())
      fail("malformed number '" + s + "'", t.pos);
    return numberEx(v, t.pos);
  }

  // Exact numbers stay exact while they are small (so that 1/3*3 is 1); one that grows past
  // 64 bits in numerator or denominator is rounded to a double, and one beyond the double
  // range is an error: constant arithmetic on user input never becomes big-number work.
  GiNaC::ex boundNumber(const GiNaC::ex& e, std::size_t pos) const {
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(e)) return e;
    const GiNaC::numeric& n = GiNaC::ex_to<GiNaC::numeric>(e);
    if (!n.is_real() || !n.is_rational()) return e;  // complex (sqrt(-1): NaN when evaluated) or a double  // already a floating-point number
    if (n.numer().int_length() <= 64 && n.denom().int_length() <= 64) return e;
    if (static_cast<long>(n.numer().int_length()) - static_cast<long>(n.denom().int_length()) > 1025) {
      fail("constant subexpression overflows: not a finite number (beyond +-" + formatDouble(std::numeric_limits<double>::max()) + ")", pos);
    }
    return numberEx(n.to_double(), pos);
  }

  GiNaC::ex foldPower(const GiNaC::numeric& base, const GiNaC::numeric& expo, std::size_t pos) const {
    const auto exact = [&] { return build(pos, [&] { return GiNaC::ex(GiNaC::pow(base, expo)); }); };
    if (!base.is_real() || !expo.is_real()) return exact();
    const double b = base.to_double(), x = expo.to_double();
    // small integer powers of small exact numbers stay exact (2^3 = 8, (1/2)^2 = 1/4)
    if (expo.is_integer() && std::fabs(x) <= 64 && base.is_rational() &&
        base.numer().int_length() <= 32 && base.denom().int_length() <= 32) {
      return exact();
    }
    const double v = std::pow(b, x);
    // a negative base with a fractional exponent stays symbolic, as GiNaC leaves it (cheap;
    // NaN when evaluated, like sqrt(-1))
    if (std::isnan(v)) return exact();
    return numberEx(v, pos);
  }

  GiNaC::ex numberEx(double v, std::size_t pos) const {
    if (!std::isfinite(v)) {
      fail("constant subexpression overflows: not a finite number (beyond +-" + formatDouble(std::numeric_limits<double>::max()) + ")", pos);
    }
    // cln does not hold subnormal doubles; they are flushed to zero
    if (std::fabs(v) < std::numeric_limits<double>::min()) return 0;
    return build(pos, [&] { return GiNaC::ex(GiNaC::numeric(v)); });
  }

  std::vector<std::string> candidates() const {
    std::vector<std::string> c = table_.allNames();
    c.emplace_back("pi");
    return c;
  }

  GiNaC::ex name(const Token& t) {
    const std::string& n = t.text;
    if (n == "pi") return GiNaC::Pi;
    const int slot = table_.findVariable(n);
    if (slot >= 0) {
      if (const GiNaC::realsymbol* sym = symbols_->find(slot)) return *sym;
      symbols_->entries.emplace_back(slot, GiNaC::realsymbol(n));
      return symbols_->entries.back().second;
    }
    if (table_.hasConstant(n)) {
      const double value = table_.constant(n);
      if (!std::isfinite(value)) {
        fail("the parameter '" + n + "' is not finite (" + formatDouble(value) + ")", t.pos);
      }
      return numberEx(value, t.pos);
    }
    if (arity(n) > 0) fail("'" + n + "' is a function: write " + n + "(...)", t.pos);
    fail("unknown name '" + n + "'" + didYouMean(n, candidates()), t.pos);
  }

  static int arity(const std::string& n) {
    static const std::array<std::pair<const char*, int>, 17> kFunctions{{
        {"sin", 1},
        {"cos", 1},
        {"tan", 1},
        {"asin", 1},
        {"acos", 1},
        {"atan", 1},
        {"atan2", 2},
        {"sinh", 1},
        {"cosh", 1},
        {"tanh", 1},
        {"exp", 1},
        {"log", 1},
        {"sqrt", 1},
        {"abs", 1},
        {"sign", 1},
        {"min", 2},
        {"max", 2},
    }};
    for (const auto& [name, count] : kFunctions) {
      if (n == name) return count;
    }
    return 0;
  }

  static std::vector<std::string> functionNames() {
    return {"sin",  "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
            "tanh", "exp", "log", "sqrt", "abs",  "sign", "min",   "max"};
  }

  GiNaC::ex call(const Token& fn) {
    const Token& open = take();  // '('
    const Nest nest(*this, open.pos);
    std::vector<GiNaC::ex> args;
    if (!isOp(peek(), ')')) {
      args.push_back(parseSum());
      while (isOp(peek(), ',')) {
        take();
        args.push_back(parseSum());
      }
    }
    expectClose(open, "the arguments of " + fn.text + "()");
    const std::string& n = fn.text;
    const int expected = arity(n);
    if (expected == 0) {
      if (table_.findVariable(n) >= 0 || table_.hasConstant(n) || n == "pi") {
        fail("'" + n + "' is not a function (write '*' to multiply)", fn.pos);
      }
      fail("unknown function '" + n + "'" + didYouMean(n, functionNames()), fn.pos);
    }
    if (static_cast<int>(args.size()) != expected) {
      fail("'" + n + "' takes " + std::to_string(expected) +
               (expected == 1 ? " argument" : " arguments") + ", found " +
               std::to_string(args.size()),
           fn.pos);
    }
    return build(fn.pos, [&]() -> GiNaC::ex {
      const GiNaC::ex& a = args[0];
      if (n == "sin") return GiNaC::sin(a);
      if (n == "cos") return GiNaC::cos(a);
      if (n == "tan") return GiNaC::tan(a);
      if (n == "asin") return GiNaC::asin(a);
      if (n == "acos") return GiNaC::acos(a);
      if (n == "atan") return GiNaC::atan(a);
      if (n == "atan2") return GiNaC::atan2(a, args[1]);
      if (n == "sinh") return GiNaC::sinh(a);
      if (n == "cosh") return GiNaC::cosh(a);
      if (n == "tanh") return GiNaC::tanh(a);
      if (n == "exp") return GiNaC::exp(a);
      if (n == "log") return GiNaC::log(a);
      if (n == "sqrt") return GiNaC::sqrt(a);
      if (n == "abs") return gx::joinery_abs(a);
      if (n == "sign") return gx::joinery_sign(a);
      if (n == "min") return gx::joinery_min(a, args[1]);
      return gx::joinery_max(a, args[1]);
    });
  }

  const std::string& text_;
  const SymbolTable& table_;
  std::shared_ptr<SymbolSet> symbols_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  int depth_ = 0;
};

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

void checkSize(const GiNaC::ex& form, const std::string& what, const std::string& text) {
  if (countNodes(form, ExpressionLimits::maxNodes) > ExpressionLimits::maxNodes) {
    throw ExpressionError(what + " has more than " + std::to_string(ExpressionLimits::maxNodes) +
                              " terms and operations; simplify it or split it with parameters",
                          text);
  }
}

std::shared_ptr<const ExpressionImpl> makeConstant(double value) {
  auto impl = std::make_shared<ExpressionImpl>();
  impl->program.push_back(Instr{Op::Const, 0, value});
  impl->text = formatDouble(value);
  return impl;
}

}  // namespace
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
  detail::Parser parser(text, symbols);
  const GiNaC::ex form = parser.parse();
  detail::checkSize(form, "expression", text);
  return Expression(detail::makeImpl(form, parser.symbols(), text));
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
  GiNaC::ex d;
  try {
    d = impl_->form->diff(*sym);
  } catch (const std::exception& ex) {
    throw ExpressionError(std::string("cannot differentiate: ") + ex.what(), toString());
  }
  detail::checkSize(d, "its derivative", impl_->text.empty() ? std::string("(a derivative)") : impl_->text);
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
