// Shared-step 4th-order Hermite: predict all particles, evaluate a and jerk at the predicted state,
// correct (hermite_corrector.hpp), choose the next shared step.
#include <algorithm>
#include <cmath>

#include "nbody/integrators.hpp"
#include "pairwise/error.hpp"
#include "pairwise/physics/gravity.hpp"

namespace pairwise::nbody {
namespace {

Vec3 vec(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& z,
         std::size_t i) {
  return {x[i], y[i], z[i]};
}

}  // namespace

HermiteIntegrator::HermiteIntegrator(const IntegratorOptions& options, GravityKernel& kernel,
                                     Particles initial)
    : IntegratorBase(kernel, std::move(initial)), options_(options) {
  kernel_.set_particles(state_);
  kernel_.compute(ForceKind::accel_jerk, forces_);
  next_dt_ = options_.dt;
  if (options_.eta > 0.0) {
    next_dt_ = options_.dt_max;
    for (std::size_t i = 0; i < state_.size(); ++i) {
      next_dt_ =
          std::min(next_dt_, initial_step(options_.eta, vec(forces_.ax, forces_.ay, forces_.az, i),
                                          vec(forces_.jx, forces_.jy, forces_.jz, i)));
    }
  }
}

void HermiteIntegrator::advance_to(double t) {
  const std::size_t n = state_.size();
  Particles& p = state_;
  while (t - time_ > kTimeSlack * next_dt_) {
    const double dt = std::min(next_dt_, t - time_);
    if (dt < options_.dt_min)
      throw Error("Hermite step " + std::to_string(dt) +
                      " fell below dt_min at t = " + std::to_string(time_),
                  "integrator.dt_min");
    predicted_ = p;
    for (std::size_t i = 0; i < n; ++i) {
      physics::predict(dt, p.x[i], p.vx[i], forces_.ax[i], forces_.jx[i], predicted_.x[i],
                       predicted_.vx[i]);
      physics::predict(dt, p.y[i], p.vy[i], forces_.ay[i], forces_.jy[i], predicted_.y[i],
                       predicted_.vy[i]);
      physics::predict(dt, p.z[i], p.vz[i], forces_.az[i], forces_.jz[i], predicted_.z[i],
                       predicted_.vz[i]);
    }
    kernel_.set_particles(predicted_);
    kernel_.compute(ForceKind::accel_jerk, new_forces_);
    double dt_wanted = options_.dt_max;
    for (std::size_t i = 0; i < n; ++i) {
      const HermiteCorrection c = hermite_correct(
          dt, options_.eta, vec(predicted_.x, predicted_.y, predicted_.z, i),
          vec(predicted_.vx, predicted_.vy, predicted_.vz, i),
          vec(forces_.ax, forces_.ay, forces_.az, i), vec(forces_.jx, forces_.jy, forces_.jz, i),
          vec(new_forces_.ax, new_forces_.ay, new_forces_.az, i),
          vec(new_forces_.jx, new_forces_.jy, new_forces_.jz, i));
      p.x[i] = c.x.x, p.y[i] = c.x.y, p.z[i] = c.x.z;
      p.vx[i] = c.v.x, p.vy[i] = c.v.y, p.vz[i] = c.v.z;
      dt_wanted = std::min(dt_wanted, c.dt_aarseth);
    }
    std::swap(forces_, new_forces_);
    if (options_.eta > 0.0) next_dt_ = dt_wanted;
    record_step((t - time_ - dt <= kTimeSlack * dt) ? t : time_ + dt, n);
    for (std::size_t i = 0; i < n; ++i) check_finite(i);
  }
}

}  // namespace pairwise::nbody
