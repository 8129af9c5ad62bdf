// Conserved quantities and global diagnostics of an N-body state.
#pragma once

#include <span>

#include "nbody/particles.hpp"

namespace pairwise::nbody {

struct Diagnostics {
  double time = 0;
  double kinetic = 0;             // K = Σ m v² / 2
  double potential = 0;           // W = Σ m φ / 2 (φ from the force kernel, softened)
  double total = 0;               // E = K + W
  double energy_error = 0;        // (E - E0) / |E0|, relative error since t = 0
  double px = 0, py = 0, pz = 0;  // linear momentum Σ m v
  double lx = 0, ly = 0, lz = 0;  // angular momentum Σ m x × v
  double virial_ratio = 0;        // Q = 2K / |W| (1 in virial equilibrium)
};

// `pot` holds φ_i for every particle; e0 is the total energy at t = 0 (pass 0 to get error 0 and
// set it from the result).
Diagnostics measure(const Particles& p, std::span<const double> pot, double time, double e0);

}  // namespace pairwise::nbody
