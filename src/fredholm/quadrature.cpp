// Gauss–Legendre nodes and weights (see include/pairwise/quadrature.hpp).
#include "pairwise/quadrature.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "pairwise/error.hpp"

namespace pairwise::quadrature {
namespace {

constexpr double kPi = std::numbers::pi;

// P_n(cos θ) and dP_n/dθ by the recurrence written for y = 1 - cos θ = 2 sin²(θ/2) (Reinsch's
// modification): with D_k = P_k - P_{k-1},
//   D_{k+1} = (k D_k - (2k + 1) y P_k) / (k + 1),   P_{k+1} = P_k + D_{k+1},
// and dP_n/dθ = -sin θ P_n'(x) = n (D_n - y P_n) / sin θ. Near x = 1 this never forms 1 - y, so
// the result is as accurate as θ itself (the plain recurrence in x loses θ's relative accuracy
// when x rounds to a double next to 1). θ ∈ (0, π/2].
void legendre_theta_recurrence(std::size_t n, double theta, double& p, double& dp_dtheta) {
  const double s = std::sin(0.5 * theta);
  const double y = 2.0 * s * s;
  double pk = 1.0, dk = 0.0;  // P_0, D_0 (P_{-1} = 0)
  // k = 0: P_1 = x = 1 - y, D_1 = -y.
  for (std::size_t k = 0; k < n; ++k) {
    const double kk = double(k);
    const double d_next = (kk * dk - (2.0 * kk + 1.0) * y * pk) / (kk + 1.0);
    pk += d_next;
    dk = d_next;
  }
  p = pk;
  dp_dtheta = double(n) * (dk - y * pk) / std::sin(theta);
}

// P_n(cos θ) and dP_n/dθ by Stieltjes' series (Hale & Townsend, eq. 3.1):
//   P_n(cos θ) = C_n Σ_m h_m cos(α_m) / (2 sin θ)^{m+1/2},  α_m = (n + m + 1/2) θ - (m + 1/2) π/2,
//   h_0 = 1, h_m = h_{m-1} (m - 1/2)² / (m (n + m + 1/2)),  C_n = (4/π) Π_{j=1..n} j / (j + 1/2).
// Summed until the terms fall below 1e-17 of the sum (needs (n + 1/2) sin θ ≳ 25).
void legendre_stieltjes(std::size_t n, double c_n, double theta, double& p, double& dp_dtheta) {
  const double nn = double(n);
  const double sin_t = std::sin(theta), cot_t = std::cos(theta) / sin_t;
  const double two_sin = 2.0 * sin_t;
  double h = 1.0, scale = 1.0 / std::sqrt(two_sin);  // h_m and (2 sin θ)^{-(m+1/2)}
  double sum = 0.0, dsum = 0.0;
  for (int m = 0; m < 60; ++m) {
    const double mh = m + 0.5;
    const double alpha = (nn + mh) * theta - mh * (0.5 * kPi);
    const double ca = std::cos(alpha), sa = std::sin(alpha);
    const double term = h * scale * ca;
    sum += term;
    dsum += h * scale * (-(nn + mh) * sa - mh * ca * cot_t);
    if (std::abs(h * scale) * (nn + mh) < 1e-17 * std::abs(dsum) &&
        std::abs(h * scale) < 1e-17 * (std::abs(sum) + 1e-300))
      break;
    const double m1 = m + 1.0;
    h *= (m1 - 0.5) * (m1 - 0.5) / (m1 * (nn + m1 + 0.5));
    scale /= two_sin;
  }
  p = c_n * sum;
  dp_dtheta = c_n * dsum;
}

// The first zeros of the Bessel function J_0 (for initial guesses next to x = ±1).
double bessel_j0_zero(int k) {
  static constexpr double kZeros[] = {2.404825557695773,  5.520078110286311,  8.653727912911013,
                                      11.791534439014281, 14.930917708487787, 18.071063967910923,
                                      21.211636629879260, 24.352471530749302, 27.493479132040254,
                                      30.634606468431975};
  if (k <= 10) return kZeros[k - 1];
  const double b = (k - 0.25) * kPi;  // McMahon's expansion
  return b + 1.0 / (8.0 * b) - 124.0 / (3.0 * std::pow(8.0 * b, 3));
}

}  // namespace

void legendre_recurrence(std::size_t n, double x, double& p, double& dp) {
  double p0 = 1.0, p1 = 0.0, d0 = 0.0, d1 = 0.0;  // P_k, P_{k-1}, P_k', P_{k-1}'
  for (std::size_t k = 0; k < n; ++k) {
    const double kk = double(k);
    const double p2 = ((2.0 * kk + 1.0) * x * p0 - kk * p1) / (kk + 1.0);
    const double d2 = d1 + (2.0 * kk + 1.0) * p0;  // P'_{k+1} = P'_{k-1} + (2k + 1) P_k
    p1 = p0, p0 = p2;
    d1 = d0, d0 = d2;
  }
  p = p0;
  dp = d0;
}

Rule gauss_legendre(std::size_t n) {
  if (n < 1) throw Error("Gauss-Legendre rule needs N >= 1, got " + std::to_string(n));
  Rule r;
  r.x.assign(n, 0.0);
  r.w.assign(n, 0.0);
  const double nn = double(n), nu = nn + 0.5;
  // C_n in long double: a product of n factors, rounding error ~1e-19 each.
  long double c = 4.0L / std::numbers::pi_v<long double>;
  for (std::size_t j = 1; j <= n; ++j) c *= (long double)j / ((long double)j + 0.5L);
  const double c_n = double(c);
  const std::size_t half = n / 2;  // nodes with θ < π/2 (x > 0); the middle one for odd n is 0
  for (std::size_t k = 1; k <= half; ++k) {
    // Initial guess: Tricomi's for the interior, Bessel zeros next to x = 1.
    const double phi = (4.0 * double(k) - 1.0) * kPi / (4.0 * nn + 2.0);
    double theta = std::acos((1.0 - (nn - 1.0) / (8.0 * nn * nn * nn)) * std::cos(phi));
    const bool series = n > 100 && nu * std::sin(theta) >= 25.0;
    if (!series && k <= 10 && n > 20) theta = bessel_j0_zero(int(k)) / nu;
    double p = 0, dp = 0;
    for (int it = 0; it < 30; ++it) {
      if (series) {
        legendre_stieltjes(n, c_n, theta, p, dp);
      } else {
        legendre_theta_recurrence(n, theta, p, dp);
      }
      const double step = p / dp;
      theta -= step;
      if (std::abs(step) <= 4e-16 * theta) break;
    }
    if (series) {
      legendre_stieltjes(n, c_n, theta, p, dp);
    } else {
      legendre_theta_recurrence(n, theta, p, dp);
    }
    const double x = std::cos(theta), w = 2.0 / (dp * dp);
    r.x[n - k] = x, r.w[n - k] = w;
    r.x[k - 1] = -x, r.w[k - 1] = w;
  }
  if (n % 2 == 1) {  // x = 0: P_n'(0) from the recurrence (exact enough: no cancellation)
    double p = 0, dp = 0;
    legendre_recurrence(n, 0.0, p, dp);
    if (n > 100) {
      legendre_stieltjes(n, c_n, 0.5 * kPi, p, dp);
    }
    r.x[half] = 0.0;
    r.w[half] = 2.0 / (dp * dp);
  }
  return r;
}

Rule gauss_legendre(std::size_t n, double a, double b) {
  Rule r = gauss_legendre(n);
  const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
  for (std::size_t k = 0; k < n; ++k) {
    r.x[k] = mid + half * r.x[k];
    r.w[k] *= half;
  }
  return r;
}

}  // namespace pairwise::quadrature
