#include "nbody/integrator_base.hpp"

#include <cmath>

#include "pairwise/error.hpp"

namespace pairwise::nbody {

std::span<const double> IntegratorBase::potential() {
  if (!potential_valid_) {
    kernel_.set_particles(state_);
    kernel_.compute(ForceKind::accel, potential_forces_);
    after_potential_evaluation();
    potential_valid_ = true;
  }
  return potential_forces_.pot;
}

void IntegratorBase::record_step(double new_time, std::size_t active) {
  time_ = new_time;
  ++stats_.steps;
  stats_.particle_steps += active;
  stats_.interactions += static_cast<double>(active) * static_cast<double>(state_.size());
  potential_valid_ = false;
}

void IntegratorBase::check_finite(std::size_t i) const {
  const Particles& p = state_;
  const double values[6] = {p.x[i], p.y[i], p.z[i], p.vx[i], p.vy[i], p.vz[i]};
  for (double v : values) {
    if (!std::isfinite(v))
      throw Error("the state became non-finite (NaN or inf) for particle " + std::to_string(i) +
                      " at t = " + std::to_string(time_) + ", step " + std::to_string(stats_.steps),
                  "integration");
  }
}

}  // namespace pairwise::nbody
