#include "api/nbody_session.hpp"

#include <cmath>

#include "nbody/initial_conditions.hpp"

namespace pairwise::nbody {

Session::Session(const KernelOptions& ko, const IntegratorOptions& io, BackendKind b)
    : kernel_options(ko), integrator_options(io), backend(b), kernel(make_gravity_kernel(b, ko)) {}

void Session::check(const Particles& p, const std::string& source) const {
  validate_particles(p, kernel_options.eps2, source);
}

void Session::start(Particles p) {
  // Initial forces are computed here (and may fail: device memory, coincident particles).
  integrator = make_integrator(integrator_options, *kernel, std::move(p));
  e0 = measure(integrator->state(), integrator->potential(), 0.0, 0.0).total;
}

Diagnostics Session::measure_at(double time) const {
  return measure(integrator->state(), integrator->potential(), time, e0);
}

DiagnosticsRow Session::row_of(const Diagnostics& d, std::uint64_t steps) {
  DiagnosticsRow r;
  r.time = d.time;
  r.steps = steps;
  r.kinetic = d.kinetic, r.potential = d.potential, r.total = d.total;
  r.energy_error = d.energy_error;
  r.momentum = std::sqrt(d.px * d.px + d.py * d.py + d.pz * d.pz);
  r.angular_momentum = std::sqrt(d.lx * d.lx + d.ly * d.ly + d.lz * d.lz);
  r.virial_ratio = d.virial_ratio;
  return r;
}

}  // namespace pairwise::nbody
