// `pairwise run FILE.toml [flags]`: loads the config, applies command-line overrides (--set first,
// then the dedicated flags, which win), and runs the workload the file names. `--restart CKPT`
// continues a checkpointed run (md, nbody, ljc). Exit codes: 0 done, 1 error, 2 usage, 128 + signal
// when SIGINT/SIGTERM/SIGUSR1/SIGXCPU stopped the run (after a checkpoint was written).
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "core/checkpoint.hpp"
#include "core/config.hpp"
#include "fredholm/run.hpp"
#include "ljc/run.hpp"
#include "ljc/run_config.hpp"
#include "md/run.hpp"
#include "nbody/run.hpp"
#include "nbody/run_config.hpp"
#include "pairwise/error.hpp"
#include "potmap/run.hpp"

namespace pairwise::cli {

namespace {

struct RunArgs {
  std::string file;
  std::vector<std::string> sets;
  std::optional<std::string> backend, precision, t_end, n, seed, output, restart;
};

// The checkpoint to continue from, absolute (relative to the working directory).
std::filesystem::path restart_path(const RunArgs& args) {
  return args.restart ? std::filesystem::absolute(*args.restart) : std::filesystem::path();
}

int run_workload(const RunArgs& args) {
  auto config = config::Config::load(args.file);
  for (const auto& assignment : args.sets) config.set(assignment);
  // Dedicated flags: the value is checked by the key's getter, and errors name the flag.
  const std::pair<const std::optional<std::string>*, std::pair<const char*, const char*>> flags[] =
      {{&args.backend, {"run.backend", "--backend"}},
       {&args.precision, {"run.precision", "--precision"}},
       {&args.t_end, {"run.t_end", "--t-end"}},
       {&args.n, {"system.n", "--n"}},
       {&args.seed, {"system.seed", "--seed"}}};
  for (const auto& [value, key] : flags) {
    if (*value) config.set_value(key.first, **value, std::string(key.second) + " " + **value);
  }
  if (args.output) {
    // Relative to the working directory (a key in the file is relative to the file).
    config.set_string("output.directory", std::filesystem::absolute(*args.output).string(),
                      "--output " + *args.output);
  }
  const auto root = config.root();
  const std::string workload = root.string("workload", "nbody");
  if (args.restart && workload != "md" && workload != "nbody" && workload != "ljc")
    throw Error("--restart is supported by the md, nbody and ljc workloads, not '" + workload + "'",
                "--restart " + *args.restart);
  if (workload == "nbody") {
    auto rc = nbody::read_run_config(config);
    rc.restart = restart_path(args);
    return nbody::run_nbody(rc, std::cout);
  }
  if (workload == "potmap")
    return potmap::run_potmap(potmap::read_potmap_config(config), std::cout);
  if (workload == "fredholm")
    return fredholm::run_fredholm(fredholm::read_run_config(config), std::cout);
  if (workload == "ljc") {
    auto rc = ljc::read_run_config(config);
    rc.restart = restart_path(args);
    return ljc::run_ljc(rc, std::cout, std::cerr);
  }
  if (workload == "md") {
    auto rc = md::read_md_config(config);
    rc.restart = restart_path(args);
    return md::run_md(rc, std::cout);
  }
  const std::string known[] = {"nbody", "potmap", "fredholm", "ljc", "md"};
  root.fail("workload", "unknown workload '" + workload + "'" +
                            config::suggestion_suffix(workload, known) +
                            " (expected one of: nbody, potmap, fredholm, ljc, md)");
}

// A run that fails after writing a checkpoint (disk full, a GPU fault or out of memory, a blow-up)
// says which checkpoint to continue from.
int run(const RunArgs& args) {
  try {
    return run_workload(args);
  } catch (const Error& e) {
    const auto& ckpt = last_checkpoint_written();
    if (ckpt.empty()) throw;
    throw Error(e.message(), e.where() + (e.where().empty() ? "" : "; ") +
                                 "the last checkpoint is " + ckpt.string() +
                                 " (continue with --restart " + ckpt.string() + ")");
  }
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Run a simulation described by a TOML file");
  sub->add_option("file", args->file, "Configuration (TOML); keys are listed in README.md")
      ->required();
  sub->add_option("--backend", args->backend, "auto | reference | cpu | cuda (run.backend)");
  sub->add_option("--precision", args->precision, "single | mixed | double (run.precision)");
  sub->add_option("--t-end", args->t_end, "End time in Hénon units (run.t_end)");
  sub->add_option("--n", args->n, "Number of particles (system.n)");
  sub->add_option("--seed", args->seed, "Random seed of the initial conditions (system.seed)");
  sub->add_option("--output", args->output,
                  "Directory for the CSV and snapshots (output.directory; default: next to FILE)");
  sub->add_option("--restart", args->restart,
                  "Continue the run from a checkpoint ([output] checkpoint; md, nbody, ljc)");
  sub->add_option("--set", args->sets, "Override any key: --set integrator.eta=0.02 (repeatable)")
      ->allow_extra_args(false);
  return {sub, [args] { return run(*args); }};
}

}  // namespace pairwise::cli
