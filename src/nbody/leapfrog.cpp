// Leapfrog, kick-drift-kick with a fixed step (2nd order, symplectic, time-reversible):
//   v += a dt/2;  x += v dt;  a = a(x);  v += a dt/2
#include "nbody/integrators.hpp"

#include <algorithm>

namespace pairwise::nbody {

LeapfrogIntegrator::LeapfrogIntegrator(double dt, GravityKernel& kernel, Particles initial)
    : IntegratorBase(kernel, std::move(initial)), dt_(dt) {
  kernel_.set_particles(state_);
  kernel_.compute(ForceKind::accel, forces_);
}

void LeapfrogIntegrator::advance_to(double t) {
  const std::size_t n = state_.size();
  Particles& p = state_;
  while (t - time_ > kTimeSlack * dt_) {
    const double h = std::min(dt_, t - time_);
    for (std::size_t i = 0; i < n; ++i) {
      p.vx[i] += 0.5 * h * forces_.ax[i], p.vy[i] += 0.5 * h * forces_.ay[i];
      p.vz[i] += 0.5 * h * forces_.az[i];
      p.x[i] += h * p.vx[i], p.y[i] += h * p.vy[i], p.z[i] += h * p.vz[i];
    }
    kernel_.set_particles(p);
    kernel_.compute(ForceKind::accel, forces_);
    for (std::size_t i = 0; i < n; ++i) {
      p.vx[i] += 0.5 * h * forces_.ax[i], p.vy[i] += 0.5 * h * forces_.ay[i];
      p.vz[i] += 0.5 * h * forces_.az[i];
    }
    record_step((t - time_ - h <= kTimeSlack * dt_) ? t : time_ + h, n);
    // Every step, so the first particle to go bad is the one named (a step later all would be).
    for (std::size_t i = 0; i < n; ++i) check_finite(i);
  }
}

}  // namespace pairwise::nbody
