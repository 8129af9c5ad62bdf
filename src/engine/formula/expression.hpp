// User formulas as expression graphs (issue 13): a hash-consed DAG of nodes (identical
// sub-expressions are one node, so common sub-expressions are computed once), built through a
// Graph whose constructors simplify as they go (constant folding, x + 0, x * 1, x * 0, x ^ 1,
// c1 * (c2 * x), integer powers kept exact), and differentiated symbolically (derivative()), with
// the same simplifying constructors, so dU/dr of 4 ε ((σ/r)^12 − (σ/r)^6) comes out as a handful
// of multiplies, not a tree of quotient rules.
//
// Why a self-written graph rather than GiNaC: the expressions are small (tens of nodes), the only
// calculus needed is d/dx of elementary functions, and what matters downstream is a graph we can
// compile into our own register bytecode and CUDA source with column-accurate error reporting;
// GiNaC would add a large dynamic dependency the GPU machine does not have (DESIGN.md,
// Dependencies) and its canonical forms (e.g. r^(-12)) are not the fastest to evaluate.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "pairwise/error.hpp"

namespace pairwise::formula {

enum class Op : std::uint8_t {
  constant,
  variable,  // an input (r, t, s, ...): index into the program's inputs
  add,
  sub,
  mul,
  div,
  neg,
  powi,  // a ^ n for an integer n (stored in `n`): exact repeated multiplication
  pow,   // a ^ b, general
  sqrt,
  exp,
  log,
  erf,
  erfc,
  sin,
  cos,
  tan,
  sinh,
  cosh,
  tanh,
  abs,
  step,  // 1 if a >= 0 else 0 (OpenMM)
  min,
  max,
  select,  // a != 0 ? b : c (OpenMM)
};

// Number of operands of an op (0 for constant and variable).
int arity(Op op);
// The formula-language name of a function op ("exp"), or the operator symbol.
const char* op_name(Op op);

using NodeId = std::int32_t;

struct Node {
  Op op = Op::constant;
  NodeId a = -1, b = -1, c = -1;  // operands
  int n = 0;                      // powi exponent, variable index
  double value = 0;               // constant value
  int column = 0;                 // 1-based column in the source text (0: generated)
};

// A formula error with the 1-based column it points at (0: no column).
// `suggestion` is a did-you-mean candidate for an unknown name ("" if none).
class FormulaError : public Error {
 public:
  FormulaError(const std::string& what, int column, std::string suggestion = {})
      : Error(what), column_(column), suggestion_(std::move(suggestion)) {}
  int column() const { return column_; }
  const std::string& suggestion() const { return suggestion_; }
  // "<what> at column C in <label>[, did you mean 'x'?]" (label e.g. "[force_field]
  // pair_1_1.energy").
  std::string describe(const std::string& label) const;

 private:
  int column_;
  std::string suggestion_;
};

// The longest chain of operations a graph may hold: the derivatives, evaluations and code
// generators walk it recursively (about 2.5 KB of stack per level under ASan), and a formula of
// 500 nested operations is far beyond any
// potential (Graph's constructors throw FormulaError past it).
constexpr int kMaxGraphDepth = 500;

class Graph {
 public:
  const Node& operator[](NodeId id) const { return nodes_[std::size_t(id)]; }
  std::size_t size() const { return nodes_.size(); }

  NodeId constant(double v);
  NodeId variable(int index);
  // Simplifying constructors. `column` marks where the operation was written (for errors); a
  // division whose denominator folds to zero throws FormulaError at that column.
  NodeId add(NodeId a, NodeId b, int column = 0);
  NodeId sub(NodeId a, NodeId b, int column = 0);
  NodeId mul(NodeId a, NodeId b, int column = 0);
  NodeId div(NodeId a, NodeId b, int column = 0);
  NodeId neg(NodeId a, int column = 0);
  NodeId pow(NodeId a, NodeId b, int column = 0);
  NodeId powi(NodeId a, int n, int column = 0);
  NodeId unary(Op op, NodeId a, int column = 0);
  NodeId binary(Op op, NodeId a, NodeId b, int column = 0);  // min, max (and the arithmetic ops)
  NodeId select(NodeId cond, NodeId if_nonzero, NodeId if_zero, int column = 0);

  bool is_constant(NodeId id) const { return (*this)[id].op == Op::constant; }
  bool is_constant(NodeId id, double v) const { return is_constant(id) && (*this)[id].value == v; }
  // Whether `id` depends on variable `index`.
  bool depends_on(NodeId id, int index) const;

  // d(id)/d(variable `index`), simplified. Memoized per (node, variable).
  NodeId derivative(NodeId id, int index);
  // `id` with variable `index` replaced by the node `by`, simplified again.
  NodeId substitute(NodeId id, int index, NodeId by);

  // Evaluates in double, recursively over the graph (the reference evaluation: plain std:: math
  // on every node, no compilation). `inputs` are the variables' values. With `check`, a division
  // by exactly zero throws FormulaError at the division's column.
  double evaluate(NodeId id, const std::vector<double>& inputs, bool check = false) const;
  // Several outputs at one point, sharing the sub-expressions (out[k] for ids[k]).
  void evaluate(const std::vector<NodeId>& ids, const std::vector<double>& inputs,
                std::vector<double>& out, bool check = false) const;

  // A readable infix form (tests, messages, docs), cut with "..." after 4096 characters (shared
  // sub-expressions are written out at each use).
  std::string to_string(NodeId id, const std::vector<std::string>& variable_names) const;

 private:
  NodeId intern(Node n);
  double eval_rec(NodeId id, const std::vector<double>& in, bool check, std::vector<double>& memo,
                  std::vector<char>& done) const;

  std::vector<Node> nodes_;
  std::vector<int> depth_;  // per node: the longest path to a leaf (constants, variables: 0)
  std::map<std::tuple<int, NodeId, NodeId, NodeId, int, std::uint64_t>, NodeId> index_;
  std::map<std::pair<NodeId, int>, NodeId> derivatives_;
};

// Applies an op to constant operands (the folding rule, also used by the evaluators' reference).
double apply(Op op, double a, double b = 0, double c = 0, int n = 0);

}  // namespace pairwise::formula
