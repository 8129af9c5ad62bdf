#include "engine/formula/pair_potential.hpp"

#include <cmath>
#include <sstream>

#include "engine/formula/parser.hpp"

namespace pairwise::formula {

Truncation parse_truncation(std::string_view text) {
  if (text == "cut") return Truncation::cut;
  if (text == "shift") return Truncation::shift;
  if (text == "shifted_force") return Truncation::shifted_force;
  throw Error("unknown truncation '" + std::string(text) +
              "' (expected cut, shift or shifted_force)");
}

const char* to_string(Truncation t) {
  switch (t) {
    case Truncation::cut:
      return "cut";
    case Truncation::shift:
      return "shift";
    case Truncation::shifted_force:
      return "shifted_force";
  }
  return "?";
}

namespace {
std::string show(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}
}  // namespace

void PairPotential::reference(double r2, double& energy_out, double& force_over_r_out) const {
  thread_local std::vector<double> out;
  graph.evaluate({energy, force_over_r}, {r2}, out);
  energy_out = out[0], force_over_r_out = out[1];
}

PairPotential compile_pair_potential(const PairPotentialSpec& spec) {
  if (!(spec.cutoff > 0) || !std::isfinite(spec.cutoff)) throw Error("cutoff must be > 0");
  PairPotential p;
  Graph& g = p.graph;
  p.cutoff = spec.cutoff, p.rc2 = spec.cutoff * spec.cutoff;
  p.truncation = spec.truncation;
  // Variable 0 is r²; the formula's r is √r². Another variable slot holds r itself for the
  // derivative: U is built over a variable "r" (index 1), differentiated in it, then r is
  // replaced by √r² when the outputs are formed.
  Scope scope;
  scope.variables = {"__r2", "r"};
  scope.parameters = spec.parameters;
  const NodeId u = parse(g, spec.energy, scope);
  const NodeId du = g.derivative(u, 1);
  p.du_dr = du;

  // Checks in the variable r (input 1), in double, with division-by-zero detection.
  const double rc = spec.cutoff;
  std::vector<double> at_rc;
  try {
    g.evaluate({u, du}, {rc * rc, rc}, at_rc, true);
  } catch (const FormulaError& e) {
    throw FormulaError(e.message() + " (at r = rc = " + show(rc) + ")", e.column());
  }
  if (!std::isfinite(at_rc[0]) || !std::isfinite(at_rc[1]))
    throw FormulaError("non-finite value at r = rc = " + show(rc) + " (U = " + show(at_rc[0]) +
                           ", dU/dr = " + show(at_rc[1]) + ")",
                       0);
  // Sample points: 97 evenly spaced from rc/4 to rc, and every multiple of 0.01 there (the
  // round numbers a pole like 1/(r - 1) sits at).
  std::vector<double> samples;
  for (int k = 32; k <= 128; ++k) samples.push_back(rc * k / 128.0);
  for (int k = int(std::ceil(25 * rc)); k <= int(100 * rc) && k <= 100000; ++k)
    samples.push_back(k / 100.0);
  for (const double r : samples) {
    try {
      std::vector<double> out;
      g.evaluate({u, du}, {r * r, r}, out, true);
    } catch (const FormulaError& e) {
      throw FormulaError(e.message() + " (at r = " + show(r) + ")", e.column());
    }
  }

  // Truncation, folded into the graph as constants.
  const NodeId r_node = g.variable(1);
  NodeId e = u;
  if (spec.truncation != Truncation::cut) e = g.sub(e, g.constant(at_rc[0]));
  if (spec.truncation == Truncation::shifted_force)
    e = g.sub(e, g.mul(g.constant(at_rc[1]), g.sub(r_node, g.constant(rc))));

  // Substitute r = √(r²): the two outputs over input 0 only. F/r = −E′(r)/r = −2 dE/d(r²),
  // differentiated in r² after the substitution: a formula in even powers of r (LJ: (σ/r)^6 =
  // σ^6 (r²)^−3) then needs neither a square root nor a division by r (the GPU kernels' cost).
  const NodeId sqrt_r2 = g.unary(Op::sqrt, g.variable(0));
  p.energy = g.substitute(e, 1, sqrt_r2);
  p.force_over_r = g.mul(g.constant(-2), g.derivative(p.energy, 0));
  p.program = Program(g, {p.energy, p.force_over_r});
  return p;
}

}  // namespace pairwise::formula
