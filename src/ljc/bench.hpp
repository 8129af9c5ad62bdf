// `pairwise bench ljc`: the all-pairs LJ + Coulomb suite (suite "ljc", ../shared/BENCHMARKS.md):
// force evaluations over a range of N per precision, pair kernel and dielectric, and full MD steps
// (velocity Verlet, 1 fs) where the backend runs them; JSON records of DESIGN.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ljc/ljc_kernel.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::ljc {

struct BenchOptions {
  std::vector<std::size_t> sizes = {1280, 4096, 16384, 65536};
  BackendKind backend = BackendKind::automatic;
  std::vector<Precision> precisions = {Precision::single, Precision::mixed, Precision::double_};
  std::vector<PairKernel> pair_kernels = {PairKernel::one_sided, PairKernel::newton3};
  bool all_dielectrics = true;  // linear and sigmoidal too (constant always)
  bool compare_cpu = true;      // time the cpu backend up to kCpuMaxN
  bool md_steps = true;         // time full MD steps
  bool persistent = true;       // ... also with the persistent step kernel (cuda, where it fits)
  bool per_atom_lj = false;     // σ and ε varied per atom (default: the same for every atom)
  int lj_types = 0;             // > 1: σ and ε by atom type, this many types (unless per_atom_lj)
  int repeats = 10;
  // --style custom: case "forces-formula": LJ + Coulomb (constant ε = 1) written as a formula in
  // place of the built-in term (ljc/custom_nonbonded.hpp), timed beside "forces-constant".
  bool formula = false;
  std::string json_path;
};

int run_ljc_bench(const BenchOptions& options);

// Elsen et al.'s flop counts per interaction: 30 (constant, linear), 43 (sigmoidal).
int paper_flops(physics::DielectricKind d);

}  // namespace pairwise::ljc
