#include "api/ljc_session.hpp"

#include <cmath>
#include <string>

#include "ljc/velocities.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {

DynamicsSpec dynamics_spec(const RunConfig& rc) {
  return {rc.langevin, rc.dt_fs, rc.temperature, rc.friction_per_ps, rc.seed};
}

Session::Session(Molecule molecule, BackendKind backend, const LjcKernelOptions& ko,
                 const NonbondedOptions& forcefield, const DynamicsSpec& d)
    : mol(std::move(molecule)), kernel(make_ljc_kernel(backend, ko)), spec(d) {
  kernel->set_system(mol, forcefield);
}

void Session::start() {
  if (mol.vx.empty()) thermal_velocities(mol, spec.temperature, spec.seed);
  const std::size_t n = mol.size();
  inv_mass.resize(n);
  for (std::size_t i = 0; i < n; ++i) inv_mass[i] = kAccelFactor / mol.mass[i];
  kernel->compute(forces);
  dynamics.dt = spec.dt_fs;
  dynamics.thermostat = spec.langevin ? engine::Thermostat::langevin : engine::Thermostat::none;
  dynamics.kT = kBoltzmannKcal * spec.temperature;
  dynamics.gamma = spec.friction_per_ps * 1e-3;  // 1/fs
  dynamics.seed = spec.seed;
  dof = spec.langevin ? 3.0 * double(n) : (n > 1 ? 3.0 * double(n) - 3.0 : 3.0);
}

void Session::advance(std::int64_t steps) {
  kernel->advance(mol, inv_mass, dynamics, static_cast<std::uint64_t>(step), steps, forces);
  step += steps;
}

void Session::check_finite() const {
  const LjcForces& f = forces;
  for (std::size_t i = 0; i < mol.size(); ++i)
    if (!std::isfinite(mol.x[i]) || !std::isfinite(mol.y[i]) || !std::isfinite(mol.z[i]) ||
        !std::isfinite(mol.vx[i]) || !std::isfinite(f.fx[i]) || !std::isfinite(f.fy[i]) ||
        !std::isfinite(f.fz[i]))
      throw Error("the state is not finite (NaN or inf) at step " + std::to_string(step) +
                      ", atom " + std::to_string(i) + ": reduce dt or check the input",
                  "run");
}

ThermoRow Session::thermo_row() {
  check_finite();
  const double ke = kinetic_energy(mol);
  const double e = ke + forces.energy();
  if (!have_e0) e0 = e, have_e0 = true;
  ThermoRow r;
  r.step = step;
  r.time_ps = double(step) * spec.dt_fs * 1e-3;
  r.temperature = 2 * ke / (dof * kBoltzmannKcal);
  r.kinetic = ke, r.lj = forces.lj, r.coulomb = forces.coulomb, r.bond = forces.bond;
  r.custom = forces.custom;
  r.total = e;
  r.drift = e0 != 0 ? (e - e0) / std::fabs(e0) : 0.0;
  return r;
}

}  // namespace pairwise::ljc
