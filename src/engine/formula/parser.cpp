#include "engine/formula/parser.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <numbers>
#include <set>

#include "core/config.hpp"

namespace pairwise::formula {

std::string FormulaError::describe(const std::string& label) const {
  std::string s = message();
  if (column_ > 0) s += " at column " + std::to_string(column_);
  if (!label.empty()) s += " in " + label;
  if (!suggestion_.empty()) s += ", did you mean '" + suggestion_ + "'?";
  return s;
}

namespace {

// ---- tokens -----------------------------------------------------------------------------------

enum class Tok { number, name, op, end };

struct Token {
  Tok kind = Tok::end;
  std::string text;
  double value = 0;
  int column = 0;  // 1-based
};

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char ch = s[i];
    const int column = int(i) + 1;
    if (std::isspace(static_cast<unsigned char>(ch))) {
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(ch)) ||
               (ch == '.' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      const std::string rest(s.substr(i));
      char* end = nullptr;
      const double v = std::strtod(rest.c_str(), &end);
      const std::size_t len = std::size_t(end - rest.c_str());
      out.push_back({Tok::number, rest.substr(0, len), v, column});
      i += len;
    } else if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Tok::name, std::string(s.substr(i, j - i)), 0, column});
      i = j;
    } else if (std::string_view("+-*/^(),;=").find(ch) != std::string_view::npos) {
      out.push_back({Tok::op, std::string(1, ch), 0, column});
      ++i;
    } else {
      throw FormulaError(std::string("unexpected character '") + ch + "'", column);
    }
  }
  out.push_back({Tok::end, "", 0, int(s.size()) + 1});
  return out;
}

// ---- syntax tree ------------------------------------------------------------------------------

struct Ast {
  enum Kind { k_number, k_name, k_call, k_binary, k_negate } kind = k_number;
  int height = 0;  // the longest path to a leaf
  double value = 0;
  std::string name;  // name, call: the function; binary: the operator
  std::vector<std::unique_ptr<Ast>> args;
  int column = 0;
};
using AstPtr = std::unique_ptr<Ast>;

struct Definition {
  std::string name;
  int column = 0;
  AstPtr value;
};

// The deepest nesting of a formula: far beyond a hand-written one, and shallow enough for the
// recursive descent and the recursive graph walks behind it on any thread's stack.
constexpr int kMaxNesting = 200;

class Parser {
 public:
  explicit Parser(std::string_view text) : tokens_(tokenize(text)) {}

  std::vector<Definition> parse_all() {
    std::vector<Definition> defs;
    bool first = true;
    while (true) {
      Definition d;
      if (peek().kind == Tok::name && peek(1).kind == Tok::op && peek(1).text == "=") {
        d.name = peek().text, d.column = peek().column;
        pos_ += 2;
      } else if (!first) {
        expected("a definition 'name = expression'");
      }
      d.value = expression();
      defs.push_back(std::move(d));
      first = false;
      if (accept(";")) {
        if (peek().kind == Tok::end) break;
        continue;
      }
      if (peek().kind != Tok::end) expected("an operator or ';'");
      break;
    }
    return defs;
  }

