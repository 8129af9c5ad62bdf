#include "engine/formula/radial_program.hpp"

#include "engine/formula/cuda_source.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "pairwise/error.hpp"

namespace pairwise::formula {

namespace {

// A monomial Π Aₖ^(hₖ/2): (atom, h) sorted by atom, no h = 0. A polynomial: monomial ->
// coefficient.
using Mono = std::vector<std::pair<int, int>>;
using Poly = std::map<Mono, double>;

constexpr std::size_t kMaxProductTerms = 16;  // larger products keep their factors as atoms

struct Atom {
  enum Kind { input, sum_atom, call_atom } kind = input;
  Poly sum;                  // Kind::sum: the polynomial
  Op op = Op::constant;      // Kind::call
  std::vector<Poly> args;    // Kind::call
  bool nonnegative = false;  // known >= 0 (sqrt of its square is itself)
};

std::string key_of(const Poly& p) {
  std::ostringstream s;
  s.precision(17);
  for (const auto& [m, c] : p) {
    s << c << '*';
    for (const auto& [a, h] : m) s << a << '^' << h << ',';
    s << ';';
  }
  return s.str();
}

Poly constant_poly(double c) {
  Poly p;
  if (c != 0) p[Mono{}] = c;
  return p;
}

void add_into(Poly& p, const Mono& m, double c) {
  const double v = (p[m] += c);
  if (v == 0) p.erase(m);
}

Poly add(const Poly& a, const Poly& b, double scale_b = 1) {
  Poly r = a;
  for (const auto& [m, c] : b) add_into(r, m, scale_b * c);
  return r;
}

Mono mono_mul(const Mono& x, const Mono& y) {
  std::map<int, int> e;
  for (const auto& [a, h] : x) e[a] += h;
  for (const auto& [a, h] : y) e[a] += h;
  Mono r;
  for (const auto& [a, h] : e)
    if (h != 0) r.emplace_back(a, h);
  return r;
}

class Normalizer {
 public:
  Normalizer(const Graph& g, int input) : g_(g), input_(input) {
    Atom x;
    x.kind = Atom::input;
    x.nonnegative = true;  // r² >= 0
    atoms_.push_back(x);   // atom 0
  }

  Poly norm(NodeId id) {
    if (auto it = memo_.find(id); it != memo_.end()) return it->second;
    const Node& n = g_[id];
    Poly r;
    switch (n.op) {
      case Op::constant:
        r = constant_poly(n.value);
        break;
      case Op::variable:
        if (n.n != input_) throw Error("a radial pair formula depends on one input only");
        r[Mono{{0, 2}}] = 1;
        break;
      case Op::add:
        r = add(norm(n.a), norm(n.b));
        break;
      case Op::sub:
        r = add(norm(n.a), norm(n.b), -1);
        break;
      case Op::neg:
        r = add(Poly{}, norm(n.a), -1);
        break;
      case Op::mul:
        r = mul(norm(n.a), norm(n.b));
        break;
      case Op::div:
        r = mul(norm(n.a), power(norm(n.b), -2));
        break;
      case Op::powi:
        r = power(norm(n.a), 2 * n.n);
        break;
      case Op::sqrt:
        r = power(norm(n.a), 1);
        break;
      case Op::pow: {
        const Poly e = norm(n.b);
        const double k = e.empty() ? 0.0 : e.begin()->second;
        if ((e.empty() || (e.size() == 1 && e.begin()->first.empty())) &&
            2 * k == std::round(2 * k) && std::abs(k) <= 64) {
          r = power(norm(n.a), int(std::lround(2 * k)));
          break;
        }
        r = call(n);
        break;
      }
      default:
        r = call(n);
    }
    memo_[id] = r;
    return r;
  }

  std::vector<Atom>& atoms() { return atoms_; }

 private:
  Poly atom_poly(int a, int h) {
    Poly p;
    p[Mono{{a, h}}] = 1;
    return p;
  }

  int intern(Atom at) {
    std::string key =
        std::to_string(int(at.kind)) + "|" + std::to_string(int(at.op)) + "|" + key_of(at.sum);
    for (const Poly& a : at.args) key += "|" + key_of(a);
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    atoms_.push_back(std::move(at));
    return index_[key] = int(atoms_.size() - 1);
  }

