// The flags that the benchmark suites share (`pairwise bench nbody|ljc|md|fredholm|potmap`):
// --json, --precision, --backend, --repeats and --no-cpu, registered with one wording and one
// check each, and applied to a suite's options (which keep their defaults where a flag is not
// given). Each add_* registers one flag, so a suite keeps its own order in --help.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::cli {

struct BenchFlags {
  std::string json;
  std::vector<std::string> precisions;  // empty: the suite's default precisions
  std::string backend = "auto";
  int repeats = 0;  // 0: the suite's default
  bool no_cpu = false;

  void add_json(CLI::App* suite);
  // `example`: the precisions the help names, e.g. "single,mixed".
  void add_precision(CLI::App* suite, const std::string& example);
  void add_backend(CLI::App* suite);
  void add_repeats(CLI::App* suite);
  void add_no_cpu(CLI::App* suite);

  // Sets json_path, backend, compare_cpu, and precisions and repeats where given.
  template <class Options>
  void apply_to(Options& o) const {
    o.json_path = json;
    o.backend = parse_backend(backend);
    if constexpr (requires { o.precisions; })
      if (!precisions.empty()) o.precisions = parsed_precisions();
    if constexpr (requires { o.repeats; })
      if (repeats > 0) o.repeats = repeats;
    if constexpr (requires { o.compare_cpu; }) o.compare_cpu = !no_cpu;
  }
  std::vector<Precision> parsed_precisions() const;
};

}  // namespace pairwise::cli
