// Tests of the expression language (core/expression/src/): values against <cmath>,
// precedence, exact derivatives (closed forms and finite differences), qualified names,
// error messages by content, and allocation-free evaluation.

#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "joinery/core/expression.hpp"

// The allocation counter of the tests (tests/support/allocation_counter.cpp).
#include "allocation_counter.hpp"

using AllocationCounter = joinery::test::ScopedAllocationCount;

using joinery::Expression;
using joinery::ExpressionError;
using joinery::SymbolTable;

namespace {

/// A table with variables x (slot 0) and y (slot 1) and the parameter m = 2.5.
SymbolTable xyTable() {
  SymbolTable t;
  t.addVariable("x");
  t.addVariable("y");
  t.setConstant("m", 2.5);
  return t;
}

double eval(const std::string& text, double x = 0.0, double y = 0.0) {
  const std::array<double, 2> vars{x, y};
  return Expression::parse(text, xyTable()).evaluate(vars.data());
}

/// The error thrown by parsing `text` with xyTable() (fails the test if none).
ExpressionError parseError(const std::string& text) {
  try {
    Expression::parse(text, xyTable());
  } catch (const ExpressionError& e) {
    return e;
  }
  FAIL("no ExpressionError for \"" << text << "\"");
  throw std::logic_error("unreachable");
}

}  // namespace

// ---- values ---------------------------------------------------------------------------------

TEST_CASE("Operators and functions evaluate like <cmath>", "[expression]") {
  using Fn = std::function<double(double, double)>;
  struct Case {
    const char* text;
    Fn expected;
  };
  const std::vector<Case> cases{
      {"x + y", [](double x, double y) { return x + y; }},
      {"x - y", [](double x, double y) { return x - y; }},
      {"x * y", [](double x, double y) { return x * y; }},
      {"x / y", [](double x, double y) { return x / y; }},
      {"x ^ 2", [](double x, double) { return x * x; }},
      {"x ^ 3", [](double x, double) { return x * x * x; }},
      {"x ^ -2", [](double x, double) { return 1.0 / (x * x); }},
      {"y ^ 0.5", [](double, double y) { return std::sqrt(y); }},
      {"y ^ 1.5", [](double, double y) { return std::pow(y, 1.5); }},
      {"y ^ x", [](double x, double y) { return std::pow(y, x); }},
      {"x ^ 2.0", [](double x, double) { return x * x; }},
      {"-x", [](double x, double) { return -x; }},
      {"+x", [](double x, double) { return x; }},
      {"sin(x)", [](double x, double) { return std::sin(x); }},
      {"cos(x)", [](double x, double) { return std::cos(x); }},
      {"tan(x)", [](double x, double) { return std::tan(x); }},
      {"asin(x / 4)", [](double x, double) { return std::asin(x / 4); }},
      {"acos(x / 4)", [](double x, double) { return std::acos(x / 4); }},
      {"atan(x)", [](double x, double) { return std::atan(x); }},
      {"atan2(x, y)", [](double x, double y) { return std::atan2(x, y); }},
      {"atan2(y, x)", [](double x, double y) { return std::atan2(y, x); }},
      {"sinh(x)", [](double x, double) { return std::sinh(x); }},
      {"cosh(x)", [](double x, double) { return std::cosh(x); }},
      {"tanh(x)", [](double x, double) { return std::tanh(x); }},
      {"exp(x)", [](double x, double) { return std::exp(x); }},
      {"log(y)", [](double, double y) { return std::log(y); }},
      {"sqrt(y)", [](double, double y) { return std::sqrt(y); }},
      {"abs(x)", [](double x, double) { return std::fabs(x); }},
      {"sign(x)", [](double x, double) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }},
      {"min(x, y)", [](double x, double y) { return std::min(x, y); }},
      {"max(x, y)", [](double x, double y) { return std::max(x, y); }},
      {"m * x - pi", [](double x, double) { return 2.5 * x - M_PI; }},
      {"x / (y * x^2) - 3 / y", [](double x, double y) { return x / (y * x * x) - 3 / y; }},
      {"exp(-x^2 / (2*m)) * sin(m*y + 1)",
       [](double x, double y) { return std::exp(-x * x / 5.0) * std::sin(2.5 * y + 1); }},
  };
  const std::vector<std::pair<double, double>> points{
      {0.3, 1.7}, {-1.2, 0.4}, {2.9, 3.1}, {-3.5, 0.05}, {1.0, 1.0}};
  for (const Case& c : cases) {
    const Expression e = Expression::parse(c.text, xyTable());
    for (const auto& [x, y] : points) {
      const std::array<double, 2> vars{x, y};
      INFO(c.text << " at x=" << x << ", y=" << y);
      CHECK(e.evaluate(vars.data()) == Approx(c.expected(x, y)).epsilon(1e-14).margin(1e-15));
    }
  }
}

