// `pairwise bench nbody [flags]`: the N-body benchmark suite (src/nbody/bench.hpp).
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "md/bench.hpp"
#include "nbody/bench.hpp"
#include "pairwise/error.hpp"

namespace pairwise::cli {

namespace {

struct BenchArgs {
  std::vector<std::size_t> sizes;
  std::vector<std::string> precisions;
  std::string backend = "auto";
  int repeats = 0;
  bool no_cpu = false;
  std::string json;
};

int bench_nbody(const BenchArgs& args) {
  nbody::BenchOptions options;
  if (!args.sizes.empty()) options.sizes = args.sizes;
  if (!args.precisions.empty()) {
    options.precisions.clear();
    for (const auto& p : args.precisions) options.precisions.push_back(parse_precision(p));
  }
  options.backend = parse_backend(args.backend);
  if (args.repeats > 0) options.repeats = args.repeats;
  options.compare_cpu = !args.no_cpu;
  options.json_path = args.json;
  return nbody::run_nbody_bench(options);
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* bench = app.add_subcommand("bench", "Run a benchmark suite (results as JSON)");
  bench->require_subcommand(1);
  CLI::App* nbody = bench->add_subcommand(
      "nbody", "Direct N-body gravity: GA, GAJ and block steps over a range of N");
  nbody->add_option("--json", args->json, "Write the records to this JSON file");
  nbody->add_option("--sizes", args->sizes, "Particle counts, e.g. 1024,4096,16384")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 31, "a particle count from 1 to 2^31"));
  nbody->add_option("--precision", args->precisions, "Precisions, e.g. single,mixed,double")
      ->delimiter(',')
      ->check(CLI::IsMember({"single", "mixed", "double"}));
  nbody->add_option("--backend", args->backend, "auto | reference | cpu | cuda")
      ->check(CLI::IsMember({"auto", "reference", "cpu", "cuda"}));
  nbody->add_option("--repeats", args->repeats, "Timed repetitions per case (median reported)")
      ->check(CLI::Range(1, 1000000, "a count from 1 to 10^6"));
  nbody->add_flag("--no-cpu", args->no_cpu, "Skip the cpu-backend comparison");
  // `pairwise bench md` and `pairwise bench rng` (src/md/bench.hpp).
  auto md = std::make_shared<md::MdBenchOptions>();
  auto md_sizes = std::make_shared<std::vector<std::size_t>>();
  auto md_precisions = std::make_shared<std::vector<std::string>>();
  auto md_backend = std::make_shared<std::string>("auto");
  CLI::App* mdc = bench->add_subcommand(
      "md", "Lennard-Jones MD with the LAMMPS bench/in.lj settings (+ Liu et al.'s sweep)");
  mdc->add_option("--json", md->json_path, "Write the records to this JSON file");
  mdc->add_option("--sizes", *md_sizes, "Atom counts (4 x cells), e.g. 32000,256000,2048000")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{4}, std::size_t{1} << 31, "an atom count from 4 to 2^31"));
  mdc->add_option("--precision", *md_precisions, "Precisions, e.g. single,mixed")
      ->delimiter(',')
      ->check(CLI::IsMember({"single", "mixed", "double"}));
  mdc->add_option("--backend", *md_backend, "auto | reference | cpu | cuda")
      ->check(CLI::IsMember({"auto", "reference", "cpu", "cuda"}));
  mdc->add_option("--steps", md->steps, "Timed steps per case (default 2000, 200 above 256k)")
      ->check(CLI::Range(1, 10000000, "a step count from 1 to 10^7"));
  mdc->add_flag(
      "--no-cpu", [md](std::int64_t) { md->compare_cpu = false; },
      "Skip the cpu-backend comparison");
  mdc->add_option("--sort-every", md->sort_every, "Steps between space-filling-curve reorders")
      ->check(CLI::Range(0, 1000000000, "a step count >= 0"));
  mdc->add_flag("--sweep", md->sweep, "Also run Liu et al.'s N x rc sweep (100 steps each)");
  mdc->add_flag("--sweep-cpu", md->sweep_cpu, "Time the cpu backend on the sweep too");
  mdc->final_callback([=] {
    if (!md_sizes->empty()) md->sizes = *md_sizes;
    if (!md_precisions->empty()) {
      md->precisions.clear();
      for (const auto& p : *md_precisions) md->precisions.push_back(parse_precision(p));
    }
    md->backend = parse_backend(*md_backend);
  });
  auto rng = std::make_shared<md::RngBenchOptions>();
  CLI::App* rngc = bench->add_subcommand(
      "rng", "rand48: glibc lrand48 vs a plain 64-bit loop vs parallel leap-ahead (cpu, cuda)");
  rngc->add_option("--json", rng->json_path, "Write the records to this JSON file");
  rngc->add_option("--count", rng->count, "Draws per case (default 10^8)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 34, "a count from 1 to 2^34"));
  return {bench, [=] {
            if (mdc->parsed()) return md::run_md_bench(*md);
            if (rngc->parsed()) return md::run_rng_bench(*rng);
            return bench_nbody(*args);
          }};
}

}  // namespace pairwise::cli
