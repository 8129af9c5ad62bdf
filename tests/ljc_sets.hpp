// Test molecules of the ljc workload shared by its test files.
#pragma once

#include "ljc/generator.hpp"
#include "ljc/ljc_kernel.hpp"

namespace pairwise::test {

// A compact bonded chain of n beads (exclusions and 1-4 pairs from its bonds), charges ±0.4 e.
inline ljc::Molecule ljc_globule(std::size_t n, std::uint64_t seed = 7) {
  ljc::GlobuleOptions o;
  o.n = n;
  o.seed = seed;
  return ljc::make_globule(o);
}

// The same with σ and ε varied per atom (σ in [2.7, 3.3) Å, ε in [0.06, 0.18) kcal/mol).
inline ljc::Molecule ljc_globule_per_atom_lj(std::size_t n, std::uint64_t seed = 7) {
  ljc::Molecule m = ljc_globule(n, seed);
  for (std::size_t i = 0; i < n; ++i) {
    m.sigma[i] = 2.7 + 0.6 * double((i * 7919) % 101) / 101.0;
    m.epsilon[i] = 0.06 + 0.12 * double((i * 104729) % 89) / 89.0;
  }
  return m;
}

// The same with σ and ε by atom type: `types` types (σ in [2.7, 3.3] Å, ε in [0.06, 0.18]
// kcal/mol), as molecules whose LJ parameters come by atom type.
inline ljc::Molecule ljc_globule_lj_types(std::size_t n, int types, std::uint64_t seed = 7) {
  ljc::Molecule m = ljc_globule(n, seed);
  for (std::size_t i = 0; i < n; ++i) {
    const int t = int((i * 7919) % std::size_t(types));
    m.sigma[i] = 2.7 + 0.6 * double(t) / double(types - 1);
    m.epsilon[i] = 0.06 + 0.12 * double((t * 3 + 1) % types) / double(types - 1);
  }
  return m;
}

inline ljc::NonbondedOptions ljc_options(physics::DielectricKind d) {
  ljc::NonbondedOptions nb;
  nb.dielectric = d;
  nb.epsilon = d == physics::DielectricKind::constant ? 2.0 : 1.0;
  return nb;
}

inline ljc::LjcForces ljc_forces(ljc::LjcKernel& k, const ljc::Molecule& m,
                                 const ljc::NonbondedOptions& nb) {
  k.set_system(m, nb);
  ljc::LjcForces f;
  k.compute(f);
  return f;
}

}  // namespace pairwise::test
