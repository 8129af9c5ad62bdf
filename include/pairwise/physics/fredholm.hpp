// Kernels K(t, s) of Fredholm integral equations of the second kind,
//   f(t) = h(t) + λ ∫_D K(t, s) f(s) ds,
// written once for every backend (PW_HD): the reference and cpu loops and the CUDA policy of the
// all-pairs engine call the same functions. Points are up to 3-D (unused coordinates are 0).
//
//   exp_ts       K = exp(t·s)                  (1-D: e^{ts}; the smooth test problem)
//   power34      K = (t·s)^{3/4}               (Numerical Recipes' fred2 test; t·s >= 0)
//   gaussian     K = exp(-|t - s|² / σ²)
//   square_well  K = G_l(t, s) U              (partial-wave Lippmann–Schwinger, 1-D radial, real)
//                G_l(r, r') = ĵ_l(k r<) n̂_l(k r>) / k, U = -K0² on [0, R] (units ħ²/2m = 1):
//                the standing-wave (principal value) free radial Green's function, so that
//                u_l = ĵ_l(kr) + ∫ G_l U u_l dr' solves u'' + (k² - l(l+1)/r²) u = U u.
//   helmholtz    K = e^{ik|t-s|} / |t - s|     (3-D scattering Green's function times 4π, complex;
//                K(t, t) is defined as 0: the singular self term is handled by the solver's
//                singularity subtraction, see src/fredholm/problem.hpp)
#pragma once

#include <cmath>

#include "pairwise/hd.hpp"

namespace pairwise::physics::fredholm {

template <class T>
struct Point {
  T x = 0, y = 0, z = 0;
};

template <class T>
struct Complex {
  T re = 0, im = 0;
};

template <class T>
PW_HD T dot(const Point<T>& a, const Point<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

template <class T>
PW_HD T distance2(const Point<T>& a, const Point<T>& b) {
  const T dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
  return dx * dx + dy * dy + dz * dz;
}

// Parameters of every library kernel (trivially copyable; each kernel reads its own).
struct KernelParams {
  double sigma2 = 1.0;  // gaussian: σ²
  double k = 1.0;       // square_well, helmholtz: wave number
  double u0 = 1.0;      // square_well: K0² (well depth in units ħ²/2m = 1), U = -u0
  int l = 0;            // square_well: angular momentum, 0..3
};

PW_HD double sin_(double x) {
  return sin(x);
}
PW_HD double cos_(double x) {
  return cos(x);
}
PW_HD float sin_(float x) {
  return sinf(x);
}
PW_HD float cos_(float x) {
  return cosf(x);
}
PW_HD double exp_(double x) {
  return exp(x);
}
PW_HD float exp_(float x) {
  return expf(x);
}
PW_HD double pow_(double x, double y) {
  return pow(x, y);
}
PW_HD float pow_(float x, float y) {
  return powf(x, y);
}

// Riccati–Bessel ĵ_l(x) = x j_l(x) for l = 0..3; the power series (16 terms) below x = 2, where
// the closed forms cancel (ĵ_l(x) ~ x^{l+1}/(2l+1)!!: at x = 0.5 the two terms of ĵ_2 cancel
// to 1/600 of their size, which costs FP32 three digits).
template <class T>
PW_HD T riccati_j(int l, T x) {
  if (x < T(2)) {
    T df = 1;  // (2l+1)!!
    for (int i = 3; i <= 2 * l + 1; i += 2) df *= T(i);
    T xl = x;
    for (int i = 0; i < l; ++i) xl *= x;
    // Σ_k (-x²/2)^k / (k! (2l+3)(2l+5)...(2l+2k+1))
    T term = 1, sum = 1;
    for (int k = 1; k < 16; ++k) {
      term *= -x * x / (T(2) * T(k) * T(2 * l + 2 * k + 1));
      sum += term;
    }
    return xl / df * sum;
  }
  const T s = sin_(x), c = cos_(x), ix = T(1) / x;
  switch (l) {
    case 0:
      return s;
    case 1:
      return s * ix - c;
    case 2:
      return (T(3) * ix * ix - T(1)) * s - T(3) * c * ix;
    default:
      return (T(15) * ix * ix * ix - T(6) * ix) * s - (T(15) * ix * ix - T(1)) * c;
  }
}

// Riccati–Neumann n̂_l(x) = x y_l(x) for l = 0..3 (n̂_0 = -cos x; no cancellation at small x).
template <class T>
PW_HD T riccati_n(int l, T x) {
  const T s = sin_(x), c = cos_(x), ix = T(1) / x;
  switch (l) {
    case 0:
      return -c;
    case 1:
      return -c * ix - s;
    case 2:
      return -(T(3) * ix * ix - T(1)) * c - T(3) * s * ix;
    default:
      return -(T(15) * ix * ix * ix - T(6) * ix) * c - (T(15) * ix * ix - T(1)) * s;
  }
}

struct ExpTs {
  static constexpr bool kComplex = false;
  template <class T>
  PW_HD T operator()(const Point<T>& t, const Point<T>& s) const {
    return exp_(dot(t, s));
  }
};

struct Power34 {
  static constexpr bool kComplex = false;
  template <class T>
  PW_HD T operator()(const Point<T>& t, const Point<T>& s) const {
    const T ts = dot(t, s);
    return ts > T(0) ? pow_(ts, T(0.75)) : T(0);
  }
};

struct Gaussian {
  static constexpr bool kComplex = false;
  double inv_sigma2 = 1.0;
  template <class T>
  PW_HD T operator()(const Point<T>& t, const Point<T>& s) const {
    return exp_(-distance2(t, s) * T(inv_sigma2));
  }
};

struct SquareWell {
  static constexpr bool kComplex = false;
  double k = 1.0, u0 = 1.0;
  int l = 0;
  template <class T>
  PW_HD T operator()(const Point<T>& t, const Point<T>& s) const {
    const T lo = t.x < s.x ? t.x : s.x, hi = t.x < s.x ? s.x : t.x;
    return -T(u0) / T(k) * riccati_j(l, T(k) * lo) * riccati_n(l, T(k) * hi);
  }
};

struct Helmholtz {
  static constexpr bool kComplex = true;
  double k = 1.0;
  template <class T>
  PW_HD Complex<T> operator()(const Point<T>& t, const Point<T>& s) const {
    const T r2 = distance2(t, s);
    if (!(r2 > T(0))) return {};
    const T r = sqrt(r2), kr = T(k) * r;
    return {cos_(kr) / r, sin_(kr) / r};
  }
};

}  // namespace pairwise::physics::fredholm
