// `pairwise run FILE.toml [flags]`: loads the config, applies command-line overrides (--set first,
// then the dedicated flags, which win) and hands it to the API layer (src/api/run.hpp), which runs
// the workload the file names. `--restart CKPT` continues a checkpointed run (md, nbody, ljc).
// Exit codes: 0 done, 1 error, 2 usage, 128 + signal when SIGINT/SIGTERM/SIGUSR1/SIGXCPU stopped
// the run (after a checkpoint was written).
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/run.hpp"
#include "commands.hpp"
#include "config_overrides.hpp"

namespace pairwise::cli {

namespace {

struct RunArgs {
  std::string file;
  std::vector<std::string> sets;
  std::optional<std::string> backend, precision, t_end, n, seed, output, restart;
};

int run(const RunArgs& args) {
  auto config = load_config(args.file, args.sets,
                            {{&args.backend, "run.backend", "--backend"},
                             {&args.precision, "run.precision", "--precision"},
                             {&args.t_end, "run.t_end", "--t-end"},
                             {&args.n, "system.n", "--n"},
                             {&args.seed, "system.seed", "--seed"}},
                            args.output);
  return api::run_workload(config, args.restart.value_or(""), std::cout, std::cerr);
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
