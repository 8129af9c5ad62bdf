// `pairwise run` for workload = "md": the md session (md_session.hpp, as pairwise::md::Simulation
// uses it) driven to [integrator] steps with the thermo log, trajectory, checkpoints, stop
// signals and final data file of [output].
#include <algorithm>
#include <cstdio>

#include "api/md_session.hpp"
#include "api/run_output.hpp"
#include "core/io/growing_file.hpp"
#include "core/io/lammps_data.hpp"
#include "core/signals.hpp"
#include "core/thermo_log.hpp"
#include "md/checkpoint.hpp"
#include "md/run.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {

namespace {

using api::Clock;
using api::seconds_since;

std::vector<ThermoColumn> columns() {
  return {{"Step", 10, 0, 'd'},    {"Temp", 14, 8, 'g'},    {"E_pair", 16, 10, 'g'},
          {"KinEng", 14, 8, 'g'},  {"TotEng", 16, 10, 'g'}, {"Press", 16, 10, 'g'},
          {"Rebuilds", 9, 0, 'd'}, {"wall_s", 9, 2, 'f'}};
}

}  // namespace

int run_md(const MdRunConfig& rc, std::ostream& out) {
  const auto start = Clock::now();
  StopSignals stop_signals;
  std::string note;
  const BackendKind backend = resolve_backend(rc.backend, &note);
  System initial = build_system(rc);
  const std::size_t n = initial.atoms.size();
  out << "pairwise " << PAIRWISE_VERSION << " md: " << n << " atoms, "
      << (rc.data_file.empty() ? rc.lattice + " lattice" : rc.data_file.string()) << ", pair "
      << (initial.ff.custom ? initial.ff.custom->description : std::string(to_string(rc.style)))
      << " rc " << build_pair_table(initial.ff).max_cutoff << ", skin " << rc.skin << ", dt "
      << rc.dynamics.dt << ", " << rc.steps << " steps, thermostat "
      << engine::to_string(rc.dynamics.thermostat) << "\n"
      << note << "\n";
  // A restart loads the engine's state from the checkpoint rather than from the initial system.
  Session session(std::move(initial), engine_options(rc), backend, rc.restart.empty());
  MdEngine& engine = *session.engine;
  const std::string config_text = md_config_text(rc, backend);
  MdCheckpointInfo resumed;
  if (!rc.restart.empty()) {
    resumed = read_md_checkpoint(rc.restart, config_text, engine, session.system);
    if (resumed.step > rc.steps)
      throw Error("the checkpoint is at step " + std::to_string(resumed.step) +
                      ", past integrator.steps = " + std::to_string(rc.steps),
                  rc.restart.string());
    session.step = resumed.step;
    out << "restart: continuing from step " << resumed.step << " of " << rc.restart.string()
        << (engine.exact_restart() ? "" : " (this engine continues, but not bitwise)") << "\n";
  }
  out << "engine: " << engine.device_name() << ", precision " << to_string(engine.precision())
      << "\n"
      << std::flush;

  api::prepare_output_directory(rc.directory, out);
  std::unique_ptr<io::GrowingFile> dump;
  if (rc.dump_every > 0)
    dump = resumed.dump_bytes > 0
               ? std::make_unique<io::GrowingFile>(rc.dump, resumed.dump_bytes, 1)
               : std::make_unique<io::GrowingFile>(rc.dump, 1);
  auto write_frame = [&](std::int64_t step) {
    const auto d = data_from_system(session.refresh_state());
    if (rc.dump_format == "xyz")
      io::write_xyz_frame(dump->stream(), step, d);
    else
      io::write_lammps_dump_frame(dump->stream(), step, d);
    dump->end_record();  // flushed every frame: valid up to the last frame after a kill -9
  };

  ThermoLog log(columns(), out, rc.csv, rc.progress, resumed.csv_bytes);
  log.header();
  auto emit = [&] {
    const ThermoRow t = session.thermo_row();  // throws when the system blew up
    log.row(std::vector<double>{double(t.step), t.temperature, t.potential, t.kinetic, t.total,
                                t.pressure, double(t.rebuilds), seconds_since(start)});
  };
  auto checkpoint = [&](std::int64_t step) {
    MdCheckpointInfo info;
    info.step = step;
    info.csv_bytes = log.flush();
    info.dump_bytes = dump ? dump->flush() : 0;
    write_md_checkpoint(rc.checkpoint, config_text, info, engine, session.system);
  };
  if (rc.restart.empty()) {
    emit();
    if (dump) write_frame(0);
  }
  double step_s = 0;
  // Steps are advanced in chunks ending at every output and checkpoint step, and at most
  // kSignalLatency steps long, so that a stop signal is acted on within that many steps.
  constexpr std::int64_t kSignalLatency = 16;
  std::int64_t last_checkpoint = -1;
  while (session.step < rc.steps) {
    const std::int64_t step = session.step;
    std::int64_t next = std::min(rc.steps, (step / rc.thermo_every + 1) * rc.thermo_every);
    if (dump) next = std::min(next, (step / rc.dump_every + 1) * rc.dump_every);
    if (rc.checkpoint_every > 0)
      next = std::min(next, (step / rc.checkpoint_every + 1) * rc.checkpoint_every);
    next = std::min(next, step + kSignalLatency);
    const auto t0 = Clock::now();
    session.advance(next - step);
    step_s += seconds_since(t0);
    if (next % rc.thermo_every == 0 || next == rc.steps) emit();
    if (dump && next % rc.dump_every == 0) write_frame(next);
    if (rc.checkpoint_every > 0 && next % rc.checkpoint_every == 0)
      checkpoint(next), last_checkpoint = next;
    log.progress(double(next) / double(std::max<std::int64_t>(rc.steps, 1)),
                 "step " + std::to_string(next));
    maybe_raise_test_signal(next);
    if (const int sig = stop_requested(); sig != 0 && next < rc.steps) {
      if (last_checkpoint != next) checkpoint(next);
      log.finish();
      if (dump) dump->close();
      const std::string at = "step " + std::to_string(next);
      return api::report_stop(out, sig, "after " + at, rc.checkpoint,
                              {rc.csv, dump ? rc.dump : std::filesystem::path()}, at);
    }
  }
  log.finish();
  if (dump) dump->close();
  if (!rc.final_data.empty())
    io::write_lammps_data(rc.final_data, data_from_system(session.refresh_state()));
  const EngineStats st = engine.stats();
  const std::int64_t steps_run = rc.steps - resumed.step;
  char line[320];
  std::snprintf(line, sizeof line,
                "done: %lld steps in %.3f s (%.1f timesteps/s, %.4g atom-steps/s), %lld neighbor "
                "builds, %lld regrows, %lld reorders\n",
                static_cast<long long>(steps_run), step_s,
                step_s > 0 ? double(steps_run) / step_s : 0.0,
                step_s > 0 ? double(steps_run) * double(n) / step_s : 0.0, st.rebuilds, st.regrows,
                st.reorders);
  out << line;
  if (!rc.csv.empty()) out << "wrote " << rc.csv.string() << "\n";
  if (dump) out << "wrote " << rc.dump.string() << "\n";
  if (!rc.final_data.empty()) out << "wrote " << rc.final_data.string() << "\n";
  if (last_checkpoint >= 0) out << "wrote " << rc.checkpoint.string() << "\n";
  return 0;
}

}  // namespace pairwise::md
