#include "ljc/dielectric_fit.hpp"

#include <array>
#include <cmath>
#include <vector>

#include "pairwise/error.hpp"

namespace pairwise::ljc {

double mehler_solmajer_epsilon(double r) {
  constexpr double a = -8.5525, eps0 = 78.4, k = 7.7839, lambda = 0.003627;
  constexpr double b = eps0 - a;
  return a + b / (1.0 + k * std::exp(-lambda * b * r));
}

physics::SigmoidalCoefficients fit_sigmoidal_dielectric(double r_min, double r_max, int samples) {
  if (!(r_min > 0 && r_max > r_min) || samples < 4) {
    throw Error("fit_sigmoidal_dielectric needs 0 < r_min < r_max and at least 4 samples");
  }
  // Columns t³, t², t, 1 with t = r / r_max; Householder QR of the samples x 4 matrix.
  const int m = samples;
  std::vector<std::array<double, 4>> a(m);
  std::vector<double> y(m);
  for (int s = 0; s < m; ++s) {
    const double r = r_min + (r_max - r_min) * s / (m - 1);
    const double t = r / r_max;
    a[s] = {t * t * t, t * t, t, 1.0};
    y[s] = std::log(mehler_solmajer_epsilon(r));
  }
  for (int c = 0; c < 4; ++c) {
    double norm = 0;
    for (int s = c; s < m; ++s) norm += a[s][c] * a[s][c];
    norm = std::sqrt(norm);
    const double alpha = a[c][c] > 0 ? -norm : norm;
    std::vector<double> v(m, 0.0);
    for (int s = c; s < m; ++s) v[s] = a[s][c];
    v[c] -= alpha;
    double vv = 0;
    for (int s = c; s < m; ++s) vv += v[s] * v[s];
    if (vv == 0) continue;
    for (int k = c; k < 4; ++k) {
      double dot = 0;
      for (int s = c; s < m; ++s) dot += v[s] * a[s][k];
      const double f = 2 * dot / vv;
      for (int s = c; s < m; ++s) a[s][k] -= f * v[s];
    }
    double dot = 0;
    for (int s = c; s < m; ++s) dot += v[s] * y[s];
    const double f = 2 * dot / vv;
    for (int s = c; s < m; ++s) y[s] -= f * v[s];
  }
  double x[4];
  for (int c = 3; c >= 0; --c) {
    double s = y[c];
    for (int k = c + 1; k < 4; ++k) s -= a[c][k] * x[k];
    x[c] = s / a[c][c];
  }
  // Back from t = r / r_max to r.
  return {x[0] / (r_max * r_max * r_max), x[1] / (r_max * r_max), x[2] / r_max, x[3]};
}

}  // namespace pairwise::ljc
