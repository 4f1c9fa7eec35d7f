// The compiler of expressions: a GiNaC form -> a flat postfix program evaluated over a
// fixed-size stack (run(), expression_internal.hpp: no allocation, no GiNaC on the hot path),
// or the affine form c0 + sum c_i x_i. See docs/expressions.md.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "expression_internal.hpp"

namespace joinery::detail {

namespace {

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
      return numericToDouble(n);
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
      v = numericToDouble(n);
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

}  // namespace

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

std::shared_ptr<const ExpressionImpl> makeConstant(double value) {
  auto impl = std::make_shared<ExpressionImpl>();
  impl->program.push_back(Instr{Op::Const, 0, value});
  impl->text = formatExact(value);
  return impl;
}

}  // namespace joinery::detail
