#include "md/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "core/io/growing_file.hpp"
#include "core/signals.hpp"
#include "core/thermo_log.hpp"
#include "md/checkpoint.hpp"
#include "md/engine.hpp"
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
    rc.backend = s.choice("backend", "auto", parse_backend);
    rc.precision = s.choice("precision", "mixed", parse_precision);
  }
  {
    const auto s = config.section("output");
    const std::string dir = s.string("directory", "");
    rc.directory = dir.empty() ? config.base_directory() : config.base_directory() / dir;
    if (rc.directory.empty()) rc.directory = ".";
    rc.prefix = s.string("prefix", std::filesystem::path(config.source()).stem().string());
    rc.thermo_every = s.integer("thermo_every", 10, 1, std::int64_t(1) << 40);
    const std::string csv = s.string("csv", rc.prefix + ".csv");
    rc.csv = csv.empty() ? std::filesystem::path() : rc.directory / csv;
    rc.dump_every = s.integer("dump_every", 0, 0, std::int64_t(1) << 40);
    rc.dump_format = s.string("dump_format", "lammps");
    if (rc.dump_format != "lammps" && rc.dump_format != "xyz")
      s.fail("dump_format", "expected lammps or xyz, got '" + rc.dump_format + "'");
    rc.dump = rc.directory / (rc.prefix + (rc.dump_format == "xyz" ? ".xyz" : ".lammpstrj"));
    const std::string final_data = s.string("final_data", "");
    if (!final_data.empty()) rc.final_data = rc.directory / final_data;
    rc.progress = s.boolean("progress", true);
    rc.checkpoint = rc.directory / s.string("checkpoint", rc.prefix + ".ckpt");
    rc.checkpoint_every = s.integer("checkpoint_every", 0, 0, std::int64_t(1) << 40);
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

namespace {

using Clock = std::chrono::steady_clock;

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
  System s = build_system(rc);
  const std::size_t n = s.atoms.size();
  out << "pairwise " << PAIRWISE_VERSION << " md: " << n << " atoms, "
      << (rc.data_file.empty() ? rc.lattice + " lattice" : rc.data_file.string()) << ", pair "
      << (s.ff.custom ? s.ff.custom->description : std::string(to_string(rc.style))) << " rc "
      << build_pair_table(s.ff).max_cutoff << ", skin " << rc.skin << ", dt " << rc.dynamics.dt
      << ", " << rc.steps << " steps, thermostat " << engine::to_string(rc.dynamics.thermostat)
      << "\n"
      << note << "\n";
  EngineOptions eo;
  eo.precision = rc.precision;
  eo.skin = rc.skin;
  eo.dynamics = rc.dynamics;
  eo.sort_every = rc.sort_every;
  eo.neighbor_capacity = rc.capacity;
  auto engine = make_md_engine(backend, eo);
  const std::string config_text = md_config_text(rc, backend);
  MdCheckpointInfo resumed;
  if (rc.restart.empty()) {
    engine->set_state(s);
  } else {
    resumed = read_md_checkpoint(rc.restart, config_text, *engine, s);
    if (resumed.step > rc.steps)
      throw Error("the checkpoint is at step " + std::to_string(resumed.step) +
                      ", past integrator.steps = " + std::to_string(rc.steps),
                  rc.restart.string());
    out << "restart: continuing from step " << resumed.step << " of " << rc.restart.string()
        << (engine->exact_restart() ? "" : " (this engine continues, but not bitwise)") << "\n";
  }
  out << "engine: " << engine->device_name() << ", precision " << to_string(engine->precision())
      << "\n"
      << std::flush;

  std::error_code ec;
  std::filesystem::create_directories(rc.directory, ec);
  if (ec) throw Error("cannot create the output directory: " + ec.message(), rc.directory);
  out << io::remove_stale_temp_files(rc.directory);
  std::unique_ptr<io::GrowingFile> dump;
  if (rc.dump_every > 0)
    dump = resumed.dump_bytes > 0
               ? std::make_unique<io::GrowingFile>(rc.dump, resumed.dump_bytes, 1)
               : std::make_unique<io::GrowingFile>(rc.dump, 1);
  auto write_frame = [&](std::int64_t step) {
    engine->get_state(s);
    const auto d = data_from_system(s);
    if (rc.dump_format == "xyz")
      io::write_xyz_frame(dump->stream(), step, d);
    else
      io::write_lammps_dump_frame(dump->stream(), step, d);
    dump->end_record();  // flushed every frame: valid up to the last frame after a kill -9
  };

  ThermoLog log(columns(), out, rc.csv, rc.progress, resumed.csv_bytes);
  log.header();
  const double volume = s.box.volume();
  // An atom moving half the smallest box length in one step has exploded.
  const double max_speed =
      0.5 * std::min({s.box.length(0), s.box.length(1), s.box.length(2)}) / rc.dynamics.dt;
  auto emit = [&](std::int64_t step) {
    const Thermo t = engine->thermo();
    if (const std::uint32_t bad = engine->first_bad_atom(max_speed);
        bad != 0 || !std::isfinite(t.potential))
      throw Error(
          "the simulation blew up (non-finite or exploding atom) by step " + std::to_string(step),
          bad ? "atom id " + std::to_string(bad) : "potential energy");
    const double temp = temperature_of(t.kinetic, n);
    const double inv_n = n ? 1.0 / double(n) : 0.0;
    log.row(std::vector<double>{double(step), temp, t.potential * inv_n, t.kinetic * inv_n,
                                (t.kinetic + t.potential) * inv_n, pressure(t, volume),
                                double(engine->stats().rebuilds),
                                std::chrono::duration<double>(Clock::now() - start).count()});
  };
  auto checkpoint = [&](std::int64_t step) {
    MdCheckpointInfo info;
    info.step = step;
    info.csv_bytes = log.flush();
    info.dump_bytes = dump ? dump->flush() : 0;
    write_md_checkpoint(rc.checkpoint, config_text, info, *engine, s);
  };
  if (rc.restart.empty()) {
    emit(0);
    if (dump) write_frame(0);
  }
  double step_s = 0;
  // Steps are advanced in chunks ending at every output and checkpoint step, and at most
  // kSignalLatency steps long, so that a stop signal is acted on within that many steps.
  constexpr std::int64_t kSignalLatency = 16;
  std::int64_t last_checkpoint = -1;
  for (std::int64_t step = resumed.step; step < rc.steps;) {
    std::int64_t next = std::min(rc.steps, (step / rc.thermo_every + 1) * rc.thermo_every);
    if (dump) next = std::min(next, (step / rc.dump_every + 1) * rc.dump_every);
    if (rc.checkpoint_every > 0)
      next = std::min(next, (step / rc.checkpoint_every + 1) * rc.checkpoint_every);
    next = std::min(next, step + kSignalLatency);
    const auto t0 = Clock::now();
    engine->advance(std::uint64_t(step + 1), int(next - step));
    step_s += std::chrono::duration<double>(Clock::now() - t0).count();
    step = next;
    if (step % rc.thermo_every == 0 || step == rc.steps) emit(step);
    if (dump && step % rc.dump_every == 0) write_frame(step);
    if (rc.checkpoint_every > 0 && step % rc.checkpoint_every == 0)
      checkpoint(step), last_checkpoint = step;
    log.progress(double(step) / double(std::max<std::int64_t>(rc.steps, 1)),
                 "step " + std::to_string(step));
    maybe_raise_test_signal(step);
    if (const int sig = stop_requested(); sig != 0 && step < rc.steps) {
      if (last_checkpoint != step) checkpoint(step);
      log.finish();
      if (dump) dump->close();
      out << "stopped by " << signal_name(sig) << " after step " << step << ": wrote checkpoint "
          << rc.checkpoint.string() << " (continue with --restart " << rc.checkpoint.string()
          << ")";
      if (!rc.csv.empty()) out << ", " << rc.csv.string();
      if (dump) out << ", " << rc.dump.string();
      out << " (complete up to step " << step << ")\n" << std::flush;
      return stop_exit_code(sig);
    }
  }
  log.finish();
  if (dump) dump->close();
  if (!rc.final_data.empty()) {
    engine->get_state(s);
    io::write_lammps_data(rc.final_data, data_from_system(s));
  }
  const EngineStats st = engine->stats();
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
