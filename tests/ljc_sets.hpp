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
