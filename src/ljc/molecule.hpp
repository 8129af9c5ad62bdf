// A molecule for the all-pairs LJ + Coulomb workload (issue 5): atoms with charge, LJ σ and ε and a
// mass, Cartesian positions, harmonic bonds and explicit exclusions, plus the nonbonded settings.
// Units: Å, kcal/mol, e, amu (DESIGN.md). Bonds: U = ½ k (r - r0)² (the OpenMM / GROMACS
// convention, k in kcal/(mol·Å²)).
//
// Exclusions are derived from the bonds as OpenMM's createExceptionsFromBonds does: pairs 1 or 2
// bonds apart (1-2, 1-3) are excluded, pairs 3 bonds apart (1-4) interact with their LJ and Coulomb
// terms scaled by scale14_lj and scale14_coulomb; the bond graph distance is the shortest path, so
// a pair in a ring that is both 1-3 and 1-4 is excluded. Explicit exclusions are added to the
// excluded set.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "pairwise/physics/dielectric.hpp"

namespace pairwise::ljc {

struct Bond {
  int i = 0, j = 0;
  double r0 = 0;  // Å
  double k = 0;   // kcal/(mol·Å²), U = ½ k (r - r0)²
};

struct Molecule {
  std::vector<std::string> type;  // per atom (a name, for messages and outputs)
  std::vector<double> q, sigma, epsilon, mass;
  std::vector<double> x, y, z;
  std::vector<double> vx, vy, vz;  // empty: start from rest or from a thermal draw
  std::vector<Bond> bonds;
  std::vector<std::pair<int, int>> exclusions;  // explicit, in addition to those from bonds

  std::size_t size() const { return q.size(); }
  void resize(std::size_t n);
  double net_charge() const;
  // Checks sizes, finite values, σ > 0, ε >= 0, mass > 0, and that bonds and exclusions name atoms
  // that exist (0 <= i, j < n, i != j). Throws pairwise::Error naming `source` and the item.
  void validate(const std::string& source) const;
};

struct NonbondedOptions {
  physics::DielectricKind dielectric = physics::DielectricKind::constant;
  double epsilon = 1.0;        // constant dielectric ε
  double linear_factor = 1.0;  // linear dielectric ε(r) = s·r (s = 1: ε(r) = r)
  physics::SigmoidalCoefficients sigmoidal = physics::kSigmoidalDefault;
  double scale14_lj = 0.5;  // AMBER ff defaults
  double scale14_coulomb = 1.0 / 1.2;
};

physics::DielectricKind parse_dielectric(std::string_view text);  // throws pairwise::Error
std::string_view to_string(physics::DielectricKind d);

// Atom pairs (i < j, sorted) excluded from, and scaled in, the nonbonded sum.
struct PairLists {
  std::vector<std::pair<int, int>> excluded;  // 1-2, 1-3 and explicit exclusions
  std::vector<std::pair<int, int>> scaled14;  // 1-4 pairs not excluded
};
PairLists derive_pair_lists(const Molecule& m);

}  // namespace pairwise::ljc
