#pragma once
// Private to joinery_expression: what the parts of the expression engine share.
//   expression.cpp           Expression, SymbolTable, ExpressionError (the public API)
//   expression_parser.cpp    the recursive-descent parser: text -> GiNaC form
//   expression_symbolic.cpp  GiNaC functions with real-variable semantics, printing, size
//   expression_compile.cpp   the compiler: GiNaC form -> postfix program (or affine form)
// The program is evaluated here (run(), inline: the hot path of Expression::evaluate).
#include <ginac/ginac.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/expression.hpp"
#include "joinery/core/format.hpp"

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

}  // namespace joinery::detail::gx

namespace joinery::detail {

// ---- numbers below the normal double range -------------------------------------------------
// cln's double-floats hold no subnormal numbers (an operation that would give one gives 0, and
// so does numeric::to_double() of a smaller number), where IEEE arithmetic keeps them down to
// 4.9e-324. A subnormal constant is therefore held as a long float (its exact value, 64 bits
// of mantissa and a wide exponent), and read back through these two functions: "1e-310" is
// 1e-310 as the same JSON number is, and 1e-320*x*1e300 is 1e-20*x. (A product of two
// double-floats that underflows inside GiNaC is still 0.)

/// The number `v` (finite) as a GiNaC number: a double-float, or a long float when subnormal.
GiNaC::numeric numericFromDouble(double v);
/// The real number `n` as the nearest double, subnormal results included (0 only below
/// 2.5e-324); like numeric::to_double() otherwise (it throws beyond the double range).
double numericToDouble(const GiNaC::numeric& n);

// GiNaC is not thread-safe (reference counts, shared numeric flyweights): every use of it in
// the engine, including destruction of GiNaC objects, holds this lock. Evaluation never does.
std::recursive_mutex& ginacMutex();

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

inline double powInt(double x, int n) {
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
// Runs a program whose stack need is at most the size of `stack`. Never allocates.
inline double run(const Instr* pc, const Instr* end, const double* vars, double* stack) {
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


inline bool readsVariable(const Instr& i, int slot) {
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

// Builds the impl for a GiNaC form (caller holds the GiNaC lock). `text` is the source (empty
// for a derivative, whose printed form then appears in errors).
std::shared_ptr<const ExpressionImpl> makeImpl(const GiNaC::ex& form,
                                               std::shared_ptr<const SymbolSet> symbols,
                                               std::string text);

/// The impl of Expression::constant(value) (no GiNaC form).
std::shared_ptr<const ExpressionImpl> makeConstant(double value);

/// The text of a form in the language (caller holds the GiNaC lock).
std::string printForm(const GiNaC::ex& form);

/// Throws ExpressionError when `form` has more than ExpressionLimits::maxNodes nodes; `what`
/// names it in the message ("expression", "its derivative").
void checkSize(const GiNaC::ex& form, const std::string& what, const std::string& text);

/// Throws ExpressionError when the derivative of `form` would surely pass the node limit:
/// its size estimated from the form's (sum, product and chain rules, in one pass) is over
/// kDerivativeEstimateFactor times ExpressionLimits::maxNodes. GiNaC would otherwise spend
/// seconds building it before checkSize could refuse it (a nest of 190 atan2: 10 s).
void checkDerivativeEstimate(const GiNaC::ex& form, const std::string& text);
constexpr double kDerivativeEstimateFactor = 20;

/// Parses `text` against `table` (caller holds the GiNaC lock); `symbols` receives the
/// variables it uses. Throws ExpressionError.
GiNaC::ex parseForm(const std::string& text, const SymbolTable& table,
                    std::shared_ptr<const SymbolSet>& symbols);

}  // namespace joinery::detail
