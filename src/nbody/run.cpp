#include "nbody/run.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "core/io/growing_file.hpp"
#include "core/signals.hpp"
#include "core/thermo_log.hpp"
#include "nbody/checkpoint.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/gravity_kernel.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/integrator.hpp"
#include "nbody/particle_table.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The diagnostic row: t, steps, K, W, E, (E - E0)/|E0|, |p|, |L|, Q = 2K/|W|, wall-clock seconds.
std::vector<ThermoColumn> columns() {
  return {{"t", 10, 6, 'g'}, {"steps", 10, 0, 'd'}, {"K", 15, 9, 'g'},  {"W", 15, 9, 'g'},
          {"E", 15, 9, 'g'}, {"dE/E0", 10, 2, 'e'}, {"|p|", 9, 2, 'e'}, {"|L|", 10, 3, 'e'},
          {"Q", 7, 4, 'f'},  {"wall_s", 9, 2, 'f'}};
}

std::vector<double> row(const Diagnostics& d, const IntegratorStats& s, double wall) {
  const double p = std::sqrt(d.px * d.px + d.py * d.py + d.pz * d.pz);
  const double l = std::sqrt(d.lx * d.lx + d.ly * d.ly + d.lz * d.lz);
  return {d.time,
          static_cast<double>(s.steps),
          d.kinetic,
          d.potential,
          d.total,
          d.energy_error,
          p,
          l,
          d.virial_ratio,
          wall};
}

std::string describe(const RunConfig& rc) {
  std::ostringstream s;
  s << "nbody: initial " << to_string(rc.initial);
  switch (rc.initial) {
    case InitialKind::plummer:
    case InitialKind::uniform_sphere:
      s << " n=" << rc.n << " seed=" << rc.seed;
      break;
    case InitialKind::kepler:
      s << " e=" << rc.eccentricity << " a=" << rc.semi_major_axis;
      break;
    case InitialKind::file:
      s << " " << rc.file.string();
      break;
  }
  const auto& o = rc.integrator;
  s << ", eps=" << rc.eps << ", " << to_string(o.kind);
  if (o.kind == IntegratorKind::leapfrog || (o.kind == IntegratorKind::hermite && o.eta == 0)) {
    s << " dt=" << o.dt;
  } else {
    s << " eta=" << o.eta << " dt_max=" << o.dt_max;
  }
  s << ", t_end=" << rc.t_end << ", precision " << to_string(rc.precision);
  return s.str();
}

// Output times k × interval for k = 1, 2, ... with the last one clamped to t_end. Computed from k
// rather than accumulated, so that t = 1 is exactly 1 after 8 intervals of 0.125.
double output_time(const RunConfig& rc, std::int64_t k) {
  return std::min(rc.t_end, static_cast<double>(k) * rc.output.interval);
}

}  // namespace

Particles make_initial_conditions(const RunConfig& rc, std::string* source) {
  if (source) *source = "[system] initial = '" + std::string(to_string(rc.initial)) + "'";
  switch (rc.initial) {
    case InitialKind::plummer:
      return make_plummer(rc.n, rc.seed);
    case InitialKind::uniform_sphere:
      return make_uniform_sphere(rc.n, rc.seed);
    case InitialKind::kepler:
      return make_kepler(rc.eccentricity, rc.semi_major_axis);
    case InitialKind::file:
      if (source) *source = rc.file.string();
      return read_particle_table(rc.file).particles;
  }
  throw Error("unknown initial conditions", rc.source);
}

