// `pairwise bench fredholm`: kernel evaluations per second of the Nyström matrix-vector product
// (kernel e^{ts} on [0, 1], N Gauss–Legendre nodes, N² evaluations per product) and the GMRES time
// to solution of the smooth test problem (f = e^t), on the chosen backend and on the cpu backend
// for comparison where N allows.
#pragma once

#include <string>
#include <vector>

#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::fredholm {

struct BenchOptions {
  std::vector<long long> sizes = {16384, 65536, 262144, 1048576};
  std::vector<long long> solve_sizes = {100000, 1000000};
  std::vector<Precision> precisions = {Precision::single, Precision::double_};
  BackendKind backend = BackendKind::automatic;
  int repeats = 10;
  bool compare_cpu = true;
  bool solve = true;
  std::string json_path;
};

int run_fredholm_bench(const BenchOptions& options);

}  // namespace pairwise::fredholm
