// Gauss–Legendre quadrature to full double precision for any N up to 10^6 and beyond, in O(N).
//
// Nodes x_k (ascending) and weights w_k of the N-point rule on [-1, 1]: Σ w_k p(x_k) = ∫ p for
// every polynomial p of degree ≤ 2N - 1. Method (after Hale & Townsend, SIAM J. Sci. Comput. 35
// (2013) A652): Newton's iteration in θ (x = cos θ) from Tricomi's initial guesses, evaluating
// P_N(cos θ) and dP_N/dθ by Stieltjes' asymptotic series (O(1) per node) where N sin θ is large,
// and by the three-term recurrence (O(N) per node) for N ≤ 100 and for the few nodes next to ±1
// (N sin θ < 30, at most ~10 per end whatever N). Weights w = 2 / (dP_N/dθ)². Symmetric: the
// nodes of the left half are the mirror images of the right half's.
#pragma once

#include <cstddef>
#include <vector>

namespace pairwise::quadrature {

struct Rule {
  std::vector<double> x, w;
};

// The N-point Gauss–Legendre rule on [-1, 1]. Throws pairwise::Error for n < 1.
Rule gauss_legendre(std::size_t n);
// Mapped onto [a, b]: x → (a + b)/2 + (b - a)/2 x, w → (b - a)/2 w.
Rule gauss_legendre(std::size_t n, double a, double b);

// P_n(x) and P_n'(x) by the three-term recurrence (O(n)); for tests and small n.
void legendre_recurrence(std::size_t n, double x, double& p, double& dp);

}  // namespace pairwise::quadrature
