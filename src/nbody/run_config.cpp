#include "nbody/run_config.hpp"

#include "core/output_keys.hpp"

#include <cmath>
#include <cstdio>

#include "nbody/initial_conditions.hpp"
#include "nbody/particle_table.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {

InitialKind parse_initial(std::string_view text) {
  if (text == "plummer") return InitialKind::plummer;
  if (text == "uniform_sphere") return InitialKind::uniform_sphere;
  if (text == "kepler") return InitialKind::kepler;
  if (text == "file") return InitialKind::file;
  throw Error("unknown initial conditions '" + std::string(text) +
              "' (expected plummer, uniform_sphere, kepler or file)");
}

std::string_view to_string(InitialKind k) {
  switch (k) {
    case InitialKind::plummer:
      return "plummer";
    case InitialKind::uniform_sphere:
      return "uniform_sphere";
    case InitialKind::kepler:
      return "kepler";
    case InitialKind::file:
      return "file";
  }
  return "?";
}

std::filesystem::path RunConfig::snapshot_path(std::int64_t k) const {
  char index[32];
  std::snprintf(index, sizeof index, "%06lld", static_cast<long long>(k));
  return output.directory / (output.prefix + ".snap." + index + ".txt");
}

namespace {

// A key that the chosen option does not use is an error rather than silently ignored: writing
// `n = 4096` for a Kepler orbit is a mistake worth reporting.
void reject_unused(const config::Section& s, std::string_view key, std::string_view why) {
  if (s.has(key)) s.fail(key, "is not used " + std::string(why));
}

void read_system(config::Config& config, RunConfig& rc) {
  const auto s = config.section("system");
  rc.initial = s.choice("initial", "plummer", parse_initial);
  const std::string with = "with initial = '" + std::string(to_string(rc.initial)) + "'";
  const bool sampled =
      rc.initial == InitialKind::plummer || rc.initial == InitialKind::uniform_sphere;
  // n up to 2^40: beyond any memory, but small enough that byte counts cannot overflow.
  rc.n = static_cast<std::size_t>(s.integer("n", 1024, 1, std::int64_t(1) << 40));
  rc.seed = static_cast<std::uint64_t>(s.integer("seed", 1, 0, INT64_MAX));
  rc.eccentricity = s.number("eccentricity", 0.5, {0.0, 0.999999});
  rc.semi_major_axis = s.number("semi_major_axis", 1.0, config::Range::positive());
  const std::string file = s.string("file", "");
  rc.eps = s.number("eps", 0.01, config::Range::non_negative());
  if (s.has("potential"))
    rc.custom = std::make_shared<const CustomGravity>(s.string("potential", ""), rc.eps,
                                                      "[system] potential", s.where("potential"));
  if (!sampled) {
    reject_unused(s, "n", with);
    reject_unused(s, "seed", with);
  }
  if (rc.initial != InitialKind::kepler) {
    reject_unused(s, "eccentricity", with);
    reject_unused(s, "semi_major_axis", with);
  }
  if (rc.initial == InitialKind::file) {
    if (file.empty()) s.fail("file", "initial = 'file' needs file = \"particles.txt\"");
    rc.file = config.base_directory() / file;
  } else {
    reject_unused(s, "file", with);
  }
}

void read_integrator(config::Config& config, RunConfig& rc) {
  const auto s = config.section("integrator");
  IntegratorOptions& o = rc.integrator;
  o.kind = s.choice("integrator", "hermite_block", parse_integrator);
  o.dt = s.number("dt", o.dt, config::Range::positive());
  o.eta = s.number("eta", o.eta, config::Range::non_negative());
  o.dt_max = s.number("dt_max", o.dt_max, config::Range::positive());
  o.dt_min = s.number("dt_min", o.dt_min, config::Range::positive());
  const std::string with = "with integrator = '" + std::string(to_string(o.kind)) + "'";
  if (o.kind == IntegratorKind::leapfrog) {
    for (auto key : {"eta", "dt_max", "dt_min"}) reject_unused(s, key, with + " (fixed dt)");
  } else if (o.kind == IntegratorKind::hermite_block) {
    reject_unused(s, "dt", with + " (steps come from eta)");
    if (!(o.eta > 0)) s.fail("eta", "must be > 0 for block time steps");
  } else if (o.eta == 0 && !s.has("dt")) {
    s.fail("eta", "eta = 0 means a fixed step: give dt as well");
  }
  if (o.dt_min > o.dt_max) s.fail("dt_min", "must not exceed dt_max");
}

void read_run(config::Config& config, RunConfig& rc) {
  const auto s = config.section("run");
  rc.t_end = s.number("t_end", 1.0, config::Range::positive());
  const RunOptions run = config::read_run_options(s, "mixed");
  rc.backend = run.backend, rc.precision = run.precision;
}

void read_output(config::Config& config, RunConfig& rc) {
  const auto s = config.section("output");
  auto& o = rc.output;
  const config::OutputNames names = config::read_output_names(config, s, "nbody");
  o.directory = names.directory, o.prefix = names.prefix;
  o.interval = s.number("interval", std::min(0.125, rc.t_end), config::Range::positive());
  o.snapshot_every = s.integer("snapshot_every", 0, 0, INT64_MAX);
  // An empty string switches an output off; a relative path is relative to output.directory.
  o.csv = config::read_output_file(s, "csv", o.directory, o.prefix + ".csv");
  o.final_snapshot = config::read_output_file(s, "final", o.directory, o.prefix + ".final.txt");
  o.progress = s.boolean("progress", true);
  const config::CheckpointKeys checkpoint = config::read_checkpoint_keys(s, names, INT64_MAX);
  o.checkpoint = checkpoint.path, o.checkpoint_every = checkpoint.every;
  if (rc.t_end / o.interval > 1e7) s.fail("interval", "gives more than 10^7 rows up to t_end");
  if (rc.integrator.kind == IntegratorKind::hermite_block) {
    // Block steps synchronize all particles only at multiples of dt_max (the largest block).
    const double dt_max = rc.integrator.dt_max;
    auto multiple = [&](double t) { return std::abs(t / dt_max - std::round(t / dt_max)) < 1e-9; };
    char why[160];
    std::snprintf(why, sizeof why,
                  "must be a multiple of [integrator] dt_max = %g for block time steps (particles "
                  "are synchronized only there)",
                  dt_max);
    if (!multiple(rc.t_end)) config.section("run").fail("t_end", why);
    if (!multiple(o.interval)) s.fail("interval", why);
  }
}

}  // namespace

