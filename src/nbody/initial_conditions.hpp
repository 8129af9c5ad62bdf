// Initial conditions in Hénon units (G = 1, total mass M = 1, E = -1/4 for a virialized system),
// reproducible from a seed on every machine (std::mt19937_64 with our own distributions).
#pragma once

#include <cstdint>
#include <string>

#include "nbody/particles.hpp"

namespace pairwise::nbody {

// Plummer sphere (Aarseth, Hénon & Wielen 1974): positions from the cumulative mass profile,
// speeds by von Neumann rejection, scaled to Hénon units (virial radius 1, E = -1/4), and moved to
// the centre-of-mass frame. Equal masses 1/n.
Particles make_plummer(std::size_t n, std::uint64_t seed);

// Cold (zero-velocity) homogeneous sphere of radius 1, equal masses 1/n, centre-of-mass frame.
Particles make_uniform_sphere(std::size_t n, std::uint64_t seed);

// Two bodies of mass 1/2 each on a Kepler orbit with semi-major axis a (default 1) and eccentricity
// e in [0, 1), started at pericentre in the x-y plane, centre of mass at rest at the origin.
// Period T = 2π sqrt(a³ / (G M)), energy E = -G m1 m2 / (2a).
Particles make_kepler(double eccentricity, double semi_major_axis = 1.0);

// Checks a particle set before a run; throws pairwise::Error naming the particle (and `source`):
// N = 0, NaN or infinite values, non-positive masses, coincident particles when eps2 == 0.
void validate_particles(const Particles& p, double eps2, const std::string& source);

}  // namespace pairwise::nbody
