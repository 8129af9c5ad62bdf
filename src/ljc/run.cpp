#include "ljc/run.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/io/growing_file.hpp"
#include "core/io/pdb.hpp"
#include "core/signals.hpp"
#include "core/thermo_log.hpp"
#include "engine/dynamics.hpp"
#include "ljc/checkpoint.hpp"
#include "ljc/generator.hpp"
#include "ljc/ljc_kernel.hpp"
#include "ljc/pdb_molecule.hpp"
#include "ljc/pqr_molecule.hpp"
#include "ljc/topology_io.hpp"
#include "pairwise/error.hpp"
#include "pairwise/random/philox.hpp"

namespace pairwise::ljc {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::vector<ThermoColumn> columns() {
  return {{"step", 10, 0, 'd'},   {"t_ps", 10, 4, 'g'}, {"T_K", 9, 2, 'f'},
          {"KE", 13, 6, 'g'},     {"U_lj", 13, 6, 'g'}, {"U_coul", 13, 6, 'g'},
          {"U_bond", 13, 6, 'g'}, {"E", 14, 8, 'g'},    {"dE/|E0|", 10, 2, 'e'},
          {"wall_s", 9, 2, 'f'}};
}

void check_finite(const Molecule& m, const LjcForces& f, std::int64_t step) {
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (!std::isfinite(m.x[i]) || !std::isfinite(m.y[i]) || !std::isfinite(m.z[i]) ||
        !std::isfinite(m.vx[i]) || !std::isfinite(f.fx[i]) || !std::isfinite(f.fy[i]) ||
        !std::isfinite(f.fz[i])) {
      throw Error("the state is not finite (NaN or inf) at step " + std::to_string(step) +
                      ", atom " + std::to_string(i) + ": reduce dt or check the input",
                  "run");
    }
  }
}

}  // namespace

void thermal_velocities(Molecule& m, double temperature, std::uint64_t seed) {
  const std::size_t n = m.size();
  m.vx.assign(n, 0.0), m.vy.assign(n, 0.0), m.vz.assign(n, 0.0);
  if (temperature <= 0 || n == 0) return;
  for (std::size_t i = 0; i < n; ++i) {
    double n0, n1, n2, n3;
    random::normal4(random::philox_draw(seed, 0, std::uint32_t(i), 3), n0, n1, n2, n3);
    const double s = std::sqrt(kBoltzmannKcal * temperature * kAccelFactor / m.mass[i]);
    m.vx[i] = s * n0, m.vy[i] = s * n1, m.vz[i] = s * n2;
  }
  double p[3] = {0, 0, 0}, mass = 0;
  for (std::size_t i = 0; i < n; ++i) {
    p[0] += m.mass[i] * m.vx[i], p[1] += m.mass[i] * m.vy[i], p[2] += m.mass[i] * m.vz[i];
    mass += m.mass[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    m.vx[i] -= p[0] / mass, m.vy[i] -= p[1] / mass, m.vz[i] -= p[2] / mass;
  }
  const double dof = n > 1 ? 3.0 * n - 3.0 : 3.0;
  const double ke = kinetic_energy(m);
  if (ke > 0) {
    const double scale = std::sqrt(0.5 * dof * kBoltzmannKcal * temperature / ke);
    for (std::size_t i = 0; i < n; ++i) m.vx[i] *= scale, m.vy[i] *= scale, m.vz[i] *= scale;
  }
}

double kinetic_energy(const Molecule& m) {
  double ke = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    ke += 0.5 * m.mass[i] * (m.vx[i] * m.vx[i] + m.vy[i] * m.vy[i] + m.vz[i] * m.vz[i]);
  }
  return ke / kAccelFactor;
}

