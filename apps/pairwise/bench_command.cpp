// `pairwise bench <suite> [flags]`: every benchmark suite is a subcommand of `bench`, registered by
// its room's add_*_bench function (declared in commands.hpp); `bench nbody` lives here.
#include <memory>
#include <string>
#include <vector>

#include "bench_flags.hpp"
#include "commands.hpp"
#include "nbody/bench.hpp"
#include "pairwise/error.hpp"

namespace pairwise::cli {

namespace {

struct BenchArgs {
  BenchFlags flags;
  std::vector<std::size_t> sizes;
  bool no_variants = false;
};

}  // namespace

Command add_nbody_bench(CLI::App& bench) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* nbody = bench.add_subcommand(
      "nbody", "Direct N-body gravity: GA, GAJ and block steps over a range of N");
  args->flags.add_json(nbody);
  nbody->add_option("--sizes", args->sizes, "Particle counts, e.g. 1024,4096,16384")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 31, "a particle count from 1 to 2^31"));
  args->flags.add_precision(nbody, "single,mixed,double");
  args->flags.add_backend(nbody);
  args->flags.add_repeats(nbody);
  args->flags.add_no_cpu(nbody);
  nbody->add_flag("--no-variants", args->no_variants,
                  "Only GA, GAJ and block steps (skip GA-nopot and the formula cases)");
  return {nbody, [args] {
            nbody::BenchOptions options;
            if (!args->sizes.empty()) options.sizes = args->sizes;
            options.variants = !args->no_variants;
            args->flags.apply_to(options);
            return nbody::run_nbody_bench(options);
          }};
}

Command add_bench_command(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "Run a benchmark suite (results as JSON)");
  bench->require_subcommand(1);
  const std::vector<Command> suites = {add_nbody_bench(*bench),    add_potmap_bench(*bench),
                                       add_fredholm_bench(*bench), add_ljc_bench(*bench),
                                       add_md_bench(*bench),       add_rng_bench(*bench)};
  return {bench, [suites] {
            for (const auto& suite : suites) {
              if (suite.app->parsed()) return suite.run();
            }
            return 2;  // unreachable: require_subcommand(1)
          }};
}

}  // namespace pairwise::cli
