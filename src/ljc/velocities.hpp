// Velocities of a molecule in the units of the ljc dynamics (Å, fs, amu, kcal/mol): thermal
// initial velocities and the kinetic energy.
#pragma once

#include <cstdint>

#include "ljc/molecule.hpp"

namespace pairwise::ljc {

// Units of the dynamics: Å, fs, amu, kcal/mol. F/m in kcal/(mol·Å·amu) times this is Å/fs².
inline constexpr double kAccelFactor = 4.184e-4;
inline constexpr double kBoltzmannKcal = 0.0019872041;  // kcal/(mol·K)

// Maxwell–Boltzmann velocities (Å/fs) at temperature T from Philox keyed on (seed, atom), with the
// centre-of-mass motion removed and rescaled to exactly T over 3N - 3 degrees of freedom.
void thermal_velocities(Molecule& m, double temperature, std::uint64_t seed);
// Σ ½ m v² in kcal/mol.
double kinetic_energy(const Molecule& m);

}  // namespace pairwise::ljc
