// `pairwise bench ljc` (src/ljc/bench.hpp), registered by add_bench_command.
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "ljc/bench.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::cli {

namespace {

struct LjcBenchArgs {
  std::vector<std::size_t> sizes;
  std::vector<std::string> precisions, kernels;
  std::string backend = "auto";
  int repeats = 0, lj_types = 0;
  bool no_cpu = false, constant_only = false, no_md = false, per_atom_lj = false;
  std::string json, style = "builtin";
};

int bench_ljc(const LjcBenchArgs& args) {
  ljc::BenchOptions options;
  options.formula = args.style == "custom";
  if (!args.sizes.empty()) options.sizes = args.sizes;
  if (!args.precisions.empty()) {
    options.precisions.clear();
    for (const auto& p : args.precisions) options.precisions.push_back(parse_precision(p));
  }
  if (!args.kernels.empty()) {
    options.pair_kernels.clear();
    for (const auto& k : args.kernels) options.pair_kernels.push_back(ljc::parse_pair_kernel(k));
  }
  options.backend = parse_backend(args.backend);
  if (args.repeats > 0) options.repeats = args.repeats;
  options.compare_cpu = !args.no_cpu;
  options.all_dielectrics = !args.constant_only;
  options.md_steps = !args.no_md;
  options.per_atom_lj = args.per_atom_lj;
  options.lj_types = args.lj_types;
  options.json_path = args.json;
  return ljc::run_ljc_bench(options);
}

}  // namespace

Command add_ljc_bench(CLI::App& bench) {
  auto largs = std::make_shared<LjcBenchArgs>();
  CLI::App* ljc = bench.add_subcommand(
      "ljc", "All-pairs LJ + Coulomb (implicit solvent): forces and MD steps over a range of N");
  ljc->add_option("--json", largs->json, "Write the records to this JSON file");
  ljc->add_option("--sizes", largs->sizes, "Atom counts, e.g. 1280,65536")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 26, "an atom count from 1 to 2^26"));
  ljc->add_option("--precision", largs->precisions, "Precisions, e.g. single,mixed")
      ->delimiter(',')
      ->check(CLI::IsMember({"single", "mixed", "double"}));
  ljc->add_option("--kernels", largs->kernels, "CUDA pair kernels: one-sided,newton3")
      ->delimiter(',')
      ->check(CLI::IsMember({"one-sided", "newton3", "auto"}));
  ljc->add_option("--backend", largs->backend, "auto | reference | cpu | cuda")
      ->check(CLI::IsMember({"auto", "reference", "cpu", "cuda"}));
  ljc->add_option("--repeats", largs->repeats, "Timed repetitions per case (median reported)")
      ->check(CLI::Range(1, 1000000, "a count from 1 to 10^6"));
  ljc->add_flag("--no-cpu", largs->no_cpu, "Skip the cpu-backend comparison");
  ljc->add_flag("--constant-only", largs->constant_only, "Time the constant dielectric only");
  ljc->add_flag("--no-md", largs->no_md, "Skip the full MD step timings");
  ljc->add_option("--style", largs->style,
                  "builtin | custom (also time LJ + Coulomb as a formula: case forces-formula)")
      ->check(CLI::IsMember({"builtin", "custom"}));
  ljc->add_flag("--per-atom-lj", largs->per_atom_lj,
                "Give every atom its own LJ sigma and epsilon (default: the same for all)");
  ljc->add_option("--lj-types", largs->lj_types,
                  "Give the atoms sigma and epsilon by type, this many types (2 to 64)")
      ->check(CLI::Range(2, 64, "a type count from 2 to 64"));
  return {ljc, [largs] { return bench_ljc(*largs); }};
}

}  // namespace pairwise::cli
