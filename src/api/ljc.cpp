// pairwise::ljc::Simulation (include/pairwise/ljc.hpp) over the ljc rooms: the molecule builders
// and readers of src/ljc/, an LjcKernel and its advance() (the shared dynamics).
#include "pairwise/ljc.hpp"

#include <cmath>
#include <sstream>

#include "api/run_loop.hpp"
#include "core/config.hpp"
#include "core/io/pdb.hpp"
#include "core/io/pqr.hpp"
#include "ljc/generator.hpp"
#include "ljc/ljc_kernel.hpp"
#include "ljc/pdb_molecule.hpp"
#include "ljc/pqr_molecule.hpp"
#include "ljc/run.hpp"
#include "ljc/run_config.hpp"
#include "ljc/topology_io.hpp"

namespace pairwise::ljc {

namespace {

MoleculeArrays to_arrays(const Molecule& m) {
  const std::size_t n = m.size();
  MoleculeArrays a;
  a.positions.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    a.positions[3 * i] = m.x[i], a.positions[3 * i + 1] = m.y[i], a.positions[3 * i + 2] = m.z[i];
  if (!m.vx.empty()) {
    a.velocities.resize(3 * n);
    for (std::size_t i = 0; i < n; ++i)
      a.velocities[3 * i] = m.vx[i], a.velocities[3 * i + 1] = m.vy[i],
                       a.velocities[3 * i + 2] = m.vz[i];
  }
  a.charges = m.q, a.sigmas = m.sigma, a.epsilons = m.epsilon, a.masses = m.mass;
  for (const Bond& b : m.bonds) a.bonds.push_back({b.i, b.j, b.r0, b.k});
  a.exclusions = m.exclusions;
  return a;
}

Molecule from_arrays(const MoleculeArrays& a) {
  const std::size_t n = a.charges.size();
  auto check = [&](const std::vector<double>& v, std::size_t size, const char* name) {
    if (v.size() != size)
      throw Error(std::string(name) + " must have " + std::to_string(size) + " entries (" +
                      std::to_string(n) + " atoms), got " + std::to_string(v.size()),
                  name);
  };
  check(a.positions, 3 * n, "positions");
  if (!a.velocities.empty()) check(a.velocities, 3 * n, "velocities");
  check(a.sigmas, n, "sigmas"), check(a.epsilons, n, "epsilons"), check(a.masses, n, "masses");
  Molecule m;
  m.resize(n);
  m.q = a.charges, m.sigma = a.sigmas, m.epsilon = a.epsilons, m.mass = a.masses;
  for (std::size_t i = 0; i < n; ++i) {
    m.type[i] = "X";
    m.x[i] = a.positions[3 * i], m.y[i] = a.positions[3 * i + 1], m.z[i] = a.positions[3 * i + 2];
  }
  if (!a.velocities.empty()) {
    m.vx.resize(n), m.vy.resize(n), m.vz.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      m.vx[i] = a.velocities[3 * i], m.vy[i] = a.velocities[3 * i + 1],
      m.vz[i] = a.velocities[3 * i + 2];
  } else {
    m.vx.clear(), m.vy.clear(), m.vz.clear();
  }
  for (const auto& b : a.bonds) m.bonds.push_back({b.i, b.j, b.r0, b.k});
  m.exclusions = a.exclusions;
  m.validate("molecule");
  return m;
}

NonbondedOptions nonbonded(const Settings& s) {
  NonbondedOptions nb;
  nb.dielectric = parse_dielectric(s.dielectric);
  if (!(s.epsilon > 0) || !(s.linear_factor > 0))
    throw Error("epsilon and linear_factor must be > 0", "settings");
  nb.epsilon = s.epsilon, nb.linear_factor = s.linear_factor, nb.sigmoidal = s.sigmoidal;
  nb.scale14_lj = s.scale14_lj, nb.scale14_coulomb = s.scale14_coulomb;
  return nb;
}

// The molecule [system] asks for, as run_ljc builds it (src/ljc/run.cpp).
Molecule molecule_of(const RunConfig& rc) {
  if (!rc.from_file) {
    Molecule m = make_globule(rc.globule);
    m.validate("[system] molecule = 'globule'");
    return m;
  }
  if (rc.file.extension() == ".pqr")
    return molecule_from_pqr(io::read_pqr(rc.file), {rc.pqr_epsilon, rc.pqr_bond_k},
                             rc.file.string());
  if (rc.file.extension() == ".pdb")
    return molecule_from_pdb(io::read_pdb(rc.file), read_parameter_table(rc.parameters),
                             rc.pdb_bond_k, rc.file.string(), rc.parameters.string());
  std::ostringstream warnings;
  return read_topology(rc.file, warnings);
}

}  // namespace

MoleculeArrays globule(std::size_t n, std::uint64_t seed, double charge) {
  GlobuleOptions o;
  o.n = n, o.seed = seed, o.charge = charge;
  Molecule m = make_globule(o);
  m.validate("globule");
  return to_arrays(m);
}

MoleculeArrays read_molecule(const std::string& path, double pqr_epsilon, double pqr_bond_k) {
  RunConfig rc;
  rc.from_file = true;
  rc.file = path;
  rc.pqr_epsilon = pqr_epsilon, rc.pqr_bond_k = pqr_bond_k;
  if (rc.file.extension() == ".pdb")
    throw Error("a PDB molecule needs a parameter table: use a TOML config ([system] parameters)",
                path);
  return to_arrays(molecule_of(rc));
}

struct Simulation::Impl {
  Molecule mol;
  std::unique_ptr<LjcKernel> kernel;
  std::vector<double> inv_mass;
  engine::DynamicsOptions dynamics;
  LjcForces forces;
  double dof = 3, e0 = 0;
  bool have_e0 = false;
  std::int64_t step = 0, configured_steps = 0, configured_interval = 100;

