#include "ljc/run_config.hpp"

#include "core/io/pdb.hpp"
#include "core/io/pqr.hpp"
#include "core/output_keys.hpp"
#include "ljc/pdb_molecule.hpp"
#include "ljc/pqr_molecule.hpp"
#include "ljc/topology_io.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {
namespace {

void reject_unused(const config::Section& s, std::string_view key, std::string_view why) {
  if (s.has(key)) s.fail(key, "is not used " + std::string(why));
}

void read_system(config::Config& config, RunConfig& rc) {
  const auto s = config.section("system");
  const std::string molecule = s.choice("molecule", "globule", [](std::string_view t) {
    if (t != "globule" && t != "file") {
      throw Error("unknown molecule '" + std::string(t) + "' (expected globule or file)");
    }
    return std::string(t);
  });
  rc.from_file = molecule == "file";
  GlobuleOptions& g = rc.globule;
  g.n = static_cast<std::size_t>(s.integer("n", 1280, 1, std::int64_t(1) << 26));
  g.seed = static_cast<std::uint64_t>(s.integer("seed", 1, 0, INT64_MAX));
  g.spacing = s.number("spacing", g.spacing, config::Range::positive());
  g.charge = s.number("charge", g.charge, config::Range::non_negative());
  const std::string file = s.string("file", "");
  rc.pqr_epsilon = s.number("pqr_epsilon", rc.pqr_epsilon, config::Range::non_negative());
  rc.pqr_bond_k = s.number("pqr_bond_k", rc.pqr_bond_k, config::Range::non_negative());
  const bool pqr = std::filesystem::path(file).extension() == ".pqr";
  if (!pqr) {
    for (auto key : {"pqr_epsilon", "pqr_bond_k"}) reject_unused(s, key, "without a .pqr file");
  }
  const std::string parameters = s.string("parameters", "");
  rc.pdb_bond_k = s.number("pdb_bond_k", rc.pdb_bond_k, config::Range::non_negative());
  const bool pdb = std::filesystem::path(file).extension() == ".pdb";
  if (!pdb) {
    for (auto key : {"parameters", "pdb_bond_k"}) reject_unused(s, key, "without a .pdb file");
  } else if (rc.from_file) {
    if (parameters.empty()) {
      s.fail("parameters",
             "a .pdb file needs parameters = \"table.prm\" (charge, sigma, epsilon "
             "and mass per residue and atom name)");
    }
    rc.parameters = config.base_directory() / parameters;
  }
  if (rc.from_file) {
    for (auto key : {"n", "seed", "spacing", "charge"}) {
      reject_unused(s, key, "with molecule = 'file'");
    }
    if (file.empty()) s.fail("file", "molecule = 'file' needs file = \"molecule.toml\" (or .json)");
    rc.file = config.base_directory() / file;
  } else {
    reject_unused(s, "file", "with molecule = 'globule'");
  }
}

void read_forcefield(config::Config& config, RunConfig& rc) {
  const auto s = config.section("forcefield");
  NonbondedOptions& f = rc.forcefield;
  f.dielectric = s.choice("dielectric", "constant", parse_dielectric);
  f.epsilon = s.number("epsilon", f.epsilon, config::Range::positive());
  f.linear_factor = s.number("linear_factor", f.linear_factor, config::Range::positive());
  f.sigmoidal.alpha = s.number("sigmoidal_alpha", f.sigmoidal.alpha);
  f.sigmoidal.beta = s.number("sigmoidal_beta", f.sigmoidal.beta);
  f.sigmoidal.gamma = s.number("sigmoidal_gamma", f.sigmoidal.gamma);
  f.sigmoidal.delta = s.number("sigmoidal_delta", f.sigmoidal.delta);
  f.scale14_lj = s.number("scale14_lj", f.scale14_lj, {0.0, 1.0});
  f.scale14_coulomb = s.number("scale14_coulomb", f.scale14_coulomb, {0.0, 1.0});
  if (s.has("custom"))  // a formula term beside or instead of LJ + Coulomb
    rc.custom = std::make_shared<const CustomNonbonded>(s.string("custom", ""),
                                                        s.boolean("custom_replaces", false),
                                                        "[forcefield] custom", s.where("custom"));
  else if (s.has("table_file"))  // a LAMMPS pair_style table term (ljc/custom_nonbonded.hpp)
    rc.custom = make_table_nonbonded(config, s);
  else if (s.has("custom_replaces"))
    s.fail("custom_replaces", "is used with custom = \"<formula>\" or table_file only");
  if (!s.has("table_file"))
    for (auto key : {"table_keyword", "table_style", "table_n", "table_cutoff"})
      if (s.has(key)) s.fail(key, "is used with table_file = \"<LAMMPS table>\" only");
  const std::string with = "with dielectric = '" + std::string(to_string(f.dielectric)) + "'";
  using physics::DielectricKind;
  if (f.dielectric != DielectricKind::constant) reject_unused(s, "epsilon", with);
  if (f.dielectric != DielectricKind::linear) reject_unused(s, "linear_factor", with);
  if (f.dielectric != DielectricKind::sigmoidal) {
    for (auto key : {"sigmoidal_alpha", "sigmoidal_beta", "sigmoidal_gamma", "sigmoidal_delta"}) {
      reject_unused(s, key, with);
    }
  }
}

void read_integrator(config::Config& config, RunConfig& rc) {
  const auto s = config.section("integrator");
  const std::string t = s.choice("thermostat", "none", [](std::string_view v) {
    if (v != "none" && v != "langevin") {
      throw Error("unknown thermostat '" + std::string(v) +
                  "' (expected none (velocity Verlet, NVE) or langevin (BAOAB))");
    }
    return std::string(v);
  });
  rc.langevin = t == "langevin";
  rc.dt_fs = s.number("dt", 1.0, {0.0, 10.0, true});
  rc.temperature = s.number("temperature", 300.0, config::Range::non_negative());
  rc.friction_per_ps = s.number("friction", 1.0, config::Range::non_negative());
  rc.seed = static_cast<std::uint64_t>(s.integer("seed", 1, 0, INT64_MAX));
  if (!rc.langevin) reject_unused(s, "friction", "with thermostat = 'none'");
}

void read_run(config::Config& config, RunConfig& rc) {
  const auto s = config.section("run");
  rc.steps = s.integer("steps", 1000, 0, std::int64_t(1) << 40);
  const RunOptions run = config::read_run_options(s, "mixed");
  rc.backend = run.backend, rc.precision = run.precision;
  rc.pair_kernel = s.choice("pair_kernel", "auto", parse_pair_kernel);
  rc.step_kernel = s.choice("step_kernel", "auto", parse_step_kernel);
}

void read_output(config::Config& config, RunConfig& rc) {
  const auto s = config.section("output");
  auto& o = rc.output;
  const config::OutputNames names = config::read_output_names(config, s, "ljc");
  o.directory = names.directory, o.prefix = names.prefix;
  o.interval = s.integer(
      "interval", std::max<std::int64_t>(1, std::min<std::int64_t>(100, rc.steps)), 1, INT64_MAX);
  o.csv = config::read_output_file(s, "csv", o.directory, o.prefix + ".csv");
  o.final_topology = config::read_output_file(s, "final", o.directory, o.prefix + ".final.json");
  o.progress = s.boolean("progress", true);
  const config::CheckpointKeys checkpoint = config::read_checkpoint_keys(s, names, INT64_MAX);
  o.checkpoint = checkpoint.path, o.checkpoint_every = checkpoint.every;
  if (rc.steps / o.interval > 10000000) s.fail("interval", "gives more than 10^7 rows");
}

}  // namespace

RunConfig read_run_config(config::Config& config) {
  RunConfig rc;
  rc.source = config.source();
  const auto root = config.root();
  const std::string workload = root.string("workload", "ljc");
  if (workload != "ljc") root.fail("workload", "expected \"ljc\", got \"" + workload + "\"");
  read_system(config, rc);
  read_forcefield(config, rc);
  read_integrator(config, rc);
  read_run(config, rc);
  read_output(config, rc);
  config.check_unused();
  return rc;
}

Molecule load_molecule(const RunConfig& rc, std::ostream& warnings) {
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
  return read_topology(rc.file, warnings);
}

LjcKernelOptions kernel_options(const RunConfig& rc) {
  LjcKernelOptions o;
  o.precision = rc.precision;
  o.pair_kernel = rc.pair_kernel;
  o.step_kernel = rc.step_kernel;
  o.custom = rc.custom;  // [forcefield] custom (reference, cpu)
  return o;
}

}  // namespace pairwise::ljc
