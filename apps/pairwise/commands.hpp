// The subcommands of the `pairwise` executable. Each add_* function registers its CLI11 subcommand
// and returns the function that runs it after parsing (so that parse errors, exit code 2, are apart
// from run errors, exit code 1).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pairwise::cli {

struct Command {
  CLI::App* app;             // the subcommand, to ask whether it was given
  std::function<int()> run;  // returns the exit code; throws pairwise::Error
};

Command add_info_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_potmap_command(CLI::App& app);
Command add_fredholm_command(CLI::App& app);
Command add_rng_command(CLI::App& app);

// The benchmark suites, subcommands of `bench` (each registered by add_bench_command).
Command add_nbody_bench(CLI::App& bench);
Command add_potmap_bench(CLI::App& bench);
Command add_fredholm_bench(CLI::App& bench);
Command add_ljc_bench(CLI::App& bench);
Command add_md_bench(CLI::App& bench);
Command add_rng_bench(CLI::App& bench);

}  // namespace pairwise::cli
