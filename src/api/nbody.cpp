// pairwise::nbody::Simulation (include/pairwise/nbody.hpp) over the nbody rooms: the generators
// and the particle table of src/nbody/, a GravityKernel and an Integrator.
#include "pairwise/nbody.hpp"

#include <algorithm>
#include <cmath>

#include "core/config.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/gravity_kernel.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/integrator.hpp"
#include "nbody/particle_table.hpp"
#include "nbody/run.hpp"
#include "nbody/run_config.hpp"

namespace pairwise::nbody {

namespace {

ParticleArrays to_arrays(const Particles& p) {
  const std::size_t n = p.size();
  ParticleArrays a;
  a.masses = p.m;
  a.positions.resize(3 * n), a.velocities.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    a.positions[3 * i] = p.x[i], a.positions[3 * i + 1] = p.y[i], a.positions[3 * i + 2] = p.z[i];
    a.velocities[3 * i] = p.vx[i], a.velocities[3 * i + 1] = p.vy[i],
                     a.velocities[3 * i + 2] = p.vz[i];
  }
  return a;
}

Particles from_arrays(const ParticleArrays& a) {
  const std::size_t n = a.masses.size();
  if (a.positions.size() != 3 * n)
    throw Error("positions must have shape (" + std::to_string(n) + ", 3)", "positions");
  if (!a.velocities.empty() && a.velocities.size() != 3 * n)
    throw Error("velocities must have shape (" + std::to_string(n) + ", 3)", "velocities");
  Particles p;
  p.resize(n);
  p.m = a.masses;
  for (std::size_t i = 0; i < n; ++i) {
    p.x[i] = a.positions[3 * i], p.y[i] = a.positions[3 * i + 1], p.z[i] = a.positions[3 * i + 2];
    if (!a.velocities.empty())
      p.vx[i] = a.velocities[3 * i], p.vy[i] = a.velocities[3 * i + 1],
      p.vz[i] = a.velocities[3 * i + 2];
  }
  return p;
}

IntegratorOptions integrator_options(const Settings& s) {
  IntegratorOptions o;
  o.kind = parse_integrator(s.integrator);
  if (!(s.dt > 0) || !(s.dt_max > 0) || !(s.dt_min > 0) || !(s.eta >= 0))
    throw Error("dt, dt_max and dt_min must be > 0 and eta >= 0", "settings");
  if (o.kind == IntegratorKind::hermite_block && !(s.eta > 0))
    throw Error("eta must be > 0 for block time steps", "settings");
  if (s.dt_min > s.dt_max) throw Error("dt_min must not exceed dt_max", "settings");
  o.dt = s.dt, o.eta = s.eta, o.dt_max = s.dt_max, o.dt_min = s.dt_min;
  return o;
}

}  // namespace

ParticleArrays plummer(std::size_t n, std::uint64_t seed) {
  return to_arrays(make_plummer(n, seed));
}
ParticleArrays uniform_sphere(std::size_t n, std::uint64_t seed) {
  return to_arrays(make_uniform_sphere(n, seed));
}
ParticleArrays kepler(double eccentricity, double semi_major_axis) {
  return to_arrays(make_kepler(eccentricity, semi_major_axis));
}
ParticleArrays read_table(const std::string& path, double* time) {
  const ParticleTable t = read_particle_table(path);
  if (time) *time = t.time;
  return to_arrays(t.particles);
}

struct Simulation::Impl {
  KernelOptions kernel_options;
  IntegratorOptions integrator_options;
  BackendKind backend;
  std::unique_ptr<GravityKernel> kernel;        // the integrator's
  std::unique_ptr<GravityKernel> probe_kernel;  // compute_forces' (the integrator's is busy)
  std::unique_ptr<Integrator> integrator;
  double e0 = 0, t_end = 1, interval = 0.125;

  Impl(Particles p, const Settings& s, const std::string& source)
      : integrator_options(nbody::integrator_options(s)), backend(resolve_backend(s.run.backend)) {
    if (!(s.eps >= 0)) throw Error("eps must be >= 0", "settings");
    kernel_options.precision = s.run.precision;
    kernel_options.eps2 = s.eps * s.eps;
    kernel_options.expected_n = p.size();
    kernel = make_gravity_kernel(backend, kernel_options);
    validate_particles(p, kernel_options.eps2, source);
    integrator = make_integrator(integrator_options, *kernel, std::move(p));
    e0 = measure(integrator->state(), integrator->potential(), 0.0, 0.0).total;
  }
};

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Simulation::Simulation(const ParticleArrays& particles, const Settings& settings)
    : impl_(std::make_unique<Impl>(from_arrays(particles), settings, "particles")) {}

