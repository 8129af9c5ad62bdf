#include "engine/formula/radial_program.hpp"

#include "engine/formula/cuda_source.hpp"
#include "engine/formula/normal_form.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "pairwise/error.hpp"

namespace pairwise::formula {

namespace {

using namespace normal;

// Emits the normalized outputs as instructions.
class Emitter {
 public:
  Emitter(std::vector<Atom>& atoms, RadialProgram& p) : atoms_(atoms), p_(p) {}

  void set_input_atom(int a) { input_atom_ = a; }
  // Pair programs: an operation on the same operands is emitted once.
  void share_operations() { share_ = true; }

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

  // An output of a pair program: its terms grouped by their power of x = r², the negative powers
  // as E(z) + y·O(z) with y = x^-½ (rsqrt) and z = y² (or 1/x), each by Horner's rule in z, the
  // common power of z factored out: F/r of LJ + Coulomb comes out as the hand-written kernel's
  // z·(B³(c₁B³ + c₂) + y·k q₁q₂) with B = σ²z (see group()). Positive powers of x are added as
  // plain products.
  int horner(const Poly& q) {
    std::map<int, Poly> by_h;  // power of x (half units) -> coefficient
    for (const auto& [m, c] : q) {
      int h = 0;
      Mono rest;
      for (const auto& [a, e] : m) {
        if (a == 0)
          h = e;
        else
          rest.emplace_back(a, e);
      }
      add_into(by_h[h], rest, c);
    }
    Poly positive;
    std::map<int, Poly> even, odd;  // z^k · C  and  y · z^k · C
    for (const auto& [h, c] : by_h) {
      if (c.empty()) continue;
      if (h > 0) {
        for (const auto& [m, v] : c) positive[mono_mul(m, Mono{{0, h}})] = v;
      } else if ((-h) % 2 == 0) {
        even[-h / 2] = c;
      } else {
        odd[(-h - 1) / 2] = c;
      }
    }
    int result = -1;
    if (!even.empty() || !odd.empty()) {
      int m0 = 1 << 30;
      for (const auto& t : even) m0 = std::min(m0, t.first);
      for (const auto& t : odd) m0 = std::min(m0, t.first);
      auto shifted = [&](const std::map<int, Poly>& terms) {
        std::map<int, Poly> r;
        for (const auto& [k, c] : terms) r[k - m0] = c;
        return r;
      };
      if (!even.empty()) result = group(shifted(even));
      if (!odd.empty()) {
        const int o = mul_slot(group(shifted(odd)), atom_power(0, -1));
        result = result < 0 ? o : emit({RadialProgram::Code::add, result, o});
      }
      if (m0 > 0) result = mul_slot(result, pow_of(z_slot(), m0));
    }
    if (!positive.empty()) {
      const int pslot = poly(positive);
      result = result < 0 ? pslot : emit({RadialProgram::Code::add, result, pslot});
    }
    return result < 0 ? constant(0) : result;
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
    const bool arithmetic = i.code == RadialProgram::Code::add ||
                            i.code == RadialProgram::Code::mul ||
                            i.code == RadialProgram::Code::neg;
    const auto key = std::make_tuple(int(i.code), i.a, i.b);
    if (share_ && arithmetic) {
      if (auto it = op_slot_.find(key); it != op_slot_.end()) return it->second;
    }
    p_.code.push_back(i);
    const int slot = int(p_.code.size() - 1);
    if (share_ && arithmetic) op_slot_[key] = slot;
    return slot;
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
    } else if (at.kind == Atom::input) {
      Ins i{RadialProgram::Code::input};
      i.input = at.slot;
      s = emit(i);
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

  int mul_slot(int a, int b) { return emit({RadialProgram::Code::mul, a, b}); }
  int z_slot() { return atom_power(0, -2); }

  // Σₖ Cₖ zᵏ (k >= 0) by Horner's rule. An atom A whose power in every term is proportional to k
  // (σ¹² z⁶ and σ⁶ z³) joins the base, B = z·A^ρ (σ² z), so that the powers are taken once, of B;
  // a factor common to every term that varies over the partners (the second atom's √ε₂) is
  // multiplied once at the end, while the first atom's parts stay in the coefficients, where the
  // kernel's inner loop over partners finds them invariant.
  int group(std::map<int, Poly> terms) {
    if (terms.size() == 1 && terms.begin()->first == 0) return coefficient(terms.begin()->second);
    // The atoms that join the base, with their power per unit of k (half units).
    std::map<int, int> rho;
    const auto& [k1, c1] = *std::prev(terms.end());  // the highest power (k1 > 0)
    for (const auto& [a, h] : c1.begin()->first) {
      if (atoms_[std::size_t(a)].side & kX || h % k1 != 0) continue;
      const int r = h / k1;
      bool ok = true;
      for (const auto& [k, c] : terms) {
        for (const auto& [m, v] : c) {
          int e = 0;
          for (const auto& [b, hb] : m)
            if (b == a) e = hb;
          if (e != r * k) ok = false;
        }
      }
      if (ok) rho[a] = r;
    }
    int base = z_slot();
    if (!rho.empty()) {
      Mono per_unit;
      for (const auto& [a, r] : rho) per_unit.emplace_back(a, r);
      base = mul_slot(mono_memo(per_unit), base);
      for (auto& [k, c] : terms) {
        Mono strip;
        for (const auto& [a, r] : rho) strip.emplace_back(a, r * k);
        Poly stripped;
        for (const auto& [m, v] : c) stripped[mono_div(m, strip)] = v;
        c = stripped;
      }
    }
    // The common factor that is not the first atom's alone.
    Poly all;
    for (const auto& [k, c] : terms)
      for (const auto& [m, v] : c) all[m] = 1;
    Mono late;
    for (const auto& [a, h] : common_factor(all))
      if (atoms_[std::size_t(a)].side & ~kFirst) late.emplace_back(a, h);
    int acc = -1, previous = 0;
    for (auto it = terms.rbegin(); it != terms.rend(); ++it) {
      Poly c;
      for (const auto& [m, v] : it->second) c[mono_div(m, late)] = v;
      const int cs = coefficient(c);
      if (acc < 0) {
        acc = cs;
      } else {
        acc = mul_slot(acc, pow_of(base, previous - it->first));
        acc = emit({RadialProgram::Code::add, acc, cs});
      }
      previous = it->first;
    }
    if (previous > 0) acc = mul_slot(acc, pow_of(base, previous));
    if (!late.empty()) acc = mul_slot(acc, mono_memo(late));
    return acc;
  }

  // A coefficient (free of x^k): each term as c · (first atom's factors) · (second's) · (rest),
  // in that order, so that c and the first atom's part form one loop-invariant value.
  int coefficient(const Poly& q) {
    int sum = -1;
    for (const auto& [m, c] : q) {
      Mono first, second, rest;
      for (const auto& f : m) {
        const int side = atoms_[std::size_t(f.first)].side;
        if ((side & ~kFirst) == 0)
          first.push_back(f);
        else if (side == kSecond)
          second.push_back(f);
        else
          rest.push_back(f);
      }
      int term = first.empty() ? -1 : mono_memo(first);  // -1: the factor 1
      if (c != 1) {
        if (term < 0)
          term = constant(c);
        else
          term = c == -1 ? emit({RadialProgram::Code::neg, term}) : mul_slot(constant(c), term);
      }
      for (const Mono* part : {&second, &rest}) {
        if (part->empty()) continue;
        const int f = mono_memo(*part);
        term = term < 0 ? f : mul_slot(term, f);
      }
      if (term < 0) term = constant(1);
      sum = sum < 0 ? term : emit({RadialProgram::Code::add, sum, term});
    }
    return sum < 0 ? constant(0) : sum;
  }

  int mono_memo(const Mono& m) {
    if (auto it = mono_slot_.find(m); it != mono_slot_.end()) return it->second;
    return mono_slot_[m] = mono(m);
  }

  std::vector<Atom>& atoms_;
  RadialProgram& p_;
  std::map<Mono, int> mono_slot_;
  std::map<std::tuple<int, int, int>, int> op_slot_;
  bool share_ = false;
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
  NormalForm f = normalize(g, outputs, input);
  const std::vector<Poly>& polys = f.outputs;
  std::vector<Atom>& atoms = f.atoms;
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

RadialProgram pair_program(const Graph& g, const std::vector<NodeId>& outputs, int r2_variable,
                           const std::vector<PairParameter>& params) {
  NormalForm f = normalize(g, outputs, r2_variable, params);
  const std::vector<Poly>& polys = f.outputs;
  RadialProgram p;
  p.inputs = int(params.size()) + 1;
  Emitter e(f.atoms, p);
  e.share_operations();
  e.scan_all(polys);
  for (const Poly& q : polys) p.outputs.push_back(e.horner(q));
  return p;
}

std::vector<double> RadialProgram::evaluate(double x) const {
  return evaluate(std::vector<double>{x});
}

std::vector<double> RadialProgram::evaluate(const std::vector<double>& inputs) const {
  std::vector<double> v(code.size());
  const double in = shifted ? inputs.at(0) + shift : inputs.at(0);
  for (std::size_t k = 0; k < code.size(); ++k) {
    const Instruction& i = code[k];
    auto at = [&](int s) { return s >= 0 ? v[std::size_t(s)] : 0.0; };
    switch (i.code) {
      case Code::constant:
        v[k] = i.value;
        break;
      case Code::input:
        v[k] = i.input == 0 ? in : inputs.at(std::size_t(i.input));
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
  src << "__device__ __forceinline__ void " << name << "(";
  for (int k = 0; k < inputs; ++k)
    src << "const " << type << " " << (inputs == 1 ? std::string("s") : "x" + std::to_string(k))
        << ", ";
  src << type << "* out) {\n";
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
        expr = inputs == 1 ? std::string("s") : "x" + std::to_string(i.input);
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
