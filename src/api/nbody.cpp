// pairwise::nbody::Simulation (include/pairwise/nbody.hpp) over the nbody rooms: the generators
// and the particle table of src/nbody/ and the nbody session (api/nbody_session.hpp) that the
// command line's run uses too.
#include "pairwise/nbody.hpp"

#include <algorithm>
#include <cmath>

#include "api/arguments.hpp"
#include "api/nbody_session.hpp"
#include "core/config.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/particle_table.hpp"
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

KernelOptions kernel_options(const Settings& s, std::size_t n) {
  if (!(s.eps >= 0)) throw Error("eps must be >= 0", "settings");
  KernelOptions o;
  o.precision = s.run.precision;
  o.eps2 = s.eps * s.eps;
  o.expected_n = n;
  if (!s.potential.empty())
    o.custom = api::checked_argument([&] {
      return std::make_shared<const CustomGravity>(s.potential, s.eps, "potential", "settings");
    });
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
  Session session;
  double t_end = 1, interval = 0.125;

  Impl(const KernelOptions& ko, const IntegratorOptions& io, BackendKind requested, Particles p,
       const std::string& source)
      : session(ko, io, resolve_backend(requested)) {
    session.check(p, source);
    session.start(std::move(p));
  }
};

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Simulation::Simulation(const ParticleArrays& particles, const Settings& settings) {
  Particles p = from_arrays(particles);
  const IntegratorOptions io = integrator_options(settings);
  const KernelOptions ko = kernel_options(settings, p.size());
  impl_ = std::make_unique<Impl>(ko, io, settings.run.backend, std::move(p), "particles");
}

Simulation Simulation::from_config(const std::string& path) {
  auto config = config::Config::load(path);
  const RunConfig rc = read_run_config(config);
  std::string source;
  Particles p = make_initial_conditions(rc, &source);
  auto impl =
      std::make_unique<Impl>(kernel_options(rc), rc.integrator, rc.backend, std::move(p), source);
  impl->t_end = rc.t_end, impl->interval = rc.output.interval;
  return Simulation(std::move(impl));
}

Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

std::size_t Simulation::size() const {
  return impl_->session.integrator->state().size();
}
BackendKind Simulation::backend() const {
  return impl_->session.kernel->backend();
}
Precision Simulation::precision() const {
  return impl_->session.kernel->precision();
}
std::string Simulation::device_name() const {
  return impl_->session.kernel->device_name();
}
double Simulation::time() const {
  return impl_->session.integrator->time();
}
double Simulation::configured_t_end() const {
  return impl_->t_end;
}
double Simulation::configured_interval() const {
  return impl_->interval;
}

ForceResult Simulation::compute_forces() {
  Session& s = impl_->session;
  if (!s.probe_kernel) s.probe_kernel = make_gravity_kernel(s.backend, s.kernel_options);
  s.probe_kernel->set_particles(s.integrator->state());
  Forces f;
  s.probe_kernel->compute(ForceKind::accel, f);
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
  const Session& s = impl_->session;
  return Session::row_of(s.measure_at(time()), s.integrator->stats().steps);
}

ParticleArrays Simulation::state() const {
  return to_arrays(impl_->session.integrator->state());
}

void Simulation::run_to(double t_end, const TimeObservers& observers) {
  const double t0 = time();
  if (!(t_end > t0) || !std::isfinite(t_end))
    throw InvalidArgument("t_end must be finite and exceed the current time " + std::to_string(t0),
                          "run");
  const bool block = impl_->session.integrator_options.kind == IntegratorKind::hermite_block;
  const double dt_max = impl_->session.integrator_options.dt_max;
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
    impl_->session.integrator->advance_to(next);
    t = next;
    for (const auto& o : observers) {
      const double k = std::round(t / o.interval);
      if ((std::abs(t - k * o.interval) <= 1e-12 * std::max(1.0, t) || t >= t_end) && o.call)
        o.call(t);
    }
  }
}

}  // namespace pairwise::nbody