  bool nonnegative(const Poly& p) const {
    for (const auto& [m, c] : p) {
      if (c < 0) return false;
      for (const auto& [a, h] : m)
        if (!atoms_[std::size_t(a)].nonnegative && h % 4 != 0) return false;
    }
    return true;
  }

  // The atom whose first power is p.
  int as_atom(const Poly& p) {
    if (p.size() == 1 && p.begin()->second == 1 && p.begin()->first.size() == 1 &&
        p.begin()->first[0].second == 2)
      return p.begin()->first[0].first;
    Atom at;
    at.kind = Atom::sum_atom;
    at.sum = p;
    at.nonnegative = nonnegative(p);
    return intern(std::move(at));
  }

  Poly mul(const Poly& x, const Poly& y) {
    // A sum times a sum keeps both as atoms ((x + c)(x + c) = A², not x² + 2cx + c²).
    if ((x.size() > 1 && y.size() > 1) || x.size() * y.size() > kMaxProductTerms) {
      Poly r;
      r[mono_mul(Mono{{as_atom(x), 2}}, Mono{{as_atom(y), 2}})] = 1;
      return r;
    }
    Poly r;
    for (const auto& [mx, cx] : x)
      for (const auto& [my, cy] : y) add_into(r, mono_mul(mx, my), cx * cy);
    return r;
  }

  // p^(h/2).
  Poly power(const Poly& p, int h) {
    if (h == 0) return constant_poly(1);
    if (p.empty()) {
      if (h < 0) throw Error("division by zero in a pair formula");
      return Poly{};
    }
    if (p.size() == 1) {
      const auto& [m, c] = *p.begin();
      bool ok = h % 2 == 0 || c > 0;
      for (const auto& [a, e] : m) {
        if ((e * h) % 2 != 0) ok = false;
        // (A²)^(1/2) = |A|: odd powers of a square root only of atoms known to be nonnegative
        if (h % 2 != 0 && !atoms_[std::size_t(a)].nonnegative) ok = false;
      }
      if (ok) {
        Mono r;
        for (const auto& [a, e] : m) r.emplace_back(a, e * h / 2);
        Poly q;
        q[r] = h % 2 == 0 ? std::pow(c, h / 2) : std::pow(c, h / 2.0);
        return q;
      }
    }
    // A sum times a positive constant is the same atom times the constant's power: (4x + 4c)^(h/2)
    // = 4^(h/2) (x + c)^(h/2). The derivatives of a softened potential bring both forms (the
    // simplifier writes (2 √(x + c))² as 4 (x + c)); one atom keeps Plummer at one rsqrt. The sum
    // is scaled so that its first non-constant term has coefficient 1.
    double lead = 0;
    for (const auto& [m, c] : p) {
      if (!m.empty()) {
        lead = c;
        break;
      }
    }
    if (lead > 0 && lead != 1) {
      Poly unit;
      for (const auto& [m, c] : p) unit[m] = c / lead;
      Poly r = atom_poly(as_atom(unit), h);
      for (auto& term : r) term.second *= std::pow(lead, h / 2.0);
      return r;
    }
    return atom_poly(as_atom(p), h);
  }

  Poly call(const Node& n) {
    Atom at;
    at.kind = Atom::call_atom;
    at.op = n.op;
    for (NodeId c : {n.a, n.b, n.c})
      if (c >= 0) at.args.push_back(norm(c));
    at.nonnegative = n.op == Op::exp || n.op == Op::cosh || n.op == Op::abs;
    return atom_poly(intern(std::move(at)), 2);
  }

  const Graph& g_;
  int input_;
  std::vector<Atom> atoms_;
  std::map<std::string, int> index_;
  std::map<NodeId, Poly> memo_;
};

// Emits the normalized outputs as instructions.
class Emitter {
 public:
  Emitter(std::vector<Atom>& atoms, RadialProgram& p) : atoms_(atoms), p_(p) {}

  void set_input_atom(int a) { input_atom_ = a; }

  // Atoms raised to odd negative half powers anywhere: their negative powers come from rsqrt.
  void scan(const Poly& q) {
    for (const auto& [m, c] : q)
      for (const auto& [a, h] : m)
        if (h < 0 && h % 2 != 0) rsqrt_atoms_.insert(a);
  }
  void scan_all(const std::vector<Poly>& outputs) {
    for (const Poly& q : outputs) scan(q);
    for (const Atom& at : atoms_) {
      scan(at.sum);
      for (const Poly& q : at.args) scan(q);
    }
  }

