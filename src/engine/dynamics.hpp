// Host loops (OpenMP) of the integrators shared by the md and ljc workloads, over structure-of-
// arrays particle data in double. The per-particle steps are the PW_HD functions of
// pairwise/physics/dynamics.hpp, so a CUDA kernel calling those gives the same numbers.
//
// Interface (for a workload's driver):
//   DynamicsArrays a{n, x, y, z, vx, vy, vz, fx, fy, fz, inv_mass, ids};
//   DynamicsOptions o{.dt = 0.005, .thermostat = Thermostat::langevin, .kT = 1, .gamma = 1,
//                     .seed = 7};
//   compute_forces();                      // once before the first step
//   for (step = 1..):  dynamics_step(a, o, step, compute_forces);
// dynamics_step runs one full step (velocity Verlet, BAOAB Langevin, or velocity Verlet followed by
// Andersen collisions) and calls `forces()` exactly once, after the positions have moved: it must
// fill fx, fy, fz for the new positions (and may wrap positions into the box). The pieces
// (half_kick, drift, langevin_o, andersen) are exposed for drivers that split the step differently.
// `ids` (may be null: the index is used) are stable particle ids keying the random streams.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace pairwise::engine {

enum class Thermostat { none, langevin, andersen };

Thermostat parse_thermostat(std::string_view text);  // "none" | "langevin" | "andersen"
std::string_view to_string(Thermostat t);

struct DynamicsArrays {
  std::size_t n = 0;
  double *x = nullptr, *y = nullptr, *z = nullptr;
  double *vx = nullptr, *vy = nullptr, *vz = nullptr;
  const double *fx = nullptr, *fy = nullptr, *fz = nullptr;
  const double* inv_mass = nullptr;    // per particle; null: every mass is 1
  const std::uint32_t* ids = nullptr;  // per particle; null: the index
};

struct DynamicsOptions {
  double dt = 0.005;
  Thermostat thermostat = Thermostat::none;
  double kT = 1.0;     // target temperature (energy units)
  double gamma = 1.0;  // Langevin friction (1/time)
  double nu = 1.0;     // Andersen collision frequency (1/time)
  std::uint64_t seed = 1;
};

// v += (dt/2) f / m for every particle.
void half_kick(const DynamicsArrays& a, double dt);
// x += v · h.
void drift(const DynamicsArrays& a, double h);
// The Langevin O step of length dt at `step` (pairwise::physics::langevin_o_step).
void langevin_o(const DynamicsArrays& a, const DynamicsOptions& o, std::uint64_t step);
// Andersen collisions at `step`; returns how many particles collided.
std::size_t andersen(const DynamicsArrays& a, const DynamicsOptions& o, std::uint64_t step);
// Σ ½ m v².
double kinetic_energy(const DynamicsArrays& a);

// One full step (see the top of this file). `step` is the index of the step being taken (1 for the
// first), used as the random counter.
void dynamics_step(const DynamicsArrays& a, const DynamicsOptions& o, std::uint64_t step,
                   const std::function<void()>& forces);

}  // namespace pairwise::engine