 private:
  const Token& peek(std::size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool accept(std::string_view op) {
    if (peek().kind == Tok::op && peek().text == op) return ++pos_, true;
    return false;
  }
  [[noreturn]] void expected(std::string_view what) const {
    const Token& t = peek();
    const std::string got = t.kind == Tok::end ? "the end" : "'" + t.text + "'";
    throw FormulaError("syntax error: expected " + std::string(what) + ", got " + got, t.column);
  }
  AstPtr make(Ast::Kind k, int column) {
    auto a = std::make_unique<Ast>();
    a->kind = k, a->column = column;
    return a;
  }
  // `node` with its arguments in place: its height, bounded (a chain such as r*r*...*r is built
  // by loops, not recursion, but lowered and destroyed recursively).
  AstPtr finish(AstPtr node) {
    for (const auto& arg : node->args) node->height = std::max(node->height, arg->height + 1);
    if (node->height > kMaxGraphDepth)
      throw FormulaError("formula too deeply nested (a chain of more than " +
                             std::to_string(kMaxGraphDepth) + " operations)",
                         node->column);
    return node;
  }

  AstPtr expression() {
    AstPtr left = term();
    while (peek().kind == Tok::op && (peek().text == "+" || peek().text == "-")) {
      const Token op = peek();
      ++pos_;
      AstPtr node = make(Ast::k_binary, op.column);
      node->name = op.text;
      node->args.push_back(std::move(left));
      node->args.push_back(term());
      left = finish(std::move(node));
    }
    return left;
  }
  AstPtr term() {
    AstPtr left = unary();
    while (peek().kind == Tok::op && (peek().text == "*" || peek().text == "/")) {
      const Token op = peek();
      ++pos_;
      AstPtr node = make(Ast::k_binary, op.column);
      node->name = op.text;
      node->args.push_back(std::move(left));
      node->args.push_back(unary());
      left = finish(std::move(node));
    }
    return left;
  }
  AstPtr unary() {
    // Every nesting (parentheses, arguments, signs, exponents) passes here: bound the recursion
    // (and the lowering's and the graph walks' after it) before it can exhaust the stack.
    const int column = peek().column;
    if (depth_ >= kMaxNesting)
      throw FormulaError("nesting deeper than " + std::to_string(kMaxNesting) +
                             " levels (parentheses, signs, exponents)",
                         column);
    struct Nest {
      int& depth;
      explicit Nest(int& d) : depth(++d) {}
      ~Nest() { --depth; }
    } nest(depth_);
    if (accept("-")) {
      AstPtr node = make(Ast::k_negate, column);
      node->args.push_back(unary());
      return finish(std::move(node));
    }
    if (accept("+")) return unary();
    return power();
  }
  AstPtr power() {
    AstPtr base = primary();
    const int column = peek().column;
    if (accept("^")) {
      AstPtr node = make(Ast::k_binary, column);
      node->name = "^";
      node->args.push_back(std::move(base));
      node->args.push_back(unary());
      return finish(std::move(node));
    }
    return base;
  }
  AstPtr primary() {
    const Token t = peek();
    if (t.kind == Tok::number) {
      ++pos_;
      AstPtr n = make(Ast::k_number, t.column);
      n->value = t.value;
      return n;
    }
    if (t.kind == Tok::name) {
      ++pos_;
      if (accept("(")) {
        AstPtr call = make(Ast::k_call, t.column);
        call->name = t.text;
        if (!accept(")")) {
          do call->args.push_back(expression());
          while (accept(","));
          if (!accept(")")) expected("',' or ')'");
        }
        return finish(std::move(call));
      }
      AstPtr n = make(Ast::k_name, t.column);
      n->name = t.text;
      return n;
    }
    if (accept("(")) {
      AstPtr inner = expression();
      if (!accept(")")) expected("')'");
      return inner;
    }
    expected("a number, a name or '('");
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;  // unary() calls in progress
};

// ---- lowering into the graph -------------------------------------------------------------------

struct Function {
  const char* name;
  Op op;
  int args;
};
constexpr Function kFunctions[] = {
    {"sqrt", Op::sqrt, 1},    {"exp", Op::exp, 1},   {"log", Op::log, 1},   {"erf", Op::erf, 1},
    {"erfc", Op::erfc, 1},    {"sin", Op::sin, 1},   {"cos", Op::cos, 1},   {"tan", Op::tan, 1},
    {"sinh", Op::sinh, 1},    {"cosh", Op::cosh, 1}, {"tanh", Op::tanh, 1}, {"abs", Op::abs, 1},
    {"step", Op::step, 1},    {"min", Op::min, 2},   {"max", Op::max, 2},   {"pow", Op::pow, 2},
    {"select", Op::select, 3}};

const Function* find_function(std::string_view name) {
  for (const auto& f : kFunctions)
    if (name == f.name) return &f;
  return nullptr;
}

class Lowering {
 public:
  Lowering(Graph& g, const Scope& scope, std::vector<Definition>& defs)
      : g_(g), scope_(scope), defs_(defs) {
    for (std::size_t k = 1; k < defs.size(); ++k) {
      if (defs[k].name == "pi" || find_function(defs[k].name))
        throw FormulaError("cannot redefine '" + defs[k].name + "'", defs[k].column);
      for (std::size_t m = 1; m < k; ++m)
        if (defs[m].name == defs[k].name)
          throw FormulaError("'" + defs[k].name + "' is defined twice", defs[k].column);
      by_name_[defs[k].name] = k;
    }
    state_.assign(defs.size(), 0);
    value_.assign(defs.size(), -1);
  }

  NodeId definition(std::size_t k, int use_column) {
    if (state_[k] == 2) return value_[k];
    if (state_[k] == 1)
      throw FormulaError("'" + defs_[k].name + "' is defined in terms of itself", use_column);
    // Definitions that use later ones are lowered recursively: bound that chain as the graph's.
    if (in_progress_ >= kMaxGraphDepth)
      throw FormulaError("definitions nested more than " + std::to_string(kMaxGraphDepth) +
                             " deep (each using the next)",
                         use_column);
    state_[k] = 1, ++in_progress_;
    value_[k] = lower(*defs_[k].value);
    state_[k] = 2, --in_progress_;
    return value_[k];
  }

 private:
  std::vector<std::string> candidates() const {
    std::vector<std::string> c = scope_.variables;
    for (const auto& [name, v] : scope_.parameters) c.push_back(name);
    for (const auto& [name, k] : by_name_) c.push_back(name);
    c.push_back("pi");
    return c;
  }

  NodeId name(const Ast& a) {
    if (auto it = by_name_.find(a.name); it != by_name_.end())
      return definition(it->second, a.column);
    for (std::size_t v = 0; v < scope_.variables.size(); ++v)
      if (scope_.variables[v] == a.name) return g_.variable(int(v));
    if (auto it = scope_.parameters.find(a.name); it != scope_.parameters.end())
      return g_.constant(it->second);
    if (a.name == "pi") return g_.constant(std::numbers::pi);
    if (find_function(a.name))
      throw FormulaError("function '" + a.name + "' needs arguments in parentheses", a.column);
    const auto c = candidates();
    throw FormulaError("unknown name '" + a.name + "'", a.column,
                       config::did_you_mean(a.name, c).value_or(""));
  }

  NodeId lower(const Ast& a) {
    switch (a.kind) {
      case Ast::k_number:
        return g_.constant(a.value);
      case Ast::k_name:
        return name(a);
      case Ast::k_negate:
        return g_.neg(lower(*a.args[0]), a.column);
      case Ast::k_binary: {
        const NodeId l = lower(*a.args[0]), r = lower(*a.args[1]);
        switch (a.name[0]) {
          case '+':
            return g_.add(l, r, a.column);
          case '-':
            return g_.sub(l, r, a.column);
          case '*':
            return g_.mul(l, r, a.column);
          case '/':
            return g_.div(l, r, a.column);
          default:
            return g_.pow(l, r, a.column);
        }
      }
      case Ast::k_call: {
        const Function* f = find_function(a.name);
        if (!f) {
          std::vector<std::string> names;
          for (const auto& fn : kFunctions) names.push_back(fn.name);
          throw FormulaError("unknown function '" + a.name + "'", a.column,
                             config::did_you_mean(a.name, names).value_or(""));
        }
        if (int(a.args.size()) != f->args)
          throw FormulaError(std::string(f->name) + " takes " + std::to_string(f->args) +
                                 " argument" + (f->args == 1 ? "" : "s") + ", got " +
                                 std::to_string(a.args.size()),
                             a.column);
        std::vector<NodeId> x;
        for (const auto& arg : a.args) x.push_back(lower(*arg));
        if (f->args == 1) return g_.unary(f->op, x[0], a.column);
        if (f->args == 2) return g_.binary(f->op, x[0], x[1], a.column);
        return g_.select(x[0], x[1], x[2], a.column);
      }
    }
    return g_.constant(0);
  }

  Graph& g_;
  const Scope& scope_;
  std::vector<Definition>& defs_;
  std::map<std::string, std::size_t> by_name_;
  std::vector<int> state_;  // 0 not lowered, 1 in progress, 2 done
  int in_progress_ = 0;     // definitions with state 1
  std::vector<NodeId> value_;
};

void collect_names(const Ast& a, std::set<std::string>& out) {
  if (a.kind == Ast::k_name) out.insert(a.name);
  for (const auto& c : a.args) collect_names(*c, out);
}

}  // namespace

NodeId parse(Graph& g, std::string_view text, const Scope& scope) {
  std::vector<Definition> defs = Parser(text).parse_all();
  Lowering lowering(g, scope, defs);
  // Every definition is lowered (an unknown name in an unused one is still an error).
  for (std::size_t k = 1; k < defs.size(); ++k) lowering.definition(k, defs[k].column);
  return lowering.definition(0, 1);
}

std::vector<std::string> free_names(std::string_view text) {
  std::vector<Definition> defs = Parser(text).parse_all();
  std::set<std::string> used, defined;
  for (std::size_t k = 0; k < defs.size(); ++k) {
    collect_names(*defs[k].value, used);
    if (k > 0) defined.insert(defs[k].name);
  }
  std::vector<std::string> out;
  for (const auto& n : used)
    if (!defined.count(n) && n != "pi") out.push_back(n);
  return out;
}

}  // namespace pairwise::formula
