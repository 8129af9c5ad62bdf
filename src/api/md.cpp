// pairwise::md::Simulation (include/pairwise/md.hpp) over the md rooms: the system builders and
// readers of src/md/ (system.hpp, run.hpp) and an MdEngine (engine.hpp).
#include "pairwise/md.hpp"

#include <algorithm>
#include <cmath>

#include "api/run_loop.hpp"
#include "core/config.hpp"
#include "md/engine.hpp"
#include "md/run.hpp"
#include "md/system.hpp"

namespace pairwise::md {

namespace {

void apply_force_field(const ForceFieldSpec& f, ForceField& ff, bool from_file) {
  ff.style = parse_lj_style(f.style);
  ff.mixing = parse_mixing(f.mixing);
  if (!(f.cutoff > 0))
    throw Error("cutoff must be > 0, got " + std::to_string(f.cutoff), "force field");
  ff.cutoff = f.cutoff;
  if (!from_file) {
    if (!f.masses.empty() && int(f.masses.size()) != ff.types)
      throw Error("masses has " + std::to_string(f.masses.size()) + " entries but the system has " +
                      std::to_string(ff.types) + " atom types",
                  "force field");
    for (int t = 1; t <= ff.types; ++t) {
      const double m = f.masses.empty() ? 1.0 : f.masses[std::size_t(t - 1)];
      if (!(m > 0) || !std::isfinite(m))
        throw Error("mass of atom type " + std::to_string(t) + " must be > 0", "force field");
      ff.mass[std::size_t(t - 1)] = m;
    }
    if (f.pairs.empty())
      for (int t = 1; t <= ff.types; ++t) ff.at(t, t) = {1.0, 1.0, 0.0, true};
  }
  for (const auto& p : f.pairs) {
    const std::string key = "pair " + std::to_string(p.i) + " " + std::to_string(p.j);
    if (p.i < 1 || p.j < 1 || p.i > ff.types || p.j > ff.types)
      throw Error(
          key + " names an unknown atom type (the system has " + std::to_string(ff.types) + ")",
          "force field");
    if (!(p.epsilon >= 0) || !(p.sigma > 0) || !(p.cutoff >= 0))
      throw Error(key + ": expected epsilon >= 0, sigma > 0, cutoff >= 0", "force field");
    ff.at(p.i, p.j) = {p.epsilon, p.sigma, p.cutoff, true};
    ff.at(p.j, p.i) = {p.epsilon, p.sigma, p.cutoff, true};
  }
}

System system_from_arrays(const SystemArrays& a) {
  const std::size_t n = a.positions.size() / 3;
  if (a.positions.size() % 3 != 0)
    throw Error("positions must hold 3 numbers per atom, got " + std::to_string(a.positions.size()),
                "positions");
  if (!a.velocities.empty() && a.velocities.size() != 3 * n)
    throw Error("velocities must have the shape of positions (" + std::to_string(n) + " x 3)",
                "velocities");
  if (!a.types.empty() && a.types.size() != n)
    throw Error("types must have one entry per atom (" + std::to_string(n) + ")", "types");
  if (!a.ids.empty() && a.ids.size() != n)
    throw Error("ids must have one entry per atom (" + std::to_string(n) + ")", "ids");
  for (int d = 0; d < 3; ++d)
    if (!(a.box.hi[d] > a.box.lo[d]) || !std::isfinite(a.box.lo[d]) || !std::isfinite(a.box.hi[d]))
      throw Error("box hi must exceed lo in every dimension", "box");
  for (double v : a.velocities)
    if (!std::isfinite(v)) throw Error("velocities must be finite", "velocities");
  System s;
  s.box.lo = a.box.lo, s.box.hi = a.box.hi;
  int types = 1;
  for (int t : a.types) {
    if (t < 1) throw Error("atom types must be >= 1, got " + std::to_string(t), "types");
    types = std::max(types, t);
  }
  types = std::max<int>(types, int(a.force_field.masses.size()));
  s.ff.resize(types);
  auto& at = s.atoms;
  at.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    at.id[i] = a.ids.empty() ? std::uint32_t(i + 1) : a.ids[i];
    at.type[i] = a.types.empty() ? 1 : a.types[i];
    at.x[i] = a.positions[3 * i], at.y[i] = a.positions[3 * i + 1],
    at.z[i] = a.positions[3 * i + 2];
    if (!a.velocities.empty())
      at.vx[i] = a.velocities[3 * i], at.vy[i] = a.velocities[3 * i + 1],
      at.vz[i] = a.velocities[3 * i + 2];
  }
  apply_force_field(a.force_field, s.ff, false);
  return s;
}

EngineOptions engine_options(const Settings& st) {
  EngineOptions o;
  o.precision = st.run.precision;
  if (!(st.skin >= 0)) throw Error("skin must be >= 0", "settings");
  if (!(st.dt > 0)) throw Error("dt must be > 0", "settings");
  if (st.sort_every < 0 || st.neighbor_capacity < 0)
    throw Error("sort_every and neighbor_capacity must be >= 0", "settings");
  if (!(st.temperature >= 0) || !(st.gamma >= 0) || !(st.nu >= 0))
    throw Error("temperature, gamma and nu must be >= 0", "settings");
  o.skin = st.skin;
  o.sort_every = st.sort_every;
  o.neighbor_capacity = st.neighbor_capacity;
  o.dynamics.dt = st.dt;
  o.dynamics.thermostat = engine::parse_thermostat(st.thermostat);
  o.dynamics.kT = st.temperature;
  o.dynamics.gamma = st.gamma;
  o.dynamics.nu = st.nu;
  o.dynamics.seed = st.seed;
  return o;
}

}  // namespace

