#include "engine/dynamics.hpp"

#include <string>

#include "pairwise/error.hpp"
#include "pairwise/physics/dynamics.hpp"

namespace pairwise::engine {

Thermostat parse_thermostat(std::string_view text) {
  if (text == "none" || text == "nve") return Thermostat::none;
  if (text == "langevin") return Thermostat::langevin;
  if (text == "andersen") return Thermostat::andersen;
  throw Error("unknown thermostat '" + std::string(text) +
              "' (expected none, langevin or andersen)");
}

std::string_view to_string(Thermostat t) {
  switch (t) {
    case Thermostat::none:
      return "none";
    case Thermostat::langevin:
      return "langevin";
    case Thermostat::andersen:
      return "andersen";
  }
  return "?";
}

namespace {
inline double inv_m(const DynamicsArrays& a, std::size_t i) {
  return a.inv_mass ? a.inv_mass[i] : 1.0;
}
inline std::uint32_t id_of(const DynamicsArrays& a, std::size_t i) {
  return a.ids ? a.ids[i] : std::uint32_t(i);
}
}  // namespace

void half_kick(const DynamicsArrays& a, double dt) {
  const std::ptrdiff_t n = std::ptrdiff_t(a.n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const double h = 0.5 * dt * inv_m(a, i);
    physics::kick(a.vx[i], a.fx[i], h);
    physics::kick(a.vy[i], a.fy[i], h);
    physics::kick(a.vz[i], a.fz[i], h);
  }
}

void drift(const DynamicsArrays& a, double h) {
  const std::ptrdiff_t n = std::ptrdiff_t(a.n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    physics::drift(a.x[i], a.vx[i], h);
    physics::drift(a.y[i], a.vy[i], h);
    physics::drift(a.z[i], a.vz[i], h);
  }
}

void langevin_o(const DynamicsArrays& a, const DynamicsOptions& o, std::uint64_t step) {
  const auto c = physics::langevin_coefficients(o.gamma, o.dt);
  const std::ptrdiff_t n = std::ptrdiff_t(a.n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    physics::langevin_o_step(a.vx[i], a.vy[i], a.vz[i], inv_m(a, i), o.kT, c, o.seed, step,
                             id_of(a, i));
}

std::size_t andersen(const DynamicsArrays& a, const DynamicsOptions& o, std::uint64_t step) {
  const double p = physics::andersen_probability(o.nu, o.dt);
  const std::ptrdiff_t n = std::ptrdiff_t(a.n);
  std::size_t hits = 0;
#pragma omp parallel for schedule(static) reduction(+ : hits)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    hits += physics::andersen_collision(a.vx[i], a.vy[i], a.vz[i], inv_m(a, i), o.kT, p, o.seed,
                                        step, id_of(a, i));
  return hits;
}

double kinetic_energy(const DynamicsArrays& a) {
  const std::ptrdiff_t n = std::ptrdiff_t(a.n);
  double ke = 0;
#pragma omp parallel for schedule(static) reduction(+ : ke)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    ke += (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]) / inv_m(a, i);
  return 0.5 * ke;
}

void dynamics_step(const DynamicsArrays& a, const DynamicsOptions& o, std::uint64_t step,
                   const std::function<void()>& forces) {
  half_kick(a, o.dt);
  if (o.thermostat == Thermostat::langevin) {
    drift(a, 0.5 * o.dt);
    langevin_o(a, o, step);
    drift(a, 0.5 * o.dt);
  } else {
    drift(a, o.dt);
  }
  forces();
  half_kick(a, o.dt);
  if (o.thermostat == Thermostat::andersen) andersen(a, o, step);
}

}  // namespace pairwise::engine
