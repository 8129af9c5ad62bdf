// Newtonian gravity with Plummer softening, written once for every backend (Hénon units, G = 1).
//
// For a source j of mass m_j at offset d = x_j - x_i and relative velocity u = v_j - v_i:
//   acceleration  a_i += m_j d / (|d|² + ε²)^{3/2}
//   potential     φ_i -= m_j / (|d|² + ε²)^{1/2}
//   jerk          j_i += m_j [ u / s³ - 3 (d·u) d / s⁵ ],  s² = |d|² + ε²
// A pair at zero distance contributes nothing to a and j (d = 0); with ε > 0 it adds -m_j/ε to φ,
// so a loop that includes i itself subtracts that self term afterwards (see self_potential). With ε
// = 0 the caller must skip d = 0 (kGuardZero below), and coincident distinct particles are rejected
// as input.
#pragma once

#include "pairwise/hd.hpp"
#include "pairwise/math.hpp"

namespace pairwise::physics {

template <class T>
struct Accel {
  T ax = 0, ay = 0, az = 0, pot = 0;
};

template <class T>
struct AccelJerk {
  T ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0, pot = 0;
};

// The evaluators come in two stages so GPU kernels can interleave many independent pairs (all
// distances first, then all rsqrt, then all accumulations: ILP instead of one serial chain per
// pair):
//   s2 = softened_distance2(d, ε²);  inv_s = rsqrt(s2);  accumulate_*_from_rsqrt(..., s2, inv_s)
// accumulate_accel and accumulate_accel_jerk chain the stages for one pair; the results are bitwise
// the same either way.
template <class T>
PW_HD T softened_distance2(T dx, T dy, T dz, T eps2) {
  return fmadd(dx, dx, fmadd(dy, dy, fmadd(dz, dz, eps2)));
}

// GA from s² and 1/s: 3 multiplies for m/s³, 3 FMA for a, 1 add for φ; with the 3 FMA of s² and the
// rsqrt, Elsen et al. count 19 flops. kPotential = false drops the φ add; kGuardZero makes a zero
// distance contribute nothing (needed only when ε = 0).
template <bool kPotential, bool kGuardZero, class T>
PW_HD void accumulate_accel_from_rsqrt(T dx, T dy, T dz, T m, T s2, T inv_s, Accel<T>& acc) {
  if constexpr (kGuardZero) inv_s = s2 > T(0) ? inv_s : T(0);
  const T m_inv_s = m * inv_s;
  const T m_inv_s3 = m_inv_s * (inv_s * inv_s);
  acc.ax = fmadd(m_inv_s3, dx, acc.ax);
  acc.ay = fmadd(m_inv_s3, dy, acc.ay);
  acc.az = fmadd(m_inv_s3, dz, acc.az);
  if constexpr (kPotential) acc.pot -= m_inv_s;
}

// GAJ from s² and 1/s: acceleration, jerk and potential (Elsen et al. count 42 flops in all).
template <bool kGuardZero, class T>
PW_HD void accumulate_accel_jerk_from_rsqrt(T dx, T dy, T dz, T dvx, T dvy, T dvz, T m, T s2,
                                            T inv_s, AccelJerk<T>& acc) {
  if constexpr (kGuardZero) inv_s = s2 > T(0) ? inv_s : T(0);
  const T inv_s2 = inv_s * inv_s;
  const T m_inv_s = m * inv_s;
  const T m_inv_s3 = m_inv_s * inv_s2;
  // alpha = 3 (d·u) / s²
  const T alpha = T(3) * fmadd(dx, dvx, fmadd(dy, dvy, dz * dvz)) * inv_s2;
  acc.ax = fmadd(m_inv_s3, dx, acc.ax);
  acc.ay = fmadd(m_inv_s3, dy, acc.ay);
  acc.az = fmadd(m_inv_s3, dz, acc.az);
  acc.jx = fmadd(m_inv_s3, fmadd(-alpha, dx, dvx), acc.jx);
  acc.jy = fmadd(m_inv_s3, fmadd(-alpha, dy, dvy), acc.jy);
  acc.jz = fmadd(m_inv_s3, fmadd(-alpha, dz, dvz), acc.jz);
  acc.pot -= m_inv_s;
}

// Newton's third law: one unordered pair (i, j) applied to both, d = x_j - x_i, s² and 1/s given:
// a_i += m_j d/s³, a_j -= m_i d/s³, φ_i -= m_j/s, φ_j -= m_i/s (19 FP32 operations with the 3 of
// d and the 3 of s², the rsqrt, for two interactions).
// kPotentialFromWeights: φ_i -= (m_j/s³)·s² and φ_j -= (m_i/s³)·s² (the force weights times s²)
// instead of m_j·(1/s) and m_i·(1/s): the same operations, each φ FMA placed with its side's force
// FMAs and reading their weight, so the register reuse cache supplies one of its three operands.
// For general masses only: 1.6 % faster in a stand-alone copy of the single GA kernel under the
// same register cap, where the equal-mass kernel's FADD of 1/s is 4 % faster than this FMA (H200,
// docs/performance.md "nbody, session 28"). (1/s³)·s² is 1/s within a few ulps of the rsqrt, and
// φ's range becomes the force weights' (m/s³ a normal float).
template <bool kPotential, bool kGuardZero, bool kPotentialFromWeights = false, class T>
PW_HD void accumulate_accel_pair_from_rsqrt(T dx, T dy, T dz, T m_i, T m_j, T s2, T inv_s,
                                            Accel<T>& acc_i, Accel<T>& acc_j) {
  if constexpr (kGuardZero) inv_s = s2 > T(0) ? inv_s : T(0);
  const T inv_s3 = inv_s * (inv_s * inv_s);
  const T w_j = m_j * inv_s3, w_i = m_i * inv_s3;
  if constexpr (kPotential && kPotentialFromWeights) acc_i.pot = fmadd(-w_j, s2, acc_i.pot);
  acc_i.ax = fmadd(w_j, dx, acc_i.ax);
  acc_i.ay = fmadd(w_j, dy, acc_i.ay);
  acc_i.az = fmadd(w_j, dz, acc_i.az);
  if constexpr (kPotential && kPotentialFromWeights) acc_j.pot = fmadd(-w_i, s2, acc_j.pot);
  acc_j.ax = fmadd(-w_i, dx, acc_j.ax);
  acc_j.ay = fmadd(-w_i, dy, acc_j.ay);
  acc_j.az = fmadd(-w_i, dz, acc_j.az);
  if constexpr (kPotential && !kPotentialFromWeights) {
    acc_i.pot = fmadd(-m_j, inv_s, acc_i.pot);
    acc_j.pot = fmadd(-m_i, inv_s, acc_j.pot);
  }
}

// GAJ of one unordered pair applied to both (u = v_j - v_i): for j, d and u change sign, so
// u - α d does too.
template <bool kGuardZero, class T>
PW_HD void accumulate_accel_jerk_pair_from_rsqrt(T dx, T dy, T dz, T dvx, T dvy, T dvz, T m_i,
                                                 T m_j, T s2, T inv_s, AccelJerk<T>& acc_i,
                                                 AccelJerk<T>& acc_j) {
  if constexpr (kGuardZero) inv_s = s2 > T(0) ? inv_s : T(0);
  const T inv_s2 = inv_s * inv_s;
  const T inv_s3 = inv_s * inv_s2;
  const T w_j = m_j * inv_s3, w_i = m_i * inv_s3;
  const T alpha = T(3) * fmadd(dx, dvx, fmadd(dy, dvy, dz * dvz)) * inv_s2;
  const T tx = fmadd(-alpha, dx, dvx), ty = fmadd(-alpha, dy, dvy), tz = fmadd(-alpha, dz, dvz);
  acc_i.ax = fmadd(w_j, dx, acc_i.ax);
  acc_i.ay = fmadd(w_j, dy, acc_i.ay);
  acc_i.az = fmadd(w_j, dz, acc_i.az);
  acc_i.jx = fmadd(w_j, tx, acc_i.jx);
  acc_i.jy = fmadd(w_j, ty, acc_i.jy);
  acc_i.jz = fmadd(w_j, tz, acc_i.jz);
  acc_j.ax = fmadd(-w_i, dx, acc_j.ax);
  acc_j.ay = fmadd(-w_i, dy, acc_j.ay);
  acc_j.az = fmadd(-w_i, dz, acc_j.az);
  acc_j.jx = fmadd(-w_i, tx, acc_j.jx);
  acc_j.jy = fmadd(-w_i, ty, acc_j.jy);
  acc_j.jz = fmadd(-w_i, tz, acc_j.jz);
  acc_i.pot = fmadd(-m_j, inv_s, acc_i.pot);
  acc_j.pot = fmadd(-m_i, inv_s, acc_j.pot);
}

// GA of one pair.
template <bool kPotential, bool kGuardZero, class T>
PW_HD void accumulate_accel(T dx, T dy, T dz, T m, T eps2, Accel<T>& acc) {
  const T s2 = softened_distance2(dx, dy, dz, eps2);
  accumulate_accel_from_rsqrt<kPotential, kGuardZero>(dx, dy, dz, m, s2, rsqrt(s2), acc);
}

// GAJ of one pair.
template <bool kGuardZero, class T>
PW_HD void accumulate_accel_jerk(T dx, T dy, T dz, T dvx, T dvy, T dvz, T m, T eps2,
                                 AccelJerk<T>& acc) {
  const T s2 = softened_distance2(dx, dy, dz, eps2);
  accumulate_accel_jerk_from_rsqrt<kGuardZero>(dx, dy, dz, dvx, dvy, dvz, m, s2, rsqrt(s2), acc);
}

// The term a particle adds to its own potential when a softened loop includes it: -m_i/ε.
template <class T>
PW_HD T self_potential(T m, T eps2) {
  return eps2 > T(0) ? -m * rsqrt(eps2) : T(0);
}

// 4th-order Hermite predictor: Taylor series of x and v to time offset dt from the stored a and
// jerk.
//   x_p = x + v dt + a dt²/2 + j dt³/6,   v_p = v + a dt + j dt²/2
template <class T>
PW_HD void predict(T dt, T x, T v, T a, T j, T& xp, T& vp) {
  const T dt2 = dt * T(0.5);
  const T dt3 = dt * T(1.0 / 3.0);
  xp = x + dt * (v + dt2 * (a + dt3 * j));
  vp = v + dt * (a + dt2 * j);
}

}  // namespace pairwise::physics
