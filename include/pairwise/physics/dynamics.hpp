// Per-particle update steps of the integrators shared by the md and ljc workloads (PW_HD: the same
// code runs in the host loops of src/engine/dynamics.hpp and inside CUDA kernels).
//
//   velocity Verlet (NVE), one step of length dt:
//     kick(v, f, dt/2 / m); drift(x, v, dt); <forces>; kick(v, f, dt/2 / m)
//   Langevin, BAOAB splitting (Leimkuhler & Matthews), friction γ, temperature kT:
//     kick(dt/2); drift(dt/2); langevin_o_step(dt); drift(dt/2); <forces>; kick(dt/2)
//     O:  v ← c1 v + c2 √(kT/m) ξ,   c1 = e^{-γ dt},  c2 = √(1 − c1²),   ξ ~ N(0, 1)³
//   Andersen, collision frequency ν: after a velocity Verlet step each particle, with probability
//     p = 1 − e^{−ν dt}, gets a new velocity drawn from Maxwell–Boltzmann at kT.
//
// Random numbers come from Philox4x32-10 (pairwise/random/philox.hpp) keyed on (seed, step,
// particle id, stream): the draws of a particle at a step do not depend on the thread that makes
// them, the order of particles, or the backend. Pass a stable particle id (not a storage index)
// when particles are reordered. Streams: 0 Langevin noise, 1 Andersen test, 2 Andersen velocity.
//
// T is float or double (the velocity type); random draws and coefficients are computed in double.
#pragma once

#include <cmath>
#include <cstdint>

#include "pairwise/hd.hpp"
#include "pairwise/random/philox.hpp"

namespace pairwise::physics {

// v += f · dt_over_m (dt_over_m = dt/2 / m for a velocity-Verlet half kick).
template <class T>
PW_HD void kick(T& v, T f, T dt_over_m) {
  v += f * dt_over_m;
}

// x += v · dt.
template <class X, class V>
PW_HD void drift(X& x, V v, X dt) {
  x += X(v) * dt;
}

struct LangevinCoefficients {
  double c1 = 1;  // e^{-γ dt}: the velocity kept
  double c2 = 0;  // √(1 − c1²): the noise amplitude in units of √(kT/m)
};

// Coefficients of the O step of length dt at friction γ (1/time). γ = 0 gives c1 = 1, c2 = 0.
PW_HD LangevinCoefficients langevin_coefficients(double gamma, double dt) {
  const double c1 = std::exp(-gamma * dt);
  return {c1, std::sqrt(1.0 - c1 * c1)};
}

// Philox stream numbers (the counter's fourth word).
inline constexpr std::uint32_t kStreamLangevin = 0, kStreamAndersenTest = 1,
                               kStreamAndersenVelocity = 2;

// The exact O step: v ← c1 v + c2 √(kT/m) ξ. After it, if v was Maxwell–Boltzmann at kT it still
// is; from v = 0 the variance of each component is c2² kT/m (tests check both).
template <class T>
PW_HD void langevin_o_step(T& vx, T& vy, T& vz, double inv_mass, double kT,
                           const LangevinCoefficients& c, std::uint64_t seed, std::uint64_t step,
                           std::uint32_t particle) {
  double n0, n1, n2, n3;
  random::normal4(random::philox_draw(seed, step, particle, kStreamLangevin), n0, n1, n2, n3);
  const double s = c.c2 * std::sqrt(kT * inv_mass);
  vx = T(c.c1 * double(vx) + s * n0);
  vy = T(c.c1 * double(vy) + s * n1);
  vz = T(c.c1 * double(vz) + s * n2);
}

// Collision probability of Andersen's thermostat for one step: 1 − e^{−ν dt}.
PW_HD double andersen_probability(double nu, double dt) {
  return 1.0 - std::exp(-nu * dt);
}

// With probability `probability`, replaces v by a Maxwell–Boltzmann draw at kT. Returns whether the
// particle collided.
template <class T>
PW_HD bool andersen_collision(T& vx, T& vy, T& vz, double inv_mass, double kT, double probability,
                              std::uint64_t seed, std::uint64_t step, std::uint32_t particle) {
  const auto test = random::philox_draw(seed, step, particle, kStreamAndersenTest);
  if (random::uniform01_53(test.v[0], test.v[1]) > probability) return false;
  double n0, n1, n2, n3;
  random::normal4(random::philox_draw(seed, step, particle, kStreamAndersenVelocity), n0, n1, n2,
                  n3);
  const double s = std::sqrt(kT * inv_mass);
  vx = T(s * n0), vy = T(s * n1), vz = T(s * n2);
  return true;
}

}  // namespace pairwise::physics