  int poly(const Poly& q) {
    const std::string key = key_of(q);
    if (auto it = poly_slot_.find(key); it != poly_slot_.end()) return it->second;
    int acc = -1;
    for (const auto& [m, c] : q) {
      int term;
      if (m.empty()) {
        term = constant(c);
      } else {
        term = mono(m);
        if (c == -1)
          term = emit({RadialProgram::Code::neg, term});
        else if (c != 1)
          term = emit({RadialProgram::Code::mul, constant(c), term});
      }
      acc = acc < 0 ? term : emit({RadialProgram::Code::add, acc, term});
    }
    if (acc < 0) acc = constant(0);
    return poly_slot_[key] = acc;
  }

 private:
  using Ins = RadialProgram::Instruction;
  int emit(Ins i) {
    p_.code.push_back(i);
    return int(p_.code.size() - 1);
  }
  int constant(double v) {
    if (auto it = const_slot_.find(v); it != const_slot_.end()) return it->second;
    Ins i;
    i.value = v;
    return const_slot_[v] = emit(i);
  }

  int atom(int a) {
    if (auto it = atom_slot_.find(a); it != atom_slot_.end()) return it->second;
    int s;
    const Atom& at = atoms_[std::size_t(a)];
    if (a == input_atom_) {
      s = emit({RadialProgram::Code::input});
    } else if (at.kind == Atom::sum_atom) {
      s = poly(at.sum);
    } else {
      Ins i{RadialProgram::Code::call};
      i.op = at.op;
      int* slots[] = {&i.a, &i.b, &i.c};
      for (std::size_t k = 0; k < at.args.size(); ++k) *slots[k] = poly(at.args[k]);
      s = emit(i);
    }
    return atom_slot_[a] = s;
  }

  // base^n, n >= 1, by binary powering (memoized).
  int pow_of(int base, int n) {
    if (n == 1) return base;
    const auto key = std::make_pair(base, n);
    if (auto it = pow_slot_.find(key); it != pow_slot_.end()) return it->second;
    int r;
    if (n % 2) {
      r = emit({RadialProgram::Code::mul, pow_of(base, n - 1), base});
    } else {
      const int half = pow_of(base, n / 2);
      r = emit({RadialProgram::Code::mul, half, half});
    }
    return pow_slot_[key] = r;
  }

  int unary(RadialProgram::Code code, int a) {
    const auto key = std::make_pair(int(code), a);
    if (auto it = unary_slot_.find(key); it != unary_slot_.end()) return it->second;
    return unary_slot_[key] = emit({code, atom(a)});
  }

  // A^(h/2).
  int atom_power(int a, int h) {
    if (h == 2) return atom(a);
    if (h > 0) {
      if (h % 2 == 0) return pow_of(atom(a), h / 2);
      const int s = unary(RadialProgram::Code::sqrt, a);
      return h == 1 ? s : emit({RadialProgram::Code::mul, pow_of(atom(a), h / 2), s});
    }
    if (h % 2 != 0 || rsqrt_atoms_.count(a))
      return pow_of(unary(RadialProgram::Code::rsqrt, a), -h);
    return pow_of(unary(RadialProgram::Code::rcp, a), -h / 2);
  }

  int mono(const Mono& m) {
    int acc = -1;
    for (const auto& [a, h] : m) {
      const int f = atom_power(a, h);
      acc = acc < 0 ? f : emit({RadialProgram::Code::mul, acc, f});
    }
    return acc;
  }

