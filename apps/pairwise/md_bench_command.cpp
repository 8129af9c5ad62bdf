// `pairwise bench md` and `pairwise bench rng` (src/md/bench.hpp), registered by add_bench_command.
#include <memory>
#include <string>
#include <vector>

#include "bench_flags.hpp"
#include "commands.hpp"
#include "md/bench.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::cli {

Command add_md_bench(CLI::App& bench) {
  auto md = std::make_shared<md::MdBenchOptions>();
  auto flags = std::make_shared<BenchFlags>();
  auto md_sizes = std::make_shared<std::vector<std::size_t>>();
  CLI::App* mdc = bench.add_subcommand(
      "md", "Lennard-Jones MD with the LAMMPS bench/in.lj settings (+ Liu et al.'s sweep)");
  flags->add_json(mdc);
  mdc->add_option("--sizes", *md_sizes, "Atom counts (4 x cells), e.g. 32000,256000,2048000")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{4}, std::size_t{1} << 31, "an atom count from 4 to 2^31"));
  flags->add_precision(mdc, "single,mixed");
  flags->add_backend(mdc);
  mdc->add_option("--steps", md->steps, "Timed steps per case (default 2000, 200 above 256k)")
      ->check(CLI::Range(1, 10000000, "a step count from 1 to 10^7"));
  flags->add_no_cpu(mdc);
  mdc->add_option("--sort-every", md->sort_every, "Steps between space-filling-curve reorders")
      ->check(CLI::Range(0, 1000000000, "a step count >= 0"));
  mdc->add_option_function<std::string>(
         "--style",
         [md](const std::string& v) {
           md->formula = v == "custom";
           md->table = v == "table";
         },
         "builtin | custom | table (also time LJ written as a formula: case in.lj-formula; or as "
         "a LAMMPS table: case in.lj-table)")
      ->check(CLI::IsMember({"builtin", "custom", "table"}));
  mdc->add_flag("--sweep", md->sweep, "Also run Liu et al.'s N x rc sweep (100 steps each)");
  mdc->add_flag("--sweep-cpu", md->sweep_cpu, "Time the cpu backend on the sweep too");
  return {mdc, [md, flags, md_sizes] {
            if (!md_sizes->empty()) md->sizes = *md_sizes;
            flags->apply_to(*md);
            return md::run_md_bench(*md);
          }};
}

Command add_rng_bench(CLI::App& bench) {
  auto rng = std::make_shared<md::RngBenchOptions>();
  CLI::App* rngc = bench.add_subcommand(
      "rng", "rand48: glibc lrand48 vs a plain 64-bit loop vs parallel leap-ahead (cpu, cuda)");
  rngc->add_option("--json", rng->json_path, "Write the records to this JSON file");
  rngc->add_option("--count", rng->count, "Draws per case (default 10^8)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 34, "a count from 1 to 2^34"));
  return {rngc, [rng] { return md::run_rng_bench(*rng); }};
}

}  // namespace pairwise::cli
