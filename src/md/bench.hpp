// `pairwise bench md` and `pairwise bench rng` (suites "md" and "rng"; JSON records of DESIGN.md).
//  md, case "in.lj": LAMMPS bench/in.lj settings (fcc ρ* 0.8442, T* 1.44, lj/cut 2.5σ, skin 0.3σ,
//     dt 0.005τ, NVE) at each N = 4 n³: timesteps/s and atom-steps/s over `steps` steps after a
//     warm-up of 100 steps; the cpu backend is timed at N <= 32,000 with all threads and with one.
//  md, case "liu-sweep" (--sweep): Liu et al.'s Table 4 grid, N ∈ {8192 … 131072} × rc ∈ {2.5 …
//     4.5}σ, skin 0.5σ, 100 steps: total milliseconds, and the speedup over the cpu backend
//     (--sweep-cpu times the cpu backend on the same grid).
//  md, case "in.lj-formula" (--style custom): in.lj with LJ as a formula, beside the built-in;
//     case "formula-compile": NVRTC compile seconds of its kernels, first use and from the cache.
//  md, cases "in.lj-table-linear", "in.lj-table-spline" (--style table): in.lj with LJ as a LAMMPS
//     table (N 2000 RSQ 0.5 2.5), interpolated linear and spline.
//  rng: lrand48 draws per second: glibc's lrand48() loop, a plain 64-bit loop (pairwise's
//     sequential Rand48), the cpu backend (OpenMP leap-ahead) and cuda (kernel time).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::md {

struct MdBenchOptions {
  std::vector<std::size_t> sizes = {32000, 256000, 2048000};
  std::vector<Precision> precisions = {Precision::single, Precision::mixed};
  BackendKind backend = BackendKind::automatic;
  int steps = 0;  // 0: 2000 up to 256k atoms, 200 above
  bool compare_cpu = true;
  int sort_every = 1000;  // steps between space-filling-curve reorders
  bool sweep = false, sweep_cpu = false;
  // --style custom: case "in.lj-formula" beside "in.lj": LJ written as a formula (style = "custom",
  // examples/custom-lj.toml's), its ratio to the built-in, and the NVRTC compile times (cuda).
  bool formula = false;
  // --style table: cases "in.lj-table-linear", "-spline" beside "in.lj": LJ as a LAMMPS table
  // (N 2000 RSQ 0.5 2.5, style = "table"), its ratio to the built-in.
  bool table = false;
  std::string json_path;
};
int run_md_bench(const MdBenchOptions& o);

struct RngBenchOptions {
  std::size_t count = 100000000;
  std::string json_path;
};
int run_rng_bench(const RngBenchOptions& o);

}  // namespace pairwise::md
