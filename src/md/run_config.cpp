#include "md/run_config.hpp"

#include <sstream>

#include "core/output_keys.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {

namespace {

void reject_unused(const config::Section& s, std::string_view key, std::string_view why) {
  if (s.has(key)) s.fail(key, "is not used " + std::string(why));
}

std::array<int, 3> parse_cells(const config::Section& s, const std::string& text) {
  std::istringstream in(text);
  std::array<int, 3> c{};
  int k = 0;
  for (long long v; k < 3 && in >> v; ++k) {
    if (v < 1 || v > 4096) s.fail("cells", "each count must be in [1, 4096]");
    c[k] = int(v);
  }
  in.clear();
  std::string rest;
  if (k == 1 && !(in >> rest)) return {c[0], c[0], c[0]};
  if (k != 3 || (in >> rest)) s.fail("cells", "expected \"n\" or \"nx ny nz\", got '" + text + "'");
  return c;
}

}  // namespace

MdRunConfig read_md_config(config::Config& config) {
  MdRunConfig rc;
  rc.source = config.source();
  if (const std::string w = config.root().string("workload", "md"); w != "md")
    config.root().fail("workload", "expected 'md', got '" + w + "'");
  {
    const auto s = config.section("system");
    const std::string file = s.string("data_file", "");
    rc.lattice = s.string("lattice", "fcc");
    rc.density = s.number("density", rc.density, config::Range::positive());
    const std::string cells = s.string("cells", "20 20 20");
    rc.temperature = s.number("temperature", rc.temperature, config::Range::non_negative());
    rc.velocity_seed = std::uint64_t(s.integer("velocity_seed", 87287, 0, INT64_MAX));
    rc.allow_overlap = s.boolean("allow_overlap", false);
    if (!file.empty()) {
      rc.data_file = config.base_directory() / file;
      const std::string why = "with data_file (the file gives the atoms and velocities)";
      for (auto key : {"lattice", "density", "cells", "temperature", "velocity_seed"})
        reject_unused(s, key, why);
    } else {
      if (rc.lattice != "fcc" && rc.lattice != "bcc" && rc.lattice != "sc")
        s.fail("lattice", "unknown lattice '" + rc.lattice + "' (expected fcc, bcc or sc)");
      rc.cells = parse_cells(s, cells);
    }
  }
  {
    const auto s = config.section("force_field");
    const bool custom = read_custom_force_field(config, s, rc.custom);  // style custom | table
    if (!custom) rc.style = s.choice("style", "cut", parse_lj_style);
    rc.cutoff = s.number("cutoff", 2.5, config::Range::positive());
    rc.mixing = s.choice("mixing", "geometric", parse_mixing);
    rc.mass = s.number("mass", 1.0, config::Range::positive());
    rc.epsilon = s.number("epsilon", 1.0, config::Range::non_negative());
    rc.sigma = s.number("sigma", 1.0, config::Range::positive());
    if (!rc.data_file.empty())
      for (auto key : {"mass", "epsilon", "sigma"})
        reject_unused(s, key, "with [system] data_file (its Masses and Pair Coeffs are used)");
    for (int i = 1; i <= 16; ++i)
      for (int j = i; j <= 16; ++j) {
        const std::string key = "pair_" + std::to_string(i) + "_" + std::to_string(j);
        if (custom || !s.has(key)) continue;
        std::istringstream in(s.string(key, ""));
        MdRunConfig::PairOverride p{i, j, 0, 0, 0};
        if (!(in >> p.epsilon >> p.sigma) || p.epsilon < 0 || !(p.sigma > 0))
          s.fail(key, "expected \"epsilon sigma [cutoff]\" with epsilon >= 0, sigma > 0");
        if (!(in >> p.cutoff)) p.cutoff = 0;
        rc.pairs.push_back(p);
      }
  }
  {
    const auto s = config.section("neighbor");
    rc.skin = s.number("skin", 0.3, config::Range::non_negative());
    rc.sort_every = int(s.integer("sort_every", 1000, 0, 1 << 30));
    rc.capacity = int(s.integer("capacity", 0, 0, 1 << 16));
  }
  {
    const auto s = config.section("integrator");
    auto& d = rc.dynamics;
    d.dt = s.number("dt", 0.005, config::Range::positive());
    rc.steps = s.integer("steps", 100, 0, std::int64_t(1) << 40);
    d.thermostat = s.choice("thermostat", "none", engine::parse_thermostat);
    d.kT = s.number("temperature", 1.0, config::Range::non_negative());
    d.gamma = s.number("gamma", 1.0, config::Range::non_negative());
    d.nu = s.number("nu", 1.0, config::Range::non_negative());
    d.seed = std::uint64_t(s.integer("seed", 1, 0, INT64_MAX));
    const std::string why = "with thermostat = 'none'";
    if (d.thermostat == engine::Thermostat::none)
      for (auto key : {"temperature", "gamma", "nu", "seed"}) reject_unused(s, key, why);
    if (d.thermostat == engine::Thermostat::langevin) reject_unused(s, "nu", "by langevin");
    if (d.thermostat == engine::Thermostat::andersen) reject_unused(s, "gamma", "by andersen");
  }
  {
    const auto s = config.section("run");
    const RunOptions run = config::read_run_options(s, "mixed");
    rc.backend = run.backend, rc.precision = run.precision;
  }
  {
    const auto s = config.section("output");
    const std::string dir = s.string("directory", "");
    rc.directory = dir.empty() ? config.base_directory() : config.base_directory() / dir;
    if (rc.directory.empty()) rc.directory = ".";
    rc.prefix = s.string("prefix", std::filesystem::path(config.source()).stem().string());
    rc.thermo_every = s.integer("thermo_every", 10, 1, std::int64_t(1) << 40);
    rc.csv = config::read_output_file(s, "csv", rc.directory, rc.prefix + ".csv");
    rc.dump_every = s.integer("dump_every", 0, 0, std::int64_t(1) << 40);
    rc.dump_format = s.string("dump_format", "lammps");
    if (rc.dump_format != "lammps" && rc.dump_format != "xyz")
      s.fail("dump_format", "expected lammps or xyz, got '" + rc.dump_format + "'");
    rc.dump = rc.directory / (rc.prefix + (rc.dump_format == "xyz" ? ".xyz" : ".lammpstrj"));
    rc.final_data = config::read_output_file(s, "final_data", rc.directory, "");
    rc.progress = s.boolean("progress", true);
    const config::CheckpointKeys checkpoint =
        config::read_checkpoint_keys(s, {rc.directory, rc.prefix}, std::int64_t(1) << 40);
    rc.checkpoint = checkpoint.path, rc.checkpoint_every = checkpoint.every;
  }
  config.check_unused();
  return rc;
}