RunConfig read_run_config(config::Config& config) {
  RunConfig rc;
  rc.source = config.source();
  const auto root = config.root();
  const std::string workload = root.string("workload", "nbody");
  if (workload != "nbody") root.fail("workload", "expected \"nbody\", got \"" + workload + "\"");
  read_system(config, rc);
  read_integrator(config, rc);
  read_run(config, rc);
  read_output(config, rc);
  config.check_unused();
  return rc;
}

Particles make_initial_conditions(const RunConfig& rc, std::string* source) {
  if (source) *source = "[system] initial = '" + std::string(to_string(rc.initial)) + "'";
  switch (rc.initial) {
    case InitialKind::plummer:
      return make_plummer(rc.n, rc.seed);
    case InitialKind::uniform_sphere:
      return make_uniform_sphere(rc.n, rc.seed);
    case InitialKind::kepler:
      return make_kepler(rc.eccentricity, rc.semi_major_axis);
    case InitialKind::file:
      if (source) *source = rc.file.string();
      return read_particle_table(rc.file).particles;
  }
  throw Error("unknown initial conditions", rc.source);
}

KernelOptions kernel_options(const RunConfig& rc) {
  KernelOptions o;
  o.precision = rc.precision;
  o.eps2 = rc.eps * rc.eps;
  o.custom = rc.custom;  // [system] potential (formula), reference and cpu
  // Generated models have a known size: the GPU memory check runs before the host builds them.
  if (rc.initial == InitialKind::plummer || rc.initial == InitialKind::uniform_sphere)
    o.expected_n = rc.n;
  return o;
}

}  // namespace pairwise::nbody