SystemArrays lattice(const std::string& kind, double density, std::array<int, 3> cells,
                     double temperature, std::uint64_t velocity_seed) {
  if (!(temperature >= 0)) throw Error("lattice temperature must be >= 0");
  for (int c : cells)
    if (c > 4096) throw Error("lattice cells must be <= 4096 per side");
  System s = make_lattice(kind, density, cells);
  create_velocities(s, temperature, velocity_seed);
  SystemArrays a;
  a.box.lo = s.box.lo, a.box.hi = s.box.hi;
  const std::size_t n = s.atoms.size();
  a.positions.resize(3 * n), a.velocities.resize(3 * n);
  a.ids = s.atoms.id, a.types = s.atoms.type;
  for (std::size_t i = 0; i < n; ++i) {
    a.positions[3 * i] = s.atoms.x[i], a.positions[3 * i + 1] = s.atoms.y[i],
                    a.positions[3 * i + 2] = s.atoms.z[i];
    a.velocities[3 * i] = s.atoms.vx[i], a.velocities[3 * i + 1] = s.atoms.vy[i],
                     a.velocities[3 * i + 2] = s.atoms.vz[i];
  }
  return a;
}

struct Simulation::Impl {
  System system;  // the atoms as given (the host copy that state() refreshes)
  EngineOptions options;
  std::unique_ptr<MdEngine> engine;
  std::int64_t step = 0, configured_steps = 0, configured_thermo_every = 10;
  double max_speed = 0;

  Impl(System s, const EngineOptions& o, BackendKind requested, bool allow_overlap)
      : system(std::move(s)), options(o) {
    validate(system, o.skin, allow_overlap);
    engine = make_md_engine(resolve_backend(requested), o);
    engine->set_state(system);
    // An atom moving half the smallest box length in one step has exploded (as the CLI checks).
    const Box& b = system.box;
    max_speed = 0.5 * std::min({b.length(0), b.length(1), b.length(2)}) / o.dynamics.dt;
  }

  // The CLI's blow-up check (src/md/run.cpp).
  Thermo checked_thermo() {
    const Thermo t = engine->thermo();
    if (const std::uint32_t bad = engine->first_bad_atom(max_speed);
        bad != 0 || !std::isfinite(t.potential))
      throw Error(
          "the simulation blew up (non-finite or exploding atom) by step " + std::to_string(step),
          bad ? "atom id " + std::to_string(bad) : "potential energy");
    return t;
  }
};

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Simulation::Simulation(const SystemArrays& system, const Settings& settings)
    : impl_(std::make_unique<Impl>(system_from_arrays(system), engine_options(settings),
                                   settings.run.backend, settings.allow_overlap)) {}

Simulation Simulation::from_data_file(const std::string& path, const ForceFieldSpec& force_field,
                                      const Settings& settings) {
  System s = system_from_data(path);
  apply_force_field(force_field, s.ff, true);
  return Simulation(std::make_unique<Impl>(std::move(s), engine_options(settings),
                                           settings.run.backend, settings.allow_overlap));
}

Simulation Simulation::from_config(const std::string& path) {
  auto config = config::Config::load(path);
  const MdRunConfig rc = read_md_config(config);
  EngineOptions o;
  o.precision = rc.precision;
  o.skin = rc.skin;
  o.dynamics = rc.dynamics;
  o.sort_every = rc.sort_every;
  o.neighbor_capacity = rc.capacity;
  auto impl = std::make_unique<Impl>(build_system(rc), o, rc.backend, rc.allow_overlap);
  impl->configured_steps = rc.steps;
  impl->configured_thermo_every = rc.thermo_every;
  return Simulation(std::move(impl));
}

Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

