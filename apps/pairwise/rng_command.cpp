// `pairwise rng [--seed S] [--count N] [--kind lrand48|drand48] [--backend cpu|cuda]
//  [--output FILE]`: glibc's rand48 sequence after srand48(S), generated in parallel by leap-ahead
// (src/md/rand48.hpp), one value a line: lrand48 as an integer, drand48 with 17 significant digits.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "core/io/atomic_file.hpp"
#include "md/rand48.hpp"
#include "pairwise/error.hpp"
#include "pairwise/random/rand48.hpp"

namespace pairwise::cli {

namespace {

struct RngArgs {
  std::uint64_t seed = 0;
  std::size_t count = 10;
  std::string kind = "lrand48";
  std::string backend = "cpu";
  std::string output;
};

void write_values(std::ostream& out, const std::vector<std::uint64_t>& states, bool lrand) {
  char line[40];
  for (const std::uint64_t x : states) {
    if (lrand)
      std::snprintf(line, sizeof line, "%lld\n", static_cast<long long>(random::rand48_lrand(x)));
    else
      std::snprintf(line, sizeof line, "%.17g\n", random::rand48_drand(x));
    out << line;
  }
}

int run(const RngArgs& a) {
  BackendKind b = parse_backend(a.backend);
  b = resolve_backend(b);
  const auto states = md::rand48_states(b, a.seed, a.count);
  const bool lrand = a.kind == "lrand48";
  if (a.output.empty()) {
    write_values(std::cout, states, lrand);
  } else {
    io::write_file_atomically(a.output,
                              [&](std::ostream& out) { write_values(out, states, lrand); });
  }
  return 0;
}

}  // namespace

Command add_rng_command(CLI::App& app) {
  auto args = std::make_shared<RngArgs>();
  CLI::App* sub = app.add_subcommand(
      "rng", "glibc's lrand48/drand48 sequence, generated in parallel (bit-identical)");
  sub->add_option("--seed", args->seed,
                  "srand48 seed (glibc keeps its low 32 bits: 2^32 + 7 seeds like 7)");
  sub->add_option("--count", args->count, "Number of draws")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 34, "a count from 0 to 2^34"));
  sub->add_option("--kind", args->kind, "lrand48 | drand48")
      ->check(CLI::IsMember({"lrand48", "drand48"}));
  sub->add_option("--backend", args->backend, "auto | cpu | cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  sub->add_option("--output", args->output, "Write to this file instead of stdout");
  return {sub, [args] { return run(*args); }};
}

}  // namespace pairwise::cli
