// `pairwise bench ljc` (src/ljc/bench.hpp), registered by add_bench_command.
#include <memory>
#include <string>
#include <vector>

#include "bench_flags.hpp"
#include "commands.hpp"
#include "ljc/bench.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::cli {

namespace {

struct LjcBenchArgs {
  BenchFlags flags;
  std::vector<std::size_t> sizes;
  std::vector<std::string> kernels;
  int lj_types = 0;
  bool constant_only = false, no_md = false, per_atom_lj = false;
  std::string style = "builtin";
};

int bench_ljc(const LjcBenchArgs& args) {
  ljc::BenchOptions options;
  options.formula = args.style == "custom";
  if (!args.sizes.empty()) options.sizes = args.sizes;
  args.flags.apply_to(options);
  if (!args.kernels.empty()) {
    options.pair_kernels.clear();
    for (const auto& k : args.kernels) options.pair_kernels.push_back(ljc::parse_pair_kernel(k));
  }
  options.all_dielectrics = !args.constant_only;
  options.md_steps = !args.no_md;
  options.per_atom_lj = args.per_atom_lj;
  options.lj_types = args.lj_types;
  return ljc::run_ljc_bench(options);
}

}  // namespace

Command add_ljc_bench(CLI::App& bench) {
  auto largs = std::make_shared<LjcBenchArgs>();
  CLI::App* ljc = bench.add_subcommand(
      "ljc", "All-pairs LJ + Coulomb (implicit solvent): forces and MD steps over a range of N");
  largs->flags.add_json(ljc);
  ljc->add_option("--sizes", largs->sizes, "Atom counts, e.g. 1280,65536")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 26, "an atom count from 1 to 2^26"));
  largs->flags.add_precision(ljc, "single,mixed");
  ljc->add_option("--kernels", largs->kernels, "CUDA pair kernels: one-sided,newton3")
      ->delimiter(',')
      ->check(CLI::IsMember({"one-sided", "newton3", "auto"}));
  largs->flags.add_backend(ljc);
  largs->flags.add_repeats(ljc);
  largs->flags.add_no_cpu(ljc);
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
