// `pairwise bench <suite> [flags]`: every benchmark suite is a subcommand of `bench`, registered by
// its room's add_*_bench function (declared in commands.hpp); `bench nbody` lives here.
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
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

Command add_nbody_bench(CLI::App& bench) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* nbody = bench.add_subcommand(
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
  return {nbody, [args] { return bench_nbody(*args); }};
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
