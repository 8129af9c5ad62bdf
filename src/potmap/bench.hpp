// `pairwise bench potmap`: the potmap case of ../shared/BENCHMARKS.md and the paper's figures.
//   cutoff:  the map of a water box (100 Å, or --input FILE.pqr), 0.5 Å spacing over the atoms'
//            bounding box plus 0.5 Å, rc = 12 Å, exclusion 1 Å; time of the whole computation on
//            the backend (binning, summation, exclusions; no file I/O); the cpu backend's time and
//            the speedup; Table 2 errors (single, compensated, mixed) against the double reference
//            at sampled points.
//   direct:  direct summation of all atoms on a 128³ sub-lattice (32³ on the cpu): evaluations/s
//   and GFLOP/s. scaling: cutoff maps of generated water boxes from 10³ to 10⁷ Å³ (Figures 4-6),
//   backend vs cpu.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pairwise/backend.hpp"

namespace pairwise::potmap {

struct BenchOptions {
  std::string input;  // .pqr; empty: a generated 100 Å water box
  BackendKind backend = BackendKind::automatic;
  int repeats = 5;
  bool compare_cpu = true;
  bool scaling = true;
  std::vector<double> volumes = {1e3, 1e4, 1e5, 1e6, 1e7};  // Å³ of the scaling sweep
  // The cpu backend is timed up to this box volume: the 10⁷ Å³ box (985k atoms, 81 M points) takes
  // about 10 s on 16 cores, once (the GPU figure is a median of several).
  double cpu_max_volume = 1e7;
  std::string json_path;
  // End-to-end cases (bench_e2e.cpp; need an --input file): whole processes of `pairwise potmap`.
  bool e2e = true;
  bool e2e_only = false;   // skip every other case
  long e2e_frames = 1000;  // frames of the generated DCD (0: no trajectory cases)
};

int run_potmap_bench(const BenchOptions& options);

struct Atoms;
// Records one end-to-end case (name, atoms, metric, value, unit, time_s, params).
using E2eRecorder = std::function<void(const std::string&, std::size_t, const std::string&, double,
                                       const std::string&, double, nlohmann::json)>;
void run_e2e_cases(const BenchOptions& options, const Atoms& atoms, const E2eRecorder& record);

}  // namespace pairwise::potmap
