// Tolerances of the test suite, per precision, in one place, and the error measure they bound.
//
// Relative error of a backend's result x against the reference's r, per particle i, as vector norms
// (a 3-vector for a, jerk, predicted x and v; a scalar for φ):
//   e(i) = |x_i - r_i| / max(|r_i|, median_k |r_k|),   0/0 = 0 (N = 1: every value must be zero).
// The median floor is there because a and jerk are sums of vectors that cancel: FP32 pair
// arithmetic has an error ~u Σ_j |term_ij| (u = 6e-8), so a particle whose sum cancelled to far
// below the typical magnitude shows a large |Δ|/|r| with correct code (measured: a jerk 60x below
// the median, Σ|term| = 275 |r|, |Δ|/|r| = 1.7e-5 at N = 2049). Such particles are measured against
// the median magnitude instead; all others, per particle, against their own. The tests bound the
// maximum over particles.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "nbody/particles.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::test {

// GA and GAJ of any backend against the reference (issue 2): 2e-5 for FP32 pair arithmetic (single,
// mixed), 1e-12 for double (the reference sums in another order and without the cpu's blocks).
constexpr double force_tolerance(Precision p) {
  return p == Precision::double_ ? 1e-12 : 2e-5;
}

// Predicted positions and velocities of the block-step path against the reference's; a backend may
// predict in its own precision, so the same bounds as the forces.
constexpr double prediction_tolerance(Precision p) {
  return force_tolerance(p);
}

// Central finite differences in double: the jerk against d a/dt along the motion, a against -∇φ.
constexpr double kFiniteDifference = 1e-6;

// Closed-form checks of the evaluators: a few roundings of the formula.
constexpr double kAnalyticDouble = 1e-14;
constexpr double kAnalyticFloat = 1e-6;

// The components of one per-particle quantity: x, y, z of a vector, or a scalar alone.
using Components = std::vector<const std::vector<double>*>;

// max_i e(i) as defined above; infinite when the sizes differ or a value is NaN.
inline double max_relative_error(const Components& got, const Components& ref) {
  const std::size_t n = ref.front()->size();
  for (std::size_t c = 0; c < ref.size(); ++c) {
    if (got.size() != ref.size() || got[c]->size() != n || ref[c]->size() != n) return HUGE_VAL;
  }
  auto norm = [](const Components& v, std::size_t i, const double* minus = nullptr) {
    double s = 0;
    for (std::size_t c = 0; c < v.size(); ++c) {
      const double d = (*v[c])[i] - (minus ? minus[c] : 0.0);
      s += d * d;
    }
    return std::sqrt(s);
  };
  std::vector<double> ref_norms(n);
  for (std::size_t i = 0; i < n; ++i) ref_norms[i] = norm(ref, i);
  std::vector<double> sorted = ref_norms;
  std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.end());
  const double median = n > 0 ? sorted[n / 2] : 0.0;
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double r[3];
    for (std::size_t c = 0; c < ref.size(); ++c) r[c] = (*ref[c])[i];
    const double diff = norm(got, i, r);
    const double scale = std::max(ref_norms[i], median);
    const double e = diff == 0.0 ? 0.0 : scale > 0.0 ? diff / scale : HUGE_VAL;
    worst = std::isnan(e) ? HUGE_VAL : std::max(worst, e);
  }
  return worst;
}

// Largest per-particle relative errors of acceleration, jerk (when both have it) and potential.
struct ForceErrors {
  double accel = 0, jerk = 0, pot = 0;
};

inline ForceErrors max_relative_errors(const nbody::Forces& got, const nbody::Forces& ref) {
  ForceErrors e;
  e.accel = max_relative_error({&got.ax, &got.ay, &got.az}, {&ref.ax, &ref.ay, &ref.az});
  e.pot = max_relative_error({&got.pot}, {&ref.pot});
  if (!ref.jx.empty()) {
    e.jerk = max_relative_error({&got.jx, &got.jy, &got.jz}, {&ref.jx, &ref.jy, &ref.jz});
  }
  return e;
}

}  // namespace pairwise::test
