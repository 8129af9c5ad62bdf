// The formula language (issue 13, docs/formulas.md), OpenMM's Custom*Force syntax:
//
//   text        := [name '='] expression { ';' name '=' expression } [';']
//   expression  := term { ('+' | '-') term }
//   term        := unary { ('*' | '/') unary }
//   unary       := ('-' | '+') unary | power
//   power       := primary [ '^' unary ]            (right associative: 2^3^2 = 2^9; -x^2 = -(x^2))
//   primary     := number | name | name '(' expression { ',' expression } ')' | '(' expression ')'
//
// The first expression is the value (optionally named, `E = 4*eps*(s6^2 - s6)`); the ones after
// ';' are intermediate definitions usable anywhere before or after (`s6 = (sigma/r)^6`), without
// cycles. Names resolve to, in order: definitions, variables (r; t, s; ...), parameters (numbers
// known when the formula is built, e.g. per type pair), the constant pi. Functions: sqrt exp log
// erf erfc sin cos tan sinh cosh tanh abs step(x) (1 if x >= 0) min max pow select(c, a, b)
// (a if c != 0 else b). Every error is a FormulaError with the 1-based column it points at, and a
// did-you-mean for unknown names. Limits (tests/fuzz/formula.cpp found what lay beyond them):
// nesting (parentheses, signs, exponents, arguments) 200 levels; a chain of operations 500
// (kMaxGraphDepth: in the text, through definitions and in the derivatives); integer powers at
// most 1024 in magnitude.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/formula/expression.hpp"

namespace pairwise::formula {

struct Scope {
  std::vector<std::string> variables;        // index = the variable's input index
  std::map<std::string, double> parameters;  // constants of this instance (per type pair, ...)
};

// Parses `text` into `g` and returns the value's node. Throws FormulaError.
NodeId parse(Graph& g, std::string_view text, const Scope& scope);

// The names a formula uses that are neither defined in it nor functions (to tell which
// parameters it needs). Throws FormulaError for syntax errors.
std::vector<std::string> free_names(std::string_view text);

}  // namespace pairwise::formula
