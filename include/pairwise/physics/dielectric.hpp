// Coulomb's law in implicit solvent with the three dielectric models of Elsen et al. (Table 1),
// written once for every backend (DESIGN.md principle 1). Units: Å, kcal/mol, e; the caller passes
// qq = k q_i q_j (k = 332.0636 kcal·Å/(mol·e²), already divided by the constant ε or the linear
// factor s, and multiplied by a 1-4 scale where that applies).
//
//   constant   U = qq / r                      (qq includes 1/ε)
//   linear     ε(r) = s·r:   U = qq / r²       (qq includes 1/s; the classic ε(r) = r has s = 1)
//   sigmoidal  ε(r) = ζ(r) = exp(α r³ + β r² + γ r + δ):   U = qq exp(-(α r³ + β r² + γ r + δ)) / r
//
// Forces: F_i = (F/r) d with d = r_i - r_j and F/r = -(dU/dr) / r:
//   constant   F/r = U / r²
//   linear     F/r = 2 U / r²
//   sigmoidal  F/r = U (1/r + 3α r² + 2β r + γ) / r
//
// Default sigmoidal coefficients (kSigmoidal*): the least-squares fit of a cubic polynomial in r to
// ln ε(r) of the Mehler–Solmajer sigmoidal dielectric (Protein Eng. 4, 903 (1991), the form used by
// AutoDock and, with other constants, Ramstein–Lavery),
//   ε(r) = A + B / (1 + k exp(-λ B r)),  A = -8.5525, B = ε₀ - A, ε₀ = 78.4, k = 7.7839, λ =
//   0.003627,
// on 1901 equally spaced points over 1 ≤ r ≤ 20 Å. src/ljc/dielectric_fit.cpp computes the fit and
// tests/unit/test_ljc_dielectric.cpp checks that these constants are its result (docs/ljc.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "pairwise/hd.hpp"
#include "pairwise/physics/lennard_jones.hpp"

namespace pairwise::physics {

inline constexpr double kCoulombKcal = 332.0636;  // kcal·Å/(mol·e²)

enum class DielectricKind { constant, linear, sigmoidal };

// ln ζ(r) = α r³ + β r² + γ r + δ (r in Å).
struct SigmoidalCoefficients {
  double alpha, beta, gamma, delta;
};

// The defaults, see the header comment for their origin (the fit's ζ(r) is within 16 % of the
// Mehler–Solmajer ε(r) over 1-20 Å: ζ(1) = 5.2 vs 4.5, ζ(4) = 18.0 vs 18.6, ζ(20) = 81 vs 77).
inline constexpr SigmoidalCoefficients kSigmoidalDefault = {
    0.00075872437651839427, -0.035885856177717057, 0.57927477076421696, 1.0962550321835374};

template <class T>
struct SigmoidalTerms {
  T alpha = 0, beta = 0, gamma = 0, delta = 0;
};

// Coulomb energy and F/r of one pair from 1/r² (and 1/r where needed); qq as described above.
template <class T>
PW_HD PairTerms<T> coulomb_constant(T r2inv, T rinv, T qq) {
  const T u = qq * rinv;
  return {u, u * r2inv};
}

template <class T>
PW_HD PairTerms<T> coulomb_linear(T r2inv, T qq) {
  const T u = qq * r2inv;
  return {u, T(2) * u * r2inv};
}

template <class T>
PW_HD T exp_of(T x) {
  using std::exp;
  return exp(x);
}
#if defined(__CUDA_ARCH__)
template <>
__device__ __forceinline__ float exp_of<float>(float x) {
  return __expf(x);
}
#else
// Host FP32: a branch-free exp that vectorizes in the cpu backend's pair loops (std::exp stays a
// scalar libm call there). x = n ln 2 + r (Cody–Waite), |r| <= ln 2 / 2, exp(r) by its degree-7
// Taylor polynomial (truncation 3e-8 relative), times 2^n built in the exponent bits; x is clamped
// to [-87, 88] (exp(-87) = 1.6e-38 stands in for anything smaller). Within 2 ulp of expf.
template <>
inline float exp_of<float>(float x) {
  x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float n = std::floor(x * 1.44269504088896341f + 0.5f);
  const float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723e-6f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}
#endif

template <class T>
PW_HD PairTerms<T> coulomb_sigmoidal(T r, T rinv, T qq, const SigmoidalTerms<T>& c) {
  const T p = ((c.alpha * r + c.beta) * r + c.gamma) * r + c.delta;
  const T dp = (T(3) * c.alpha * r + T(2) * c.beta) * r + c.gamma;
  const T u = qq * exp_of(-p) * rinv;
  return {u, u * (rinv + dp) * rinv};
}

}  // namespace pairwise::physics