TEST_CASE("Precedence, associativity and unary minus follow mathematics", "[expression]") {
  CHECK(eval("1 + 2 * 3") == 7.0);
  CHECK(eval("(1 + 2) * 3") == 9.0);
  CHECK(eval("2 * 3 ^ 2") == 18.0);
  CHECK(eval("2 ^ 3 ^ 2") == 512.0);  // right-associative
  CHECK(eval("(2 ^ 3) ^ 2") == 64.0);
  CHECK(eval("-2 ^ 2") == -4.0);  // -(2^2)
  CHECK(eval("(-2) ^ 2") == 4.0);
  CHECK(eval("2 ^ -1") == 0.5);
  CHECK(eval("2 ^ -1 ^ 2") == 0.5);  // 2^(-(1^2))
  CHECK(eval("-x ^ 2", 3.0) == -9.0);
  CHECK(eval("8 / 4 / 2") == 1.0);  // left-associative
  CHECK(eval("8 - 4 - 2") == 2.0);
  CHECK(eval("2 * -3") == -6.0);
  CHECK(eval("--2") == 2.0);
  CHECK(eval("1 - -1") == 2.0);
  CHECK(eval("2 * x ^ 2 / 4", 3.0) == 4.5);
  CHECK(eval("  7  ") == 7.0);
  CHECK(eval("((((x))))", 1.25) == 1.25);
}

TEST_CASE("Numbers: integers, decimals and exponents", "[expression]") {
  CHECK(eval("42") == 42.0);
  CHECK(eval("1.5") == 1.5);
  CHECK(eval(".5") == 0.5);
  CHECK(eval("5.") == 5.0);
  CHECK(eval("1.5e-3") == 1.5e-3);
  CHECK(eval("2E+2") == 200.0);
  CHECK(eval("1e3") == 1000.0);
  CHECK(eval("0.1 + 0.2") == Approx(0.3).epsilon(1e-15));
  CHECK(eval("1e-320") == 1e-320);  // subnormal literals are kept, as JSON numbers are
  CHECK(eval("1e-400") == 0.0);     // below the smallest subnormal: zero
  CHECK(eval("12345678901234567890") == Approx(12345678901234567890.0));
}

TEST_CASE("pi, parameters and the time variable", "[expression]") {
  CHECK(eval("pi") == M_PI);
  CHECK(eval("sin(pi)") == 0.0);  // folded exactly
  CHECK(eval("cos(pi / 3)") == Approx(0.5));

  SymbolTable t;
  const int ts = t.addVariable("t");
  t.setConstant("omega", 2.0);
  t.setConstant("omega", 3.0);  // replaces
  t.setConstant("A", 0.5);
  t.addVariable("pi");  // `pi` is always the constant
  CHECK(ts == 0);
  CHECK(t.addVariable("t") == 0);
  CHECK(t.findVariable("pi") == 1);
  CHECK(t.findVariable("nope") == -1);
  CHECK(t.hasConstant("A"));
  CHECK_FALSE(t.hasConstant("t"));
  CHECK(t.constant("omega") == 3.0);
  CHECK(t.allNames().size() == 4);

  const Expression e = Expression::parse("A * sin(omega * t) + pi", t);
  const std::array<double, 2> vars{0.7, 100.0};
  CHECK(e.evaluate(vars.data()) == Approx(0.5 * std::sin(2.1) + M_PI).epsilon(1e-15));
  CHECK(e.dependsOn(0));
  CHECK_FALSE(e.dependsOn(1));

  const Expression c = Expression::parse("A * omega^2 + 1", t);
  CHECK(c.isConstant());
  CHECK(c.evaluate(nullptr) == 5.5);
}