int run_ljc(const RunConfig& rc, std::ostream& out, std::ostream& err) {
  const auto start = Clock::now();
  StopSignals stop_signals;
  std::string note;
  const BackendKind backend = resolve_backend(rc.backend, &note);
  Molecule mol;
  if (!rc.from_file) {
    mol = make_globule(rc.globule);
  } else if (rc.file.extension() == ".pqr") {
    mol =
        molecule_from_pqr(io::read_pqr(rc.file), {rc.pqr_epsilon, rc.pqr_bond_k}, rc.file.string());
  } else if (rc.file.extension() == ".pdb") {
    mol = molecule_from_pdb(io::read_pdb(rc.file), read_parameter_table(rc.parameters),
                            rc.pdb_bond_k, rc.file.string(), rc.parameters.string());
  } else {
    mol = read_topology(rc.file, err);
  }
  if (!rc.from_file) mol.validate("[system] molecule = 'globule'");
  const std::size_t n = mol.size();
  {
    std::ostringstream s;
    s << "pairwise " << PAIRWISE_VERSION
      << " ljc: " << (rc.from_file ? rc.file.string() : "globule n=" + std::to_string(n)) << ", "
      << mol.bonds.size() << " bonds, dielectric " << to_string(rc.forcefield.dielectric) << ", "
      << (rc.langevin ? "Langevin (BAOAB)" : "velocity Verlet (NVE)") << " dt=" << rc.dt_fs
      << " fs, " << rc.steps << " steps, net charge " << mol.net_charge() << " e\n";
    out << s.str() << note << "\n";
  }
  LjcKernelOptions ko;
  ko.precision = rc.precision;
  ko.pair_kernel = rc.pair_kernel;
  ko.step_kernel = rc.step_kernel;
  ko.custom = rc.custom;  // [forcefield] custom (reference, cpu)
  auto kernel = make_ljc_kernel(backend, ko);
  kernel->set_system(mol, rc.forcefield);
  const PairLists lists = derive_pair_lists(mol);
  out << "kernel: " << kernel->device_name() << ", precision " << to_string(kernel->precision())
      << ", N = " << n << ", " << lists.excluded.size() << " excluded pairs, "
      << lists.scaled14.size() << " 1-4 pairs\n"
      << std::flush;
  if (mol.vx.empty()) thermal_velocities(mol, rc.temperature, rc.seed);

  std::vector<double> inv_mass(n);
  for (std::size_t i = 0; i < n; ++i) inv_mass[i] = kAccelFactor / mol.mass[i];
  LjcForces f;
  kernel->compute(f);
  engine::DynamicsOptions o;
  o.dt = rc.dt_fs;
  o.thermostat = rc.langevin ? engine::Thermostat::langevin : engine::Thermostat::none;
  o.kT = kBoltzmannKcal * rc.temperature;
  o.gamma = rc.friction_per_ps * 1e-3;  // 1/fs
  o.seed = rc.seed;
  const double dof = rc.langevin ? 3.0 * n : (n > 1 ? 3.0 * n - 3.0 : 3.0);

  const std::string config_text = ljc_config_text(rc, backend);
  LjcCheckpointInfo resumed;
  if (!rc.restart.empty()) {
    resumed = read_ljc_checkpoint(rc.restart, config_text, mol, f);
    kernel->set_positions(mol.x.data(), mol.y.data(), mol.z.data());
    if (resumed.step > rc.steps)
      throw Error("the checkpoint is at step " + std::to_string(resumed.step) +
                      ", past run.steps = " + std::to_string(rc.steps),
                  rc.restart.string());
    out << "restart: continuing from step " << resumed.step << " of " << rc.restart.string()
        << "\n";
  }

  std::error_code ec;
  std::filesystem::create_directories(rc.output.directory, ec);
  if (ec) throw Error("cannot create the output directory: " + ec.message(), rc.output.directory);
  out << io::remove_stale_temp_files(rc.output.directory);
  ThermoLog log(columns(), out, rc.output.csv, rc.output.progress, resumed.csv_bytes);
  log.header();
  double e0 = resumed.e0, max_drift = resumed.max_drift, t_sum = resumed.t_sum;
  std::int64_t t_rows = resumed.t_rows;
  auto row = [&](std::int64_t step) {
    check_finite(mol, f, step);
    const double ke = kinetic_energy(mol);
    const double e = ke + f.energy();
    if (step == 0) e0 = e;
    const double drift = e0 != 0 ? (e - e0) / std::fabs(e0) : 0.0;
    max_drift = std::max(max_drift, std::fabs(drift));
    const double temp = 2 * ke / (dof * kBoltzmannKcal);
    if (step > 0) t_sum += temp, ++t_rows;
    const double values[] = {
        double(step), step * rc.dt_fs * 1e-3, temp, ke, f.lj, f.coulomb, f.bond, e,
        drift,        seconds_since(start)};
    log.row(values);
  };
  auto checkpoint = [&](std::int64_t step) {
    const LjcCheckpointInfo info{step, log.flush(), e0, max_drift, t_sum, t_rows};
    write_ljc_checkpoint(rc.output.checkpoint, config_text, info, mol, f);
  };
  if (rc.restart.empty()) row(0);
  double integration_s = 0;
  bool checkpointed = false;
  for (std::int64_t step = resumed.step; step < rc.steps;) {
    const std::int64_t chunk =
        std::min(rc.output.interval - step % rc.output.interval, rc.steps - step);
    const auto t0 = Clock::now();
    kernel->advance(mol, inv_mass, o, static_cast<std::uint64_t>(step), chunk, f);
    integration_s += seconds_since(t0);
    step += chunk;
    row(step);
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
      out << "stopped by " << signal_name(sig) << " after step " << step << ": wrote checkpoint "
          << rc.output.checkpoint.string() << " (continue with --restart "
          << rc.output.checkpoint.string() << ")";
      if (!rc.output.csv.empty()) out << ", " << rc.output.csv.string();
      out << " (complete up to step " << step << ")\n" << std::flush;
      return stop_exit_code(sig);
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
