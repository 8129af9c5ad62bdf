// One LJ + Coulomb pair in implicit solvent (Elsen et al., Table 1: LJC(constant), LJC(linear),
// LJC(sigmoidal)), the evaluator every ljc backend is templated on (DESIGN.md principle 1).
//
// Per-atom parameters are combined by Lorentz–Berthelot: σ_ij = (σ_i + σ_j) / 2 and
// ε_ij = sqrt(ε_i ε_j); atoms carry σ/2 and sqrt(ε) so that mixing is an add and a multiply. The LJ
// part is physics::lennard_jones (lennard_jones.hpp), the Coulomb part dielectric.hpp. Both scale
// factors `lj_scale`, `coulomb_scale` of a pair (1 for ordinary pairs, 0 for excluded ones, the
// 1-4 factors for 1-4 pairs) multiply the terms; a pair with both 0 is computed from r² = 1 so a
// masked pair at r = 0 (an atom with itself) contributes exactly 0, never NaN.
#pragma once

#include "pairwise/hd.hpp"
#include "pairwise/math.hpp"
#include "pairwise/physics/dielectric.hpp"
#include "pairwise/physics/lennard_jones.hpp"

namespace pairwise::physics {

// An atom as the pair loops see it.
template <class T>
struct LjcAtom {
  T q = 0;  // charge times sqrt(k / ε) (constant), sqrt(k / s) (linear), sqrt(k) (sigmoidal)
  T half_sigma = 0;  // σ / 2, Å
  T sqrt_eps = 0;    // sqrt(ε), sqrt(kcal/mol)
};

template <class T>
struct LjcTerms {
  T lj = 0, coulomb = 0;  // energies
  T force_over_r = 0;     // -(dU/dr) / r: times d = r_i - r_j gives the force on i
};

// Lorentz–Berthelot A, B of a pair.
template <class T>
PW_HD LennardJonesCoefficients<T> lorentz_berthelot(const LjcAtom<T>& a, const LjcAtom<T>& b) {
  return lennard_jones_coefficients(a.sqrt_eps * b.sqrt_eps, a.half_sigma + b.half_sigma);
}

// U_LJ, U_C and F/r of the pair at squared distance r2 with LJ coefficients `lj` and qq = q_i q_j
// (scaled charges, see LjcAtom). Flops, Elsen's count: 30 (constant, linear), 43 (sigmoidal).
template <DielectricKind D, class T>
PW_HD LjcTerms<T> ljc_pair(T r2, T qq, const LennardJonesCoefficients<T>& lj,
                           const SigmoidalTerms<T>& sig) {
  if constexpr (D == DielectricKind::linear) {
    const T r2inv = T(1) / r2;
    const PairTerms<T> l = lennard_jones(r2inv, lj);
    const PairTerms<T> c = coulomb_linear(r2inv, qq);
    return {l.energy, c.energy, l.force_over_r2 + c.force_over_r2};
  } else {
    const T rinv = rsqrt(r2);
    const T r2inv = rinv * rinv;
    const PairTerms<T> l = lennard_jones(r2inv, lj);
    if constexpr (D == DielectricKind::constant) {
      const PairTerms<T> c = coulomb_constant(r2inv, rinv, qq);
      return {l.energy, c.energy, l.force_over_r2 + c.force_over_r2};
    } else {
      const PairTerms<T> c = coulomb_sigmoidal(r2 * rinv, rinv, qq, sig);
      return {l.energy, c.energy, l.force_over_r2 + c.force_over_r2};
    }
  }
}

// The same pair in a cheaper form for the GPU tile kernels' unmasked path: Lorentz–Berthelot
// mixed by the caller as `sigma2` = (σ_i/2 + σ_j/2)² and sqrt(ε_j) times the target's pre-scaled
// `eps24_i` = 24·sqrt(ε_i) and `eps48_i` = 48·sqrt(ε_i), and LJ from x = σ²/r²: with
// b = sqrt(ε_j)·x³ and c = 48·sqrt(ε_i)·x³ − 24·sqrt(ε_i) (one multiply-add), 24 ε x³(2x³ − 1) =
// b·c, so F/r = (b·c + F_C·r) / r² and U_LJ = b·24·sqrt(ε_i)·(x³ − 1) / 6. Constant dielectric,
// forces only: 13 instructions after r², mixing and MUFU.RSQ included (the energies cost ~4 more
// and are dropped by the compiler when unused), against ~21 for lorentz_berthelot + ljc_pair. Same
// quantities as ljc_pair to rounding. The linear form's 1/r² is rsqrt(r²)² (the float rsqrt is the
// approximate one, see pairwise/math.hpp). A system whose atoms all have the same σ and ε passes
// the pair's σ², sqrt_eps_j = 1 and eps24_i = 24 ε, eps48_i = 48 ε (constants): the mixing
// instructions (σ add, σ², the sqrt(ε_j) multiply) fold away.
template <DielectricKind D, class T>
PW_HD LjcTerms<T> ljc_pair_lb(T r2, T qq, T sigma2, T sqrt_eps_j, T eps24_i, T eps48_i,
                              const SigmoidalTerms<T>& sig) {
  const T rinv = rsqrt(r2);
  const T r2inv = rinv * rinv;
  const T x = sigma2 * r2inv;
  const T x3 = x * x * x;
  const T b = sqrt_eps_j * x3;
  const T c = eps48_i * x3 - eps24_i;  // 24·sqrt(ε_i)·(2x³ − 1)
  const T lj = b * (eps24_i * (x3 - T(1))) * T(1.0 / 6.0);
  if constexpr (D == DielectricKind::constant) {
    const T u = qq * rinv;
    return {lj, u, (b * c + u) * r2inv};
  } else if constexpr (D == DielectricKind::linear) {
    const T u = qq * r2inv;
    return {lj, u, (b * c + T(2) * u) * r2inv};
  } else {
    const PairTerms<T> cl = coulomb_sigmoidal(r2 * rinv, rinv, qq, sig);
    return {lj, cl.energy, (b * c) * r2inv + cl.force_over_r2};
  }
}

// The same with per-pair scale factors (exclusions and 1-4 pairs, see the header comment).
template <DielectricKind D, class T>
PW_HD LjcTerms<T> ljc_pair_scaled(T r2, const LjcAtom<T>& a, const LjcAtom<T>& b, T lj_scale,
                                  T coulomb_scale, const SigmoidalTerms<T>& sig) {
  const bool skip = lj_scale == T(0) && coulomb_scale == T(0);
  const T r2s = skip ? T(1) : r2;
  LennardJonesCoefficients<T> lj = lorentz_berthelot(a, b);
  lj.a *= lj_scale;
  lj.b *= lj_scale;
  return ljc_pair<D>(r2s, a.q * b.q * coulomb_scale, lj, sig);
}

// k / ε (constant), k / s (linear) or k (sigmoidal): the square of the charge scale of LjcAtom.
inline double coulomb_prefactor(DielectricKind d, double epsilon, double linear_factor) {
  switch (d) {
    case DielectricKind::constant:
      return kCoulombKcal / epsilon;
    case DielectricKind::linear:
      return kCoulombKcal / linear_factor;
    case DielectricKind::sigmoidal:
      break;
  }
  return kCoulombKcal;
}

}  // namespace pairwise::physics
