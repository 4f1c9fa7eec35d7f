// The parser of expressions: a hand-written recursive-descent parser that builds GiNaC forms
// (exact symbolic differentiation follows from them). See docs/expressions.md for the language.
#include <cctype>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdio>
#include <array>
#include <functional>
#include <optional>
#include <limits>
#include <utility>

#include <cln/float.h>
#include <cln/integer.h>
#include <cln/rational.h>

#include "expression_internal.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/unit_hint.hpp"

namespace joinery::detail {

namespace {

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
      // a constant base (sqrt(1/12), pi) to a large or fractional number is folded the same
      // way: GiNaC would expand sqrt(1/12)^(-10^72) exactly, and throws there leaking the
      // power it was building (found by fuzz_expression)
      if (GiNaC::is_exactly_a<GiNaC::numeric>(expo) && GiNaC::ex_to<GiNaC::numeric>(expo).is_real() &&
          !(GiNaC::ex_to<GiNaC::numeric>(expo).is_integer() &&
            std::fabs(GiNaC::ex_to<GiNaC::numeric>(expo).to_double()) <= 64)) {
        // its value by joinery's own evaluator: GiNaC's evalf throws from inside on a hidden
        // 1/0 (1/0^sqrt(2)) and leaks what it was building (found by fuzz_expression)
        if (const std::optional<double> value = constantValue(base)) {
          if (!std::isnan(*value))  // NaN: a complex constant, left to the rules below
            return foldPower(GiNaC::ex_to<GiNaC::numeric>(numberEx(*value, op.pos)),
                             GiNaC::ex_to<GiNaC::numeric>(expo), op.pos);
        }
      }
      // any other numeric exponent: GiNaC's exact rules ((2*x)^n = 2^n*x^n, sqrt(-2)^n =
      // (-2)^(n/2), (c*x)^(p/q) = c^(p/q)*x^(p/q)) would do big-number work on user input
      // (found by fuzz_expression: sqrt(-2)^63^6 ran for hours). A large or finely fractional
      // exponent is taken in floating point; a small one keeps the base's coefficient small.
      if (GiNaC::is_exactly_a<GiNaC::numeric>(expo)) {
        const GiNaC::numeric n = GiNaC::ex_to<GiNaC::numeric>(expo);
        if (!smallExponent(n)) {
          expo = floatNumber(n, op.pos);
          // GiNaC raises a product's numeric coefficient to the power itself and throws on
          // an overflow, leaking what it was building (fuzz_expression: (4*t)^5.1e23):
          // the overflow is found here first
          checkCoefficientPower(base, GiNaC::ex_to<GiNaC::numeric>(expo), op.pos);
        } else {
          base = boundCoefficient(base, n, op.pos);
        }
      }
      return build(op.pos, [&] { return GiNaC::pow(base, expo); });
    }
    return base;
  }

  // The value of a form without variables, evaluated as joinery evaluates expressions (in
  // doubles: inf for a division by zero, NaN for a complex constant); none when the form
  // depends on a variable.
  std::optional<double> constantValue(const GiNaC::ex& e) const {
    for (const auto& entry : symbols_->entries)
      if (e.has(entry.second)) return std::nullopt;
    std::shared_ptr<const ExpressionImpl> impl;
    try {
      impl = makeImpl(e, symbols_, {});
    } catch (const ExpressionError&) {
      return std::nullopt;
    }
    if (impl->hasVariables || impl->affine) return std::nullopt;
    std::array<double, kMaxStack> stack;
    return run(impl->program.data(), impl->program.data() + impl->program.size(), nullptr, stack.data());
  }

  // Work GiNaC may do exactly on a power: a result of at most this many bits.
  static constexpr double kExactPowerBits = 4096;

  // An exponent GiNaC may take exactly: a rational of magnitude at most 64 with a small
  // denominator (x^2, x^(1/3), x^(-3/2)).
  static bool smallExponent(const GiNaC::numeric& e) {
    return e.is_rational() && e.denom().int_length() <= 6 && GiNaC::abs(e) <= 64;
  }

  // The size in bits of an exact number (real and imaginary parts, numerators and
  // denominators); a floating-point number counts as small.
  static double exactBits(const GiNaC::numeric& n) {
    double bits = 0;
    for (const GiNaC::numeric& part : {n.real(), n.imag()}) {
      if (part.is_rational()) bits += part.numer().int_length() + part.denom().int_length();
    }
    return bits;
  }

  // A number (real or complex) rounded to floating point; beyond the double range an error.
  GiNaC::numeric floatNumeric(const GiNaC::numeric& n, std::size_t pos) const {
    double re = std::numeric_limits<double>::infinity(), im = 0;
    try {
      re = numericToDouble(n.real());
      im = numericToDouble(n.imag());
    } catch (const std::exception&) {
      re = std::numeric_limits<double>::infinity();
    }
    if (!std::isfinite(re) || !std::isfinite(im)) {
      fail("constant subexpression overflows: not a finite number (beyond +-" + formatExact(std::numeric_limits<double>::max()) + ")", pos);
    }
    if (im == 0) return numericFromDouble(re);
    return numericFromDouble(re) + numericFromDouble(im) * GiNaC::I;
  }
  GiNaC::ex floatNumber(const GiNaC::numeric& n, std::size_t pos) const {
    if (n.is_real()) return numberEx(numericToDouble(n), pos);
    return floatNumeric(n, pos);
  }

  // (c*x)^n makes GiNaC raise the coefficient c exactly; nested powers would grow it without
  // bound (((2^64*x)^64)^64...). A coefficient whose power would pass kExactPowerBits is
  // taken in floating point first.
  GiNaC::ex boundCoefficient(const GiNaC::ex& base, const GiNaC::numeric& n, std::size_t pos) const {
    if (!GiNaC::is_exactly_a<GiNaC::mul>(base)) return base;
    const double power = std::ceil(std::fabs(n.to_double()));
    GiNaC::ex rest = 1;
    GiNaC::numeric coeff = 1;
    bool large = false;
    for (std::size_t i = 0; i < base.nops(); ++i) {
      const GiNaC::ex& f = base.op(i);
      if (GiNaC::is_exactly_a<GiNaC::numeric>(f)) {
        coeff = coeff * GiNaC::ex_to<GiNaC::numeric>(f);
        large = large || exactBits(GiNaC::ex_to<GiNaC::numeric>(f)) * power > kExactPowerBits;
      } else {
        rest = rest * f;
      }
    }
    if (!large) return base;
    checkPowerMagnitude(std::abs(numericToDouble(coeff)), n.to_double(), pos);
    const GiNaC::numeric c = floatNumeric(coeff, pos);
    return build(pos, [&] { return rest * c; });
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
      fail("constant subexpression overflows: not a finite number (beyond +-" + formatExact(std::numeric_limits<double>::max()) + ")", pos);
    }
    return numberEx(numericToDouble(n), pos);
  }

  // |c|^x of a coefficient in floating point: an error when it is not a finite number.
  void checkPowerMagnitude(double magnitude, double x, std::size_t pos) const {
    if (magnitude == 0 || !std::isfinite(x)) return;
    if (!std::isfinite(std::pow(magnitude, x))) {
      fail("constant subexpression overflows: not a finite number (beyond +-" + formatExact(std::numeric_limits<double>::max()) + ")", pos);
    }
  }

  // The numeric factors of a product raised to a floating-point power x must stay finite.
  void checkCoefficientPower(const GiNaC::ex& base, const GiNaC::numeric& x, std::size_t pos) const {
    if (!GiNaC::is_exactly_a<GiNaC::mul>(base)) return;
    for (std::size_t i = 0; i < base.nops(); ++i) {
      const GiNaC::ex& f = base.op(i);
      if (!GiNaC::is_exactly_a<GiNaC::numeric>(f)) continue;
      const GiNaC::numeric& c = GiNaC::ex_to<GiNaC::numeric>(f);
      const double magnitude = std::abs(std::complex<double>(numericToDouble(c.real()), numericToDouble(c.imag())));
      checkPowerMagnitude(magnitude, x.real().to_double(), pos);
    }
  }

  GiNaC::ex foldPower(const GiNaC::numeric& base, const GiNaC::numeric& expo, std::size_t pos) const {
    const auto exact = [&] { return build(pos, [&] { return GiNaC::ex(GiNaC::pow(base, expo)); }); };
    if (!base.is_real() || !expo.is_real()) {
      // complex numbers (sqrt(-4) is 2*I): exact only while the result stays small
      if (smallExponent(expo) && exactBits(base) * std::ceil(std::fabs(expo.real().to_double())) <= kExactPowerBits) {
        return exact();
      }
      // in floating point here: GiNaC would throw on an overflow and leak its partial result
      const GiNaC::numeric b = floatNumeric(base, pos), x = floatNumeric(expo, pos);
      const std::complex<double> v = std::pow(std::complex<double>(numericToDouble(b.real()), numericToDouble(b.imag())),
                                              std::complex<double>(numericToDouble(x.real()), numericToDouble(x.imag())));
      if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) {
        fail("constant subexpression is not a finite number (a complex power beyond +-" +
                 formatExact(std::numeric_limits<double>::max()) + ")",
             pos);
      }
      return floatNumeric(GiNaC::numeric(v.real()) + GiNaC::numeric(v.imag()) * GiNaC::I, pos);
    }
    const double b = numericToDouble(base), x = numericToDouble(expo);
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
      fail("constant subexpression overflows: not a finite number (beyond +-" + formatExact(std::numeric_limits<double>::max()) + ")", pos);
    }
    // a subnormal number is kept (a long float: numericFromDouble), as the same JSON number is
    return build(pos, [&] { return GiNaC::ex(numericFromDouble(v)); });
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
        fail("the parameter '" + n + "' is not finite (" + formatExact(value) + ")", t.pos);
      }
      return numberEx(value, t.pos);
    }
    if (arity(n) > 0) fail("'" + n + "' is a function: write " + n + "(...)", t.pos);
    if (const std::string u = unitHint(n); !u.empty()) fail("unknown name '" + n + "': " + u, t.pos);
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

}  // namespace

