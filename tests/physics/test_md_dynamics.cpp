// The shared dynamics module (pairwise/physics/dynamics.hpp, engine/dynamics.hpp): the Langevin O
// step's analytic variance and stationarity, Andersen's collision rate, order independence of the
// random draws, and velocity Verlet on a harmonic oscillator (energy error O(dt²), time reversal).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "engine/dynamics.hpp"
#include "pairwise/error.hpp"
#include "pairwise/physics/dynamics.hpp"

namespace {

using namespace pairwise;

struct Soa {
  std::vector<double> x, y, z, vx, vy, vz, fx, fy, fz, inv_mass;
  std::vector<std::uint32_t> ids;
  explicit Soa(std::size_t n)
      : x(n), y(n), z(n), vx(n), vy(n), vz(n), fx(n), fy(n), fz(n), inv_mass(n, 1.0), ids(n) {
    std::iota(ids.begin(), ids.end(), 0u);
  }
  engine::DynamicsArrays arrays() {
    return {x.size(),  x.data(),  y.data(),  z.data(),  vx.data(),       vy.data(),
            vz.data(), fx.data(), fy.data(), fz.data(), inv_mass.data(), ids.data()};
  }
};

struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= double(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= double(v.size() - 1);
  return m;
}

TEST(MdDynamics, LangevinOStepVarianceFromRestIsC2SquaredKTOverM) {
  const std::size_t n = 100000;
  Soa s(n);
  for (std::size_t i = 0; i < n; ++i) s.inv_mass[i] = 0.5;  // m = 2
  engine::DynamicsOptions o;
  o.dt = 0.01, o.gamma = 3.0, o.kT = 1.7, o.seed = 99;
  engine::langevin_o(s.arrays(), o, 5);
  const double c1 = std::exp(-o.gamma * o.dt), c2sq = 1 - c1 * c1;
  const double expected = c2sq * o.kT * 0.5;
  for (const auto* v : {&s.vx, &s.vy, &s.vz}) {
    const Moments m = moments(*v);
    EXPECT_NEAR(m.mean, 0.0, 5 * std::sqrt(expected / n));
    EXPECT_NEAR(m.var / expected, 1.0, 5 * std::sqrt(2.0 / n));
  }
}

TEST(MdDynamics, LangevinOStepKeepsMaxwellBoltzmannAndDampsTheMean) {
  const std::size_t n = 20000;
  Soa s(n);
  engine::DynamicsOptions o;
  o.dt = 0.05, o.gamma = 1.0, o.kT = 2.0, o.seed = 3;
  for (std::size_t i = 0; i < n; ++i) s.vx[i] = 1.5;  // a common drift, no spread
  for (int k = 1; k <= 200; ++k) engine::langevin_o(s.arrays(), o, k);
  // After 200 steps (γt = 10) the drift is gone and the variance is kT/m.
  const Moments m = moments(s.vx);
  EXPECT_NEAR(m.mean, 1.5 * std::exp(-10.0), 5 * std::sqrt(o.kT / n));
  EXPECT_NEAR(m.var / o.kT, 1.0, 5 * std::sqrt(2.0 / n));
  // One more step: mean decays by exactly c1 in expectation.
  for (std::size_t i = 0; i < n; ++i) s.vy[i] = 1.0;
  engine::langevin_o(s.arrays(), o, 1000);
  EXPECT_NEAR(moments(s.vy).mean, std::exp(-o.gamma * o.dt), 5 * std::sqrt(o.kT / n));
}

TEST(MdDynamics, RandomDrawsFollowTheParticleIdNotTheIndex) {
  Soa a(100), b(100);
  for (std::size_t i = 0; i < 100; ++i) b.ids[i] = std::uint32_t(99 - i);  // reversed storage
  engine::DynamicsOptions o;
  o.seed = 11;
  engine::langevin_o(a.arrays(), o, 4);
  engine::langevin_o(b.arrays(), o, 4);
  for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(a.vz[i], b.vz[99 - i]);
  // A different step or seed gives different draws.
  Soa c(100);
  engine::langevin_o(c.arrays(), o, 5);
  EXPECT_NE(a.vx[0], c.vx[0]);
}

TEST(MdDynamics, AndersenCollisionRateAndVelocities) {
  const std::size_t n = 200000;
  Soa s(n);
  engine::DynamicsOptions o;
  o.dt = 0.005, o.nu = 20.0, o.kT = 1.3, o.seed = 5;
  const double p = physics::andersen_probability(o.nu, o.dt);
  const std::size_t hits = engine::andersen(s.arrays(), o, 1);
  EXPECT_NEAR(double(hits) / n, p, 5 * std::sqrt(p * (1 - p) / n));
  std::vector<double> hit_v;
  for (std::size_t i = 0; i < n; ++i)
    if (s.vx[i] != 0) hit_v.push_back(s.vx[i]);
  EXPECT_EQ(hit_v.size(), hits);
  EXPECT_NEAR(moments(hit_v).var / o.kT, 1.0, 5 * std::sqrt(2.0 / double(hits)));
}

// Unit harmonic oscillators (k = m = 1): velocity Verlet's energy error scales as dt², and a step
// forward then back (dt → −dt) returns to the start.
double oscillator_energy_error(double dt, int steps) {
  Soa s(1);
  s.x[0] = 1.0, s.vy[0] = 0.5;
  auto a = s.arrays();
  auto forces = [&] { s.fx[0] = -s.x[0], s.fy[0] = -s.y[0], s.fz[0] = -s.z[0]; };
  forces();
  engine::DynamicsOptions o;
  o.dt = dt;
  const double e0 = 0.5 * (1.0 + 0.25);
  double worst = 0;
  for (int k = 1; k <= steps; ++k) {
    engine::dynamics_step(a, o, k, forces);
    const double e = 0.5 * (s.x[0] * s.x[0] + s.y[0] * s.y[0]) + engine::kinetic_energy(a);
    worst = std::max(worst, std::abs(e - e0));
  }
  return worst;
}

TEST(MdDynamics, VelocityVerletIsSecondOrderAndReversible) {
  const double e1 = oscillator_energy_error(0.02, 500), e2 = oscillator_energy_error(0.01, 1000);
  EXPECT_NEAR(e1 / e2, 4.0, 0.2);
  EXPECT_LT(e1, 1e-4);

  Soa s(1);
  s.x[0] = 0.3, s.vx[0] = -0.7;
  auto a = s.arrays();
  auto forces = [&] { s.fx[0] = -s.x[0]; };
  forces();
  engine::DynamicsOptions o;
  o.dt = 0.1;
  for (int k = 0; k < 50; ++k) engine::dynamics_step(a, o, k, forces);
  o.dt = -0.1;
  for (int k = 0; k < 50; ++k) engine::dynamics_step(a, o, k, forces);
  EXPECT_NEAR(s.x[0], 0.3, 1e-12);
  EXPECT_NEAR(s.vx[0], -0.7, 1e-12);
}

TEST(MdDynamics, ParseThermostat) {
  EXPECT_EQ(engine::parse_thermostat("langevin"), engine::Thermostat::langevin);
  EXPECT_EQ(engine::parse_thermostat("andersen"), engine::Thermostat::andersen);
  EXPECT_EQ(engine::parse_thermostat("none"), engine::Thermostat::none);
  EXPECT_THROW(engine::parse_thermostat("berendsen"), pairwise::Error);
}

}  // namespace