int run_nbody(const RunConfig& rc, std::ostream& out) {
  const auto start = Clock::now();
  StopSignals stop_signals;
  out << "pairwise " << PAIRWISE_VERSION << " " << describe(rc) << "\n";

  std::string note;
  const BackendKind backend = resolve_backend(rc.backend, &note);
  out << note << "\n";
  KernelOptions kernel_options;
  kernel_options.precision = rc.precision;
  kernel_options.eps2 = rc.eps * rc.eps;
  kernel_options.custom = rc.custom;  // [system] potential (formula), reference and cpu
  // Generated models have a known size: the GPU memory check runs before the host builds them.
  if (rc.initial == InitialKind::plummer || rc.initial == InitialKind::uniform_sphere)
    kernel_options.expected_n = rc.n;
  auto kernel = make_gravity_kernel(backend, kernel_options);

  std::string source;
  Particles initial = make_initial_conditions(rc, &source);
  validate_particles(initial, kernel_options.eps2, source);
  const std::size_t n = initial.size();
  out << "kernel: " << kernel->device_name() << ", precision " << to_string(kernel->precision())
      << ", N = " << n << "\n"
      << std::flush;

  // Initial forces are computed here (and may fail: device memory, coincident particles).
  auto integrator = make_integrator(rc.integrator, *kernel, std::move(initial));
  const std::string config_text = nbody_config_text(rc, backend);
  NbodyCheckpointInfo resumed;
  if (!rc.restart.empty()) {
    resumed = read_nbody_checkpoint(rc.restart, config_text, *integrator);
    out << "restart: continuing from t = " << integrator->time() << " (row " << resumed.row
        << ") of " << rc.restart.string() << "\n";
  }

  // Only now, with the input known to be good, is anything created on disk.
  std::error_code ec;
  std::filesystem::create_directories(rc.output.directory, ec);
  if (ec) throw Error("cannot create the output directory: " + ec.message(), rc.output.directory);
  out << io::remove_stale_temp_files(rc.output.directory);

  ThermoLog log(columns(), out, rc.output.csv, rc.output.progress, resumed.csv_bytes);
  log.header();
  const bool snapshots = rc.output.snapshot_every > 0;
  double e0 = resumed.e0;
  Diagnostics last;
  if (rc.restart.empty()) {
    const Diagnostics d0 = measure(integrator->state(), integrator->potential(), 0.0, 0.0);
    e0 = d0.total;
    last = d0;
    log.row(row(d0, integrator->stats(), seconds_since(start)));
    if (snapshots) write_particle_table(rc.snapshot_path(0), integrator->state(), 0.0);
  } else {
    last = measure(integrator->state(), integrator->potential(), integrator->time(), e0);
  }
  auto checkpoint = [&](std::int64_t k) {
    NbodyCheckpointInfo info;
    info.row = k, info.csv_bytes = log.flush(), info.e0 = e0;
    write_nbody_checkpoint(rc.output.checkpoint, config_text, info, *integrator);
  };

  double integration_s = 0;
  bool checkpointed = false;
  for (std::int64_t k = resumed.row + 1, done = integrator->time() >= rc.t_end; !done; ++k) {
    const double t = output_time(rc, k);
    done = t >= rc.t_end;
    const auto step_start = Clock::now();
    integrator->advance_to(t);
    integration_s += seconds_since(step_start);
    last = measure(integrator->state(), integrator->potential(), t, e0);
    log.row(row(last, integrator->stats(), seconds_since(start)));
    if (snapshots && k % rc.output.snapshot_every == 0) {
      write_particle_table(rc.snapshot_path(k), integrator->state(), t);
    }
    const bool periodic = rc.output.checkpoint_every > 0 && k % rc.output.checkpoint_every == 0;
    if (periodic) checkpoint(k), checkpointed = true;
    std::ostringstream status;
    status << "t = " << t << " / " << rc.t_end;
    log.progress(t / rc.t_end, status.str());
    maybe_raise_test_signal(k);
    if (const int sig = stop_requested(); sig != 0 && !done) {
      if (!periodic) checkpoint(k);
      log.finish();
      out << "stopped by " << signal_name(sig) << " at t = " << t << ": wrote checkpoint "
          << rc.output.checkpoint.string() << " (continue with --restart "
          << rc.output.checkpoint.string() << ")";
      if (!rc.output.csv.empty()) out << ", " << rc.output.csv.string();
      out << " (complete up to t = " << t << ")\n" << std::flush;
      return stop_exit_code(sig);
    }
  }
  log.finish();
  if (!rc.output.final_snapshot.empty()) {
    write_particle_table(rc.output.final_snapshot, integrator->state(), integrator->time());
  }

  const IntegratorStats& s = integrator->stats();
  const double rate = integration_s > 0 ? s.interactions / integration_s : 0.0;
  char line[256];
  std::snprintf(line, sizeof line,
                "done: t = %g, %llu steps, %llu particle steps, %.3g interactions in %.3f s "
                "(%.3g interactions/s), |dE/E0| = %.2e, wall %.2f s\n",
                integrator->time(), static_cast<unsigned long long>(s.steps),
                static_cast<unsigned long long>(s.particle_steps), s.interactions, integration_s,
                rate, std::abs(last.energy_error), seconds_since(start));
  out << line;
  if (!rc.output.csv.empty()) out << "wrote " << rc.output.csv.string() << "\n";
  if (!rc.output.final_snapshot.empty())
    out << "wrote " << rc.output.final_snapshot.string() << "\n";
  if (checkpointed) out << "wrote " << rc.output.checkpoint.string() << "\n";
  return 0;
}

}  // namespace pairwise::nbody
