// `pairwise run` for workload = "nbody": the nbody session (nbody_session.hpp, as
// pairwise::nbody::Simulation uses it) integrated to t_end with the diagnostic log, snapshots,
// checkpoints, stop signals and final snapshot of [output].
#include <cmath>
#include <sstream>

#include "api/nbody_session.hpp"
#include "api/run_output.hpp"
#include "core/signals.hpp"
#include "core/thermo_log.hpp"
#include "nbody/checkpoint.hpp"
#include "nbody/particle_table.hpp"
#include "nbody/run.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {

namespace {

using api::Clock;
using api::seconds_since;

// The diagnostic row: t, steps, K, W, E, (E - E0)/|E0|, |p|, |L|, Q = 2K/|W|, wall-clock seconds.
std::vector<ThermoColumn> columns() {
  return {{"t", 10, 6, 'g'}, {"steps", 10, 0, 'd'}, {"K", 15, 9, 'g'},  {"W", 15, 9, 'g'},
          {"E", 15, 9, 'g'}, {"dE/E0", 10, 2, 'e'}, {"|p|", 9, 2, 'e'}, {"|L|", 10, 3, 'e'},
          {"Q", 7, 4, 'f'},  {"wall_s", 9, 2, 'f'}};
}

std::vector<double> row(const Diagnostics& d, const IntegratorStats& s, double wall) {
  const DiagnosticsRow r = Session::row_of(d, s.steps);
  return {r.time,         static_cast<double>(r.steps),
          r.kinetic,      r.potential,
          r.total,        r.energy_error,
          r.momentum,     r.angular_momentum,
          r.virial_ratio, wall};
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

int run_nbody(const RunConfig& rc, std::ostream& out) {
  const auto start = Clock::now();
  StopSignals stop_signals;
  out << "pairwise " << PAIRWISE_VERSION << " " << describe(rc) << "\n";

  std::string note;
  const BackendKind backend = resolve_backend(rc.backend, &note);
  out << note << "\n";
  Session session(kernel_options(rc), rc.integrator, backend);
  std::string source;
  Particles initial = make_initial_conditions(rc, &source);
  session.check(initial, source);
  const std::size_t n = initial.size();
  out << "kernel: " << session.kernel->device_name() << ", precision "
      << to_string(session.kernel->precision()) << ", N = " << n << "\n"
      << std::flush;
  session.start(std::move(initial));
  Integrator& integrator = *session.integrator;
  const std::string config_text = nbody_config_text(rc, backend);
  NbodyCheckpointInfo resumed;
  if (!rc.restart.empty()) {
    resumed = read_nbody_checkpoint(rc.restart, config_text, integrator);
    session.e0 = resumed.e0;
    out << "restart: continuing from t = " << integrator.time() << " (row " << resumed.row
        << ") of " << rc.restart.string() << "\n";
  }

  // Only now, with the input known to be good, is anything created on disk.
  api::prepare_output_directory(rc.output.directory, out);
  ThermoLog log(columns(), out, rc.output.csv, rc.output.progress, resumed.csv_bytes);
  log.header();
  const bool snapshots = rc.output.snapshot_every > 0;
  Diagnostics last = session.measure_at(integrator.time());
  if (rc.restart.empty()) {
    log.row(row(last, integrator.stats(), seconds_since(start)));
    if (snapshots) write_particle_table(rc.snapshot_path(0), integrator.state(), 0.0);
  }
  auto checkpoint = [&](std::int64_t k) {
    NbodyCheckpointInfo info;
    info.row = k, info.csv_bytes = log.flush(), info.e0 = session.e0;
    write_nbody_checkpoint(rc.output.checkpoint, config_text, info, integrator);
  };

  double integration_s = 0;
  bool checkpointed = false;
  for (std::int64_t k = resumed.row + 1, done = integrator.time() >= rc.t_end; !done; ++k) {
    const double t = output_time(rc, k);
    done = t >= rc.t_end;
    const auto step_start = Clock::now();
    integrator.advance_to(t);
    integration_s += seconds_since(step_start);
    last = session.measure_at(t);
    log.row(row(last, integrator.stats(), seconds_since(start)));
    if (snapshots && k % rc.output.snapshot_every == 0) {
      write_particle_table(rc.snapshot_path(k), integrator.state(), t);
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
      std::ostringstream at;
      at << "t = " << t;
      return api::report_stop(out, sig, "at " + at.str(), rc.output.checkpoint, {rc.output.csv},
                              at.str());
    }
  }
  log.finish();
  if (!rc.output.final_snapshot.empty()) {
    write_particle_table(rc.output.final_snapshot, integrator.state(), integrator.time());
  }

  const IntegratorStats& s = integrator.stats();
  const double rate = integration_s > 0 ? s.interactions / integration_s : 0.0;
  char line[256];
  std::snprintf(line, sizeof line,
                "done: t = %g, %llu steps, %llu particle steps, %.3g interactions in %.3f s "
                "(%.3g interactions/s), |dE/E0| = %.2e, wall %.2f s\n",
                integrator.time(), static_cast<unsigned long long>(s.steps),
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
