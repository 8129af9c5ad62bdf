// Truncated Lennard-Jones pair styles of the md workload, built on the 12-6 core of
// lennard_jones.hpp. For r < rc:
//   cut            U = U_LJ(r)                                  F = F_LJ(r)
//   shift          U = U_LJ(r) − U_LJ(rc)                       F = F_LJ(r)
//   shifted_force  U = U_LJ(r) − U_LJ(rc) + (r − rc) F_LJ(rc)   F = F_LJ(r) − F_LJ(rc)
// (van Meel et al.; F is the magnitude −dU/dr), and U = F = 0 beyond rc. The three are one
// parameter struct: u_shift = 0 for cut, f_shift = 0 for cut and shift, so a kernel that handles
// shifted force handles all three; the square root it needs is compiled in only when asked
// (template flag), since cut and shift work from r² alone.
#pragma once

#include <cmath>

#include "pairwise/hd.hpp"
#include "pairwise/physics/lennard_jones.hpp"

namespace pairwise::physics {

enum class LjStyle : int { cut = 0, shift = 1, shifted_force = 2 };

template <class T>
struct LjPairParams {
  T a = 0, b = 0;  // 4 ε σ^12, 4 ε σ^6
  T rc2 = 0;       // cutoff², 0 for a pair that does not interact
  T rc = 0;        // cutoff (shifted force only)
  T u_shift = 0;   // U_LJ(rc) (shift, shifted force)
  T f_shift = 0;   // F_LJ(rc) (shifted force)
};

// Parameters of one type pair in double, from ε, σ, rc and the style.
inline LjPairParams<double> lj_pair_params(double epsilon, double sigma, double cutoff,
                                           LjStyle style) {
  const auto c = lennard_jones_coefficients(epsilon, sigma);
  LjPairParams<double> p;
  p.a = c.a, p.b = c.b, p.rc2 = cutoff * cutoff, p.rc = cutoff;
  const auto at_rc = lennard_jones(1.0 / p.rc2, c);
  if (style != LjStyle::cut) p.u_shift = at_rc.energy;
  if (style == LjStyle::shifted_force) p.f_shift = at_rc.force_over_r2 * cutoff;  // F(rc)
  return p;
}

template <class T, class S>
PW_HD LjPairParams<T> lj_pair_params_cast(const LjPairParams<S>& s) {
  return {T(s.a), T(s.b), T(s.rc2), T(s.rc), T(s.u_shift), T(s.f_shift)};
}

// U and F/r at r² < rc² (the caller tests the cutoff). ShiftedForce compiles in the √r term.
template <bool ShiftedForce, class T>
PW_HD PairTerms<T> lj_truncated(T r2, const LjPairParams<T>& p) {
  const T r2inv = T(1) / r2;
  PairTerms<T> t = lennard_jones(r2inv, LennardJonesCoefficients<T>{p.a, p.b});
  t.energy -= p.u_shift;
  if constexpr (ShiftedForce) {
    using std::sqrt;
    const T r = sqrt(r2);
    t.force_over_r2 -= p.f_shift / r;
    t.energy += (r - p.rc) * p.f_shift;
  }
  return t;
}

}  // namespace pairwise::physics
