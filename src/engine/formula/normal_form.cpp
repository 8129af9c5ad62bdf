#include "engine/formula/normal_form.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "pairwise/error.hpp"

namespace pairwise::formula::normal {

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

Mono mono_mul(const Mono& x, const Mono& y) {
  std::map<int, int> e;
  for (const auto& [a, h] : x) e[a] += h;
  for (const auto& [a, h] : y) e[a] += h;
  Mono r;
  for (const auto& [a, h] : e)
    if (h != 0) r.emplace_back(a, h);
  return r;
}

Mono common_factor(const Poly& p) {
  if (p.empty()) return {};
  Mono g = p.begin()->first;
  for (const auto& [m, c] : p) {
    Mono next;
    for (const auto& [a, h] : g) {
      for (const auto& [b, e] : m) {
        if (b == a && (e > 0) == (h > 0))
          next.emplace_back(a, h > 0 ? std::min(h, e) : std::max(h, e));
      }
    }
    g = std::move(next);
  }
  return g;
}

Mono mono_div(const Mono& x, const Mono& y) {
  Mono inv;
  for (const auto& [a, h] : y) inv.emplace_back(a, -h);
  return mono_mul(x, inv);
}

namespace {

constexpr std::size_t kMaxProductTerms = 16;  // larger products keep their factors as atoms

Poly add(const Poly& a, const Poly& b, double scale_b = 1) {
  Poly r = a;
  for (const auto& [m, c] : b) add_into(r, m, scale_b * c);
  return r;
}

class Normalizer {
 public:
  Normalizer(const Graph& g, int input, const std::vector<PairParameter>& params = {})
      : g_(g), input_(input), pair_mode_(!params.empty()) {
    Atom x;
    x.kind = Atom::input;
    x.nonnegative = true;  // r² >= 0
    atoms_.push_back(x);   // atom 0
    for (std::size_t k = 0; k < params.size(); ++k) {
      Atom p;
      p.kind = Atom::input;
      p.slot = int(k + 1);
      p.nonnegative = params[k].nonnegative;
      p.side = params[k].side == 1 ? kFirst : params[k].side == 2 ? kSecond : 0;
      param_atom_[params[k].variable] = int(atoms_.size());
      atoms_.push_back(p);
    }
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
        if (n.n == input_) {
          r[Mono{{0, 2}}] = 1;
        } else if (auto it = param_atom_.find(n.n); it != param_atom_.end()) {
          r[Mono{{it->second, 2}}] = 1;
        } else {
          throw Error("a radial pair formula depends on one input only");
        }
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

  // Side bits of a polynomial (the union of its atoms').
  int side_of(const Poly& p) const {
    int s = 0;
    for (const auto& [m, c] : p)
      for (const auto& [a, h] : m) s |= atoms_[std::size_t(a)].side;
    return s;
  }

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
    at.side = side_of(p);
    return intern(std::move(at));
  }

  // Pair mode: a sum of two or more terms free of x as one monomial G · c · A, G the terms' common
  // monomial and A the rest scaled to a leading coefficient of 1, so that a per-pair parameter
  // such as σ = (σ1 + σ2)/2 stays one atom through products and derivatives ((σ/r)^11 · σ/r² is
  // then 2^-12 S^12 x^-6.5, not a sum over σ1 and σ2 that no later power recombines).
  Poly factored(const Poly& p) {
    const Mono g = common_factor(p);
    Poly unit;
    for (const auto& [m, c] : p) unit[mono_div(m, g)] = c;
    double lead = 0;
    for (const auto& [m, c] : unit) {
      if (!m.empty()) {
        lead = c;
        break;
      }
    }
    if (lead == 0) lead = 1;
    for (auto& term : unit) term.second /= lead;
    Poly r;
    r[mono_mul(g, Mono{{as_atom(unit), 2}})] = lead;
    return r;
  }
  bool x_free_sum(const Poly& p) const { return p.size() > 1 && !(side_of(p) & kX); }

  Poly mul(const Poly& x0, const Poly& y0) {
    const Poly& x = pair_mode_ && x_free_sum(x0) ? factored(x0) : x0;
    const Poly& y = pair_mode_ && x_free_sum(y0) ? factored(y0) : y0;
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
    if (pair_mode_ && p.size() > 1) {
      // (G · P')^(h/2) = G^(h/2) · P'^(h/2), G the terms' common monomial, where that holds (h
      // even, or G's atoms nonnegative) and G^(h/2) is a monomial (half-integer powers):
      // ((σ1 + σ2) x^-½ / 2)^12 = 2^-12 (σ1 + σ2)^12 x^-6.
      const Mono g = common_factor(p);
      bool ok = !g.empty();
      for (const auto& [a, e] : g) {
        if ((e * h) % 2 != 0) ok = false;
        if (h % 2 != 0 && !atoms_[std::size_t(a)].nonnegative) ok = false;
      }
      if (ok) {
        Poly gh, rest;
        Mono m;
        for (const auto& [a, e] : g) m.emplace_back(a, e * h / 2);
        gh[m] = 1;
        for (const auto& [mm, c] : p) rest[mono_div(mm, g)] = c;
        return mul(gh, power(rest, h));
      }
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
    at.side = 0;
    for (const Poly& a : at.args) at.side |= side_of(a);
    return atom_poly(intern(std::move(at)), 2);
  }

  const Graph& g_;
  int input_;
  bool pair_mode_ = false;
  std::map<int, int> param_atom_;  // graph variable -> atom
  std::vector<Atom> atoms_;
  std::map<std::string, int> index_;
  std::map<NodeId, Poly> memo_;
};

}  // namespace

NormalForm normalize(const Graph& g, const std::vector<NodeId>& outputs, int input,
                     const std::vector<PairParameter>& params) {
  Normalizer n(g, input, params);
  NormalForm f;
  for (NodeId id : outputs) f.outputs.push_back(n.norm(id));
  f.atoms = std::move(n.atoms());
  return f;
}

}  // namespace pairwise::formula::normal