  std::vector<Atom>& atoms_;
  RadialProgram& p_;
  int input_atom_ = 0;
  std::set<int> rsqrt_atoms_;
  std::map<std::string, int> poly_slot_;
  std::map<double, int> const_slot_;
  std::map<int, int> atom_slot_;
  std::map<std::pair<int, int>, int> pow_slot_, unary_slot_;
};

// Counts the monomials that hold atom 0 (the input) in q.
int input_uses(const Poly& q) {
  int n = 0;
  for (const auto& [m, c] : q)
    for (const auto& [a, h] : m) n += a == 0;
  return n;
}

}  // namespace

RadialProgram radial_program(const Graph& g, const std::vector<NodeId>& outputs, int input) {
  Normalizer n(g, input);
  std::vector<Poly> polys;
  for (NodeId id : outputs) polys.push_back(n.norm(id));
  std::vector<Atom>& atoms = n.atoms();
  RadialProgram p;
  // A softening shift: x appears only as the sum x + c (one atom).
  int uses_outside = 0, shift_atom = -1;
  for (const Poly& q : polys) uses_outside += input_uses(q);
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    for (const Poly& q : atoms[a].args) uses_outside += input_uses(q);
    if (atoms[a].kind != Atom::sum_atom || input_uses(atoms[a].sum) == 0) continue;
    const Poly& s = atoms[a].sum;
    const Mono x{{0, 2}};
    const bool is_shift = s.size() == 2 && s.count(Mono{}) && s.count(x) && s.at(x) == 1;
    if (is_shift && shift_atom < 0) {
      shift_atom = int(a);
    } else {
      uses_outside += input_uses(s);
    }
  }
  Emitter e(atoms, p);
  if (shift_atom >= 0 && uses_outside == 0) {
    p.shifted = true;
    p.shift = atoms[std::size_t(shift_atom)].sum.at(Mono{});
    e.set_input_atom(shift_atom);
  }
  e.scan_all(polys);
  for (const Poly& q : polys) p.outputs.push_back(e.poly(q));
  return p;
}

std::vector<double> RadialProgram::evaluate(double x) const {
  std::vector<double> v(code.size());
  const double in = shifted ? x + shift : x;
  for (std::size_t k = 0; k < code.size(); ++k) {
    const Instruction& i = code[k];
    auto at = [&](int s) { return s >= 0 ? v[std::size_t(s)] : 0.0; };
    switch (i.code) {
      case Code::constant:
        v[k] = i.value;
        break;
      case Code::input:
        v[k] = in;
        break;
      case Code::add:
        v[k] = at(i.a) + at(i.b);
        break;
      case Code::mul:
        v[k] = at(i.a) * at(i.b);
        break;
      case Code::neg:
        v[k] = -at(i.a);
        break;
      case Code::rsqrt:
        v[k] = 1 / std::sqrt(at(i.a));
        break;
      case Code::rcp:
        v[k] = 1 / at(i.a);
        break;
      case Code::sqrt:
        v[k] = std::sqrt(at(i.a));
        break;
      case Code::call:
        v[k] = apply(i.op, at(i.a), at(i.b), at(i.c));  // as Graph::evaluate
        break;
    }
  }
  std::vector<double> out;
  for (int s : outputs) out.push_back(v[std::size_t(s)]);
  return out;
}

std::string RadialProgram::cuda_function(const std::string& name, const std::string& type) const {
  std::ostringstream src;
  src << "__device__ __forceinline__ void " << name << "(const " << type << " s, " << type
      << "* out) {\n";
  auto var = [](int s) { return "v" + std::to_string(s); };
  for (std::size_t k = 0; k < code.size(); ++k) {
    const Instruction& i = code[k];
    std::string expr;
    const std::string a = i.a >= 0 ? var(i.a) : "", b = i.b >= 0 ? var(i.b) : "",
                      c = i.c >= 0 ? var(i.c) : "";
    switch (i.code) {
      case Code::constant: {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", i.value);
        expr = type + "(" + buf + ")";
        break;
      }
      case Code::input:
        expr = "s";
        break;
      case Code::add:
        expr = a + " + " + b;
        break;
      case Code::mul:
        expr = a + " * " + b;
        break;
      case Code::neg:
        expr = "-" + a;
        break;
      case Code::rsqrt:
        expr = "pairwise::rsqrt(" + a + ")";
        break;
      case Code::rcp:
        expr = type + "(1) / " + a;
        break;
      case Code::sqrt:
        expr = "sqrt(" + a + ")";
        break;
      case Code::call:
        expr = cuda_call(i.op, a, b, c, type);
        break;
    }
    src << "  const " << type << " " << var(int(k)) << " = " << expr << ";\n";
  }
  for (std::size_t k = 0; k < outputs.size(); ++k)
    src << "  out[" << k << "] = " << var(outputs[k]) << ";\n";
  src << "}\n";
  return src.str();
}

}  // namespace pairwise::formula