  Impl(Molecule m, const Settings& s, PairKernel pair_kernel = PairKernel::automatic,
       StepKernel step_kernel = StepKernel::automatic)
      : mol(std::move(m)) {
    const NonbondedOptions nb = nonbonded(s);
    if (s.thermostat != "none" && s.thermostat != "langevin")
      throw Error("unknown thermostat '" + s.thermostat + "' (expected none or langevin)",
                  "settings");
    if (!(s.dt > 0) || !(s.temperature >= 0) || !(s.friction >= 0))
      throw Error("dt must be > 0, temperature and friction >= 0", "settings");
    const bool langevin = s.thermostat == "langevin";
    LjcKernelOptions ko;
    ko.precision = s.run.precision;
    ko.pair_kernel = pair_kernel, ko.step_kernel = step_kernel;
    kernel = make_ljc_kernel(resolve_backend(s.run.backend), ko);
    kernel->set_system(mol, nb);
    if (mol.vx.empty()) thermal_velocities(mol, s.temperature, s.seed);
    const std::size_t n = mol.size();
    inv_mass.resize(n);
    for (std::size_t i = 0; i < n; ++i) inv_mass[i] = kAccelFactor / mol.mass[i];
    kernel->compute(forces);
    dynamics.dt = s.dt;
    dynamics.thermostat = langevin ? engine::Thermostat::langevin : engine::Thermostat::none;
    dynamics.kT = kBoltzmannKcal * s.temperature;
    dynamics.gamma = s.friction * 1e-3;  // 1/fs
    dynamics.seed = s.seed;
    dof = langevin ? 3.0 * double(n) : (n > 1 ? 3.0 * double(n) - 3.0 : 3.0);
  }

