// `pairwise fredholm FILE.toml [flags]`: a Fredholm integral equation of the second kind by the
// Nyström method (src/fredholm/run.hpp; keys in docs/fredholm.md), and `pairwise bench fredholm`.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_flags.hpp"
#include "commands.hpp"
#include "config_overrides.hpp"
#include "core/config.hpp"
#include "fredholm/bench.hpp"
#include "fredholm/run.hpp"
#include "pairwise/error.hpp"

namespace pairwise::cli {

namespace {

struct FredholmArgs {
  std::string file;
  std::vector<std::string> sets;
  std::optional<std::string> backend, precision, n, method, output;
};

int fredholm(const FredholmArgs& args) {
  auto config = load_config(args.file, args.sets,
                            {{&args.backend, "run.backend", "--backend"},
                             {&args.precision, "run.precision", "--precision"},
                             {&args.n, "domain.n", "--n"},
                             {&args.method, "solver.method", "--method"}},
                            args.output);
  return fredholm::run_fredholm(fredholm::read_run_config(config), std::cout);
}

struct BenchArgs {
  BenchFlags flags;
  std::vector<long long> sizes;
  std::vector<std::string> solve_sizes;
  bool no_solve = false;
};

}  // namespace

Command add_fredholm_command(CLI::App& app) {
  auto args = std::make_shared<FredholmArgs>();
  CLI::App* sub = app.add_subcommand(
      "fredholm", "Solve a Fredholm integral equation of the second kind (Nyström method)");
  sub->add_option("file", args->file, "Problem (TOML); keys are listed in docs/fredholm.md")
      ->required();
  sub->add_option("--backend", args->backend, "auto | reference | cpu | cuda (run.backend)");
  sub->add_option("--precision", args->precision, "single | mixed | double (run.precision)");
  sub->add_option("--n", args->n, "Gauss-Legendre nodes per dimension (domain.n)");
  sub->add_option("--method", args->method, "gmres | fixed_point | direct (solver.method)");
  sub->add_option("--output", args->output,
                  "Directory for the CSV files (output.directory; default: next to FILE)");
  sub->add_option("--set", args->sets, "Override any key: --set equation.lambda=0.5 (repeatable)")
      ->allow_extra_args(false);
  return {sub, [args] { return fredholm(*args); }};
}

Command add_fredholm_bench(CLI::App& bench) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* sub = bench.add_subcommand(
      "fredholm",
      "Fredholm matrix-vector product (kernel evaluations/s) and GMRES time to solution");
  args->flags.add_json(sub);
  sub->add_option("--sizes", args->sizes, "Node counts of the product, e.g. 65536,1048576")
      ->delimiter(',')
      ->check(CLI::Range(1LL, 1LL << 31, "a node count from 1 to 2^31"));
  sub->add_option("--solve-sizes", args->solve_sizes,
                  "Node counts of the GMRES time to solution, e.g. 100000,1000000")
      ->delimiter(',');
  args->flags.add_precision(sub, "single,double");
  args->flags.add_backend(sub);
  args->flags.add_repeats(sub);
  args->flags.add_no_cpu(sub);
  sub->add_flag("--no-solve", args->no_solve, "Skip the time-to-solution cases");
  return {sub, [args] {
            fredholm::BenchOptions o;
            if (!args->sizes.empty()) o.sizes.assign(args->sizes.begin(), args->sizes.end());
            if (!args->solve_sizes.empty()) {
              o.solve_sizes.clear();
              for (const auto& s : args->solve_sizes) {
                try {
                  o.solve_sizes.push_back(std::stoll(s));
                } catch (const std::exception&) {
                  throw Error("--solve-sizes: '" + s + "' is not a node count");
                }
                if (o.solve_sizes.back() < 1) throw Error("--solve-sizes: counts must be >= 1");
              }
            }
            args->flags.apply_to(o);
            o.solve = !args->no_solve;
            return fredholm::run_fredholm_bench(o);
          }};
}

}  // namespace pairwise::cli
