// pairwise::md::Simulation (include/pairwise/md.hpp) over the md rooms: the system builders and
// readers of src/md/ (system.hpp, run_config.hpp) and the md session (api/md_session.hpp) that
// the command line's run uses too.
#include "pairwise/md.hpp"

#include <algorithm>
#include <cmath>

#include "api/arguments.hpp"
#include "api/md_session.hpp"
#include "api/run_loop.hpp"
#include "core/config.hpp"
#include "engine/formula/pair_potential.hpp"
#include "md/custom_force_field.hpp"
#include "md/run_config.hpp"

namespace pairwise::md {

namespace {

// style = "custom" | "table" of the API as the [force_field] keys of the same names would give
// them (md/custom_force_field.hpp); messages name "force field" where the CLI names the file.
CustomForceFieldSpec custom_spec(const ForceFieldSpec& f, int types) {
  const std::string where = "force field";
  CustomForceFieldSpec spec;
  spec.source = where;
  auto pair_of = [&](int i, int j, double cutoff) {
    if (i < 1 || j < 1 || i > types || j > types)
      throw Error("pair " + std::to_string(i) + " " + std::to_string(j) +
                      " names an unknown atom type (the system has " + std::to_string(types) + ")",
                  where);
    if (!(cutoff >= 0))
      throw Error("pair " + std::to_string(i) + " " + std::to_string(j) + ": cutoff must be >= 0",
                  where);
    CustomForceFieldSpec::Pair p;
    p.i = std::min(i, j), p.j = std::max(i, j), p.cutoff = cutoff, p.where = where;
    return p;
  };
  if (f.style == "custom") {
    const FormulaForceField& c = f.formula;
    spec.kind = CustomForceFieldSpec::Kind::formula;
    spec.cutoff = f.cutoff;
    spec.truncation = formula::parse_truncation(c.truncation);
    spec.energy = {c.energy, "energy", where};
    spec.globals = c.parameters;
    for (const auto& [t, params] : c.type_parameters) {
      if (t < 1 || t > types)
        throw Error("type_parameters names atom type " + std::to_string(t) + " (the system has " +
                        std::to_string(types) + ")",
                    where);
      spec.type_params[t] = params;
    }
    for (const auto& [name, rule] : c.combine)
      spec.combine[name] = {rule, "combine['" + name + "']", where};
    for (const auto& fp : c.pairs) {
      CustomForceFieldSpec::Pair p = pair_of(fp.i, fp.j, fp.cutoff);
      const std::string label = "pair " + std::to_string(p.i) + " " + std::to_string(p.j);
      p.energy = {fp.energy, label + " energy", where};
      p.params = fp.parameters;
      for (const auto& [k, v] : fp.parameters) p.param_where[k] = where;
      spec.pairs.push_back(std::move(p));
    }
  } else {
    const TableForceField& t = f.table;
    spec.kind = CustomForceFieldSpec::Kind::table;
    if (!(t.cutoff >= 0)) throw Error("table cutoff must be >= 0", where);
    if (t.n < 2) throw Error("table n must be >= 2, got " + std::to_string(t.n), where);
    spec.cutoff = t.cutoff;
    spec.table_file = t.file, spec.table_keyword = t.keyword;
    spec.table_style = t.style, spec.table_n = t.n;
    for (const auto& tp : t.pairs) {
      CustomForceFieldSpec::Pair p = pair_of(tp.i, tp.j, tp.cutoff);
      p.table_file = tp.file, p.table_keyword = tp.keyword;
      spec.pairs.push_back(std::move(p));
    }
  }
  return spec;
}

void apply_force_field(const ForceFieldSpec& f, ForceField& ff, bool from_file) {
  const bool custom = f.style == "custom" || f.style == "table";
  if (!custom) ff.style = parse_lj_style(f.style);
  ff.mixing = parse_mixing(f.mixing);
  if (!(f.cutoff > 0))
    throw Error("cutoff must be > 0, got " + std::to_string(f.cutoff), "force field");
  ff.cutoff = f.cutoff;
  if (custom) {
    if (!f.pairs.empty())
      throw Error("pairs (epsilon, sigma) are not used with style = '" + f.style +
                      "' (give formula.pairs or table.pairs)",
                  "force field");
    ff.custom = api::checked_argument(
        [&] { return build_custom_pairs(custom_spec(f, ff.types), ff.types); });
  }
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
    if (f.pairs.empty() && !custom)
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

System validated(System s, double skin, bool allow_overlap) {
  validate(s, skin, allow_overlap);
  return s;
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
  Session session;
  std::int64_t configured_steps = 0, configured_thermo_every = 10;

  Impl(System s, const Settings& settings, const EngineOptions& o)
      : session(validated(std::move(s), o.skin, settings.allow_overlap), o,
                resolve_backend(settings.run.backend)) {}
  Impl(System s, const Settings& settings)
      : Impl(std::move(s), settings, engine_options(settings)) {}
  explicit Impl(const MdRunConfig& rc)
      : session(build_system(rc), engine_options(rc), resolve_backend(rc.backend)),
        configured_steps(rc.steps),
        configured_thermo_every(rc.thermo_every) {}
};

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Simulation::Simulation(const SystemArrays& system, const Settings& settings)
    : impl_(std::make_unique<Impl>(system_from_arrays(system), settings)) {}

Simulation Simulation::from_data_file(const std::string& path, const ForceFieldSpec& force_field,
                                      const Settings& settings) {
  System s = system_from_data(path);
  apply_force_field(force_field, s.ff, true);
  return Simulation(std::make_unique<Impl>(std::move(s), settings));
}

Simulation Simulation::from_config(const std::string& path) {
  auto config = config::Config::load(path);
  const MdRunConfig rc = read_md_config(config);
  return Simulation(std::make_unique<Impl>(rc));
}

Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

std::size_t Simulation::size() const {
  return impl_->session.system.atoms.size();
}
BackendKind Simulation::backend() const {
  return impl_->session.engine->backend();
}
Precision Simulation::precision() const {
  return impl_->session.engine->precision();
}
std::string Simulation::device_name() const {
  return impl_->session.engine->device_name();
}
std::int64_t Simulation::step() const {
  return impl_->session.step;
}
std::int64_t Simulation::configured_steps() const {
  return impl_->configured_steps;
}
std::int64_t Simulation::configured_thermo_every() const {
  return impl_->configured_thermo_every;
}
double Simulation::time() const {
  return double(impl_->session.step) * impl_->session.options.dynamics.dt;
}

ForceResult Simulation::compute_forces() {
  const std::size_t n = size();
  std::vector<double> fx, fy, fz;
  impl_->session.engine->forces(fx, fy, fz);
  const Thermo t = impl_->session.engine->thermo();
  ForceResult r;
  r.forces.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    r.forces[3 * i] = fx[i], r.forces[3 * i + 1] = fy[i], r.forces[3 * i + 2] = fz[i];
  r.potential = t.potential, r.virial = t.virial;
  return r;
}

ThermoRow Simulation::thermo() {
  return impl_->session.thermo_row();
}

State Simulation::state() {
  const System& s = impl_->session.refresh_state();
  const std::size_t n = s.atoms.size();
  State st;
  st.step = impl_->session.step;
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
  System& s = impl_->session.refresh_state();
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
  validate(next, impl_->session.options.skin, true);
  impl_->session.engine->set_state(next);
  s = std::move(next);
}

void Simulation::run(std::int64_t steps, const Observers& observers) {
  if (steps < 0) throw InvalidArgument("steps must be >= 0, got " + std::to_string(steps), "run");
  Session& session = impl_->session;
  api::run_in_chunks(
      session.step, steps, observers,
      [&](std::int64_t, std::int64_t count) { session.advance(count); },
      [&] { session.checked_thermo(); });
}

}  // namespace pairwise::md
