#include "nbody/host_kernel.hpp"
#include "core/timing.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "pairwise/physics/gravity.hpp"

namespace pairwise::nbody {

void HostGravityKernel::set_particles(const Particles& p) {
  particles_ = p;
  identity_.resize(p.size());
  std::iota(identity_.begin(), identity_.end(), 0);
}

void HostGravityKernel::compute(ForceKind kind, Forces& out) {
  evaluate(particles_, particles_, identity_, kind, out);
}

void HostGravityKernel::compute_range(ForceKind kind, std::size_t begin, std::size_t end,
                                      Forces& out) {
  const std::size_t n = end - begin;
  Particles& t = range_targets_;
  t.resize(n);
  for (auto [to, from] : {std::pair{&t.m, &particles_.m},
                          {&t.x, &particles_.x},
                          {&t.y, &particles_.y},
                          {&t.z, &particles_.z},
                          {&t.vx, &particles_.vx},
                          {&t.vy, &particles_.vy},
                          {&t.vz, &particles_.vz}})
    std::copy(from->begin() + long(begin), from->begin() + long(end), to->begin());
  evaluate(particles_, t, std::span<const int>(identity_).subspan(begin, n), kind, out);
}

void HostGravityKernel::set_hermite_terms(const HermiteTerms& terms) {
  terms_ = terms;
}

void HostGravityKernel::predict_and_compute(double t, std::span<const int> active, Forces& out,
                                            Particles& predicted) {
  const auto n = static_cast<long>(particles_.size());
  predicted_all_.resize(particles_.size());
  predicted_all_.m = particles_.m;
  const Particles& p = particles_;
  const HermiteTerms& h = terms_;
  Particles& q = predicted_all_;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    const double dt = t - h.t[i];
    physics::predict(dt, p.x[i], p.vx[i], h.ax[i], h.jx[i], q.x[i], q.vx[i]);
    physics::predict(dt, p.y[i], p.vy[i], h.ay[i], h.jy[i], q.y[i], q.vy[i]);
    physics::predict(dt, p.z[i], p.vz[i], h.az[i], h.jz[i], q.z[i], q.vz[i]);
  }
  predicted.resize(active.size());
  for (std::size_t k = 0; k < active.size(); ++k) {
    const int i = active[k];
    predicted.m[k] = q.m[i];
    predicted.x[k] = q.x[i], predicted.y[k] = q.y[i], predicted.z[k] = q.z[i];
    predicted.vx[k] = q.vx[i], predicted.vy[k] = q.vy[i], predicted.vz[k] = q.vz[i];
  }
  evaluate(predicted_all_, predicted, active, ForceKind::accel_jerk, out);
}

void HostGravityKernel::commit(std::span<const int> active, const Particles& corrected,
                               const HermiteTerms& terms) {
  for (std::size_t k = 0; k < active.size(); ++k) {
    const int i = active[k];
    particles_.x[i] = corrected.x[k], particles_.y[i] = corrected.y[k];
    particles_.z[i] = corrected.z[k];
    particles_.vx[i] = corrected.vx[k], particles_.vy[i] = corrected.vy[k];
    particles_.vz[i] = corrected.vz[k];
    terms_.ax[i] = terms.ax[k], terms_.ay[i] = terms.ay[k], terms_.az[i] = terms.az[k];
    terms_.jx[i] = terms.jx[k], terms_.jy[i] = terms.jy[k], terms_.jz[i] = terms.jz[k];
    terms_.t[i] = terms.t[k];
  }
}

double HostGravityKernel::time_compute(ForceKind kind, int repeats) {
  Forces out;
  return median_wall_seconds([&] { compute(kind, out); }, repeats);
}

}  // namespace pairwise::nbody
