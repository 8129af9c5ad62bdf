// Closed-form checks of the gravity evaluators (include/pairwise/physics/gravity.hpp) for two
// bodies, the self term, the ε = 0 guard and the Hermite predictor, in double and in float.
#include <gtest/gtest.h>

#include <cmath>

#include "pairwise/physics/gravity.hpp"
#include "tolerances.hpp"

namespace pairwise::test {
namespace {

namespace ph = physics;

template <class T>
constexpr double analytic_tolerance() {
  return std::is_same_v<T, double> ? kAnalyticDouble : kAnalyticFloat;
}

template <class T>
class Evaluators : public testing::Test {};
using Types = testing::Types<float, double>;
TYPED_TEST_SUITE(Evaluators, Types);

// Source of mass m at offset d = (0.3, -0.4, 1.2) (|d| = 1.3), relative velocity u = (0.5, 0.1,
// -0.2).
constexpr double kM = 0.7, kD[3] = {0.3, -0.4, 1.2}, kU[3] = {0.5, 0.1, -0.2}, kEps2 = 0.0625;

// a = m d / (r² + ε²)^{3/2},  φ = -m / (r² + ε²)^{1/2}.
TYPED_TEST(Evaluators, TwoBodyAccelerationAndPotential) {
  using T = TypeParam;
  for (double eps2 : {0.0, kEps2}) {
    ph::Accel<T> acc;
    ph::accumulate_accel<true, false>(T(kD[0]), T(kD[1]), T(kD[2]), T(kM), T(eps2), acc);
    const double s2 = 1.3 * 1.3 + eps2, tol = analytic_tolerance<T>();
    const double m_s3 = kM / (s2 * std::sqrt(s2));
    EXPECT_NEAR(acc.ax, m_s3 * kD[0], tol * m_s3);
    EXPECT_NEAR(acc.ay, m_s3 * kD[1], tol * m_s3);
    EXPECT_NEAR(acc.az, m_s3 * kD[2], tol * m_s3);
    EXPECT_NEAR(acc.pot, -kM / std::sqrt(s2), tol * kM / std::sqrt(s2));
  }
}

// GAJ gives the same a and φ, and jerk = m [u / s³ - 3 (d·u) d / s⁵].
TYPED_TEST(Evaluators, TwoBodyJerk) {
  using T = TypeParam;
  ph::AccelJerk<T> acc;
  ph::accumulate_accel_jerk<false>(T(kD[0]), T(kD[1]), T(kD[2]), T(kU[0]), T(kU[1]), T(kU[2]),
                                   T(kM), T(kEps2), acc);
  const double s2 = 1.3 * 1.3 + kEps2, s = std::sqrt(s2), tol = analytic_tolerance<T>();
  const double du = kD[0] * kU[0] + kD[1] * kU[1] + kD[2] * kU[2];
  const double got[3] = {acc.jx, acc.jy, acc.jz}, accel[3] = {acc.ax, acc.ay, acc.az};
  for (int c = 0; c < 3; ++c) {
    const double jerk = kM * (kU[c] / (s2 * s) - 3 * du * kD[c] / (s2 * s2 * s));
    EXPECT_NEAR(got[c], jerk, tol * kM / (s2 * s)) << "component " << c;
    EXPECT_NEAR(accel[c], kM * kD[c] / (s2 * s), tol * kM / (s2 * s)) << "component " << c;
  }
  EXPECT_NEAR(acc.pot, -kM / s, tol * kM / s);
}

// Sums accumulate; kPotential = false leaves φ alone.
TYPED_TEST(Evaluators, AccumulatesAndSkipsPotentialOnRequest) {
  using T = TypeParam;
  ph::Accel<T> acc{T(1), T(2), T(3), T(4)};
  ph::accumulate_accel<false, false>(T(1), T(0), T(0), T(2), T(0), acc);  // a_x += 2 / 1³
  EXPECT_EQ(acc.ax, T(3));
  EXPECT_EQ(acc.ay, T(2));
  EXPECT_EQ(acc.az, T(3));
  EXPECT_EQ(acc.pot, T(4));
}

// A zero offset with ε > 0: nothing for a, -m/ε for φ (the term self_potential gives for the pair
// of a particle with itself), and jerk m u/ε³ (zero for the self pair, u = 0). With ε = 0 the
// guarded variants add exactly nothing (no inf, no NaN).
TYPED_TEST(Evaluators, ZeroOffsetAndSelfPotential) {
  using T = TypeParam;
  const double tol = analytic_tolerance<T>(), eps = 0.25;
  ph::AccelJerk<T> self, coincident;
  ph::accumulate_accel_jerk<false>(T(0), T(0), T(0), T(0), T(0), T(0), T(kM), T(kEps2), self);
  for (T v : {self.ax, self.ay, self.az, self.jx, self.jy, self.jz}) EXPECT_EQ(v, T(0));
  EXPECT_NEAR(self.pot, -kM / eps, tol * kM / eps);
  EXPECT_NEAR(ph::self_potential(T(kM), T(kEps2)), -kM / eps, tol * kM / eps);
  EXPECT_EQ(ph::self_potential(T(kM), T(0)), T(0));
  ph::accumulate_accel_jerk<false>(T(0), T(0), T(0), T(kU[0]), T(kU[1]), T(kU[2]), T(kM), T(kEps2),
                                   coincident);
  const double m_eps3 = kM / (eps * eps * eps);
  EXPECT_EQ(coincident.ax, T(0));
  EXPECT_NEAR(coincident.jx, m_eps3 * kU[0], tol * m_eps3);
  EXPECT_NEAR(coincident.jz, m_eps3 * kU[2], tol * m_eps3);

  ph::AccelJerk<T> guarded;
  ph::accumulate_accel_jerk<true>(T(0), T(0), T(0), T(1), T(1), T(1), T(kM), T(0), guarded);
  ph::Accel<T> guarded_a;
  ph::accumulate_accel<true, true>(T(0), T(0), T(0), T(kM), T(0), guarded_a);
  for (T v : {guarded.ax, guarded.ay, guarded.az, guarded.jx, guarded.jy, guarded.jz, guarded.pot,
              guarded_a.ax, guarded_a.pot}) {
    EXPECT_EQ(v, T(0));
  }
  // The guard does not change a nonzero pair.
  ph::Accel<T> plain, guarded_nonzero;
  ph::accumulate_accel<true, false>(T(kD[0]), T(kD[1]), T(kD[2]), T(kM), T(0), plain);
  ph::accumulate_accel<true, true>(T(kD[0]), T(kD[1]), T(kD[2]), T(kM), T(0), guarded_nonzero);
  EXPECT_EQ(plain.ax, guarded_nonzero.ax);
  EXPECT_EQ(plain.pot, guarded_nonzero.pot);
}

// The predictor is the Taylor series to third order, so it is exact on a cubic trajectory
// x(t) = x0 + v0 t + a0 t²/2 + j0 t³/6 (v = x', a = x'', j = x''').
TEST(Predictor, ExactOnCubicTrajectory) {
  const double x0 = 0.25, v0 = -1.5, a0 = 3.0, j0 = -7.0;
  for (double dt : {-0.125, 0.0, 0.03125, 0.5, 2.0}) {
    double xp = 0, vp = 0;
    ph::predict(dt, x0, v0, a0, j0, xp, vp);
    const double x = x0 + v0 * dt + a0 * dt * dt / 2 + j0 * dt * dt * dt / 6;
    const double v = v0 + a0 * dt + j0 * dt * dt / 2;
    EXPECT_NEAR(xp, x, kAnalyticDouble * (1 + std::abs(x) + std::abs(j0 * dt * dt * dt)));
    EXPECT_NEAR(vp, v, kAnalyticDouble * (1 + std::abs(v) + std::abs(j0 * dt * dt)));
  }
  float xf = 0, vf = 0;
  ph::predict(0.5f, 0.25f, -1.5f, 3.0f, -7.0f, xf, vf);
  EXPECT_NEAR(xf, 0.25 - 0.75 + 0.375 - 7.0 / 48, kAnalyticFloat);
  EXPECT_NEAR(vf, -1.5 + 1.5 - 0.875, kAnalyticFloat);
}

// Newton's third law (the Newton-3 kernels' pair): a_i += m_j d/s³, a_j -= m_i d/s³,
// φ_i -= m_j/s, φ_j -= m_i/s, with φ from m·(1/s) (equal masses) or from the force weights,
// (m/s³)·s² (general masses): both forms give the closed form, and with ε = 0 the guard keeps a
// zero distance at exactly zero.
TYPED_TEST(Evaluators, NewtonThirdLawPairBothPotentialForms) {
  using T = TypeParam;
  constexpr double kMi = 2.5;
  const double s2 = 1.3 * 1.3 + kEps2, s = std::sqrt(s2), tol = analytic_tolerance<T>();
  const T t_s2 = T(s2), inv_s = T(1) / std::sqrt(T(s2));
  auto check = [&](const ph::Accel<T>& a_i, const ph::Accel<T>& a_j) {
    const double got_i[3] = {a_i.ax, a_i.ay, a_i.az}, got_j[3] = {a_j.ax, a_j.ay, a_j.az};
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(got_i[c], kM * kD[c] / (s2 * s), tol * kM / (s2 * s)) << "component " << c;
      EXPECT_NEAR(got_j[c], -kMi * kD[c] / (s2 * s), tol * kMi / (s2 * s)) << "component " << c;
    }
    EXPECT_NEAR(a_i.pot, -kM / s, tol * kM / s);
    EXPECT_NEAR(a_j.pot, -kMi / s, tol * kMi / s);
  };
  ph::Accel<T> plain_i, plain_j, weights_i, weights_j;
  ph::accumulate_accel_pair_from_rsqrt<true, false, false>(T(kD[0]), T(kD[1]), T(kD[2]), T(kMi),
                                                           T(kM), t_s2, inv_s, plain_i, plain_j);
  ph::accumulate_accel_pair_from_rsqrt<true, false, true>(T(kD[0]), T(kD[1]), T(kD[2]), T(kMi),
                                                          T(kM), t_s2, inv_s, weights_i, weights_j);
  check(plain_i, plain_j);
  check(weights_i, weights_j);
  EXPECT_EQ(weights_i.ax, plain_i.ax);  // the forces are the same operations
  EXPECT_EQ(weights_j.az, plain_j.az);

  ph::Accel<T> zero_i, zero_j;
  ph::accumulate_accel_pair_from_rsqrt<true, true, true>(T(0), T(0), T(0), T(kMi), T(kM), T(0),
                                                         T(INFINITY), zero_i, zero_j);
  for (T v : {zero_i.ax, zero_i.pot, zero_j.az, zero_j.pot}) EXPECT_EQ(v, T(0));
}

}  // namespace
}  // namespace pairwise::test
