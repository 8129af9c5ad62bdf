// The electrostatic potential of point charges at lattice points (potmap), written once for the
// reference, cpu and cuda backends.
//
//   V(p) = Σ_j q_j s(r_j) / r_j,   r_j = |p - x_j|   (e/Å; times a unit factor on output)
//   direct summation:  s(r) = 1
//   cutoff summation:  s(r) = (1 - r²/rc²)² for r < rc, else 0   (NAMD's switching, as Rodrigues
//                      et al. and Parboil's cutcp)
// The switching is evaluated from r² alone, branch-free, and is exactly 0 beyond the cutoff (see
// SwitchParams): a loop may evaluate atoms beyond rc (a bin's corners) and add exactly 0. The unit
// factors convert e/Å.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "pairwise/hd.hpp"
#include "pairwise/math.hpp"

namespace pairwise::physics {

// Coulomb's constant in kcal·Å/(mol·e²) (DESIGN.md, Units; CHARMM/AMBER's value).
inline constexpr double kCoulombKcal = 332.0636;
// Boltzmann's constant in kcal/(mol·K) and the temperature of VMD's volmap kT/e unit.
inline constexpr double kBoltzmannKcal = 0.0019872041;
inline constexpr double kVolmapTemperature = 298.15;
// 1 e/Å in volts: e / (4π ε0 · 1 Å) = 14.3996454784 V.
inline constexpr double kVoltsPerEPerAngstrom = 14.399645478425668;
// 1 e/Å in kT/e at 298.15 K (≈ 560.47, VMD's volmap factor).
inline constexpr double kKtPerEPerAngstrom = kCoulombKcal / (kBoltzmannKcal * kVolmapTemperature);

// Parameters of s(r): cutoff <= 0 means direct summation (s = 1). inv_rc2 is 1/rc² rounded up
// (rc² · inv_rc2 >= 1 exactly), so that 1 - r² · inv_rc2 <= 0 for every r >= rc whatever the
// rounding: t = max(1 - r²/rc², 0) is then exactly 0 at and beyond the cutoff with one FMA and one
// max, no compare-and-select.
template <class T>
struct SwitchParams {
  T rc2 = 0;      // rc²
  T inv_rc2 = 0;  // 1 / rc², rounded up
};

template <class T>
SwitchParams<T> switch_params(double cutoff) {  // host only
  if (cutoff <= 0) return {};
  SwitchParams<T> p{T(cutoff * cutoff), T(1) / T(cutoff * cutoff)};
  // Exact test of rc² · inv >= 1 (the FMA rounds once: its sign is that of the exact value).
  while (std::fma(double(p.rc2), double(p.inv_rc2), -1.0) < 0) {
    p.inv_rc2 = std::nextafter(p.inv_rc2, T(2) * p.inv_rc2);
  }
  return p;
}

// t = 1 - r²/rc² clamped at 0 (exactly 0 for r >= rc): s(r) = t².
template <class T>
PW_HD T switch_root(T r2, const SwitchParams<T>& p) {
  const T t = fmadd(-r2, p.inv_rc2, T(1));
  return t > T(0) ? t : T(0);
}

// s(r) from r² for the cutoff form: r² >= rc² gives exactly 0.
template <class T>
PW_HD T switching(T r2, const SwitchParams<T>& p) {
  const T t = switch_root(r2, p);
  return t * t;
}

// 1/r from r², and 0 at r = 0: a lattice point on an atom gets nothing from that atom (the
// exclusion radius, when > 0, zeroes such points anyway). One select, no branch.
template <class T>
PW_HD T guarded_rinv(T r2) {
  return r2 > T(0) ? rsqrt(r2) : T(0);
}

// q s(r) / r without the r = 0 guard (for loops that handle r = 0 apart): q t t · 1/r.
template <class T>
PW_HD T cutoff_term_unguarded(T q, T r2, const SwitchParams<T>& p) {
  const T t = switch_root(r2, p);
  return q * t * t * rsqrt(r2);
}

// q s(r)/r of one atom at squared distance r2 (cutoff form; 0 beyond rc and at r = 0).
template <class T>
PW_HD T cutoff_term(T q, T r2, const SwitchParams<T>& p) {
  const T t = switch_root(r2, p);
  return q * t * t * guarded_rinv(r2);
}

// The same q s(r)/r in the form the cuda backend's cutoff loop uses, one multiply fewer per
// point: with σ = sqrt|q| (stored with the atom) and σ_inv = σ / rc² rounded up
// (rc² · σ_inv >= σ, so the clamp is again exact at and beyond rc),
//   t_σ = max(σ - r² σ_inv, 0) = σ t,   |q| s(r) = t_σ²,   term = ± t_σ² / r   (sign of q).
// The sign is the caller's (one FFMA with a negated operand); this returns t_σ².
template <class T>
PW_HD T scaled_switch_square(T r2, T sigma, T sigma_inv) {
  const T t = fmadd(-r2, sigma_inv, sigma);
  const T c = t > T(0) ? t : T(0);
  return c * c;
}

// 1/sqrt(x) for normal x > 0 on the FP32 FMA and integer pipes instead of the special-function
// unit (the cuda direct kernel takes a fraction of its reciprocal square roots here, so that the
// MUFU pipe no longer bounds it alone). The integer magic-constant guess y0 (|1 - x y0²| <= 0.069
// with this constant, which centers that range), then one polynomial correction of
// (1 - e)^(-1/2) = y/y0 in e = 1 - x y0²: y = y0 + y0 e P(e), P the degree-3 minimax fit on
// [-0.0686, 0.0679] (truncation 2.3e-8). Measured over every float in [1, 4) (the test
// PotmapEvaluator.FmaRsqrtIsAsAccurateAsTheSpecialFunctionUnit): relative error within ±9.8e-8,
// mean -3e-9 (rsqrt.approx: 2^-22.9 = 1.3e-7). 2 integer and 7 FP32 instructions.
PW_HD float rsqrt_fma(float x) {
#if defined(__CUDA_ARCH__)
  const float y0 = __uint_as_float(0x5f375000u - (__float_as_uint(x) >> 1));
  const float u = x * y0;
  const float e = __fmaf_rn(-u, y0, 1.0f);
  float p = __fmaf_rn(0.274551988f, e, 0.31393683f);
  p = __fmaf_rn(p, e, 0.374998927f);
  p = __fmaf_rn(p, e, 0.499998331f);
  return __fmaf_rn(y0 * e, p, y0);
#else
  std::uint32_t i;
  std::memcpy(&i, &x, sizeof i);
  i = 0x5f375000u - (i >> 1);
  float y0;
  std::memcpy(&y0, &i, sizeof y0);
  const float u = x * y0;
  const float e = std::fma(-u, y0, 1.0f);
  float p = std::fma(0.274551988f, e, 0.31393683f);
  p = std::fma(p, e, 0.374998927f);
  p = std::fma(p, e, 0.499998331f);
  return std::fma(y0 * e, p, y0);
#endif
}

// q / r (direct form).
template <class T>
PW_HD T direct_term(T q, T r2) {
  return q * guarded_rinv(r2);
}

// Compensated (Kahan) accumulation: sum + c holds the running total to about twice the working
// precision. The device code must not be compiled with reassociation (nvcc never reassociates).
template <class T>
struct KahanSum {
  T sum = 0, c = 0;
  PW_HD void add(T x) {
    const T y = x - c;
    const T t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  PW_HD T value() const { return sum; }
};

}  // namespace pairwise::physics