TEST_CASE("Default and constant expressions", "[expression]") {
  const Expression zero;
  CHECK(zero.isConstant());
  CHECK(zero.evaluate(nullptr) == 0.0);
  CHECK(zero.toString() == "0");
  CHECK_FALSE(zero.dependsOn(0));

  const Expression c = Expression::constant(2.5);
  CHECK(c.evaluate(nullptr) == 2.5);
  CHECK(c.toString() == "2.5");
  CHECK(c.derivative(0).isConstant());
  CHECK(c.derivative(0).evaluate(nullptr) == 0.0);
  CHECK(Expression::constant(0.1).toString() == "0.1");
  CHECK(std::isinf(Expression::constant(HUGE_VAL).evaluate(nullptr)));
}

TEST_CASE("Dependence and constant detection", "[expression]") {
  const SymbolTable t = xyTable();
  CHECK(Expression::parse("x - x + 2", t).isConstant());
  CHECK(Expression::parse("0 * y", t).isConstant());
  const Expression e = Expression::parse("x * m", t);
  CHECK_FALSE(e.isConstant());
  CHECK(e.dependsOn(0));
  CHECK_FALSE(e.dependsOn(1));
  CHECK_FALSE(e.dependsOn(7));
  CHECK_FALSE(e.dependsOn(-1));
  CHECK(e.toString() == "x * m");
}

TEST_CASE("Values outside a function's domain are NaN or infinite, not errors", "[expression]") {
  CHECK(std::isnan(eval("sqrt(x)", -1.0)));
  CHECK(std::isnan(eval("sqrt(-1)")));
  CHECK(std::isnan(eval("log(-1.0)")));
  CHECK(std::isnan(eval("asin(2.0)")));
  CHECK(eval("log(x)", 0.0) == -HUGE_VAL);
  CHECK(eval("1 / x", 0.0) == HUGE_VAL);
}

// ---- qualified names ------------------------------------------------------------------------

TEST_CASE("Qualified names with dots and underscores", "[expression]") {
  SymbolTable t;
  const int x = t.addVariable("b.x");
  const int xd = t.addVariable("b.x_dot");
  const int th = t.addVariable("wheel.theta");
  t.setConstant("b_1.k", 4.0);
  const Expression e = Expression::parse("b.x + 1.5e-3 * b.x_dot - 2.5e+1*wheel.theta + b_1.k", t);
  const std::array<double, 3> vars{2.0, 100.0, 0.5};
  CHECK(e.evaluate(vars.data()) == Approx(2.0 + 0.15 - 12.5 + 4.0).epsilon(1e-15));
  CHECK(e.dependsOn(x));
  CHECK(e.dependsOn(xd));
  CHECK(e.derivative(xd).evaluate(vars.data()) == 1.5e-3);
  CHECK(e.derivative(th).evaluate(vars.data()) == -25.0);

  const Expression d = Expression::parse("wheel.theta^2", t).derivative(th);
  CHECK(d.toString() == "2*wheel.theta");

  // a prefix of a qualified name is not a match: whole names only
  const ExpressionError err = [&] {
    try {
      Expression::parse("b.x_do", t);
    } catch (const ExpressionError& ex) {
      return ex;
    }
    throw std::logic_error("no error");
  }();
  CHECK(err.detail() == "unknown name 'b.x_do'; did you mean 'b.x_dot'?");
  CHECK(err.position() == 0);
}

