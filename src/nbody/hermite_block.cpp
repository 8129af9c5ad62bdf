// Block-step 4th-order Hermite (Makino 1991; Aarseth's NBODY codes): individual power-of-two steps
// dt_i = dt_max / 2^k, particle i living on multiples of dt_i. A block step takes the earliest next
// time t = min(t_i + dt_i); the particles due then ("active") get a and jerk from all j-particles
// predicted to t on the backend, are corrected, and choose their next step: halved as often as the
// Aarseth criterion demands, doubled only when t is a multiple of the doubled step.
#include <algorithm>
#include <cmath>

#include "nbody/integrators.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {
namespace {

// The largest power of two not above x (x > 0).
double floor_power_of_two(double x) {
  int exponent;
  std::frexp(x, &exponent);  // x = f 2^exponent, f in [0.5, 1)
  return std::ldexp(1.0, exponent - 1);
}

bool is_power_of_two(double x) {
  return x > 0.0 && floor_power_of_two(x) == x;
}

}  // namespace

BlockHermiteIntegrator::BlockHermiteIntegrator(const IntegratorOptions& options,
                                               GravityKernel& kernel, Particles initial)
    : IntegratorBase(kernel, std::move(initial)), options_(options), schedule_(options.dt_max) {
  if (!is_power_of_two(options_.dt_max))
    throw Error("hermite_block needs dt_max to be a power of two (e.g. 0.0625), got " +
                    std::to_string(options_.dt_max),
                "integrator.dt_max");
  if (!(options_.eta > 0.0))
    throw Error("hermite_block needs eta > 0, got " + std::to_string(options_.eta),
                "integrator.eta");
  const std::size_t n = state_.size();
  Forces forces;
  kernel_.set_particles(state_);
  kernel_.compute(ForceKind::accel_jerk, forces);
  terms_.resize(n);
  dt_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    terms_.ax[i] = forces.ax[i], terms_.ay[i] = forces.ay[i], terms_.az[i] = forces.az[i];
    terms_.jx[i] = forces.jx[i], terms_.jy[i] = forces.jy[i], terms_.jz[i] = forces.jz[i];
    terms_.t[i] = 0.0;
    const double wanted = initial_step(options_.eta, {forces.ax[i], forces.ay[i], forces.az[i]},
                                       {forces.jx[i], forces.jy[i], forces.jz[i]});
    dt_[i] = floor_power_of_two(std::min(wanted, options_.dt_max));
    if (dt_[i] < options_.dt_min)
      throw Error("the initial step of particle " + std::to_string(i) + " (" +
                      std::to_string(dt_[i]) + ") is below dt_min",
                  "integrator.dt_min");
    schedule_.assign(static_cast<int>(i), 0.0, dt_[i]);
  }
  kernel_.set_hermite_terms(terms_);
}

void BlockHermiteIntegrator::advance_to(double t) {
  const double blocks = t / options_.dt_max;
  if (std::abs(blocks - std::round(blocks)) > 1e-9)
    throw Error("hermite_block synchronizes only at multiples of dt_max (" +
                    std::to_string(options_.dt_max) + "); " + std::to_string(t) + " is not one",
                "output.interval");
  t = std::round(blocks) * options_.dt_max;
  while (time_ < t) block_step();
}

double BlockHermiteIntegrator::next_block_step(double t, double dt, double dt_wanted,
                                               std::size_t i) const {
  while (dt > dt_wanted) {
    dt *= 0.5;
    if (dt < options_.dt_min)
      throw Error("the block step of particle " + std::to_string(i) + " fell below dt_min (" +
                      std::to_string(options_.dt_min) + ") at t = " + std::to_string(t) +
                      " (close encounter without enough softening?)",
                  "integrator.dt_min");
  }
  // Doubling keeps the block structure only if t is a multiple of the doubled step.
  if (dt_wanted >= 2.0 * dt && 2.0 * dt <= options_.dt_max && std::fmod(t, 2.0 * dt) == 0.0)
    dt *= 2.0;
  return dt;
}

void BlockHermiteIntegrator::block_step() {
  const double t_next = schedule_.next_time();
  schedule_.take_due(active_);

  kernel_.predict_and_compute(t_next, active_, active_forces_, predicted_);

  const std::size_t n_active = active_.size();
  corrected_.resize(n_active);
  corrected_terms_.resize(n_active);
  Particles& p = state_;
  for (std::size_t k = 0; k < n_active; ++k) {
    const auto i = static_cast<std::size_t>(active_[k]);
    const Forces& f = active_forces_;
    const HermiteCorrection c = hermite_correct(
        dt_[i], options_.eta, {predicted_.x[k], predicted_.y[k], predicted_.z[k]},
        {predicted_.vx[k], predicted_.vy[k], predicted_.vz[k]},
        {terms_.ax[i], terms_.ay[i], terms_.az[i]}, {terms_.jx[i], terms_.jy[i], terms_.jz[i]},
        {f.ax[k], f.ay[k], f.az[k]}, {f.jx[k], f.jy[k], f.jz[k]});
    p.x[i] = c.x.x, p.y[i] = c.x.y, p.z[i] = c.x.z;
    p.vx[i] = c.v.x, p.vy[i] = c.v.y, p.vz[i] = c.v.z;
    terms_.ax[i] = f.ax[k], terms_.ay[i] = f.ay[k], terms_.az[i] = f.az[k];
    terms_.jx[i] = f.jx[k], terms_.jy[i] = f.jy[k], terms_.jz[i] = f.jz[k];
    terms_.t[i] = t_next;
    check_finite(i);
    dt_[i] = next_block_step(t_next, dt_[i], std::min(c.dt_aarseth, options_.dt_max), i);
    schedule_.assign(static_cast<int>(i), t_next, dt_[i]);

    corrected_.x[k] = p.x[i], corrected_.y[k] = p.y[i], corrected_.z[k] = p.z[i];
    corrected_.vx[k] = p.vx[i], corrected_.vy[k] = p.vy[i], corrected_.vz[k] = p.vz[i];
    corrected_terms_.ax[k] = f.ax[k], corrected_terms_.ay[k] = f.ay[k];
    corrected_terms_.az[k] = f.az[k];
    corrected_terms_.jx[k] = f.jx[k], corrected_terms_.jy[k] = f.jy[k];
    corrected_terms_.jz[k] = f.jz[k];
    corrected_terms_.t[k] = t_next;
  }
  kernel_.commit(active_, corrected_, corrected_terms_);

  record_step(t_next, n_active);
}

}  // namespace pairwise::nbody
