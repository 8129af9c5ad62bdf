// Gauss–Legendre rules (include/pairwise/quadrature.hpp) against independent checks: exactness on
// polynomials of degree 2N - 1, Newton's iteration on the plain three-term recurrence (the classic
// algorithm) for small N, Σ w = 2 and ∫ cos = 2 sin 1 up to N = 10^6, and O(N) cost.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "pairwise/error.hpp"
#include "pairwise/quadrature.hpp"

namespace pairwise::test {
namespace {

using quadrature::gauss_legendre;

TEST(FredholmQuadrature, ExactForPolynomialsOfDegree2NMinus1) {
  for (std::size_t n : {1u, 2u, 3u, 7u, 16u, 64u, 101u, 150u, 333u}) {
    const auto r = gauss_legendre(n);
    ASSERT_EQ(r.x.size(), n);
    for (std::size_t i = 1; i < n; ++i) EXPECT_LT(r.x[i - 1], r.x[i]) << n;
    for (int deg : {0, 1, 2, int(2 * n - 2), int(2 * n - 1)}) {
      if (deg > int(2 * n - 1)) continue;
      double q = 0;
      for (std::size_t k = 0; k < n; ++k) q += r.w[k] * std::pow(r.x[k], deg);
      const double exact = deg % 2 ? 0.0 : 2.0 / (deg + 1);
      EXPECT_NEAR(q, exact, 4e-16 * std::sqrt(double(n)) + 1e-15) << "n " << n << " degree " << deg;
    }
  }
}

// Nodes from the classic algorithm: Newton on P_N by the recurrence, converged in x.
TEST(FredholmQuadrature, MatchesNewtonOnTheRecurrence) {
  for (std::size_t n : {5u, 20u, 100u, 250u, 1000u}) {
    const auto r = gauss_legendre(n);
    for (std::size_t k = 0; k < n; ++k) {
      double x = r.x[k], p = 0, dp = 0;
      for (int it = 0; it < 4; ++it) {
        quadrature::legendre_recurrence(n, x, p, dp);
        x -= p / dp;
      }
      EXPECT_NEAR(r.x[k], x, 4e-16) << "n " << n << " node " << k;
      // Weight 2 / ((1 - x²) P_N'(x)²): accurate this way away from ±1 only.
      if (std::abs(x) < 0.9) {
        quadrature::legendre_recurrence(n, x, p, dp);
        const double w = 2.0 / ((1 - x * x) * dp * dp);
        EXPECT_NEAR(r.w[k], w, 1e-13 * w) << "n " << n << " node " << k;
      }
    }
  }
}

TEST(FredholmQuadrature, MillionNodesInLinearTime) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = 1000000;
  const auto r = gauss_legendre(n, 0.0, 1.0);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 10.0);  // O(N²) would take hours
  long double sum = 0, integral = 0;
  for (std::size_t k = 0; k < n; ++k) sum += r.w[k], integral += r.w[k] * std::cos(r.x[k]);
  EXPECT_NEAR(double(sum), 1.0, 1e-14);
  EXPECT_NEAR(double(integral), std::sin(1.0), 1e-14);
  // Spot checks: a Newton step on the recurrence moves no node (x on [-1, 1]).
  for (std::size_t k : {0ul, 3ul, 12ul, 40ul, n / 3, n / 2}) {
    double p = 0, dp = 0;
    const double x = 2 * r.x[k] - 1;
    quadrature::legendre_recurrence(n, x, p, dp);
    EXPECT_LT(std::abs(p / dp), 1e-15) << k;
  }
  EXPECT_THROW(gauss_legendre(0), Error);
}

}  // namespace
}  // namespace pairwise::test