// ---- derivatives ----------------------------------------------------------------------------

TEST_CASE("Derivatives are exact: closed forms", "[expression][derivative]") {
  using Fn = std::function<double(double, double)>;
  struct Case {
    const char* text;
    Fn dx;  // d/dx
  };
  const std::vector<Case> cases{
      {"x^3 - 2*x*y", [](double x, double y) { return 3 * x * x - 2 * y; }},
      {"x / y", [](double, double y) { return 1 / y; }},
      {"y / x", [](double x, double y) { return -y / (x * x); }},
      {"sin(x^2)", [](double x, double) { return 2 * x * std::cos(x * x); }},
      {"cos(m*x)", [](double x, double) { return -2.5 * std::sin(2.5 * x); }},
      {"tan(x)", [](double x, double) { return 1 / (std::cos(x) * std::cos(x)); }},
      {"asin(x/4)", [](double x, double) { return 0.25 / std::sqrt(1 - x * x / 16); }},
      {"acos(x/4)", [](double x, double) { return -0.25 / std::sqrt(1 - x * x / 16); }},
      {"atan(x)", [](double x, double) { return 1 / (1 + x * x); }},
      {"atan2(x, y)", [](double x, double y) { return y / (x * x + y * y); }},
      {"atan2(y, x)", [](double x, double y) { return -y / (x * x + y * y); }},
      {"sinh(x)", [](double x, double) { return std::cosh(x); }},
      {"cosh(x)", [](double x, double) { return std::sinh(x); }},
      {"tanh(x)", [](double x, double) { return 1 / (std::cosh(x) * std::cosh(x)); }},
      {"exp(2*x)", [](double x, double) { return 2 * std::exp(2 * x); }},
      {"log(x^2 + y)", [](double x, double y) { return 2 * x / (x * x + y); }},
      {"sqrt(x^2 + y)", [](double x, double y) { return x / std::sqrt(x * x + y); }},
      {"y^x", [](double x, double y) { return std::pow(y, x) * std::log(y); }},
      {"(x^2+1)^y", [](double x, double y) { return y * std::pow(x * x + 1, y - 1) * 2 * x; }},
      {"abs(x)", [](double x, double) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }},
      {"abs(x^3)", [](double x, double) { return 3 * x * std::fabs(x); }},
      {"sign(x)", [](double, double) { return 0.0; }},
      {"m * pi", [](double, double) { return 0.0; }},
  };
  const std::vector<std::pair<double, double>> points{
      {0.3, 1.7}, {-1.2, 0.4}, {2.9, 3.1}, {-3.5, 0.05}};
  for (const Case& c : cases) {
    const Expression d = Expression::parse(c.text, xyTable()).derivative(0);
    for (const auto& [x, y] : points) {
      const std::array<double, 2> vars{x, y};
      INFO(c.text << " -> " << d.toString() << " at x=" << x << ", y=" << y);
      CHECK(d.evaluate(vars.data()) == Approx(c.dx(x, y)).epsilon(1e-13).margin(1e-14));
    }
  }
}

