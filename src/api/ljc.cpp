// pairwise::ljc::Simulation (include/pairwise/ljc.hpp) over the ljc rooms: the molecule builders
// and readers of src/ljc/ and the ljc session (api/ljc_session.hpp) that the command line's run
// uses too.
#include "pairwise/ljc.hpp"

#include <cmath>
#include <sstream>

#include "api/arguments.hpp"
#include "api/ljc_session.hpp"
#include "api/run_loop.hpp"
#include "core/config.hpp"
#include "ljc/generator.hpp"
#include "ljc/run_config.hpp"

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

// The run's settings as the session takes them; checks what the config reader checks for a file.
DynamicsSpec dynamics_spec(const Settings& s) {
  if (s.thermostat != "none" && s.thermostat != "langevin")
    throw Error("unknown thermostat '" + s.thermostat + "' (expected none or langevin)",
                "settings");
  if (!(s.dt > 0) || !(s.temperature >= 0) || !(s.friction >= 0))
    throw Error("dt must be > 0, temperature and friction >= 0", "settings");
  return {s.thermostat == "langevin", s.dt, s.temperature, s.friction, s.seed};
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
  std::ostringstream warnings;
  return to_arrays(load_molecule(rc, warnings));
}

struct Simulation::Impl {
  Session session;
  std::int64_t configured_steps = 0, configured_interval = 100;

  Impl(Molecule m, BackendKind requested, const LjcKernelOptions& ko, const NonbondedOptions& nb,
       const DynamicsSpec& d)
      : session(std::move(m), resolve_backend(requested), ko, nb, d) {
    session.start();
  }
};

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Simulation::Simulation(const MoleculeArrays& molecule, const Settings& settings) {
  Molecule m = from_arrays(molecule);
  const NonbondedOptions nb = nonbonded(settings);
  const DynamicsSpec d = dynamics_spec(settings);
  LjcKernelOptions ko;
  ko.precision = settings.run.precision;
  if (!settings.custom.empty())
    ko.custom = api::checked_argument([&] {
      return std::make_shared<const CustomNonbonded>(settings.custom, settings.custom_replaces,
                                                     "custom", "settings");
    });
  else if (settings.custom_replaces)
    throw InvalidArgument("custom_replaces needs a custom formula", "settings");
  impl_ = std::make_unique<Impl>(std::move(m), settings.run.backend, ko, nb, d);
}

Simulation Simulation::from_config(const std::string& path) {
  auto config = config::Config::load(path);
  const RunConfig rc = read_run_config(config);
  std::ostringstream warnings;
  auto impl = std::make_unique<Impl>(load_molecule(rc, warnings), rc.backend, kernel_options(rc),
                                     rc.forcefield, dynamics_spec(rc));
  impl->configured_steps = rc.steps, impl->configured_interval = rc.output.interval;
  return Simulation(std::move(impl));
}

Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

std::size_t Simulation::size() const {
  return impl_->session.mol.size();
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
std::int64_t Simulation::step() const {
  return impl_->session.step;
}
std::int64_t Simulation::configured_steps() const {
  return impl_->configured_steps;
}
std::int64_t Simulation::configured_interval() const {
  return impl_->configured_interval;
}

ForceResult Simulation::compute_forces() const {
  const LjcForces& f = impl_->session.forces;
  const std::size_t n = size();
  ForceResult r;
  r.forces.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    r.forces[3 * i] = f.fx[i], r.forces[3 * i + 1] = f.fy[i], r.forces[3 * i + 2] = f.fz[i];
  r.lj = f.lj, r.coulomb = f.coulomb, r.bond = f.bond, r.custom = f.custom;
  return r;
}

ThermoRow Simulation::thermo() {
  return impl_->session.thermo_row();
}

State Simulation::state() const {
  const MoleculeArrays a = to_arrays(impl_->session.mol);
  return {impl_->session.step, a.positions, a.velocities};
}

void Simulation::run(std::int64_t steps, const Observers& observers) {
  if (steps < 0) throw InvalidArgument("steps must be >= 0, got " + std::to_string(steps), "run");
  Session& s = impl_->session;
  if (!s.have_e0) s.thermo_row();  // E0 of the drift column: the state before the first step
  api::run_in_chunks(
      s.step, steps, observers, [&](std::int64_t, std::int64_t count) { s.advance(count); },
      [&] { s.check_finite(); });
}

}  // namespace pairwise::ljc
