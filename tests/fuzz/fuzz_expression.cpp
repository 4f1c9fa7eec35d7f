// libFuzzer target: the expression parser, compiler and differentiator. Any text in; an
// Expression (evaluated, differentiated once per variable) or an ExpressionError out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/core/expression.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  joinery::SymbolTable table;
  table.addVariable("x");
  table.addVariable("y");
  table.addVariable("t");
  table.setConstant("k", 2.5);
  table.setConstant("L", 0.3);
  try {
    const joinery::Expression e = joinery::Expression::parse(text, table);
    const double vars[3] = {0.25, -1.5, 0.75};
    (void)e.evaluate(vars);
    for (int slot = 0; slot < 3; ++slot) {
      const joinery::Expression d = e.derivative(slot);
      (void)d.evaluate(vars);
    }
    (void)e.print({"x", "y", "t"});
  } catch (const joinery::Error&) {
    // expected for bad input
  }
  return 0;
}