  // The CLI's check (src/ljc/run.cpp check_finite).
  void check_finite() const {
    for (std::size_t i = 0; i < mol.size(); ++i)
      if (!std::isfinite(mol.x[i]) || !std::isfinite(mol.y[i]) || !std::isfinite(mol.z[i]) ||
          !std::isfinite(mol.vx[i]) || !std::isfinite(forces.fx[i]) ||
          !std::isfinite(forces.fy[i]) || !std::isfinite(forces.fz[i]))
        throw Error("the state is not finite (NaN or inf) at step " + std::to_string(step) +
                        ", atom " + std::to_string(i) + ": reduce dt or check the input",
                    "run");
  }
};

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Simulation::Simulation(const MoleculeArrays& molecule, const Settings& settings)
    : impl_(std::make_unique<Impl>(from_arrays(molecule), settings)) {}

Simulation Simulation::from_config(const std::string& path) {
  auto config = config::Config::load(path);
  const RunConfig rc = read_run_config(config);
  Settings s;
  s.run = {rc.backend, rc.precision};
  s.dielectric = std::string(to_string(rc.forcefield.dielectric));
  s.epsilon = rc.forcefield.epsilon, s.linear_factor = rc.forcefield.linear_factor;
  s.sigmoidal = rc.forcefield.sigmoidal;
  s.scale14_lj = rc.forcefield.scale14_lj, s.scale14_coulomb = rc.forcefield.scale14_coulomb;
  s.thermostat = rc.langevin ? "langevin" : "none";
  s.dt = rc.dt_fs, s.temperature = rc.temperature, s.friction = rc.friction_per_ps;
  s.seed = rc.seed;
  auto impl = std::make_unique<Impl>(molecule_of(rc), s, rc.pair_kernel, rc.step_kernel);
  impl->configured_steps = rc.steps, impl->configured_interval = rc.output.interval;
  return Simulation(std::move(impl));
}

Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

std::size_t Simulation::size() const {
  return impl_->mol.size();
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
std::int64_t Simulation::step() const {
  return impl_->step;
}
std::int64_t Simulation::configured_steps() const {
  return impl_->configured_steps;
}
std::int64_t Simulation::configured_interval() const {
  return impl_->configured_interval;
}

ForceResult Simulation::compute_forces() const {
  const LjcForces& f = impl_->forces;
  const std::size_t n = size();
  ForceResult r;
  r.forces.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    r.forces[3 * i] = f.fx[i], r.forces[3 * i + 1] = f.fy[i], r.forces[3 * i + 2] = f.fz[i];
  r.lj = f.lj, r.coulomb = f.coulomb, r.bond = f.bond;
  return r;
}

ThermoRow Simulation::thermo() {
  Impl& s = *impl_;
  s.check_finite();
  const double ke = kinetic_energy(s.mol);
  const double e = ke + s.forces.energy();
  if (!s.have_e0) s.e0 = e, s.have_e0 = true;
  ThermoRow r;
  r.step = s.step;
  r.time_ps = double(s.step) * s.dynamics.dt * 1e-3;
  r.temperature = 2 * ke / (s.dof * kBoltzmannKcal);
  r.kinetic = ke, r.lj = s.forces.lj, r.coulomb = s.forces.coulomb, r.bond = s.forces.bond;
  r.total = e;
  r.drift = s.e0 != 0 ? (e - s.e0) / std::fabs(s.e0) : 0.0;
  return r;
}

State Simulation::state() const {
  const MoleculeArrays a = to_arrays(impl_->mol);
  return {impl_->step, a.positions, a.velocities};
}

void Simulation::run(std::int64_t steps, const std::vector<Observer>& observers) {
  if (steps < 0) throw InvalidArgument("steps must be >= 0, got " + std::to_string(steps), "run");
  Impl& s = *impl_;
  if (!s.have_e0) thermo();  // E0 of the drift column: the state before the first step
  api::run_in_chunks(
      s.step, steps, observers,
      [&](std::int64_t first, std::int64_t count) {
        s.kernel->advance(s.mol, s.inv_mass, s.dynamics, std::uint64_t(first - 1), count, s.forces);
        s.step = first + count - 1;
      },
      [&] { s.check_finite(); });
}

}  // namespace pairwise::ljc