TEST_CASE("The derivative of abs is sign; min and max follow the selected branch",
          "[expression][derivative]") {
  const SymbolTable t = xyTable();
  const Expression dAbs = Expression::parse("abs(x)", t).derivative(0);
  CHECK(dAbs.toString() == "sign(x)");
  for (const auto& [x, expected] :
       std::vector<std::pair<double, double>>{{-2, -1}, {0, 0}, {3, 1}}) {
    const std::array<double, 2> vars{x, 0.0};
    CHECK(dAbs.evaluate(vars.data()) == expected);
  }
  CHECK(Expression::parse("sign(x)", t).derivative(0).isConstant());

  // min(x^2, y): d/dx is 2x where x^2 <= y (ties pick the first argument), 0 elsewhere
  const Expression m = Expression::parse("min(x^2, y)", t);
  const Expression dmx = m.derivative(0);
  const Expression dmy = m.derivative(1);
  auto at = [](const Expression& e, double x, double y) {
    const std::array<double, 2> vars{x, y};
    return e.evaluate(vars.data());
  };
  CHECK(at(dmx, 1.5, 4.0) == 3.0);
  CHECK(at(dmy, 1.5, 4.0) == 0.0);
  CHECK(at(dmx, 3.0, 4.0) == 0.0);
  CHECK(at(dmy, 3.0, 4.0) == 1.0);
  CHECK(at(dmx, 2.0, 4.0) == 4.0);  // tie: the first argument
  CHECK(at(dmy, 2.0, 4.0) == 0.0);

  const Expression M = Expression::parse("max(x^2, y)", t);
  CHECK(at(M.derivative(0), 3.0, 4.0) == 6.0);
  CHECK(at(M.derivative(1), 3.0, 4.0) == 0.0);
  CHECK(at(M.derivative(0), 1.0, 4.0) == 0.0);
  CHECK(at(M.derivative(1), 1.0, 4.0) == 1.0);
  CHECK(at(M.derivative(0), 2.0, 4.0) == 4.0);  // tie: the first argument

  // the second derivative of min and max is zero almost everywhere
  CHECK(at(m.derivative(1).derivative(1), 1.0, 4.0) == 0.0);
  CHECK(at(m.derivative(0).derivative(0), 1.5, 4.0) == 2.0);
}

TEST_CASE("Derivatives of random nested expressions match central differences",
          "[expression][derivative]") {
  // Random smooth expressions over x and y built from every smooth function of the language,
  // each wrapped so that its argument stays inside the domain (log of 2 + sin(...), ...).
  // Central differences with step h = 1e-5 (1 + |x|) have truncation error h^2 |f'''| / 6
  // and rounding error ~ eps |f| / h, both around 1e-10 for these bounded expressions; the
  // tolerance 1e-6 (relative to max(1, |f'|)) leaves a wide margin for nested chain rules
  // whose third derivative is large, yet catches any wrong rule (errors of order 1).
  std::mt19937 rng(20261121);
  std::uniform_int_distribution<int> pick(0, 17);
  std::uniform_real_distribution<double> coef(-2.0, 2.0);
  std::function<std::string(int)> gen = [&](int depth) -> std::string {
    if (depth == 0) {
      switch (pick(rng) % 4) {
        case 0:
          return "x";
        case 1:
          return "y";
        case 2:
          return std::to_string(std::round(coef(rng) * 100) / 100);
        default:
          return "m";
      }
    }
    const std::string a = gen(depth - 1);
    const std::string b = gen(depth - 1);
    switch (pick(rng)) {
      case 0:
        return "(" + a + " + " + b + ")";
      case 1:
        return "(" + a + " - " + b + ")";
      case 2:
        return "(" + a + " * " + b + ")";
      case 3:
        return "(" + a + ") / (2 + cos(" + b + "))";
      case 4:
        return "(1.5 + sin(" + a + "))^(cos(" + b + "))";
      case 5:
        return "(" + a + ")^2";
      case 6:
        return "sin(" + a + ")";
      case 7:
        return "cos(" + a + ")";
      case 8:
        return "tan(0.5 * sin(" + a + "))";
      case 9:
        return "asin(0.5 * sin(" + a + "))";
      case 10:
        return "acos(0.5 * cos(" + a + "))";
      case 11:
        return "atan(" + a + ")";
      case 12:
        return "atan2(" + a + ", 2 + sin(" + b + "))";
      case 13:
        return "sinh(sin(" + a + ")) - cosh(cos(" + b + "))";
      case 14:
        return "tanh(" + a + ")";
      case 15:
        return "exp(sin(" + a + "))";
      case 16:
        return "log(2 + sin(" + a + "))";
      default:
        return "sqrt(1 + (" + a + ")^2)";
    }
  };
  std::uniform_real_distribution<double> point(-1.5, 1.5);
  const SymbolTable t = xyTable();
  for (int trial = 0; trial < 200; ++trial) {
    const std::string text = gen(1 + trial % 4);
    const Expression e = Expression::parse(text, t);
    for (int slot = 0; slot < 2; ++slot) {
      const Expression d = e.derivative(slot);
      std::array<double, 2> v{point(rng), point(rng)};
      const double exact = d.evaluate(v.data());
      const double h = 1e-5 * (1 + std::fabs(v[slot]));
      std::array<double, 2> plus = v, minus = v;
      plus[slot] += h;
      minus[slot] -= h;
      const double fd = (e.evaluate(plus.data()) - e.evaluate(minus.data())) / (2 * h);
      INFO(text << "\n d/d" << (slot == 0 ? "x" : "y") << " = " << d.toString() << "\n at (" << v[0]
                << ", " << v[1] << ")");
      REQUIRE(std::isfinite(exact));
      CHECK(std::fabs(exact - fd) <= 1e-6 * std::max(1.0, std::fabs(exact)));
      // the printed derivative is in the language and parses back to the same function
      // (its numbers are printed as the shortest decimal that round-trips a double)
      const double reparsed = Expression::parse(d.toString(), t).evaluate(v.data());
      CHECK(std::fabs(reparsed - exact) <= 1e-12 * std::max(1.0, std::fabs(exact)));
    }
  }
}