std::size_t Simulation::size() const {
  return impl_->system.atoms.size();
}
BackendKind Simulation::backend() const {
  return impl_->engine->backend();
}
Precision Simulation::precision() const {
  return impl_->engine->precision();
}
std::string Simulation::device_name() const {
  return impl_->engine->device_name();
}
std::int64_t Simulation::step() const {
  return impl_->step;
}
std::int64_t Simulation::configured_steps() const {
  return impl_->configured_steps;
}
std::int64_t Simulation::configured_thermo_every() const {
  return impl_->configured_thermo_every;
}
double Simulation::time() const {
  return double(impl_->step) * impl_->options.dynamics.dt;
}

ForceResult Simulation::compute_forces() {
  const std::size_t n = size();
  std::vector<double> fx, fy, fz;
  impl_->engine->forces(fx, fy, fz);
  const Thermo t = impl_->engine->thermo();
  ForceResult r;
  r.forces.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    r.forces[3 * i] = fx[i], r.forces[3 * i + 1] = fy[i], r.forces[3 * i + 2] = fz[i];
  r.potential = t.potential, r.virial = t.virial;
  return r;
}

ThermoRow Simulation::thermo() {
  const Thermo t = impl_->checked_thermo();
  const std::size_t n = size();
  const double inv_n = n ? 1.0 / double(n) : 0.0;
  ThermoRow r;
  r.step = impl_->step;
  r.temperature = temperature_of(t.kinetic, n);
  r.potential = t.potential * inv_n;
  r.kinetic = t.kinetic * inv_n;
  r.total = (t.kinetic + t.potential) * inv_n;
  r.pressure = pressure(t, impl_->system.box.volume());
  r.virial = t.virial;
  r.rebuilds = impl_->engine->stats().rebuilds;
  return r;
}

State Simulation::state() {
  System& s = impl_->system;
  impl_->engine->get_state(s);
  const std::size_t n = s.atoms.size();
  State st;
  st.step = impl_->step;
  st.box.lo = s.box.lo, st.box.hi = s.box.hi;
  st.ids = s.atoms.id, st.types = s.atoms.type;
  st.positions.resize(3 * n), st.velocities.resize(3 * n), st.images.resize(3 * n);
  const auto& a = s.atoms;
  for (std::size_t i = 0; i < n; ++i) {
    st.positions[3 * i] = a.x[i], st.positions[3 * i + 1] = a.y[i],
                     st.positions[3 * i + 2] = a.z[i];
    st.velocities[3 * i] = a.vx[i], st.velocities[3 * i + 1] = a.vy[i],
                      st.velocities[3 * i + 2] = a.vz[i];
    st.images[3 * i] = a.ix[i], st.images[3 * i + 1] = a.iy[i], st.images[3 * i + 2] = a.iz[i];
  }
  return st;
}

void Simulation::set_state(const std::vector<double>& positions,
                           const std::vector<double>& velocities) {
  System& s = impl_->system;
  impl_->engine->get_state(s);
  const std::size_t n = s.atoms.size();
  if (positions.size() != 3 * n)
    throw Error("positions must have shape (" + std::to_string(n) + ", 3)", "positions");
  if (!velocities.empty() && velocities.size() != 3 * n)
    throw Error("velocities must have shape (" + std::to_string(n) + ", 3)", "velocities");
  System next = s;
  auto& a = next.atoms;
  for (std::size_t i = 0; i < n; ++i) {
    a.x[i] = positions[3 * i], a.y[i] = positions[3 * i + 1], a.z[i] = positions[3 * i + 2];
    a.ix[i] = a.iy[i] = a.iz[i] = 0;
    if (!velocities.empty())
      a.vx[i] = velocities[3 * i], a.vy[i] = velocities[3 * i + 1], a.vz[i] = velocities[3 * i + 2];
  }
  for (double v : velocities)
    if (!std::isfinite(v)) throw Error("velocities must be finite", "velocities");
  validate(next, impl_->options.skin, true);
  impl_->engine->set_state(next);
  s = std::move(next);
}

void Simulation::run(std::int64_t steps, const std::vector<Observer>& observers) {
  if (steps < 0) throw InvalidArgument("steps must be >= 0, got " + std::to_string(steps), "run");
  api::run_in_chunks(
      impl_->step, steps, observers,
      [&](std::int64_t first, std::int64_t count) {
        impl_->engine->advance(std::uint64_t(first), int(count));
        impl_->step = first + count - 1;
      },
      [&] { impl_->checked_thermo(); });
}

}  // namespace pairwise::md