GiNaC::numeric numericFromDouble(double v) {
  if (v == 0 || !std::isfinite(v) || std::fabs(v) >= std::numeric_limits<double>::min()) return GiNaC::numeric(v);
  // v = f 2^e with 0.5 <= |f| < 1 and at most 52 significant bits: f 2^53 is an exact integer
  int e = 0;
  const double f = std::frexp(v, &e);
  const cln::cl_RA exact = cln::cl_I(static_cast<long>(std::ldexp(f, 53))) * cln::expt(cln::cl_RA(2), e - 53);
  return GiNaC::numeric(cln::cl_float(exact, cln::float_format(17)));
}

double numericToDouble(const GiNaC::numeric& n) {
  double v = 0;
  try {
    v = n.to_double();
  } catch (const std::exception&) {
    if (GiNaC::abs(n) > 1) throw;  // beyond the double range: the caller's error
  }
  if (v != 0 || n.is_zero()) return v;
  // below the normal range, where cln gives 0: scaled up by 2^1100 (exactly), converted, and
  // scaled back down (the last step rounds as IEEE arithmetic does)
  const GiNaC::numeric scaled = n * GiNaC::pow(GiNaC::numeric(2), GiNaC::numeric(1100));
  return std::ldexp(scaled.to_double(), -1100);
}

