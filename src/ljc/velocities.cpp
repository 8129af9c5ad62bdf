#include "ljc/velocities.hpp"

#include <cmath>

#include "pairwise/random/philox.hpp"

namespace pairwise::ljc {

void thermal_velocities(Molecule& m, double temperature, std::uint64_t seed) {
  const std::size_t n = m.size();
  m.vx.assign(n, 0.0), m.vy.assign(n, 0.0), m.vz.assign(n, 0.0);
  if (temperature <= 0 || n == 0) return;
  for (std::size_t i = 0; i < n; ++i) {
    double n0, n1, n2, n3;
    random::normal4(random::philox_draw(seed, 0, std::uint32_t(i), 3), n0, n1, n2, n3);
    const double s = std::sqrt(kBoltzmannKcal * temperature * kAccelFactor / m.mass[i]);
    m.vx[i] = s * n0, m.vy[i] = s * n1, m.vz[i] = s * n2;
  }
  double p[3] = {0, 0, 0}, mass = 0;
  for (std::size_t i = 0; i < n; ++i) {
    p[0] += m.mass[i] * m.vx[i], p[1] += m.mass[i] * m.vy[i], p[2] += m.mass[i] * m.vz[i];
    mass += m.mass[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    m.vx[i] -= p[0] / mass, m.vy[i] -= p[1] / mass, m.vz[i] -= p[2] / mass;
  }
  const double dof = n > 1 ? 3.0 * n - 3.0 : 3.0;
  const double ke = kinetic_energy(m);
  if (ke > 0) {
    const double scale = std::sqrt(0.5 * dof * kBoltzmannKcal * temperature / ke);
    for (std::size_t i = 0; i < n; ++i) m.vx[i] *= scale, m.vy[i] *= scale, m.vz[i] *= scale;
  }
}

double kinetic_energy(const Molecule& m) {
  double ke = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    ke += 0.5 * m.mass[i] * (m.vx[i] * m.vx[i] + m.vy[i] * m.vy[i] + m.vz[i] * m.vz[i]);
  }
  return ke / kAccelFactor;
}

}  // namespace pairwise::ljc
