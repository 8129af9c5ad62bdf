// A radial pair potential U(r) from a formula, for one type pair (issue 13): parsed with the
// pair's parameters substituted (so they fold into constants), truncated at rc in one of the md
// styles, differentiated symbolically, and compiled for the cpu (Program) with the graph kept for
// the double reference evaluation and for CUDA source generation.
//
//   cut            E(r) = U(r)
//   shift          E(r) = U(r) − U(rc)
//   shifted_force  E(r) = U(r) − U(rc) − (r − rc) U'(rc)      (so E and dE/dr vanish at rc)
//
// The program's input is r² (what the pair loops have; r = √r² is a node of the graph) and its
// outputs are E(r) and F/r = −E'(r)/r, the factor that multiplies the displacement d = r_i − r_j
// for the force on i (physics::PairTerms' force_over_r2 convention).
#pragma once

#include <map>
#include <string>

#include "engine/formula/expression.hpp"
#include "engine/formula/program.hpp"

namespace pairwise::formula {

enum class Truncation { cut, shift, shifted_force };
Truncation parse_truncation(std::string_view text);  // cut | shift | shifted_force
const char* to_string(Truncation t);

struct PairPotentialSpec {
  std::string energy;                        // the formula in r
  std::map<std::string, double> parameters;  // this pair's parameters
  double cutoff = 0;                         // rc > 0
  Truncation truncation = Truncation::cut;
};

struct PairPotential {
  Graph graph;
  NodeId energy = -1;        // E(r²), truncated as asked
  NodeId force_over_r = -1;  // −E'(r)/r
  NodeId du_dr = -1;         // U'(r), untruncated (tests)
  Program program;           // outputs: energy, force_over_r; input: r²
  double cutoff = 0, rc2 = 0;
  Truncation truncation = Truncation::cut;

  // The double reference: both outputs at r² by the graph walk (no compiled code involved).
  void reference(double r2, double& energy_out, double& force_over_r_out) const;
};

// Builds and checks a pair potential: unknown names, syntax, a division by zero that folds to a
// constant or happens at a sample point (r = rc k/128, k = 32..128, and the multiples of 0.01
// in [rc/4, rc]), and a non-finite
// U or U' at r = rc are FormulaErrors (column of the offending operation where there is one).
PairPotential compile_pair_potential(const PairPotentialSpec& spec);

}  // namespace pairwise::formula
