// Regressions of the fuzzed formula language (tests/fuzz/formula.cpp, docs/robustness.md lists the
// runs): each input that crashed, hung or tripped a sanitizer is now a clear FormulaError with its
// column, or a bounded computation.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/formula/parser.hpp"
#include "pairwise/error.hpp"

namespace {

using namespace pairwise;
using formula::FormulaError;

FormulaError formula_error(const std::string& text) {
  formula::Graph g;
  formula::Scope scope{{"r"}, {}};
  try {
    formula::parse(g, text, scope);
  } catch (const FormulaError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << text;
  return FormulaError("", 0);
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int k = 0; k < n; ++k) out += s;
  return out;
}

// 100 000 nested parentheses overflowed the recursive descent's stack (a segmentation fault in the
// release build); the nesting is bounded at 200 levels, with the column where the 201st begins.
TEST(FormulaLimits, DeepNestingIsAnErrorAtItsColumn) {
  for (const std::string& open : {std::string("("), std::string("-"), std::string("sqrt(")}) {
    const std::string text = repeat(open, 1000) + "r";
    const FormulaError e = formula_error(text);
    EXPECT_NE(e.message().find("nesting deeper than 200 levels"), std::string::npos) << e.message();
    EXPECT_EQ(e.column(), 1 + 200 * int(open.size())) << open;
  }
  // 2^2^...^2: each exponent nests one level.
  EXPECT_EQ(formula_error(repeat("2^", 300) + "2").column(), 401);
  // 200 levels are fine.
  formula::Graph g;
  formula::Scope scope{{"r"}, {}};
  const auto id = formula::parse(g, repeat("(", 199) + "r" + repeat(")", 199), scope);
  EXPECT_EQ(g.evaluate(id, {2.5}), 2.5);
}

// Nested constant powers fold into one exponent: six levels of ^64 made 64^6 = 2^36, an int
// overflow in Graph::powi (UBSan: signed-integer-overflow), and five made 2^30, doubled past int
// by the GPU normal form; integer powers are bounded at 1024.
TEST(FormulaLimits, IntegerPowersAreBounded) {
  const FormulaError e = formula_error("((((((r^64)^64)^64)^64)^64)^64)");
  EXPECT_EQ(e.message(), "integer power 4096 out of range (at most 1024 in magnitude)");
  EXPECT_EQ(e.column(), 12);  // the second '^'
  EXPECT_EQ(formula_error("(r^-32)^64").column(), 8);
  formula::Graph g;
  formula::Scope scope{{"r"}, {}};
  EXPECT_NEAR(g.evaluate(formula::parse(g, "(r^32)^32", scope), {1.001}) / std::pow(1.001, 1024),
              1.0, 1e-13);
}

// r*t*r*t*... (2040 operations, built by the parser's loops) made a graph whose recursive walks
// (cuda_device_function) overflowed the stack under ASan; chains are bounded at 500 operations,
// in the text, through definitions and in the derivatives.
TEST(FormulaLimits, LongChainsAreAnErrorAtTheirColumn) {
  const FormulaError e = formula_error("r" + repeat("*r", 1200));
  EXPECT_NE(e.message().find("formula too deeply nested (a chain of more than 500 operations"),
            std::string::npos)
      << e.message();
  EXPECT_EQ(e.column(), 2 + 2 * 500);  // the 501st '*'
  // Through definitions: a1 = a2 + r; a2 = a3 + r; ... (each lowered inside the previous).
  std::string defs = "a1";
  for (int k = 1; k < 600; ++k)
    defs += "; a" + std::to_string(k) + " = a" + std::to_string(k + 1) + " + r";
  defs += "; a600 = r";
  EXPECT_NE(formula_error(defs).message().find("nested"), std::string::npos);
  // Derivatives deepen a graph: 300 products of sines differentiate past 500.
  formula::Graph g;
  formula::Scope scope{{"r"}, {}};
  const auto u = formula::parse(g, "r" + repeat("*sin(r)", 300), scope);
  try {
    g.derivative(u, 0);
    ADD_FAILURE() << "the derivative of 300 nested products did not hit the depth limit";
  } catch (const FormulaError& e) {
    EXPECT_NE(std::string(e.what()).find("too deeply nested"), std::string::npos) << e.what();
  }
  // A chain of 450 is fine, and evaluates.
  const auto v = formula::parse(g, "r" + repeat("+r", 450), scope);
  EXPECT_DOUBLE_EQ(g.evaluate(v, {0.5}), 225.5);
}

// A chain of definitions each using the previous one twice is a graph of n nodes whose infix form
// has 2^n terms: to_string ran for minutes (a libFuzzer timeout) and depends_on walked 2^n paths.
// The text stops after 4096 characters; depends_on visits each node once.
TEST(FormulaLimits, SharedSubexpressionsStayLinear) {
  std::string text = "a60; a0 = r";
  for (int k = 1; k <= 60; ++k)
    text += "; a" + std::to_string(k) + " = sin(a" + std::to_string(k - 1) + ")*t + a" +
            std::to_string(k - 1) + "*s";
  formula::Graph g;
  formula::Scope scope{{"r", "t", "s"}, {}};
  const auto id = formula::parse(g, text, scope);
  const std::string infix = g.to_string(id, scope.variables);
  EXPECT_LT(infix.size(), 4096u + 4096u);
  EXPECT_TRUE(infix.find("...") != std::string::npos);
  EXPECT_TRUE(g.depends_on(id, 0));
  EXPECT_TRUE(g.depends_on(id, 2));
  EXPECT_FALSE(g.depends_on(id, 3));
  EXPECT_EQ(g.to_string(formula::parse(g, "r + 6", scope), scope.variables), "(r + 6)");
}

}  // namespace
