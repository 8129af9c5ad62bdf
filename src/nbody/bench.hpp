// `pairwise bench nbody`: times GA, GAJ and block steps over a range of N and writes the JSON
// records of DESIGN.md (suite "nbody").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::nbody {

struct BenchOptions {
  std::vector<std::size_t> sizes = {1024, 4096, 16384, 65536, 262144, 1048576};
  BackendKind backend = BackendKind::automatic;
  std::vector<Precision> precisions = {Precision::single, Precision::mixed, Precision::double_};
  bool compare_cpu = true;  // also time the cpu backend (up to a size that keeps the run short)
  int repeats = 10;         // timed repetitions per case; the median is reported
  bool variants = true;     // also the variant cases: GA-nopot and Plummer as a formula
  std::string json_path;    // empty: no JSON file
};

// Prints a table on stdout and writes the JSON file (atomically) when asked. Returns the exit code.
int run_nbody_bench(const BenchOptions& options);

}  // namespace pairwise::nbody
