// The test molecule (issue 5, item 7): no protein set is at hand offline, so an N-bead chain folded
// into a compact globule stands in for one. The chain is a Hamiltonian path through the first N
// sites of a near-cubic simple-cubic lattice (spacing `spacing`, the beads' realistic nonbonded
// distance), first a serpentine, then randomized by `backbite` moves (Mansfield 1982) that keep it
// a self-avoiding, space-filling path; positions are jittered uniformly by ±jitter. Charges are
// ±charge in equal numbers at random (one neutral bead when N is odd), so the net charge is 0.
// Consecutive beads are bonded (r0 = their generated distance, so bonds start relaxed; k = bond_k);
// the exclusions follow from the bonds.
#pragma once

#include <cstdint>

#include "ljc/molecule.hpp"

namespace pairwise::ljc {

struct GlobuleOptions {
  std::size_t n = 1280;
  std::uint64_t seed = 1;
  double spacing = 3.8;   // Å
  double jitter = 0.2;    // Å
  double charge = 0.4;    // e
  double sigma = 3.0;     // Å
  double epsilon = 0.12;  // kcal/mol
  double mass = 12.011;   // amu
  double bond_k = 200.0;  // kcal/(mol·Å²)
  bool bonds = true;      // false: unbonded atoms on the lattice (the benchmark system)
  long moves = -1;        // backbite moves; -1: 10 N, capped at 10^8 / N (N >= 2) path work
};

Molecule make_globule(const GlobuleOptions& options);

}  // namespace pairwise::ljc
