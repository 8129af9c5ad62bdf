// The normal form of pair formulas (issue 13), shared by the GPU programs of radial_program.hpp:
// each output as a polynomial, a sum of c · Π Aₖ^(hₖ/2) over atoms A (x = r², the per-atom
// parameters of a pair program, sums and function calls, exponents half-integers), so that the
// r/r, √x·√x and x^(a)·x^(b) left by symbolic differentiation cancel exactly and per-pair
// parameter sums (σ1 + σ2) stay one atom. Internal to engine/formula.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/formula/expression.hpp"
#include "engine/formula/radial_program.hpp"

namespace pairwise::formula::normal {

// A monomial Π Aₖ^(hₖ/2): (atom, h) sorted by atom, no h = 0. A polynomial: monomial ->
// coefficient.
using Mono = std::vector<std::pair<int, int>>;
using Poly = std::map<Mono, double>;

// What an atom depends on (bits): the first atom's parameters (loop-invariant in a pair kernel's
// inner loop over partners), the second atom's, the input x = r².
enum Side : int { kFirst = 1, kSecond = 2, kX = 4 };

struct Atom {
  enum Kind { input, sum_atom, call_atom } kind = input;
  Poly sum;                  // Kind::sum: the polynomial
  Op op = Op::constant;      // Kind::call
  std::vector<Poly> args;    // Kind::call
  bool nonnegative = false;  // known >= 0 (sqrt of its square is itself)
  int slot = 0;              // Kind::input: the program input (0: x)
  int side = kX;             // Side bits of what it depends on
};

std::string key_of(const Poly& p);
Poly constant_poly(double c);
// p[m] += c, the term dropped where it cancels.
void add_into(Poly& p, const Mono& m, double c);
Mono mono_mul(const Mono& x, const Mono& y);
Mono mono_div(const Mono& x, const Mono& y);
// The greatest common monomial of p's terms: the atoms in every term with powers of one sign, at
// the smallest magnitude (empty when a term is a constant).
Mono common_factor(const Poly& p);

// The outputs in normal form and the atoms they name (atom 0: x; with params, atoms 1.. the
// parameters in their order).
struct NormalForm {
  std::vector<Atom> atoms;
  std::vector<Poly> outputs;
};
// Graph variable `input` is x; params (a pair program's) name the other variables it may use.
NormalForm normalize(const Graph& g, const std::vector<NodeId>& outputs, int input,
                     const std::vector<PairParameter>& params = {});

}  // namespace pairwise::formula::normal
