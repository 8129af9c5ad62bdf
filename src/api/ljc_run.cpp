// `pairwise run` for workload = "ljc": the ljc session (ljc_session.hpp, as
// pairwise::ljc::Simulation uses it) stepped to [run] steps with the thermo log, checkpoints,
// stop signals and final topology of [output].
#include <cmath>
#include <cstdio>
#include <sstream>

#include "api/ljc_session.hpp"
#include "api/run_output.hpp"
#include "core/signals.hpp"
#include "core/thermo_log.hpp"
#include "ljc/checkpoint.hpp"
#include "ljc/run.hpp"
#include "ljc/topology_io.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {
namespace {

using api::Clock;
using api::seconds_since;

std::vector<ThermoColumn> columns() {
  return {{"step", 10, 0, 'd'},   {"t_ps", 10, 4, 'g'}, {"T_K", 9, 2, 'f'},
          {"KE", 13, 6, 'g'},     {"U_lj", 13, 6, 'g'}, {"U_coul", 13, 6, 'g'},
          {"U_bond", 13, 6, 'g'}, {"E", 14, 8, 'g'},    {"dE/|E0|", 10, 2, 'e'},
          {"wall_s", 9, 2, 'f'}};
}

}  // namespace

int run_ljc(const RunConfig& rc, std::ostream& out, std::ostream& err) {
  const auto start = Clock::now();
  StopSignals stop_signals;
  std::string note;
  const BackendKind backend = resolve_backend(rc.backend, &note);
  Molecule molecule = load_molecule(rc, err);
  const std::size_t n = molecule.size();
  {
    std::ostringstream s;
    s << "pairwise " << PAIRWISE_VERSION
      << " ljc: " << (rc.from_file ? rc.file.string() : "globule n=" + std::to_string(n)) << ", "
      << molecule.bonds.size() << " bonds, dielectric " << to_string(rc.forcefield.dielectric)
      << ", " << (rc.langevin ? "Langevin (BAOAB)" : "velocity Verlet (NVE)") << " dt=" << rc.dt_fs
      << " fs, " << rc.steps << " steps, net charge " << molecule.net_charge() << " e\n";
    out << s.str() << note << "\n";
  }
  Session session(std::move(molecule), backend, kernel_options(rc), rc.forcefield,
                  dynamics_spec(rc));
  Molecule& mol = session.mol;
  LjcForces& f = session.forces;
  const PairLists lists = derive_pair_lists(mol);
  out << "kernel: " << session.kernel->device_name() << ", precision "
      << to_string(session.kernel->precision()) << ", N = " << n << ", " << lists.excluded.size()
      << " excluded pairs, " << lists.scaled14.size() << " 1-4 pairs\n"
      << std::flush;
  session.start();

  const std::string config_text = ljc_config_text(rc, backend);
  LjcCheckpointInfo resumed;
  if (!rc.restart.empty()) {
    resumed = read_ljc_checkpoint(rc.restart, config_text, mol, f);
    session.kernel->set_positions(mol.x.data(), mol.y.data(), mol.z.data());
    if (resumed.step > rc.steps)
      throw Error("the checkpoint is at step " + std::to_string(resumed.step) +
                      ", past run.steps = " + std::to_string(rc.steps),
                  rc.restart.string());
    session.step = resumed.step;
    session.e0 = resumed.e0, session.have_e0 = true;
    out << "restart: continuing from step " << resumed.step << " of " << rc.restart.string()
        << "\n";
  }

  api::prepare_output_directory(rc.output.directory, out);
  ThermoLog log(columns(), out, rc.output.csv, rc.output.progress, resumed.csv_bytes);
  log.header();
  double max_drift = resumed.max_drift, t_sum = resumed.t_sum;
  std::int64_t t_rows = resumed.t_rows;
  auto row = [&] {
    const ThermoRow r = session.thermo_row();  // throws when the state is not finite
    max_drift = std::max(max_drift, std::fabs(r.drift));
    if (r.step > 0) t_sum += r.temperature, ++t_rows;
    const double values[] = {double(r.step), r.time_ps,           r.temperature, r.kinetic,
                             r.lj,           r.coulomb,           r.bond,        r.total,
                             r.drift,        seconds_since(start)};
    log.row(values);
  };
  auto checkpoint = [&](std::int64_t step) {
    const LjcCheckpointInfo info{step, log.flush(), session.e0, max_drift, t_sum, t_rows};
    write_ljc_checkpoint(rc.output.checkpoint, config_text, info, mol, f);
  };
  if (rc.restart.empty()) row();
  double integration_s = 0;
  bool checkpointed = false;
  while (session.step < rc.steps) {
    const std::int64_t chunk =
        std::min(rc.output.interval - session.step % rc.output.interval, rc.steps - session.step);
    const auto t0 = Clock::now();
    session.advance(chunk);
    integration_s += seconds_since(t0);
    const std::int64_t step = session.step;
    row();
    const std::int64_t rows = step / rc.output.interval;
    const bool periodic = rc.output.checkpoint_every > 0 && step % rc.output.interval == 0 &&
                          rows % rc.output.checkpoint_every == 0;
    if (periodic) checkpoint(step), checkpointed = true;
    std::ostringstream status;
    status << "step " << step << " / " << rc.steps;
    log.progress(double(step) / double(rc.steps), status.str());
    maybe_raise_test_signal(step);
    if (const int sig = stop_requested(); sig != 0 && step < rc.steps) {
      if (!periodic) checkpoint(step);
      log.finish();
      const std::string at = "step " + std::to_string(step);
      return api::report_stop(out, sig, "after " + at, rc.output.checkpoint, {rc.output.csv}, at);
    }
  }
  log.finish();
  if (!rc.output.final_topology.empty()) write_topology(rc.output.final_topology, mol);
  const double steps_per_s = integration_s > 0 ? rc.steps / integration_s : 0.0;
  char line[320];
  std::snprintf(line, sizeof line,
                "done: %lld steps in %.3f s (%.4g steps/s, %.4g ns/day), max |E - E0|/|E0| = "
                "%.3e, mean T = %.2f K (target %.2f K)\n",
                static_cast<long long>(rc.steps), integration_s, steps_per_s,
                steps_per_s * rc.dt_fs * 1e-6 * 86400, max_drift, t_rows > 0 ? t_sum / t_rows : 0.0,
                rc.temperature);
  out << line;
  if (!rc.output.csv.empty()) out << "wrote " << rc.output.csv.string() << "\n";
  if (!rc.output.final_topology.empty())
    out << "wrote " << rc.output.final_topology.string() << "\n";
  if (checkpointed) out << "wrote " << rc.output.checkpoint.string() << "\n";
  return 0;
}

}  // namespace pairwise::ljc
