// The 12-6 Lennard-Jones pair term, written once for the MD (md) and implicit-solvent (ljc)
// workloads; each adds its own cutoff, shifts, mixing and Coulomb part around it.
//
//   U(r) = 4 ε [(σ/r)^12 - (σ/r)^6] = A / r^12 - B / r^6,   A = 4 ε σ^12,  B = 4 ε σ^6
//   F(r) = -dU/dr r̂ = (12 A / r^12 - 6 B / r^6) / r² · d,   d = r_i - r_j (force on i)
// Working from 1/r² needs no square root: r6inv = (1/r²)³, and `force_over_r2` multiplies the
// displacement d directly. Units are those of the caller (LJ reduced units, or Å and kcal/mol).
#pragma once

#include "pairwise/hd.hpp"

namespace pairwise::physics {

template <class T>
struct LennardJonesCoefficients {
  T a = 0;  // 4 ε σ^12
  T b = 0;  // 4 ε σ^6
};

template <class T>
PW_HD LennardJonesCoefficients<T> lennard_jones_coefficients(T epsilon, T sigma) {
  const T sigma2 = sigma * sigma;
  const T sigma6 = sigma2 * sigma2 * sigma2;
  return {T(4) * epsilon * sigma6 * sigma6, T(4) * epsilon * sigma6};
}

template <class T>
struct PairTerms {
  T energy = 0;         // U(r)
  T force_over_r2 = 0;  // F·r̂ / r: multiply by the displacement d = r_i - r_j for the force on i
};

// U and F/r from 1/r²: 4 multiplies, 2 FMA-able terms.
template <class T>
PW_HD PairTerms<T> lennard_jones(T r2inv, const LennardJonesCoefficients<T>& c) {
  const T r6inv = r2inv * r2inv * r2inv;
  const T repulsive = c.a * r6inv;  // A / r^6, times r6inv below gives A / r^12
  return {r6inv * (repulsive - c.b), r6inv * (T(12) * repulsive - T(6) * c.b) * r2inv};
}

}  // namespace pairwise::physics