TEST_CASE("Derived expressions print in the language", "[expression][derivative]") {
  const SymbolTable t = xyTable();
  const Expression d = Expression::parse("sin(pi * x)", t).derivative(0);
  const std::string s = d.toString();
  CHECK(s.find("pi") != std::string::npos);
  CHECK(s.find("Pi") == std::string::npos);
  CHECK(s.find("cos(") != std::string::npos);
  // the printed form parses back to the same function
  const Expression back = Expression::parse(s, t);
  const std::array<double, 2> vars{0.3, 0.0};
  CHECK(back.evaluate(vars.data()) == Approx(d.evaluate(vars.data())).epsilon(1e-15));
  CHECK(Expression::parse("max(x, y)", t).derivative(0).toString().find("le(") !=
        std::string::npos);
}

// ---- errors ---------------------------------------------------------------------------------

TEST_CASE("Unknown names are reported with a suggestion", "[expression][error]") {
  SymbolTable t;
  t.addVariable("x");
  t.addVariable("theta_dot");
  t.setConstant("mass", 1.0);
  auto error = [&](const std::string& text) {
    try {
      Expression::parse(text, t);
    } catch (const ExpressionError& e) {
      return e;
    }
    throw std::logic_error("no error for " + text);
  };
  const ExpressionError y = error("2 * y");
  CHECK(y.detail() == "unknown name 'y'; did you mean 'x'?");
  CHECK(y.position() == 4);
  CHECK(y.text() == "2 * y");
  CHECK(std::string(y.what()) == "unknown name 'y'; did you mean 'x'? (in \"2 * y\", column 5)");
  CHECK(error("theta_dt + 1").detail() == "unknown name 'theta_dt'; did you mean 'theta_dot'?");
  CHECK(error("mas").detail() == "unknown name 'mas'; did you mean 'mass'?");
  CHECK(error("Pi").detail() == "unknown name 'Pi'; did you mean 'pi'?");
  CHECK(error("completely_unrelated").detail() == "unknown name 'completely_unrelated'");
  CHECK(error("sinn(x)").detail() == "unknown function 'sinn'; did you mean 'sin'?");
  CHECK(error("x(2)").detail() == "'x' is not a function (write '*' to multiply)");
  CHECK(error("sin + 1").detail() == "'sin' is a function: write sin(...)");
  CHECK(error("atan2(x)").detail() == "'atan2' takes 2 arguments, found 1");
  CHECK(error("sin(x, x)").detail() == "'sin' takes 1 argument, found 2");
  CHECK(error("min()").detail() == "'min' takes 2 arguments, found 0");
}

