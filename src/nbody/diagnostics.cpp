#include "nbody/diagnostics.hpp"

#include <cmath>

namespace pairwise::nbody {

Diagnostics measure(const Particles& p, std::span<const double> pot, double time, double e0) {
  Diagnostics d;
  d.time = time;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double m = p.m[i];
    d.kinetic += 0.5 * m * (p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i] + p.vz[i] * p.vz[i]);
    d.potential += 0.5 * m * pot[i];  // each pair appears twice in Σ m φ
    d.px += m * p.vx[i], d.py += m * p.vy[i], d.pz += m * p.vz[i];
    d.lx += m * (p.y[i] * p.vz[i] - p.z[i] * p.vy[i]);
    d.ly += m * (p.z[i] * p.vx[i] - p.x[i] * p.vz[i]);
    d.lz += m * (p.x[i] * p.vy[i] - p.y[i] * p.vx[i]);
  }
  d.total = d.kinetic + d.potential;
  d.energy_error = e0 != 0.0 ? (d.total - e0) / std::abs(e0) : 0.0;
  d.virial_ratio = d.potential != 0.0 ? 2.0 * d.kinetic / std::abs(d.potential) : 0.0;
  return d;
}

}  // namespace pairwise::nbody