System system_from_data(const std::filesystem::path& file) {
  const io::LammpsData d = io::read_lammps_data(file);
  System s;
  s.box.lo = d.lo, s.box.hi = d.hi;
  s.ff.resize(d.atom_types);
  for (int t = 1; t <= d.atom_types; ++t) {
    if (!(d.masses[std::size_t(t - 1)] > 0))
      throw Error("no mass for atom type " + std::to_string(t), file.string() + " (Masses)");
    s.ff.mass[std::size_t(t - 1)] = d.masses[std::size_t(t - 1)];
  }
  for (const auto& c : d.pair_coeffs) {
    s.ff.at(c.i, c.j) = {c.epsilon, c.sigma, c.cutoff, true};
    s.ff.at(c.j, c.i) = {c.epsilon, c.sigma, c.cutoff, true};
  }
  auto& a = s.atoms;
  a.resize(d.id.size());
  a.id = d.id, a.type = d.type, a.x = d.x, a.y = d.y, a.z = d.z, a.vx = d.vx, a.vy = d.vy,
  a.vz = d.vz, a.ix = d.ix, a.iy = d.iy, a.iz = d.iz;
  return s;
}

io::LammpsData data_from_system(const System& s) {
  io::LammpsData d;
  d.title = "LAMMPS data file written by pairwise " PAIRWISE_VERSION;
  d.lo = s.box.lo, d.hi = s.box.hi;
  d.atom_types = s.ff.types;
  d.masses = s.ff.mass;
  for (int i = 1; i <= s.ff.types; ++i) {
    const PairCoeff& c = s.ff.at(i, i);
    if (c.given) d.pair_coeffs.push_back({i, i, c.epsilon, c.sigma, c.cutoff});
  }
  const auto& a = s.atoms;
  d.id = a.id, d.type = a.type, d.x = a.x, d.y = a.y, d.z = a.z, d.vx = a.vx, d.vy = a.vy,
  d.vz = a.vz, d.ix = a.ix, d.iy = a.iy, d.iz = a.iz;
  return d;
}

System build_system(const MdRunConfig& rc) {
  System s;
  if (!rc.data_file.empty()) {
    s = system_from_data(rc.data_file);
  } else {
    s = make_lattice(rc.lattice, rc.density, rc.cells);
    s.ff.mass[0] = rc.mass;
    s.ff.at(1, 1) = {rc.epsilon, rc.sigma, 0.0, true};
    create_velocities(s, rc.temperature, rc.velocity_seed);
  }
  s.ff.style = rc.style;
  s.ff.cutoff = rc.cutoff;
  s.ff.mixing = rc.mixing;
  for (const auto& p : rc.pairs) {
    if (p.j > s.ff.types)
      throw Error("pair_" + std::to_string(p.i) + "_" + std::to_string(p.j) +
                      " names an unknown atom type (the system has " + std::to_string(s.ff.types) +
                      ")",
                  rc.source);
    s.ff.at(p.i, p.j) = {p.epsilon, p.sigma, p.cutoff, true};
    s.ff.at(p.j, p.i) = {p.epsilon, p.sigma, p.cutoff, true};
  }
  if (rc.custom.kind != CustomForceFieldSpec::Kind::none)
    s.ff.custom = build_custom_pairs(rc.custom, s.ff.types);
  validate(s, rc.skin, rc.allow_overlap);
  return s;
}

EngineOptions engine_options(const MdRunConfig& rc) {
  EngineOptions o;
  o.precision = rc.precision;
  o.skin = rc.skin;
  o.dynamics = rc.dynamics;
  o.sort_every = rc.sort_every;
  o.neighbor_capacity = rc.capacity;
  return o;
}

}  // namespace pairwise::md