TEST_CASE("Syntax errors name the problem and its position", "[expression][error]") {
  struct Case {
    const char* text;
    const char* detail;
    std::size_t position;
  };
  const std::vector<Case> cases{
      {"1 +", "syntax error: expected a number, a name or '(', found the end of the text", 3},
      {"sin(", "syntax error: expected a number, a name or '(', found the end of the text", 4},
      {"sin(x",
       "syntax error: expected ')' to close the arguments of sin() at column 4, found the end of "
       "the text",
       5},
      {"(1 + 2", "syntax error: expected ')' to close '(' at column 1, found the end of the text",
       6},
      {"1 + 2)", "syntax error: unmatched ')'", 5},
      {"2**3", "syntax error: '**' is not an operator; write '^' for a power", 1},
      {"x == 1",
       "syntax error: '=' is not allowed: an expression is a value (operators are + - * / ^)", 2},
      {"x = 1",
       "syntax error: '=' is not allowed: an expression is a value (operators are + - * / ^)", 2},
      {"x < 1",
       "syntax error: '<' is not allowed: an expression is a value (operators are + - * / ^)", 2},
      {"2 x", "syntax error: expected an operator before the name 'x' (write '*' to multiply)", 2},
      {"2(x)", "syntax error: expected an operator before '(' (write '*' to multiply)", 1},
      {"x, y", "syntax error: ',' outside a function call", 1},
      {"x # 2", "syntax error: unexpected character '#'", 2},
      {"x * * y", "syntax error: expected a number, a name or '(', found '*'", 4},
      {"()", "syntax error: expected a number, a name or '(', found ')'", 1},
      {"1e", "malformed number '1e': an exponent needs digits", 0},
      {"2.5e+x", "malformed number '2.5e+': an exponent needs digits", 0},
      {"1e999", "number 1e999 is out of range", 0},
      {"1.5.3", "syntax error: expected an operator before the number .3 (write '*' to multiply)",
       3},
      {"x.", "syntax error: unexpected character '.'", 1},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const ExpressionError e = parseError(c.text);
    CHECK(e.detail() == c.detail);
    CHECK(e.position() == c.position);
    CHECK(e.text() == c.text);
  }
}

TEST_CASE("Empty text is an error", "[expression][error]") {
  for (const char* text : {"", "   ", "\t\n"}) {
    const ExpressionError e = parseError(text);
    CHECK(e.detail() == "empty expression");
    CHECK(e.position() == std::string::npos);
    CHECK(std::string(e.what()).find("empty expression") == 0);
  }
}

TEST_CASE("Constant parts that have no value are errors", "[expression][error]") {
  CHECK(parseError("1 / 0").detail() == "undefined constant subexpression (division by zero)");
  CHECK(parseError("x + 1/(m - 2.5)").position() == 5);
  CHECK(parseError("log(0)").detail().find("undefined constant subexpression") == 0);
  CHECK(parseError("0^0").detail().find("undefined constant subexpression") == 0);
  CHECK(parseError("tan(pi/2)").detail().find("undefined constant subexpression") == 0);

  SymbolTable t;
  t.setConstant("k", std::nan(""));
  try {
    Expression::parse("2 * k", t);
    FAIL("no error");
  } catch (const ExpressionError& e) {
    CHECK(e.detail() == "the parameter 'k' is not finite (nan)");
    CHECK(e.position() == 4);
  }
}