Simulation Simulation::from_config(const std::string& path) {
  auto config = config::Config::load(path);
  const RunConfig rc = read_run_config(config);
  Settings s;
  s.run = {rc.backend, rc.precision};
  s.eps = rc.eps;
  s.integrator = std::string(to_string(rc.integrator.kind));
  s.dt = rc.integrator.dt, s.eta = rc.integrator.eta, s.dt_max = rc.integrator.dt_max;
  s.dt_min = rc.integrator.dt_min;
  std::string source;
  Particles p = make_initial_conditions(rc, &source);
  auto impl = std::make_unique<Impl>(std::move(p), s, source);
  impl->t_end = rc.t_end, impl->interval = rc.output.interval;
  return Simulation(std::move(impl));
}

Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

std::size_t Simulation::size() const {
  return impl_->integrator->state().size();
}
BackendKind Simulation::backend() const {
  return impl_->kernel->backend();
}
Precision Simulation::precision() const {
  return impl_->kernel->precision();
}
std::string Simulation::device_name() const {
  return impl_->kernel->device_name();
}
double Simulation::time() const {
  return impl_->integrator->time();
}
double Simulation::configured_t_end() const {
  return impl_->t_end;
}
double Simulation::configured_interval() const {
  return impl_->interval;
}

ForceResult Simulation::compute_forces() {
  if (!impl_->probe_kernel)
    impl_->probe_kernel = make_gravity_kernel(impl_->backend, impl_->kernel_options);
  impl_->probe_kernel->set_particles(impl_->integrator->state());
  Forces f;
  impl_->probe_kernel->compute(ForceKind::accel, f);
  const std::size_t n = f.size();
  ForceResult r;
  r.accelerations.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    r.accelerations[3 * i] = f.ax[i], r.accelerations[3 * i + 1] = f.ay[i],
                        r.accelerations[3 * i + 2] = f.az[i];
  r.potentials = std::move(f.pot);
  return r;
}

DiagnosticsRow Simulation::diagnostics() {
  const auto d =
      measure(impl_->integrator->state(), impl_->integrator->potential(), time(), impl_->e0);
  DiagnosticsRow r;
  r.time = d.time;
  r.steps = impl_->integrator->stats().steps;
  r.kinetic = d.kinetic, r.potential = d.potential, r.total = d.total;
  r.energy_error = d.energy_error;
  r.momentum = std::sqrt(d.px * d.px + d.py * d.py + d.pz * d.pz);
  r.angular_momentum = std::sqrt(d.lx * d.lx + d.ly * d.ly + d.lz * d.lz);
  r.virial_ratio = d.virial_ratio;
  return r;
}

ParticleArrays Simulation::state() const {
  return to_arrays(impl_->integrator->state());
}

void Simulation::run_to(double t_end, const std::vector<TimeObserver>& observers) {
  const double t0 = time();
  if (!(t_end > t0) || !std::isfinite(t_end))
    throw InvalidArgument("t_end must be finite and exceed the current time " + std::to_string(t0),
                          "run");
  const bool block = impl_->integrator_options.kind == IntegratorKind::hermite_block;
  const double dt_max = impl_->integrator_options.dt_max;
  auto multiple = [&](double t) { return std::abs(t / dt_max - std::round(t / dt_max)) < 1e-9; };
  const std::string why = "must be a multiple of dt_max = " + std::to_string(dt_max) +
                          " for block time steps (particles are synchronized only there)";
  if (block && !multiple(t_end)) throw InvalidArgument("t_end " + why, "run");
  for (const auto& o : observers) {
    if (!(o.interval > 0)) throw InvalidArgument("an observer's interval must be > 0", "run");
    if (block && !multiple(o.interval)) throw InvalidArgument("interval " + why, "run");
    if ((t_end - t0) / o.interval > 1e7)
      throw InvalidArgument("an observer's interval gives more than 10^7 calls", "run");
  }
  // Output times k · interval computed from k, as the CLI does (t = 1 is exactly 1 after 8
  // intervals of 0.125).
  for (double t = t0; t < t_end;) {
    double next = t_end;
    for (const auto& o : observers)
      next = std::min(next, (std::floor(t / o.interval + 1e-9) + 1) * o.interval);
    impl_->integrator->advance_to(next);
    t = next;
    for (const auto& o : observers) {
      const double k = std::round(t / o.interval);
      if ((std::abs(t - k * o.interval) <= 1e-12 * std::max(1.0, t) || t >= t_end) && o.call)
        o.call(t);
    }
  }
}

}  // namespace pairwise::nbody
