#include "engine/formula/expression.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <sstream>

namespace pairwise::formula {

int arity(Op op) {
  switch (op) {
    case Op::constant:
    case Op::variable:
      return 0;
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::pow:
    case Op::min:
    case Op::max:
      return 2;
    case Op::select:
      return 3;
    default:
      return 1;
  }
}

const char* op_name(Op op) {
  switch (op) {
    case Op::constant:
      return "constant";
    case Op::variable:
      return "variable";
    case Op::add:
      return "+";
    case Op::sub:
      return "-";
    case Op::mul:
      return "*";
    case Op::div:
      return "/";
    case Op::neg:
      return "-";
    case Op::powi:
    case Op::pow:
      return "^";
    case Op::sqrt:
      return "sqrt";
    case Op::exp:
      return "exp";
    case Op::log:
      return "log";
    case Op::erf:
      return "erf";
    case Op::erfc:
      return "erfc";
    case Op::sin:
      return "sin";
    case Op::cos:
      return "cos";
    case Op::tan:
      return "tan";
    case Op::sinh:
      return "sinh";
    case Op::cosh:
      return "cosh";
    case Op::tanh:
      return "tanh";
    case Op::abs:
      return "abs";
    case Op::step:
      return "step";
    case Op::min:
      return "min";
    case Op::max:
      return "max";
    case Op::select:
      return "select";
  }
  return "?";
}

double apply(Op op, double a, double b, double c, int n) {
  switch (op) {
    case Op::add:
      return a + b;
    case Op::sub:
      return a - b;
    case Op::mul:
      return a * b;
    case Op::div:
      return a / b;
    case Op::neg:
      return -a;
    case Op::powi: {
      // Binary exponentiation, the same multiplication order as the compiled programs.
      const bool inverse = n < 0;
      unsigned e = unsigned(inverse ? -n : n);
      double result = 1, base = a;
      bool first = true;
      while (e) {
        if (e & 1u) result = first ? base : result * base, first = false;
        e >>= 1;
        if (e) base = base * base;
      }
      return inverse ? 1.0 / result : result;
    }
    case Op::pow:
      return std::pow(a, b);
    case Op::sqrt:
      return std::sqrt(a);
    case Op::exp:
      return std::exp(a);
    case Op::log:
      return std::log(a);
    case Op::erf:
      return std::erf(a);
    case Op::erfc:
      return std::erfc(a);
    case Op::sin:
      return std::sin(a);
    case Op::cos:
      return std::cos(a);
    case Op::tan:
      return std::tan(a);
    case Op::sinh:
      return std::sinh(a);
    case Op::cosh:
      return std::cosh(a);
    case Op::tanh:
      return std::tanh(a);
    case Op::abs:
      return std::abs(a);
    case Op::step:
      return a >= 0 ? 1.0 : 0.0;
    case Op::min:
      return std::min(a, b);
    case Op::max:
      return std::max(a, b);
    case Op::select:
      return a != 0 ? b : c;
    case Op::constant:
    case Op::variable:
      break;
  }
  return 0;
}

namespace {
// Integer powers are unrolled into multiplies (here, in the cpu program and in CUDA source) and
// doubled into half-integer exponents by the GPU normal form: |n| stays far from int's range.
constexpr std::int64_t kMaxExponent = 1024;
void check_exponent(std::int64_t n, int column) {
  if (n > kMaxExponent || n < -kMaxExponent)
    throw FormulaError("integer power " + std::to_string(n) + " out of range (at most " +
                           std::to_string(kMaxExponent) + " in magnitude)",
                       column);
}
}  // namespace

NodeId Graph::intern(Node n) {
  const auto key =
      std::make_tuple(int(n.op), n.a, n.b, n.c, n.n, std::bit_cast<std::uint64_t>(n.value));
  if (auto it = index_.find(key); it != index_.end()) return it->second;
  int depth = 0;
  for (NodeId operand : {n.a, n.b, n.c})
    if (operand >= 0) depth = std::max(depth, depth_[std::size_t(operand)] + 1);
  if (depth > kMaxGraphDepth)
    throw FormulaError("formula too deeply nested (a chain of more than " +
                           std::to_string(kMaxGraphDepth) + " operations, derivatives included)",
                       n.column);
  const NodeId id = NodeId(nodes_.size());
  nodes_.push_back(n);
  depth_.push_back(depth);
  index_.emplace(key, id);
  return id;
}

NodeId Graph::constant(double v) {
  if (v == 0) v = 0;  // -0 and +0 are one node
  return intern({Op::constant, -1, -1, -1, 0, v, 0});
}

NodeId Graph::variable(int index) {
  return intern({Op::variable, -1, -1, -1, index, 0, 0});
}

bool Graph::depends_on(NodeId id, int index) const {
  // Each node once (a walk of the shared graph as a tree takes exponential time on a chain of
  // definitions that each use the previous one twice), on an explicit stack.
  std::vector<char> seen(nodes_.size(), 0);
  std::vector<NodeId> todo = {id};
  while (!todo.empty()) {
    const NodeId k = todo.back();
    todo.pop_back();
    if (seen[std::size_t(k)]) continue;
    seen[std::size_t(k)] = 1;
    const Node& n = (*this)[k];
    if (n.op == Op::variable && n.n == index) return true;
    for (NodeId operand : {n.a, n.b, n.c})
      if (operand >= 0) todo.push_back(operand);
  }
  return false;
}

NodeId Graph::add(NodeId a, NodeId b, int column) {
  if (is_constant(a) && is_constant(b)) return constant((*this)[a].value + (*this)[b].value);
  if (is_constant(a, 0)) return b;
  if (is_constant(b, 0)) return a;
  if ((*this)[b].op == Op::neg) return sub(a, (*this)[b].a, column);
  if (is_constant(a)) std::swap(a, b);  // constants on the right: x + c
  return intern({Op::add, a, b, -1, 0, 0, column});
}

NodeId Graph::sub(NodeId a, NodeId b, int column) {
  if (is_constant(a) && is_constant(b)) return constant((*this)[a].value - (*this)[b].value);
  if (is_constant(b, 0)) return a;
  if (is_constant(a, 0)) return neg(b, column);
  if (a == b) return constant(0);
  if ((*this)[b].op == Op::neg) return add(a, (*this)[b].a, column);
  return intern({Op::sub, a, b, -1, 0, 0, column});
}

NodeId Graph::neg(NodeId a, int column) {
  const Node n = (*this)[a];
  if (n.op == Op::constant) return constant(-n.value);
  if (n.op == Op::neg) return n.a;
  if (n.op == Op::sub) return sub(n.b, n.a, column);
  // -(c * x) = (-c) * x
  if (n.op == Op::mul && is_constant(n.a)) return mul(constant(-(*this)[n.a].value), n.b, column);
  return intern({Op::neg, a, -1, -1, 0, 0, column});
}

NodeId Graph::mul(NodeId a, NodeId b, int column) {
  if (is_constant(b) && !is_constant(a)) std::swap(a, b);  // constant first: c * x
  if (is_constant(a) && is_constant(b)) return constant((*this)[a].value * (*this)[b].value);
  if (is_constant(a, 0)) return constant(0);
  if (is_constant(a, 1)) return b;
  if (is_constant(a, -1)) return neg(b, column);
  const Node nb = (*this)[b];
  if (is_constant(a)) {
    // c1 * (c2 * x) = (c1 c2) * x ;  c * (-x) = (-c) * x
    if (nb.op == Op::mul && is_constant(nb.a))
      return mul(constant((*this)[a].value * (*this)[nb.a].value), nb.b, column);
    if (nb.op == Op::neg) return mul(constant(-(*this)[a].value), nb.a, column);
  } else {
    // x * (c * y) = c * (x y), so constants gather in front.
    if (nb.op == Op::mul && is_constant(nb.a)) return mul(nb.a, mul(a, nb.b, column), column);
    const Node na = (*this)[a];
    if (na.op == Op::mul && is_constant(na.a)) return mul(na.a, mul(na.b, b, column), column);
    if (na.op == Op::neg) return neg(mul(na.a, b, column), column);
    if (nb.op == Op::neg) return neg(mul(a, nb.a, column), column);
    if (a == b) return powi(a, 2, column);
  }
  return intern({Op::mul, a, b, -1, 0, 0, column});
}

NodeId Graph::div(NodeId a, NodeId b, int column) {
  if (is_constant(b, 0)) throw FormulaError("division by zero", column);
  if (is_constant(a) && is_constant(b)) return constant((*this)[a].value / (*this)[b].value);
  if (is_constant(a, 0)) return constant(0);
  if (is_constant(b, 1)) return a;
  if (is_constant(b)) return mul(constant(1.0 / (*this)[b].value), a, column);
  if (a == b) return constant(1);
  return intern({Op::div, a, b, -1, 0, 0, column});
}

NodeId Graph::powi(NodeId a, int n, int column) {
  check_exponent(n, column);
  if (n == 0) return constant(1);
  if (n == 1) return a;
  const Node na = (*this)[a];
  if (na.op == Op::constant) {
    if (na.value == 0 && n < 0)
      throw FormulaError("division by zero (0 to a negative power)", column);
    return constant(apply(Op::powi, na.value, 0, 0, n));
  }
  if (na.op == Op::powi) {  // (x^m)^n = x^(mn), integers (the product checked before it overflows)
    check_exponent(std::int64_t(na.n) * n, column);
    return powi(na.a, na.n * n, column);
  }
  // √x^(2k) = x^k (x ≥ 0 where the formula is real): r^(2k) = (r²)^k once r is √r², so even
  // powers of r need no square root.
  if (na.op == Op::sqrt && n % 2 == 0) return powi(na.a, n / 2, column);
  // (c/x)^n = c^n x^−n, (c x)^n = c^n x^n: (σ/r)^6 = σ^6 r^−6, then (r²)^−3.
  if ((na.op == Op::div || na.op == Op::mul) && is_constant(na.a)) {
    const double c = apply(Op::powi, (*this)[na.a].value, 0, 0, n);
    return mul(constant(c), powi(na.b, na.op == Op::div ? -n : n, column), column);
  }
  if (n == -1) return div(constant(1), a, column);
  return intern({Op::powi, a, -1, -1, n, 0, column});
}

NodeId Graph::pow(NodeId a, NodeId b, int column) {
  if (is_constant(b)) {
    const double e = (*this)[b].value;
    if (e == std::nearbyint(e) && std::abs(e) <= 64) return powi(a, int(e), column);
    if (e == 0.5) return unary(Op::sqrt, a, column);
    if (e == -0.5) return div(constant(1), unary(Op::sqrt, a, column), column);
    if (is_constant(a)) return constant(std::pow((*this)[a].value, e));
  }
  return intern({Op::pow, a, b, -1, 0, 0, column});
}

NodeId Graph::unary(Op op, NodeId a, int column) {
  if (op == Op::neg) return neg(a, column);
  const Node na = (*this)[a];
  if (na.op == Op::constant) return constant(apply(op, na.value));
  if (op == Op::log && na.op == Op::exp) return na.a;
  return intern({op, a, -1, -1, 0, 0, column});
}

NodeId Graph::binary(Op op, NodeId a, NodeId b, int column) {
  switch (op) {
    case Op::add:
      return add(a, b, column);
    case Op::sub:
      return sub(a, b, column);
    case Op::mul:
      return mul(a, b, column);
    case Op::div:
      return div(a, b, column);
    case Op::pow:
      return pow(a, b, column);
    default:
      break;
  }
  if (is_constant(a) && is_constant(b))
    return constant(apply(op, (*this)[a].value, (*this)[b].value));
  if (a == b && (op == Op::min || op == Op::max)) return a;
  return intern({op, a, b, -1, 0, 0, column});
}

NodeId Graph::select(NodeId cond, NodeId if_nonzero, NodeId if_zero, int column) {
  if (is_constant(cond)) return (*this)[cond].value != 0 ? if_nonzero : if_zero;
  if (if_nonzero == if_zero) return if_zero;
  return intern({Op::select, cond, if_nonzero, if_zero, 0, 0, column});
}

NodeId Graph::derivative(NodeId id, int index) {
  if (auto it = derivatives_.find({id, index}); it != derivatives_.end()) return it->second;
  const Node n = (*this)[id];  // a copy: nodes_ grows below
  auto d = [&](NodeId x) { return derivative(x, index); };
  const NodeId zero = constant(0), one = constant(1);
  NodeId result = zero;
  switch (n.op) {
    case Op::constant:
      result = zero;
      break;
    case Op::variable:
      result = n.n == index ? one : zero;
      break;
    case Op::add:
      result = add(d(n.a), d(n.b));
      break;
    case Op::sub:
      result = sub(d(n.a), d(n.b));
      break;
    case Op::mul:  // (ab)' = a'b + ab'
      result = add(mul(d(n.a), n.b), mul(n.a, d(n.b)));
      break;
    case Op::div: {  // (a/b)' = a'/b − a b'/b²
      const NodeId da = d(n.a), db = d(n.b);
      result = sub(div(da, n.b), div(mul(n.a, db), powi(n.b, 2)));
      break;
    }
    case Op::neg:
      result = neg(d(n.a));
      break;
    case Op::powi:  // (a^n)' = n a^(n−1) a'
      result = mul(mul(constant(n.n), powi(n.a, n.n - 1)), d(n.a));
      break;
    case Op::pow: {  // (a^b)' = a^b (b' ln a + b a'/a)
      const NodeId da = d(n.a), db = d(n.b);
      NodeId inner = div(mul(n.b, da), n.a);
      if (!is_constant(db, 0)) inner = add(mul(db, unary(Op::log, n.a)), inner);
      result = mul(id, inner);
      break;
    }
    case Op::sqrt:  // (√a)' = a' / (2 √a)
      result = div(d(n.a), mul(constant(2), id));
      break;
    case Op::exp:
      result = mul(id, d(n.a));
      break;
    case Op::log:
      result = div(d(n.a), n.a);
      break;
    case Op::erf:
    case Op::erfc: {  // erf' = 2/√π e^(−a²) a'
      const NodeId g = mul(constant((n.op == Op::erf ? 2 : -2) / std::sqrt(std::numbers::pi)),
                           unary(Op::exp, neg(powi(n.a, 2))));
      result = mul(g, d(n.a));
      break;
    }
    case Op::sin:
      result = mul(unary(Op::cos, n.a), d(n.a));
      break;
    case Op::cos:
      result = neg(mul(unary(Op::sin, n.a), d(n.a)));
      break;
    case Op::tan:  // 1 + tan²
      result = mul(add(one, powi(id, 2)), d(n.a));
      break;
    case Op::sinh:
      result = mul(unary(Op::cosh, n.a), d(n.a));
      break;
    case Op::cosh:
      result = mul(unary(Op::sinh, n.a), d(n.a));
      break;
    case Op::tanh:  // 1 − tanh²
      result = mul(sub(one, powi(id, 2)), d(n.a));
      break;
    case Op::abs:  // sign(a) a', with sign(0) = 1 (one-sided)
      result = mul(select(unary(Op::step, n.a), one, constant(-1)), d(n.a));
      break;
    case Op::step:
      result = zero;
      break;
    case Op::min:  // a where a <= b
      result = select(unary(Op::step, sub(n.b, n.a)), d(n.a), d(n.b));
      break;
    case Op::max:
      result = select(unary(Op::step, sub(n.a, n.b)), d(n.a), d(n.b));
      break;
    case Op::select:
      result = select(n.a, d(n.b), d(n.c));
      break;
  }
  derivatives_[{id, index}] = result;
  return result;
}

NodeId Graph::substitute(NodeId root, int index, NodeId by) {
  std::map<NodeId, NodeId> memo;
  auto rec = [&](auto&& self, NodeId id) -> NodeId {
    if (auto it = memo.find(id); it != memo.end()) return it->second;
    const Node n = (*this)[id];
    NodeId out = id;
    if (n.op == Op::variable) {
      out = n.n == index ? by : id;
    } else if (n.op != Op::constant) {
      const NodeId a = self(self, n.a);
      const NodeId b = n.b >= 0 ? self(self, n.b) : -1;
      const NodeId c = n.c >= 0 ? self(self, n.c) : -1;
      if (n.op == Op::powi)
        out = powi(a, n.n, n.column);
      else if (n.op == Op::select)
        out = select(a, b, c, n.column);
      else
        out = arity(n.op) == 1 ? unary(n.op, a, n.column) : binary(n.op, a, b, n.column);
    }
    memo[id] = out;
    return out;
  };
  return rec(rec, root);
}

double Graph::eval_rec(NodeId id, const std::vector<double>& in, bool check,
                       std::vector<double>& memo, std::vector<char>& done) const {
  if (done[std::size_t(id)]) return memo[std::size_t(id)];
  const Node& n = (*this)[id];
  double v = 0;
  if (n.op == Op::constant) {
    v = n.value;
  } else if (n.op == Op::variable) {
    v = in.at(std::size_t(n.n));
  } else {
    const double a = eval_rec(n.a, in, check, memo, done);
    const double b = n.b >= 0 ? eval_rec(n.b, in, check, memo, done) : 0.0;
    const double c = n.c >= 0 ? eval_rec(n.c, in, check, memo, done) : 0.0;
    if (check && n.op == Op::div && b == 0) throw FormulaError("division by zero", n.column);
    if (check && n.op == Op::powi && n.n < 0 && a == 0)
      throw FormulaError("division by zero (0 to a negative power)", n.column);
    v = apply(n.op, a, b, c, n.n);
  }
  memo[std::size_t(id)] = v;
  done[std::size_t(id)] = 1;
  return v;
}

double Graph::evaluate(NodeId id, const std::vector<double>& inputs, bool check) const {
  std::vector<double> memo(nodes_.size());
  std::vector<char> done(nodes_.size(), 0);
  return eval_rec(id, inputs, check, memo, done);
}

void Graph::evaluate(const std::vector<NodeId>& ids, const std::vector<double>& inputs,
                     std::vector<double>& out, bool check) const {
  thread_local std::vector<double> memo;
  thread_local std::vector<char> done;
  memo.resize(nodes_.size());
  done.assign(nodes_.size(), 0);
  out.resize(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) out[k] = eval_rec(ids[k], inputs, check, memo, done);
}

namespace {
// A graph shares sub-expressions, its infix form repeats them: a chain of definitions that each
// use the previous one twice prints in 2^depth characters. The text stops at this length.
constexpr std::size_t kMaxInfixChars = 4096;

void infix(const Graph& g, NodeId id, const std::vector<std::string>& names, std::string& out) {
  if (out.size() > kMaxInfixChars) {
    if (!out.ends_with("...")) out += "...";
    return;
  }
  const Node& n = g[id];
  switch (n.op) {
    case Op::constant: {
      std::ostringstream v;
      v.precision(17);
      v << n.value;
      out += v.str();
      break;
    }
    case Op::variable:
      if (std::size_t(n.n) < names.size()) {
        out += names[std::size_t(n.n)];
      } else {
        out += 'x';
        out += std::to_string(n.n);
      }
      break;
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
      out += "(";
      infix(g, n.a, names, out);
      out += std::string(" ") + op_name(n.op) + " ";
      infix(g, n.b, names, out);
      out += ")";
      break;
    case Op::neg:
      out += "(-";
      infix(g, n.a, names, out);
      out += ")";
      break;
    case Op::powi:
      out += "(";
      infix(g, n.a, names, out);
      out += '^';
      out += std::to_string(n.n);
      out += ')';
      break;
    case Op::pow:
      out += "(";
      infix(g, n.a, names, out);
      out += "^";
      infix(g, n.b, names, out);
      out += ")";
      break;
    default:
      out += std::string(op_name(n.op)) + "(";
      infix(g, n.a, names, out);
      for (NodeId arg : {n.b, n.c}) {
        if (arg < 0) continue;
        out += ", ";
        infix(g, arg, names, out);
      }
      out += ")";
  }
}
}  // namespace

std::string Graph::to_string(NodeId id, const std::vector<std::string>& names) const {
  std::string out;
  infix(*this, id, names, out);
  return out;
}

}  // namespace pairwise::formula