TEST_CASE("Deeply nested expressions: unary chains are fine, a too deep stack is an error",
          "[expression][error]") {
  const SymbolTable t = xyTable();
  std::string chain = "x";
  for (int i = 0; i < 300; ++i) chain = "sin(" + chain + ")";
  const std::array<double, 2> vars{0.5, 0.0};
  double expected = 0.5;
  for (int i = 0; i < 300; ++i) expected = std::sin(expected);
  CHECK(Expression::parse(chain, t).evaluate(vars.data()) == Approx(expected).epsilon(1e-14));

  // long sums and products need two stack slots
  std::string sum = "x";
  for (int i = 0; i < 500; ++i)
    sum += " + " + std::to_string(i % 7) + " * x * y^" + std::to_string(i % 5);
  CHECK(std::isfinite(Expression::parse(sum, t).evaluate(vars.data())));

  // a right-nested tower of powers needs one slot per level
  std::string tower = "x";
  for (int i = 0; i < 70; ++i) tower = "(y + 1)^(" + tower + ")";
  const ExpressionError e = parseError(tower);
  CHECK(e.detail().find("expression is nested too deeply") == 0);
  CHECK(e.detail().find("the limit is 64") != std::string::npos);
}

// ---- performance contracts ------------------------------------------------------------------

TEST_CASE("Evaluation performs no heap allocation", "[expression][allocation]") {
  const SymbolTable t = xyTable();
  const Expression e = Expression::parse(
      "sin(x) + cos(y) * tan(x/4) + asin(x/9) - acos(y/9) + atan(x) + atan2(x, y) + sinh(x) "
      "+ cosh(y) / tanh(x + 3) + exp(-x^2) + log(y^2 + 1) + sqrt(abs(x)) + sign(y) "
      "+ min(x, y) * max(x, m) + (y^2 + 1)^x + x^-3 + pi",
      t);
  const Expression d = e.derivative(0);
  std::array<double, 2> vars{0.3, 1.7};
  double sum = 0.0;
  long allocations = 0;
  {
    AllocationCounter counter;
    for (int i = 0; i < 1000; ++i) {
      vars[0] = 0.3 + 1e-3 * i;
      sum += e.evaluate(vars.data()) + d.evaluate(vars.data());
    }
    allocations = counter.count();
  }
  CHECK(allocations == 0);
  CHECK(std::isfinite(sum));

  // the counter does see allocations
  {
    AllocationCounter counter;
    const Expression parsed = Expression::parse("x + y", t);
    allocations = counter.count();
  }
  CHECK(allocations > 0);
}

TEST_CASE("Copying an expression is cheap: the compiled form is shared",
          "[expression][allocation]") {
  const SymbolTable t = xyTable();
  const Expression e = Expression::parse("x^2 + sin(y)", t);
  const std::array<double, 2> vars{1.5, 0.5};
  long allocations = 0;
  double sum = 0.0;
  const Expression warm;  // creates the shared zero before counting
  {
    AllocationCounter counter;
    std::array<Expression, 100> copies;  // default expressions share one zero
    for (int i = 0; i < 1000; ++i) copies[static_cast<std::size_t>(i % 100)] = e;
    for (const Expression& c : copies) sum += c.evaluate(vars.data());
    allocations = counter.count();
  }
  CHECK(allocations == 0);
  CHECK(sum == Approx(100 * (2.25 + std::sin(0.5))));
}

TEST_CASE("Parsing and differentiating from several threads", "[expression][threads]") {
  // GiNaC is not thread-safe; the library serialises its symbolic work internally.
  const SymbolTable t = xyTable();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      const std::array<double, 2> vars{0.5 + 0.1 * k, 1.5};
      for (int i = 0; i < 100; ++i) {
        const Expression e = Expression::parse("sin(x*y) + x^" + std::to_string(i % 6 + 2), t);
        const Expression d = e.derivative(0);
        const double x = vars[0], y = vars[1];
        const double expected = y * std::cos(x * y) + (i % 6 + 2) * std::pow(x, i % 6 + 1);
        if (std::fabs(d.evaluate(vars.data()) - expected) >
            1e-12 * std::max(1.0, std::fabs(expected))) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  CHECK(failures == 0);
}
