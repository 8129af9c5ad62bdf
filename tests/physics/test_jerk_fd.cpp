// The jerk is the time derivative of the acceleration along the motion: with every particle moved
// along its velocity, x_k(h) = x_k + v_k h, the central difference [a(h) - a(-h)] / 2h equals the
// jerk of GAJ to O(h²). Also a = -∇φ: moving one particle i by ±h along an axis changes φ_i by ∓a_i
// h. Reference backend, double.
#include <gtest/gtest.h>

#include <cmath>

#include "backend_params.hpp"
#include "nbody_sets.hpp"
#include "tolerances.hpp"

namespace pairwise::test {
namespace {

using nbody::ForceKind;
using nbody::Forces;
using nbody::Particles;

Forces reference_forces(const Particles& p, double eps2, ForceKind kind) {
  auto kernel = make_reference_kernel(eps2);
  kernel->set_particles(p);
  Forces f;
  kernel->compute(kind, f);
  return f;
}

// The particles moved along their velocities for a time h.
Particles drifted(Particles p, double h) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.x[i] += p.vx[i] * h, p.y[i] += p.vy[i] * h, p.z[i] += p.vz[i] * h;
  }
  return p;
}

// h = 1e-5: truncation ~(h |u| / s)² ~ 1e-7 at the closest pairs (s ≥ 0.02 with |u| ≤ 3.5),
// rounding ~1e-16 |a| / (h |j|) ~ 1e-11.
constexpr double kStep = 1e-5;

void expect_jerk_is_derivative(const Particles& p, double eps2) {
  const Forces f = reference_forces(p, eps2, ForceKind::accel_jerk);
  const Forces plus = reference_forces(drifted(p, kStep), eps2, ForceKind::accel);
  const Forces minus = reference_forces(drifted(p, -kStep), eps2, ForceKind::accel);
  std::vector<double> fd[3];
  for (std::size_t i = 0; i < p.size(); ++i) {
    fd[0].push_back((plus.ax[i] - minus.ax[i]) / (2 * kStep));
    fd[1].push_back((plus.ay[i] - minus.ay[i]) / (2 * kStep));
    fd[2].push_back((plus.az[i] - minus.az[i]) / (2 * kStep));
  }
  EXPECT_LE(max_relative_error({&fd[0], &fd[1], &fd[2]}, {&f.jx, &f.jy, &f.jz}), kFiniteDifference);
}

TEST(JerkFiniteDifference, SoftenedRandomSet) {
  expect_jerk_is_derivative(random_particles(200, 11, {Region::ball}), 0.05 * 0.05);
}

TEST(JerkFiniteDifference, UnsoftenedRandomSet) {
  expect_jerk_is_derivative(random_particles(200, 12, {Region::cube, false, 0.02}), 0.0);
}

// Moving particle i alone by ±h e_c changes its potential by ∓h a_i,c + O(h³).
TEST(AccelerationIsMinusGradient, OfTheParticlesPotential) {
  const double eps2 = 0.01 * 0.01;
  const Particles p = random_particles(100, 13, {Region::ball, false, 0.02});
  const Forces f = reference_forces(p, eps2, ForceKind::accel);
  for (std::size_t i : {std::size_t{0}, std::size_t{37}, std::size_t{99}}) {
    double grad[3];
    for (int c = 0; c < 3; ++c) {
      Particles q = p;
      double& coordinate = c == 0 ? q.x[i] : c == 1 ? q.y[i] : q.z[i];
      coordinate += kStep;
      const double up = reference_forces(q, eps2, ForceKind::accel).pot[i];
      coordinate -= 2 * kStep;
      const double down = reference_forces(q, eps2, ForceKind::accel).pot[i];
      grad[c] = -(up - down) / (2 * kStep);
    }
    const double error = std::hypot(grad[0] - f.ax[i], grad[1] - f.ay[i], grad[2] - f.az[i]) /
                         std::hypot(f.ax[i], f.ay[i], f.az[i]);
    EXPECT_LE(error, kFiniteDifference) << "particle " << i;
  }
}

}  // namespace
}  // namespace pairwise::test