GiNaC::ex parseForm(const std::string& text, const SymbolTable& table,
                    std::shared_ptr<const SymbolSet>& symbols) {
  // a floating-point underflow in cln is zero, as for the numbers joinery parses: cln threw
  // instead, from inside GiNaC's constructors, which leaked what they were building
  // (fuzz_expression: a power of complex constants underflowing)
  static const bool underflowIsZero = [] {
    cln::cl_inhibit_floating_point_underflow = true;
    return true;
  }();
  (void)underflowIsZero;
  Parser parser(text, table);
  GiNaC::ex form = parser.parse();
  symbols = parser.symbols();
  return form;
}

}  // namespace joinery::detail

namespace joinery {

std::string unitHint(const std::string& n) {
  static const std::array<std::pair<const char*, const char*>, 7> kUnits{{
      {"mm", "0.001 m: write 0.1 for 100 mm (or 100*0.001)"},
      {"cm", "0.01 m: write 0.1 for 10 cm"},
      {"km", "1000 m"},
      {"deg", "pi/180 rad: write 90*pi/180 (or pi/2) for 90 degrees"},
      {"degrees", "pi/180 rad: write 90*pi/180 (or pi/2) for 90 degrees"},
      {"rpm", "2*pi/60 rad/s: write 300*2*pi/60 for 300 rpm"},
      {"ms", "0.001 s"},
  }};
  for (const auto& [unit, meaning] : kUnits)
    if (n == unit)
      return std::string("a unit? numbers in joinery are SI and written without units (") + unit + " is " + meaning + ")";
  return "";
}

}  // namespace joinery
